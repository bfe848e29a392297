"""The one LLM client every stage uses.

Why it looks like this:
- Any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, llama.cpp) through
  the real `openai.AsyncOpenAI`, with the SDK's own retries off so every
  retry is ours, visible and counted.
- Stages submit a batch (`run_many`) and throughput comes from bounded
  concurrency (a semaphore) rather than from threads.
- Every validated reply is committed to the SQLite cache the moment it
  arrives, so an interrupted run resumes paying only for what is missing.
- Budgets (`max_calls`, `budget_tokens`) stop cleanly: finished results are
  returned, unstarted requests come back as failures "budget exhausted",
  and the caller decides when to raise BudgetExhausted (after saving).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from kg.config import DEFAULT_MAX_TOKENS, LLMConfig, Settings
from kg.errors import BudgetExhausted, ConfigError
from kg.llm.accounting import Accounting
from kg.llm.cache import DEFAULT_CACHE_PATH, LLMCache, cache_key
from kg.llm.capabilities import CapabilityStore, EndpointProfile
from kg.llm.limits import TokenBucket
from kg.llm.structured import ReplyError, parse_reply, repair_instruction, schema_fingerprint, usable_reply
from kg.llm.transport import Transport, _Failure
from kg.llm.types import (
    BUDGET_EXHAUSTED,
    DRY_RUN,
    ENDPOINT_DOWN,
    PROMPT_TOO_LONG,
    REFUSAL,
    UNUSABLE,
    VISION_UNSUPPORTED,
    AcceptCheck,
    LLMRequest,
    LLMResult,
    Usage,
    estimate_tokens,
    has_images,
    with_changes,
    without_images,
)

log = logging.getLogger("hopgraph.llm")

MIN_REPLY_TOKENS = 64  # a reply budget below this is not worth a call

Role = Literal["generator", "verifier", "vision", "reader"]
ROLES: tuple[str, ...] = ("generator", "verifier", "vision", "reader")

__all__ = ["BUDGET_EXHAUSTED", "DRY_RUN", "ENDPOINT_DOWN", "REFUSAL", "LLMClient", "LLMRequest", "LLMResult",
           "TokenBucket", "Usage", "estimate_tokens", "open_client"]


class LLMClient:
    """See the module docstring. Construct with `LLMClient.from_settings(settings)`
    in stages; tests pass `config`, `base_url` and small backoffs directly.

    no_cache=True bypasses the cache for both reads and writes: a run that
    asks for fresh replies should not overwrite what an earlier run paid for
    with replies the user did not ask to keep.

    dry_run=True sends nothing and needs no endpoint. It still reads the
    cache (a cached reply is free and returned as usual), so its estimate is
    the cost of what is still missing; every miss is counted as one call of
    estimate_tokens(messages) in and expected_output_tokens out.

    Budgets count this client's calls; share one client across the stages of
    a run for a run-wide budget. Token budgets are checked before each
    request, so calls already in flight may overshoot by at most
    `concurrency` replies.

    One client serves one event loop at a time (run_many makes a fresh loop
    per batch and closes its connections afterwards).
    """

    def __init__(
        self,
        config: LLMConfig | None = None,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        cache: LLMCache | None = None,
        cache_path: Path | str | None = None,
        no_cache: bool = False,
        max_calls: int | None = None,
        budget_tokens: int | None = None,
        dry_run: bool = False,
        expected_output_tokens: int = 300,
        backoff_base: float = 0.5,
        backoff_max: float = 30.0,
        retry_after_max: float = 120.0,
        format_mode: Literal["auto", "json_schema", "json_object", "none"] = "auto",
        accounting: Accounting | None = None,
        capabilities: CapabilityStore | None = None,
    ) -> None:
        self.config = config or LLMConfig()
        self.base_url = base_url or self.config.base_url
        if not dry_run and not (self.base_url or api_key):
            raise ConfigError(
                "no LLM endpoint configured: set llm.base_url or OPENAI_BASE_URL (local servers) or OPENAI_API_KEY"
            )
        # Local servers (Ollama, vLLM) ignore the key, but the SDK requires one.
        self._api_key = api_key or "not-needed"
        self.no_cache = no_cache or not self.config.cache
        if self.no_cache:
            self.cache = None
        else:
            self.cache = cache or LLMCache(cache_path or DEFAULT_CACHE_PATH)
        self.dry_run = dry_run
        self.expected_output_tokens = expected_output_tokens
        self.format_preference = format_mode
        self.capabilities = capabilities
        self.accounting = accounting or Accounting(dry_run=dry_run)
        self.accounting.dry_run = self.accounting.dry_run or dry_run
        # What this run knows of the endpoint's models (format, images), from
        # earlier runs and `hopgraph llm check`, and what it learns by failing.
        self.profile = EndpointProfile(self.base_url, capabilities, format_mode)
        self.transport = Transport(
            self.config, self.base_url, self._api_key, self.accounting, self.profile,
            max_calls=max_calls, budget_tokens=budget_tokens, backoff_base=backoff_base,
            backoff_max=backoff_max, retry_after_max=retry_after_max,
            expected_output_tokens=expected_output_tokens)
        self.limiter = self.transport.limiter
        self.breaker = self.transport.breaker

    @classmethod
    def from_settings(cls, settings: Settings, **overrides: Any) -> LLMClient:
        """The client a stage uses: endpoint and key from the environment,
        cache and learned endpoint capabilities under the data dir. Keyword
        overrides win (max_calls, dry_run, ...)."""
        key = settings.llm_api_key
        data_dir = Path(settings.store.data_dir)
        kwargs: dict[str, Any] = {
            "base_url": settings.llm_base_url,
            "api_key": key.get_secret_value() if key else None,
            "cache_path": data_dir / "llm_cache.sqlite",
            "capabilities": CapabilityStore.in_dir(data_dir),
        }
        kwargs.update(overrides)
        return cls(settings.llm, **kwargs)

    # Public API ---------------------------------------------------------
    def configured_model(self, role: str) -> str | None:
        """The model the configuration names for a role."""
        if role == "generator":
            return self.config.generator_model
        if role == "verifier":
            return self.config.verifier_model
        if role == "vision":
            return self.config.vision_model
        if role == "reader":
            return self.config.reader_model or self.config.generator_model
        raise ValueError(f"unknown LLM role {role!r}; expected one of {ROLES}")

    def model_for(self, role: str) -> str | None:
        """The model to use for a role; None for the vision role once its
        model is known to read no images (stages then use captions)."""
        model = self.configured_model(role)
        if role == "vision" and model and self.profile.is_text_only(model):
            return None
        return model

    @property
    def budget_exhausted(self) -> bool:
        return self.transport.exhausted

    @property
    def max_calls(self) -> int | None:
        return self.transport.max_calls

    @property
    def endpoint_down(self) -> bool:
        """The circuit breaker opened: the endpoint stopped answering this run."""
        return self.breaker.open

    def down_message(self) -> str:
        return self.transport.down_message()

    def raise_if_exhausted(self) -> None:
        """Call after saving a batch's results: turns a reached budget into BudgetExhausted."""
        if self.transport.exhausted:
            raise BudgetExhausted(
                f"LLM budget reached ({self.transport.budget_text()}): "
                f"{self.accounting.calls} calls, {self.accounting.tokens} tokens; finished work is saved"
            )

    async def complete_json(
        self,
        task: str,
        role: str,
        messages: list[dict[str, Any]],
        schema: type[BaseModel],
        stage: str,
        prompt_version: str,
        temperature: float | None = None,
        max_tokens: int | None = None,
        accept: AcceptCheck | None = None,
    ) -> LLMResult:
        """Ask for a JSON reply validated against `schema` (and usable by
        `accept`, when given). Never raises for endpoint or reply trouble:
        the result says what went wrong."""
        base = LLMResult(None, False, task=task, stage=stage, role=role, prompt_version=prompt_version)
        try:
            return await self._complete(base, messages, schema, temperature, max_tokens, accept)
        except _Failure as f:
            return self._fail(base, f)
        except Exception as exc:  # a bug must not sink the other results of a batch
            log.exception("LLM request for %s/%s failed unexpectedly", stage, task)
            return self._fail(base, _Failure("error", f"{type(exc).__name__}: {exc}"))

    async def gather(
        self, requests: Sequence[LLMRequest | dict[str, Any]], on_result: Callable[[int, LLMResult], None] | None = None
    ) -> list[LLMResult]:
        """Run requests concurrently (bounded by the adaptive limit); results in
        request order. `on_result(index, result)` is called as each finishes."""

        async def one(i: int, req: LLMRequest | dict[str, Any]) -> LLMResult:
            r = req if isinstance(req, LLMRequest) else LLMRequest(**req)
            result = await self.complete_json(
                r.task, r.role, r.messages, r.schema, r.stage, r.prompt_version, r.temperature, r.max_tokens,
                r.accept,
            )
            if on_result is not None:
                on_result(i, result)
            return result

        return list(await asyncio.gather(*(one(i, r) for i, r in enumerate(requests))))

    def run_many(
        self, requests: Sequence[LLMRequest | dict[str, Any]], on_result: Callable[[int, LLMResult], None] | None = None
    ) -> list[LLMResult]:
        """Synchronous batch: runs `gather` on a fresh event loop and closes the
        HTTP connections after. Not callable from inside a running loop."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            pass
        else:
            raise RuntimeError("run_many() inside an event loop: use `await client.gather(...)`")

        async def main() -> list[LLMResult]:
            try:
                return await self.gather(requests, on_result)
            finally:
                await self.aclose()

        return asyncio.run(main())

    def run(self, work: Callable[[], Awaitable[Any]]) -> Any:
        """Run an async pipeline of calls (e.g. verbalize then verify, per
        chain) on a fresh loop, closing the HTTP connections after."""

        async def main() -> Any:
            try:
                return await work()
            finally:
                await self.aclose()

        return asyncio.run(main())

    async def aclose(self) -> None:
        """Close the HTTP client of the current loop (the cache stays open)."""
        await self.transport.aclose()

    def close(self) -> None:
        if self.cache is not None:
            self.cache.close()

    def __enter__(self) -> LLMClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # The request path -----------------------------------------------------
    async def _complete(
        self,
        base: LLMResult,
        messages: list[dict[str, Any]],
        schema: type[BaseModel],
        temperature: float | None,
        max_tokens: int | None,
        accept: AcceptCheck | None,
    ) -> LLMResult:
        model = self.configured_model(base.role)
        if not model:
            raise _Failure("no model", f"no model configured for role {base.role!r}")
        base.model = model
        if has_images(messages) and self.profile.is_text_only(model):
            if base.role == "vision":
                raise _Failure(VISION_UNSUPPORTED, f"{model} reads no images; the caption is used")
            messages = without_images(messages)
        temp = self.config.temperature if temperature is None else temperature
        max_tokens = max_tokens or {**DEFAULT_MAX_TOKENS, **self.config.max_tokens}.get(base.task)
        max_tokens = self._fit(messages, max_tokens)
        params = {
            "temperature": temp,
            "max_tokens": max_tokens,
            "response_format": self.format_preference,
            "schema": schema_fingerprint(schema),
        }
        key = cache_key(model, messages, params, base.prompt_version)

        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                value = usable_reply(hit.content, schema, accept)
                if value is not None:
                    self.accounting.record_cache_hit(base.stage, base.role)
                    return with_changes(base, value=value, ok=True, cached=True, content=hit.content,
                                        usage=Usage(hit.tokens_in, hit.tokens_out))
                self.cache.delete(key)  # stored under an older schema, or not usable: ask again

        if self.dry_run:
            usage = Usage(estimate_tokens(messages), self.expected_output_tokens)
            self.accounting.record_call(base.stage, base.role, usage.tokens_in, usage.tokens_out)
            return with_changes(base, error=DRY_RUN, detail="dry run: no request sent", usage=usage)

        try:
            content, value, usage, requests = await self._ask(base, model, messages, schema, temp, max_tokens)
        except _Failure as f:
            if f.reason == VISION_UNSUPPORTED and base.role != "vision":
                # The generator or verifier reads no images: the same request as text.
                return await self._complete(base, without_images(messages), schema, temperature, max_tokens, accept)
            raise
        problem = accept(value) if accept is not None else None
        if problem:
            raise _Failure(UNUSABLE, problem, usage, requests)
        if self.cache is not None:
            self.cache.put(key, content, usage.tokens_in, usage.tokens_out,
                           task=base.task, model=model, prompt_version=base.prompt_version)
        return with_changes(base, value=value, ok=True, content=content, usage=usage, requests=requests)

    async def _ask(self, base: LLMResult, model: str, messages: list[dict[str, Any]], schema: type[BaseModel],
                   temp: float, max_tokens: int | None) -> tuple[str, BaseModel, Usage, int]:
        """Send, parse, and repair once: (content, value, usage, HTTP requests)."""
        reply = await self.transport.send(base, model, messages, schema, temp, max_tokens)
        usage, requests = reply.usage, reply.requests
        if reply.refusal or not (reply.content or "").strip():
            raise _Failure(REFUSAL, reply.refusal or "empty reply", usage, requests)
        content = reply.content or ""
        try:
            return content, parse_reply(content, schema), usage, requests
        except ReplyError as first:
            # One repair: show the model its reply and what was wrong with it.
            self.accounting.record_repair(base.stage, base.role)
            repair_messages = [*messages, {"role": "assistant", "content": content},
                               {"role": "user", "content": repair_instruction(first, schema)}]
            try:
                fixed = await self.transport.send(base, model, repair_messages, schema, temp, max_tokens)
            except _Failure as f:
                raise _Failure(f.reason, f.detail, usage + f.usage, requests + f.requests) from None
            usage, requests = usage + fixed.usage, requests + fixed.requests
            if fixed.refusal or not (fixed.content or "").strip():
                raise _Failure(REFUSAL, fixed.refusal or "empty repair reply", usage, requests) from None
            content = fixed.content or ""
            try:
                return content, parse_reply(content, schema), usage, requests
            except ReplyError as second:
                raise _Failure(second.kind, f"after one repair: {second.detail}", usage, requests) from None

    # Helpers ---------------------------------------------------------------
    def _fit(self, messages: list[dict[str, Any]], max_tokens: int | None) -> int | None:
        """The reply budget that fits the configured context window: max_tokens,
        shrunk to what the prompt leaves; a prompt that leaves under MIN_REPLY_TOKENS
        is refused without sending."""
        window = self.config.context_window
        if not window:
            return max_tokens
        room = window - estimate_tokens(messages)
        if room < MIN_REPLY_TOKENS:
            raise _Failure(PROMPT_TOO_LONG, f"about {window - room} prompt tokens; context_window is {window}")
        return min(max_tokens or self.expected_output_tokens, room)

    def _fail(self, base: LLMResult, f: _Failure) -> LLMResult:
        self.accounting.record_failure(base.stage, base.role or "?", f.reason)
        return with_changes(base, error=f.reason, detail=f.detail, usage=f.usage, requests=f.requests)


def open_client(settings: Settings, **overrides: Any) -> LLMClient | None:
    """The run's client, or None when no LLM is configured (the offline path).

    A run opens one and hands it to every stage, so `max_calls` and
    `budget_tokens` are one budget for the whole run."""
    if not settings.llm_configured:
        return None
    return LLMClient.from_settings(settings, **overrides)
