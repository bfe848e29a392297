"""The HTTP side of the LLM client against the scripted OpenAI-compatible server: what one completion
does on a 429, a timeout, a 5xx, a refused format, a malformed reply, a dead endpoint and a spent budget."""

from __future__ import annotations

import asyncio
import logging

import pytest

from kg.config import LLMConfig
from kg.llm import Accounting, Keypoints
from kg.llm.capabilities import EndpointProfile
from kg.llm.transport import Transport
from kg.llm.types import BUDGET_EXHAUSTED, ENDPOINT_DOWN, LLMResult

from tests.llm_server import ScriptedLLMServer, hang, malformed, ok, rate_limited, raw, schema_unsupported, server_error, status

pytestmark = pytest.mark.timeout(60)

MESSAGES = [{"role": "user", "content": "List the key points of: the tower is 330 metres tall."}]
MODEL = "test-model"


@pytest.fixture
def server():
    with ScriptedLLMServer() as s:
        yield s


def transport(server, *, max_retries=3, timeout=5.0, breaker=5, concurrency=4, max_calls=None,
              budget_tokens=None) -> Transport:
    config = LLMConfig(max_retries=max_retries, timeout=timeout, breaker_threshold=breaker, concurrency=concurrency)
    return Transport(config, server.base_url, "test-key", Accounting(), EndpointProfile(server.base_url, None),
                     max_calls=max_calls, budget_tokens=budget_tokens, backoff_base=0.02, backoff_max=0.1,
                     retry_after_max=1.0, expected_output_tokens=100)


def send(t: Transport):
    base = LLMResult(None, False, task="keypoints", stage="ingest", role="generator")

    async def one():
        try:
            return await t.send(base, MODEL, MESSAGES, Keypoints, 0.0, None)
        finally:
            await t.aclose()

    return asyncio.run(one())


def failure(t: Transport) -> Exception:
    with pytest.raises(Exception) as info:
        send(t)
    return info.value


def test_a_429_waits_as_asked_then_succeeds_and_lowers_the_concurrency(server, caplog):
    server.script(rate_limited(retry_after=0.2), ok({"keypoints": ["The tower is 330 metres tall."]}, 40, 12))
    t = transport(server)
    with caplog.at_level(logging.INFO, logger="hopgraph.llm"):
        reply = send(t)
    assert "rate limited, retry 1 in 0.20s" in caplog.text  # the server's Retry-After, not our backoff
    assert reply.requests == 2 and "330 metres" in reply.content
    assert (reply.usage.tokens_in, reply.usage.tokens_out) == (40, 12)
    assert t.limiter.limit == 2  # halved from 4 by the overload
    assert t.accounting.of("ingest", "generator").retries == 1
    assert len(server.chat_requests) == 2


def test_a_timeout_is_retried_and_counts_toward_the_breaker(server):
    server.script(hang(3.0), ok({"keypoints": []}))
    t = transport(server, timeout=0.5)
    reply = send(t)
    assert reply.requests == 2 and reply.content == '{"keypoints": []}'
    assert not t.breaker.open


def test_timeouts_in_a_row_open_the_breaker_and_say_the_endpoint_is_down(server):
    server.script(*[hang(3.0) for _ in range(3)])
    t = transport(server, timeout=0.3, breaker=2, max_retries=5)
    error = failure(t)
    assert error.reason == ENDPOINT_DOWN
    assert server.base_url in str(error) and "timeout after 0.3 s" in str(error)
    assert len(server.chat_requests) == 2  # no third request to a dead endpoint
    assert t.accounting.of("ingest", "generator").retries == 1  # and no retry counted once it is known dead


def test_server_errors_are_retried_until_the_limit_then_fail_with_the_count(server):
    server.script(*[server_error(503) for _ in range(3)])
    error = failure(transport(server, max_retries=2))
    assert error.reason == "server error" and "gave up after 2 retries" in str(error)
    assert len(server.chat_requests) == 3


def test_a_plain_client_error_is_sent_once(server):
    server.script(status(400, "unknown parameter: foo"))
    error = failure(transport(server))
    assert error.reason == "http 400" and "unknown parameter" in str(error)
    assert len(server.chat_requests) == 1


def test_a_refused_response_format_is_dropped_and_resent_without_a_retry(server):
    server.script(schema_unsupported(), ok({"keypoints": ["A."]}))
    t = transport(server, max_retries=0)  # no retries allowed: the resend is a negotiation, not one
    reply = send(t)
    first, second = server.chat_requests
    assert first.response_format_type == "json_schema" and second.response_format_type != "json_schema"
    assert reply.requests == 2 and t.accounting.of("ingest", "generator").retries == 0


def test_a_malformed_reply_is_handed_back_as_written(server):
    server.script(malformed('{"keypoints": ["unterminated'))
    reply = send(transport(server))
    assert reply.content == '{"keypoints": ["unterminated' and reply.requests == 1


def test_a_reply_without_usage_is_estimated_so_token_budgets_still_bite(server):
    content = '{"keypoints": ["' + "x" * 400 + '"]}'
    server.script(raw(200, {"id": "c1", "object": "chat.completion", "created": 0, "model": MODEL,  # no "usage"
                            "choices": [{"index": 0, "finish_reason": "stop",
                                         "message": {"role": "assistant", "content": content}}]}))
    t = transport(server, budget_tokens=50)
    reply = send(t)
    assert reply.usage.tokens_in > 0 and reply.usage.tokens_out == len(content) // 4
    error = failure(t)  # the estimate spent the budget: the next call is not sent
    assert error.reason == BUDGET_EXHAUSTED and "budget_tokens=50" in str(error)
    assert len(server.chat_requests) == 1


def test_max_calls_stops_before_sending(server):
    server.responder = lambda body: ok({"keypoints": []})
    t = transport(server, max_calls=2)
    send(t)
    send(t)
    error = failure(t)
    assert error.reason == BUDGET_EXHAUSTED and t.exhausted and len(server.chat_requests) == 2


def test_the_legacy_httpx_openai_reads_errors_off_is_whole_before_any_call():
    """openai maps a timeout through sys.modules["httpx"] when it is loaded; spaCy imports it on
    ingest's warm-up thread, and a timeout meeting it half-imported raised AttributeError instead
    of counting toward the breaker (CI, 2026-11-25). The transport loads it whole first."""
    import subprocess
    import sys

    pytest.importorskip("httpx")  # without it openai never looks for it
    probe = ("import sys; import kg.llm.transport; m = sys.modules.get('httpx'); "
             "print('absent' if m is None else hasattr(m, 'TimeoutException') and hasattr(m, 'RequestError'))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "True", out.stderr
