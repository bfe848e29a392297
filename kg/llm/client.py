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
import email.utils
import hashlib
import json
import logging
import random
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import openai
from pydantic import BaseModel

from kg.config import LLMConfig, Settings
from kg.errors import BudgetExhausted, ConfigError
from kg.llm.accounting import Accounting
from kg.llm.cache import DEFAULT_CACHE_PATH, LLMCache, cache_key
from kg.llm.prompts import load_prompt
from kg.llm.structured import (
    FORMAT_MODES,
    TASK_SCHEMAS,
    FormatMode,
    ReplyError,
    json_schema,
    parse_reply,
    response_format,
)

log = logging.getLogger("hopgraph.llm")

Role = Literal["generator", "verifier", "vision", "reader"]
ROLES: tuple[str, ...] = ("generator", "verifier", "vision", "reader")

# Statuses worth retrying: rate limits, overload, transient server trouble.
RETRY_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504, 520, 522, 524, 529})
# Rough token cost of one image part, for estimates only (OpenAI "low" detail
# is 85, a 512px tile 170; a typical figure lands near this).
IMAGE_TOKENS_ESTIMATE = 765

BUDGET_EXHAUSTED = "budget exhausted"
DRY_RUN = "dry run"
REFUSAL = "refusal"


@dataclass
class Usage:
    tokens_in: int = 0
    tokens_out: int = 0

    @property
    def total(self) -> int:
        return self.tokens_in + self.tokens_out

    def __add__(self, other: Usage) -> Usage:
        return Usage(self.tokens_in + other.tokens_in, self.tokens_out + other.tokens_out)


@dataclass
class LLMResult:
    """The outcome of one request. `ok` is True exactly when `value` is a
    validated instance of the request's schema. `error` is a short reason
    (e.g. "refusal", "invalid json", "schema violation", "timeout",
    "rate limited", "budget exhausted", "dry run"); `detail` says more."""

    value: BaseModel | None
    ok: bool
    error: str | None = None
    detail: str = ""
    cached: bool = False
    usage: Usage = field(default_factory=Usage)
    content: str | None = None  # the raw reply text that produced `value`
    task: str = ""
    stage: str = ""
    role: str = ""
    model: str = ""
    prompt_version: str = ""
    requests: int = 0  # HTTP requests made for this result (retries and repair included)

    @property
    def budget_exhausted(self) -> bool:
        return self.error == BUDGET_EXHAUSTED


@dataclass
class LLMRequest:
    """The arguments of `complete_json`, as a value, for batches."""

    task: str
    role: str
    messages: list[dict[str, Any]]
    schema: type[BaseModel]
    stage: str
    prompt_version: str
    temperature: float | None = None
    max_tokens: int | None = None

    @classmethod
    def for_task(
        cls,
        task: str,
        role: str,
        stage: str,
        *,
        prompts_dir: Path | None = None,
        images: list[str] | None = None,
        schema: type[BaseModel] | None = None,
        temperature: float | None = None,
        **variables: Any,
    ) -> LLMRequest:
        """Render the task's prompt file (user override first) into a request."""
        prompt = load_prompt(task, prompts_dir)
        return cls(
            task=task,
            role=role,
            messages=prompt.render(images=images, **variables),
            schema=schema or TASK_SCHEMAS[task],
            stage=stage,
            prompt_version=prompt.version,
            temperature=temperature,
        )


class TokenBucket:
    """Async token bucket: `per_minute` units refill continuously; a burst of
    up to ten seconds' worth may go out at once."""

    def __init__(self, per_minute: float) -> None:
        self.rate = per_minute / 60.0
        self.capacity = max(1.0, self.rate * 10.0)
        self.tokens = self.capacity
        self.updated = time.monotonic()
        self._lock = asyncio.Lock()

    async def acquire(self, amount: float = 1.0) -> None:
        amount = min(amount, self.capacity)  # a request bigger than the bucket still goes, alone
        async with self._lock:
            while True:
                now = time.monotonic()
                self.tokens = min(self.capacity, self.tokens + (now - self.updated) * self.rate)
                self.updated = now
                if self.tokens >= amount:
                    self.tokens -= amount
                    return
                await asyncio.sleep((amount - self.tokens) / self.rate)


class _Failure(Exception):
    """Internal: a request that ended without a usable reply."""

    def __init__(self, reason: str, detail: str = "", usage: Usage | None = None, requests: int = 0) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail
        self.usage = usage or Usage()
        self.requests = requests


@dataclass
class _Reply:
    content: str | None
    refusal: str | None
    usage: Usage
    requests: int


@dataclass
class _LoopState:
    """Objects bound to one event loop (run_many runs a fresh loop per batch)."""

    loop: asyncio.AbstractEventLoop
    semaphore: asyncio.Semaphore
    rpm: TokenBucket | None
    tpm: TokenBucket | None
    api: openai.AsyncOpenAI | None = None


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
        self.max_calls = max_calls
        self.budget_tokens = budget_tokens
        self.dry_run = dry_run
        self.expected_output_tokens = expected_output_tokens
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.retry_after_max = retry_after_max
        self.format_preference = format_mode
        # The strongest response_format this client's endpoint has not rejected.
        self._mode: FormatMode = "json_schema" if format_mode == "auto" else format_mode
        self.accounting = accounting or Accounting(dry_run=dry_run)
        self.accounting.dry_run = self.accounting.dry_run or dry_run
        self._reserved_calls = 0  # successful calls plus calls in flight
        self._tokens_used = 0
        self._exhausted = False
        self._state: _LoopState | None = None

    @classmethod
    def from_settings(cls, settings: Settings, **overrides: Any) -> LLMClient:
        """The client a stage uses: endpoint and key from the environment,
        cache under the data dir. Keyword overrides win (max_calls, dry_run, ...)."""
        key = settings.llm_api_key
        kwargs: dict[str, Any] = {
            "base_url": settings.llm_base_url,
            "api_key": key.get_secret_value() if key else None,
            "cache_path": Path(settings.store.data_dir) / "llm_cache.sqlite",
        }
        kwargs.update(overrides)
        return cls(settings.llm, **kwargs)

    # Public API ---------------------------------------------------------
    def model_for(self, role: str) -> str | None:
        if role == "generator":
            return self.config.generator_model
        if role == "verifier":
            return self.config.verifier_model
        if role == "vision":
            return self.config.vision_model
        if role == "reader":
            return self.config.reader_model or self.config.generator_model
        raise ValueError(f"unknown LLM role {role!r}; expected one of {ROLES}")

    @property
    def budget_exhausted(self) -> bool:
        return self._exhausted

    def raise_if_exhausted(self) -> None:
        """Call after saving a batch's results: turns a reached budget into BudgetExhausted."""
        if self._exhausted:
            raise BudgetExhausted(
                f"LLM budget reached ({self._budget_text()}): "
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
    ) -> LLMResult:
        """Ask for a JSON reply validated against `schema`. Never raises for
        endpoint or reply trouble: the result says what went wrong."""
        base = LLMResult(None, False, task=task, stage=stage, role=role, prompt_version=prompt_version)
        try:
            return await self._complete(base, messages, schema, temperature, max_tokens)
        except _Failure as f:
            return self._fail(base, f)
        except Exception as exc:  # a bug must not sink the other results of a batch
            log.exception("LLM request for %s/%s failed unexpectedly", stage, task)
            return self._fail(base, _Failure("error", f"{type(exc).__name__}: {exc}"))

    async def gather(
        self, requests: Sequence[LLMRequest | dict[str, Any]], on_result: Callable[[int, LLMResult], None] | None = None
    ) -> list[LLMResult]:
        """Run requests concurrently (bounded by config.concurrency); results in
        request order. `on_result(index, result)` is called as each finishes."""

        async def one(i: int, req: LLMRequest | dict[str, Any]) -> LLMResult:
            r = req if isinstance(req, LLMRequest) else LLMRequest(**req)
            result = await self.complete_json(
                r.task, r.role, r.messages, r.schema, r.stage, r.prompt_version, r.temperature, r.max_tokens
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
        state = self._state
        if state is not None and state.api is not None:
            await state.api.close()
            state.api = None

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
    ) -> LLMResult:
        model = self.model_for(base.role)
        if not model:
            raise _Failure("no model", f"no model configured for role {base.role!r}")
        base.model = model
        temp = self.config.temperature if temperature is None else temperature
        params = {
            "temperature": temp,
            "max_tokens": max_tokens,
            "response_format": self.format_preference,
            "schema": _schema_fingerprint(schema),
        }
        key = cache_key(model, messages, params, base.prompt_version)

        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                try:
                    value = parse_reply(hit.content, schema)
                except ReplyError:
                    value = None  # stored under an older schema; ask again
                if value is not None:
                    self.accounting.record_cache_hit(base.stage, base.role)
                    return _with(base, value=value, ok=True, cached=True, content=hit.content,
                                 usage=Usage(hit.tokens_in, hit.tokens_out))

        if self.dry_run:
            usage = Usage(estimate_tokens(messages), self.expected_output_tokens)
            self.accounting.record_call(base.stage, base.role, usage.tokens_in, usage.tokens_out)
            return _with(base, error=DRY_RUN, detail="dry run: no request sent", usage=usage)

        reply = await self._send(base, model, messages, schema, temp, max_tokens)
        usage, requests = reply.usage, reply.requests
        if reply.refusal or not (reply.content or "").strip():
            raise _Failure(REFUSAL, reply.refusal or "empty reply", usage, requests)
        content = reply.content or ""
        try:
            value = parse_reply(content, schema)
        except ReplyError as first:
            # One repair: show the model its reply and what was wrong with it.
            self.accounting.record_repair(base.stage, base.role)
            repair_messages = [*messages, {"role": "assistant", "content": content},
                               {"role": "user", "content": _repair_instruction(first, schema)}]
            try:
                fixed = await self._send(base, model, repair_messages, schema, temp, max_tokens)
            except _Failure as f:
                raise _Failure(f.reason, f.detail, usage + f.usage, requests + f.requests) from None
            usage, requests = usage + fixed.usage, requests + fixed.requests
            if fixed.refusal or not (fixed.content or "").strip():
                raise _Failure(REFUSAL, fixed.refusal or "empty repair reply", usage, requests) from None
            content = fixed.content or ""
            try:
                value = parse_reply(content, schema)
            except ReplyError as second:
                raise _Failure(second.kind, f"after one repair: {second.detail}", usage, requests) from None

        if self.cache is not None:
            self.cache.put(key, content, usage.tokens_in, usage.tokens_out,
                           task=base.task, model=model, prompt_version=base.prompt_version)
        return _with(base, value=value, ok=True, content=content, usage=usage, requests=requests)

    async def _send(
        self,
        base: LLMResult,
        model: str,
        messages: list[dict[str, Any]],
        schema: type[BaseModel],
        temperature: float,
        max_tokens: int | None,
    ) -> _Reply:
        """One completion, retrying transient errors; raises _Failure."""
        state = self._loop_state()
        retries = 0
        requests = 0
        while True:
            wait: float | None = None
            async with state.semaphore:
                if state.rpm is not None:
                    await state.rpm.acquire(1)
                if state.tpm is not None:
                    await state.tpm.acquire(estimate_tokens(messages) + self.expected_output_tokens)
                self._reserve_call(requests)
                mode = self._mode
                kwargs: dict[str, Any] = {"model": model, "messages": messages, "temperature": temperature}
                fmt = response_format(schema, mode)
                if fmt is not None:
                    kwargs["response_format"] = fmt
                if max_tokens is not None:
                    kwargs["max_tokens"] = max_tokens
                succeeded = False
                try:
                    requests += 1
                    resp = await self._api(state).chat.completions.create(**kwargs)
                    succeeded = True
                except openai.APIStatusError as exc:
                    if exc.status_code in (400, 422) and _is_format_rejection(exc) and mode != "none":
                        self._downgrade(mode)
                        self.accounting.record_retry(base.stage, base.role)
                        continue
                    if exc.status_code not in RETRY_STATUSES or retries >= self.config.max_retries:
                        detail = _error_text(exc) + (f" (gave up after {retries} retries)" if retries else "")
                        raise _Failure(_status_reason(exc.status_code), detail, requests=requests) from None
                    wait = _retry_after(exc)
                    wait = min(wait, self.retry_after_max) if wait is not None else self._backoff(retries)
                    log.info("LLM %s/%s: HTTP %s, retry %d in %.2fs", base.stage, base.task, exc.status_code, retries + 1, wait)
                except openai.APIConnectionError as exc:  # includes APITimeoutError
                    reason = "timeout" if isinstance(exc, openai.APITimeoutError) else "connection error"
                    if retries >= self.config.max_retries:
                        raise _Failure(reason, f"gave up after {retries} retries: {exc}", requests=requests) from None
                    wait = self._backoff(retries)
                    log.info("LLM %s/%s: %s, retry %d in %.2fs", base.stage, base.task, reason, retries + 1, wait)
                finally:
                    if not succeeded:
                        self._reserved_calls -= 1
            if wait is None:
                break
            retries += 1
            self.accounting.record_retry(base.stage, base.role)
            await asyncio.sleep(wait)

        message = resp.choices[0].message if resp.choices else None
        content = message.content if message is not None else None
        refusal = getattr(message, "refusal", None) if message is not None else None
        if resp.usage is not None:
            usage = Usage(resp.usage.prompt_tokens or 0, resp.usage.completion_tokens or 0)
        else:  # some local servers report nothing; estimate so token budgets still bite
            usage = Usage(estimate_tokens(messages), len(content or "") // 4)
        self._tokens_used += usage.total
        self.accounting.record_call(base.stage, base.role, usage.tokens_in, usage.tokens_out)
        return _Reply(content, refusal, usage, requests)

    # Helpers ---------------------------------------------------------------
    def _reserve_call(self, requests: int) -> None:
        """Claim one call of the budget before sending; released if it fails."""
        over_calls = self.max_calls is not None and self._reserved_calls >= self.max_calls
        over_tokens = self.budget_tokens is not None and self._tokens_used >= self.budget_tokens
        if self._exhausted or over_calls or over_tokens:
            self._exhausted = True
            raise _Failure(BUDGET_EXHAUSTED, self._budget_text(), requests=requests)
        self._reserved_calls += 1

    def _budget_text(self) -> str:
        parts = []
        if self.max_calls is not None:
            parts.append(f"max_calls={self.max_calls}")
        if self.budget_tokens is not None:
            parts.append(f"budget_tokens={self.budget_tokens}")
        return ", ".join(parts) or "no limit"

    def _downgrade(self, rejected: FormatMode) -> None:
        """The endpoint refused `rejected`: use the next weaker format from now on."""
        if self._mode == rejected:
            self._mode = FORMAT_MODES[FORMAT_MODES.index(rejected) + 1]
            log.warning("endpoint %s rejected response_format %s; using %s", self.base_url, rejected, self._mode)

    def _backoff(self, retries: int) -> float:
        """Exponential backoff with jitter: half fixed, half random."""
        delay = min(self.backoff_max, self.backoff_base * (2**retries))
        return delay / 2 + random.random() * delay / 2

    def _loop_state(self) -> _LoopState:
        loop = asyncio.get_running_loop()
        if self._state is None or self._state.loop is not loop:
            self._state = _LoopState(
                loop=loop,
                semaphore=asyncio.Semaphore(self.config.concurrency),
                rpm=TokenBucket(self.config.requests_per_minute) if self.config.requests_per_minute else None,
                tpm=TokenBucket(self.config.tokens_per_minute) if self.config.tokens_per_minute else None,
            )
        return self._state

    def _api(self, state: _LoopState) -> openai.AsyncOpenAI:
        if state.api is None:
            state.api = openai.AsyncOpenAI(
                base_url=self.base_url,
                api_key=self._api_key,
                timeout=self.config.timeout,
                max_retries=0,  # ours are the only retries, so they are counted
            )
        return state.api

    def _fail(self, base: LLMResult, f: _Failure) -> LLMResult:
        self.accounting.record_failure(base.stage, base.role or "?", f.reason)
        return _with(base, error=f.reason, detail=f.detail, usage=f.usage, requests=f.requests)


def open_client(settings: Settings, **overrides: Any) -> LLMClient | None:
    """The run's client, or None when no LLM is configured (the offline path).

    A run opens one and hands it to every stage, so `max_calls` and
    `budget_tokens` are one budget for the whole run."""
    if not settings.llm_configured:
        return None
    return LLMClient.from_settings(settings, **overrides)


def estimate_tokens(messages: list[dict[str, Any]]) -> int:
    """chars/4 of the text parts, plus a flat cost per image part."""
    chars = 0
    images = 0
    for m in messages:
        content = m.get("content")
        if isinstance(content, str):
            chars += len(content)
        elif isinstance(content, list):
            for part in content:
                if part.get("type") == "text":
                    chars += len(part.get("text", ""))
                elif part.get("type") == "image_url":
                    images += 1
    return chars // 4 + images * IMAGE_TOKENS_ESTIMATE


def _with(base: LLMResult, **changes: Any) -> LLMResult:
    return LLMResult(**{**base.__dict__, **changes})


@lru_cache(maxsize=256)
def _schema_fingerprint(schema: type[BaseModel]) -> str:
    text = json.dumps(json_schema(schema), sort_keys=True)
    return f"{schema.__name__}:{hashlib.sha256(text.encode()).hexdigest()[:12]}"


def _repair_instruction(error: ReplyError, schema: type[BaseModel]) -> str:
    return (
        f"Your previous reply could not be used ({error.kind}: {error.detail}).\n"
        "Reply again with only the corrected JSON object, no explanation and no code fence. "
        f"It must match this JSON schema:\n{json.dumps(json_schema(schema), separators=(',', ':'))}"
    )


def _is_format_rejection(exc: openai.APIStatusError) -> bool:
    text = (_error_text(exc) + " " + json.dumps(exc.body, default=str)).lower()
    return any(w in text for w in ("response_format", "json_schema", "json_object", "structured output", "guided"))


def _error_text(exc: openai.APIStatusError) -> str:
    return getattr(exc, "message", None) or str(exc)


def _status_reason(status: int) -> str:
    if status == 429:
        return "rate limited"
    if status >= 500:
        return "server error"
    return f"http {status}"


def _retry_after(exc: openai.APIStatusError) -> float | None:
    """Seconds the server asked us to wait (retry-after-ms or Retry-After)."""
    headers = exc.response.headers if exc.response is not None else {}
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        parsed = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, parsed.timestamp() - time.time())
