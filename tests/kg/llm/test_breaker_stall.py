"""An endpoint that accepts connections and never answers stops a run like a
closed port does: read timeouts count toward the circuit breaker, and a run
with no answer for [llm] stall_seconds stops at its next failure."""

from __future__ import annotations

import time

import pytest

from kg.config import LLMConfig
from kg.llm import Keypoints, LLMClient, LLMRequest
from tests.hang_server import HangingServer

pytestmark = pytest.mark.timeout(60)


def req(i: int) -> LLMRequest:
    return LLMRequest("keypoints", "generator", [{"role": "user", "content": f"passage {i}"}], Keypoints,
                      "keypoints", "v1")


def test_timeouts_in_a_row_open_the_breaker(tmp_path):
    with HangingServer() as server:
        cfg = LLMConfig(concurrency=2, timeout=0.3, max_retries=6, breaker_threshold=3)
        client = LLMClient(cfg, base_url=server.base_url, cache_path=tmp_path / "c.sqlite", backoff_base=0.05)
        start = time.monotonic()
        results = client.run_many([req(i) for i in range(20)])
        took = time.monotonic() - start
    assert client.endpoint_down
    assert sum(r.error == "endpoint down" for r in results) >= 15  # not each retried 6 times
    assert took < 6.0, took  # 20 calls x 7 attempts x 0.3 s would be 42 s
    assert "3 requests in a row got no answer" in client.down_message()
    assert "timeout" in client.down_message()


def test_no_answer_for_stall_seconds_opens_the_breaker(tmp_path):
    with HangingServer() as server:
        cfg = LLMConfig(concurrency=1, timeout=0.4, max_retries=50, breaker_threshold=1000, stall_seconds=1.5)
        client = LLMClient(cfg, base_url=server.base_url, cache_path=tmp_path / "c.sqlite", backoff_base=0.05)
        start = time.monotonic()
        results = client.run_many([req(i) for i in range(3)])
        took = time.monotonic() - start
    assert client.endpoint_down
    assert all(not r.ok for r in results)
    assert 1.5 <= took < 5.0, took
    assert "no answer for" in client.down_message()


def test_the_stall_clock_runs_only_while_requests_wait():
    from kg.llm.limits import CircuitBreaker

    breaker = CircuitBreaker(threshold=100, stall_seconds=0.2)
    breaker.on_send()
    time.sleep(0.25)
    breaker.on_answer()
    time.sleep(0.25)  # the run computes between calls: not silence
    breaker.on_send()
    breaker.on_connection_failure("connection reset")
    assert not breaker.open
    time.sleep(0.25)
    breaker.on_send()  # a retry: the clock runs from the first unanswered request
    breaker.on_connection_failure("timeout")
    assert breaker.open and breaker.cause.startswith("no answer for")
