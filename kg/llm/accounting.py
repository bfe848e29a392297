"""What the LLM cost, per (stage, role): the numbers a run manifest records
and the CLI prints, so a user can see where calls and tokens went.

Definitions (exact, tests rely on them):
- calls: HTTP requests that returned a completion (2xx); these are billed.
  A repair request counts as a call too.
- tokens_in / tokens_out: usage reported by those calls (estimated when the
  endpoint reports none).
- cache_hits: results served from the cache (no request).
- failures: results that ended without a valid value, by reason.
- retries: requests re-sent after a transient error (429, 5xx, timeout,
  connection error) or a response_format rejection.
- repairs: repair requests sent after an invalid reply.
In dry-run mode `calls` and tokens are estimates and `dry_run` is True.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any


@dataclass
class StageStats:
    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cache_hits: int = 0
    retries: int = 0
    repairs: int = 0
    failures: Counter[str] = field(default_factory=Counter)

    @property
    def failed(self) -> int:
        return sum(self.failures.values())

    def add(self, other: StageStats) -> None:
        self.calls += other.calls
        self.tokens_in += other.tokens_in
        self.tokens_out += other.tokens_out
        self.cache_hits += other.cache_hits
        self.retries += other.retries
        self.repairs += other.repairs
        self.failures.update(other.failures)

    def to_dict(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "tokens_in": self.tokens_in,
            "tokens_out": self.tokens_out,
            "cache_hits": self.cache_hits,
            "retries": self.retries,
            "repairs": self.repairs,
            "failures": self.failed,
            "failure_reasons": dict(self.failures),
        }


class Accounting:
    """Counters keyed by (stage, role). Updated from the client's event loop only."""

    def __init__(self, *, dry_run: bool = False) -> None:
        self.dry_run = dry_run
        self.stats: dict[tuple[str, str], StageStats] = {}

    def of(self, stage: str, role: str) -> StageStats:
        key = (stage, role)
        if key not in self.stats:
            self.stats[key] = StageStats()
        return self.stats[key]

    # Recording -------------------------------------------------------
    def record_call(self, stage: str, role: str, tokens_in: int, tokens_out: int) -> None:
        s = self.of(stage, role)
        s.calls += 1
        s.tokens_in += tokens_in
        s.tokens_out += tokens_out

    def record_cache_hit(self, stage: str, role: str) -> None:
        self.of(stage, role).cache_hits += 1

    def record_failure(self, stage: str, role: str, reason: str) -> None:
        self.of(stage, role).failures[reason] += 1

    def record_retry(self, stage: str, role: str) -> None:
        self.of(stage, role).retries += 1

    def record_repair(self, stage: str, role: str) -> None:
        self.of(stage, role).repairs += 1

    # Reading ---------------------------------------------------------
    def total(self) -> StageStats:
        out = StageStats()
        for s in self.stats.values():
            out.add(s)
        return out

    @property
    def calls(self) -> int:
        return sum(s.calls for s in self.stats.values())

    @property
    def tokens(self) -> int:
        return sum(s.tokens_in + s.tokens_out for s in self.stats.values())

    def merge(self, other: Accounting) -> Accounting:
        """Add another run's counters into this one (returns self)."""
        for (stage, role), s in other.stats.items():
            self.of(stage, role).add(s)
        self.dry_run = self.dry_run or other.dry_run
        return self

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: {"dry_run", "stages": {"stage/role": {...}}, "total": {...}}."""
        return {
            "dry_run": self.dry_run,
            "stages": {f"{stage}/{role}": s.to_dict() for (stage, role), s in sorted(self.stats.items())},
            "total": self.total().to_dict(),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Accounting:
        acc = cls(dry_run=bool(data.get("dry_run", False)))
        for name, d in data.get("stages", {}).items():
            stage, _, role = name.partition("/")
            s = acc.of(stage, role)
            for attr in ("calls", "tokens_in", "tokens_out", "cache_hits", "retries", "repairs"):
                setattr(s, attr, int(d.get(attr, 0)))
            s.failures.update(d.get("failure_reasons", {}))
        return acc

    def table(self) -> str:
        """Plain-text table, one line per (stage, role) and a total line."""
        header = ("stage", "role", "calls", "tokens_in", "tokens_out", "cache_hits", "retries", "failures")
        rows = [
            (stage, role, s.calls, s.tokens_in, s.tokens_out, s.cache_hits, s.retries, _failures(s))
            for (stage, role), s in sorted(self.stats.items())
        ]
        t = self.total()
        rows.append(("total", "", t.calls, t.tokens_in, t.tokens_out, t.cache_hits, t.retries, _failures(t)))
        cells = [tuple(str(c) for c in header)] + [tuple(str(c) for c in r) for r in rows]
        widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
        lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in cells]
        if self.dry_run:
            lines.insert(0, "LLM usage (dry run: estimated, no requests sent)")
        return "\n".join(lines)

    def rich_table(self) -> Any:
        """The same as a rich.table.Table, for the CLI."""
        from rich.table import Table

        title = "LLM usage (dry run, estimated)" if self.dry_run else "LLM usage"
        table = Table(title=title)
        for col in ("stage", "role", "calls", "tokens in", "tokens out", "cache hits", "retries", "failures"):
            table.add_column(col, justify="left" if col in ("stage", "role", "failures") else "right")
        for (stage, role), s in sorted(self.stats.items()):
            table.add_row(stage, role, *(str(v) for v in _numbers(s)), _failures(s))
        t = self.total()
        table.add_row("total", "", *(str(v) for v in _numbers(t)), _failures(t), style="bold")
        return table


def _numbers(s: StageStats) -> tuple[int, ...]:
    return (s.calls, s.tokens_in, s.tokens_out, s.cache_hits, s.retries)


def _failures(s: StageStats) -> str:
    if not s.failures:
        return "0"
    detail = ", ".join(f"{reason}: {n}" for reason, n in s.failures.most_common())
    return f"{s.failed} ({detail})"
