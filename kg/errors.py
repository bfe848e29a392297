"""Errors a user can act on. The CLI prints their message as one line, no traceback."""


class HopgraphError(Exception):
    """Base for errors shown to the user as a single line."""


class ConfigError(HopgraphError):
    pass


class StoreError(HopgraphError):
    pass


class BudgetExhausted(HopgraphError):
    """--max-calls or --budget-tokens reached: stop cleanly, keep the work done."""


class LLMUnavailable(HopgraphError):
    """Every call of a round failed (endpoint down, refusing, or misconfigured)."""
