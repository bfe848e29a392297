"""The HTTP side of the LLM client: one completion with its retries.

What happens to an error is decided by its class (kg.llm.classify), not its
status code: a refused response_format downgrades and resends at once; a
model that reads no images is remembered as text-only; a deterministic
rejection or a prompt too long fails at once; overload and transient
trouble are retried with backoff (or the server's Retry-After), and
overload (429/503/timeouts) halves the adaptive concurrency limit. Connection
failures and read timeouts feed a circuit breaker: once it opens, every queued call fails at
once with "endpoint down" instead of retrying against a dead port.
"""

from __future__ import annotations

import asyncio
import logging
import random
from dataclasses import dataclass
from typing import Any

import openai
from pydantic import BaseModel

# openai reads its errors' types off sys.modules["httpx"] (the legacy httpx) whenever that is
# loaded. spaCy imports it on ingest's warm-up thread; a timeout that met it half-imported there
# raised AttributeError ("partially initialized module 'httpx'") instead of counting toward the
# breaker. Imported whole here, before any thread starts.
try:
    import httpx  # noqa: F401
except ImportError:  # not installed: openai never looks for it
    pass

from kg.config import LLMConfig
from kg.llm.accounting import Accounting
from kg.llm.capabilities import EndpointProfile
from kg.llm.classify import classify_api_error, error_text, retry_after, status_reason
from kg.llm.limits import AdaptiveLimiter, CircuitBreaker, TokenBucket
from kg.llm.structured import response_format
from kg.llm.types import BUDGET_EXHAUSTED, ENDPOINT_DOWN, VISION_UNSUPPORTED, LLMResult, Usage, estimate_tokens, has_images

log = logging.getLogger("hopgraph.llm")


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
class _Retry:
    """An attempt that may succeed if sent again: why, and how long to wait
    (None: exponential backoff; 0 with again=True: resend at once, uncounted)."""

    reason: str
    detail: str
    wait: float | None = None
    again: bool = False


@dataclass
class _LoopState:
    """Objects bound to one event loop (run_many runs a fresh loop per batch)."""

    loop: asyncio.AbstractEventLoop
    rpm: TokenBucket | None
    tpm: TokenBucket | None
    api: openai.AsyncOpenAI | None = None


class Transport:
    """Sends completions for one LLMClient; owns its HTTP client, limits and budget."""

    def __init__(self, config: LLMConfig, base_url: str | None, api_key: str, accounting: Accounting,
                 profile: EndpointProfile, *, max_calls: int | None, budget_tokens: int | None,
                 backoff_base: float, backoff_max: float, retry_after_max: float,
                 expected_output_tokens: int) -> None:
        self.config = config
        self.base_url = base_url
        self._api_key = api_key
        self.accounting = accounting
        self.profile = profile
        self.max_calls = max_calls
        self.budget_tokens = budget_tokens
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.retry_after_max = retry_after_max
        self.expected_output_tokens = expected_output_tokens
        self._reserved_calls = 0  # successful calls plus calls in flight
        self._tokens_used = 0
        self.exhausted = False
        self._state: _LoopState | None = None
        start = profile.slots(config.generator_model) or config.concurrency
        self.limiter = AdaptiveLimiter(start, config.concurrency)
        self.breaker = CircuitBreaker(config.breaker_threshold, config.stall_seconds)

    def down_message(self) -> str:
        return (f"the LLM endpoint {self.base_url or '(default)'} stopped answering "
                f"({self.breaker.cause or 'no answer'}; last: {self.breaker.last_error}); "
                "work done is saved: start the server (check it with `hopgraph llm check`) and re-run")

    async def send(
        self,
        base: LLMResult,
        model: str,
        messages: list[dict[str, Any]],
        schema: type[BaseModel],
        temperature: float,
        max_tokens: int | None,
    ) -> _Reply:
        """One completion, retrying what may pass on a retry; raises _Failure."""
        state = self._loop_state()
        retries = 0
        requests = 0
        while True:
            async with self.limiter:
                # Checked after the wait for a slot: what the calls ahead of
                # this one learned (endpoint gone, model text-only) applies.
                if self.breaker.open:
                    raise _Failure(ENDPOINT_DOWN, self.down_message(), requests=requests)
                if has_images(messages) and self.profile.is_text_only(model):
                    raise _Failure(VISION_UNSUPPORTED, f"{model} reads no images", requests=requests)
                if state.rpm is not None:
                    await state.rpm.acquire(1)
                if state.tpm is not None:
                    await state.tpm.acquire(estimate_tokens(messages) + (max_tokens or self.expected_output_tokens))
                self._reserve_call(requests)
                self.breaker.on_send()
                requests += 1
                outcome = await self._attempt(state, base, model, messages, schema, temperature, max_tokens)
            if not isinstance(outcome, _Retry):
                break
            if outcome.again:
                continue
            if retries >= self.config.max_retries:
                detail = outcome.detail + (f" (gave up after {retries} retries)" if retries else "")
                raise _Failure(outcome.reason, detail, requests=requests)
            if self.breaker.open:
                raise _Failure(ENDPOINT_DOWN, self.down_message(), requests=requests)
            wait = outcome.wait if outcome.wait is not None else self._backoff(retries)
            log.info("LLM %s/%s: %s, retry %d in %.2fs", base.stage, base.task, outcome.reason, retries + 1, wait)
            retries += 1
            self.accounting.record_retry(base.stage, base.role)
            await asyncio.sleep(wait)

        resp = outcome
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

    async def _attempt(self, state: _LoopState, base: LLMResult, model: str, messages: list[dict[str, Any]],
                       schema: type[BaseModel], temperature: float, max_tokens: int | None) -> Any:
        """One HTTP request: the response, or a _Retry; raises _Failure for
        what no retry can fix (see kg.llm.classify)."""
        mode = self.profile.mode_for(model)
        kwargs: dict[str, Any] = {"model": model, "messages": messages, "temperature": temperature}
        fmt = response_format(schema, mode)
        if fmt is not None:
            kwargs["response_format"] = fmt
        if max_tokens is not None:
            kwargs["max_tokens"] = max_tokens
        try:
            resp = await self._api(state).chat.completions.create(**kwargs)
        except openai.APIStatusError as exc:
            self._reserved_calls -= 1
            self.breaker.on_answer()
            error_class = classify_api_error(exc, has_images(messages), fmt is not None)
            text = error_text(exc)[:300]
            if error_class == "format":
                self.profile.downgrade(model, mode)  # a negotiation, not a retry: not counted as one
                return _Retry("format rejected", text, again=True)
            if error_class == "vision":
                self.profile.mark_text_only(model, text)
                raise _Failure(VISION_UNSUPPORTED, text)
            if error_class in ("rejected", "context"):
                raise _Failure(status_reason(exc.status_code, error_class), text)
            if error_class == "overloaded":
                self.limiter.on_overload()
            wait = retry_after(exc)
            return _Retry(status_reason(exc.status_code, error_class), text,
                          min(wait, self.retry_after_max) if wait is not None else None)
        except openai.APITimeoutError as exc:
            self._reserved_calls -= 1
            self.limiter.on_overload()  # a server that cannot answer in time has too much to do
            # ... or has stopped answering (a stuck server or proxy): the breaker counts it.
            self.breaker.on_connection_failure(f"timeout after {self.config.timeout:g} s")
            return _Retry("timeout", str(exc))
        except openai.APIConnectionError as exc:
            self._reserved_calls -= 1
            self.breaker.on_connection_failure(f"{exc}: {exc.__cause__}" if exc.__cause__ else str(exc))
            return _Retry("connection error", str(exc))
        self.breaker.on_answer()
        self.limiter.on_success()
        return resp

    def _reserve_call(self, requests: int) -> None:
        """Claim one call of the budget before sending; released if it fails."""
        over_calls = self.max_calls is not None and self._reserved_calls >= self.max_calls
        over_tokens = self.budget_tokens is not None and self._tokens_used >= self.budget_tokens
        if self.exhausted or over_calls or over_tokens:
            self.exhausted = True
            raise _Failure(BUDGET_EXHAUSTED, self.budget_text(), requests=requests)
        self._reserved_calls += 1

    def budget_text(self) -> str:
        parts = []
        if self.max_calls is not None:
            parts.append(f"max_calls={self.max_calls}")
        if self.budget_tokens is not None:
            parts.append(f"budget_tokens={self.budget_tokens}")
        return ", ".join(parts) or "no limit"

    def _backoff(self, retries: int) -> float:
        """Exponential backoff with jitter: half fixed, half random."""
        delay = min(self.backoff_max, self.backoff_base * (2**retries))
        return delay / 2 + random.random() * delay / 2

    def _loop_state(self) -> _LoopState:
        loop = asyncio.get_running_loop()
        if self._state is None or self._state.loop is not loop:
            self.limiter.rebind()
            self._state = _LoopState(
                loop=loop,
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

    async def aclose(self) -> None:
        """Close the HTTP client of the current loop."""
        state = self._state
        if state is not None and state.api is not None:
            await state.api.close()
            state.api = None
