"""LLMClient against the scripted OpenAI-compatible server, through the real openai SDK."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from kg.config import LLMConfig, Settings
from kg.errors import BudgetExhausted, ConfigError
from kg.llm import (
    Accounting,
    ChainVerification,
    Keypoints,
    LLMClient,
    LLMRequest,
    extract_json,
    parse_reply,
)
from kg.llm.classify import retry_after as _retry_after
from kg.llm.client import TokenBucket, estimate_tokens
from kg.llm.structured import ReplyError

from tests.llm_server import (
    ScriptedLLMServer,
    empty,
    fenced,
    hang,
    malformed,
    ok,
    rate_limited,
    refusal,
    server_error,
    status,
    text_around,
)

pytestmark = pytest.mark.timeout(60)

KP = {"keypoints": ["The Eiffel Tower is 330 metres tall."]}


@pytest.fixture
def server():
    with ScriptedLLMServer() as s:
        yield s


@pytest.fixture
def make_client(server, tmp_path):
    def make(**kw) -> LLMClient:
        cfg = kw.pop("config", None) or LLMConfig(concurrency=kw.pop("concurrency", 4), timeout=kw.pop("timeout", 5.0),
                                                  max_retries=kw.pop("max_retries", 4))
        kw.setdefault("base_url", server.base_url)
        kw.setdefault("cache_path", tmp_path / "llm_cache.sqlite")
        kw.setdefault("backoff_base", 0.05)
        return LLMClient(cfg, **kw)

    return make


def req(i: int = 0, stage: str = "keypoints", role: str = "generator", schema=Keypoints, **kw) -> LLMRequest:
    return LLMRequest("keypoints", role, [{"role": "user", "content": f"passage {i}"}], schema, stage, "v1", **kw)


# Retries -------------------------------------------------------------------

def test_429_honours_retry_after(server, make_client):
    server.script(rate_limited(retry_after=0.4), ok(KP))
    client = make_client()
    t0 = time.monotonic()
    [res] = client.run_many([req()])
    elapsed = time.monotonic() - t0
    assert res.ok and res.value.keypoints == KP["keypoints"]
    assert elapsed >= 0.4
    assert len(server.requests) == 2 and res.requests == 2
    stats = client.accounting.of("keypoints", "generator")
    assert (stats.calls, stats.retries, stats.failed) == (1, 1, 0)


def test_retry_after_header_forms():
    import httpx2
    import openai

    def exc(headers):
        request = httpx2.Request("POST", "http://x/v1/chat/completions")
        return openai.RateLimitError("slow", response=httpx2.Response(429, headers=headers, request=request), body=None)

    assert _retry_after(exc({"retry-after": "2"})) == 2.0
    assert _retry_after(exc({"retry-after-ms": "250"})) == 0.25
    assert _retry_after(exc({})) is None
    future = time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(time.time() + 30))
    assert 25 <= _retry_after(exc({"retry-after": future})) <= 31


def test_5xx_retried_with_backoff(server, make_client):
    server.script(server_error(500), server_error(503), ok(KP))
    client = make_client()
    [res] = client.run_many([req()])
    assert res.ok
    assert len(server.requests) == 3
    assert client.accounting.of("keypoints", "generator").retries == 2


def test_timeout_retried(server, make_client):
    server.script(hang(3.0), ok(KP))
    client = make_client(timeout=0.3)
    t0 = time.monotonic()
    [res] = client.run_many([req()])
    assert res.ok
    assert 0.3 <= time.monotonic() - t0 < 2.5
    assert len(server.requests) == 2
    assert client.accounting.of("keypoints", "generator").retries == 1


def test_gives_up_after_max_retries(server, make_client):
    server.script(rate_limited(0.01), rate_limited(0.01), rate_limited(0.01))
    client = make_client(max_retries=2)
    [res] = client.run_many([req()])
    assert not res.ok and res.error == "rate limited"
    assert len(server.requests) == 3
    stats = client.accounting.of("keypoints", "generator")
    assert (stats.calls, stats.retries, dict(stats.failures)) == (0, 2, {"rate limited": 1})


def test_timeouts_exhaust_retries(server, make_client):
    server.script(hang(3.0), hang(3.0))
    client = make_client(timeout=0.2, max_retries=1)
    [res] = client.run_many([req()])
    assert res.error == "timeout"


def test_connection_error_is_a_failure_not_a_crash(make_client):
    client = make_client(base_url="http://127.0.0.1:9/v1", max_retries=1)
    [res] = client.run_many([req()])
    assert res.error == "connection error"


def test_client_error_not_retried(server, make_client):
    server.script(status(401, "bad key"))
    client = make_client()
    [res] = client.run_many([req()])
    assert res.error == "http 401" and "bad key" in res.detail
    assert len(server.requests) == 1


# Replies -------------------------------------------------------------------

def test_fenced_and_text_around_json(server, make_client):
    server.script(fenced(KP), text_around(KP))
    client = make_client(concurrency=1)
    results = client.run_many([req(1), req(2)])
    assert all(r.ok and r.value.keypoints == KP["keypoints"] for r in results)
    assert len(server.requests) == 2


def test_malformed_then_repaired(server, make_client):
    server.script(malformed(), ok(KP))
    client = make_client()
    [res] = client.run_many([req()])
    assert res.ok and res.requests == 2
    repair = server.requests[1].messages
    assert repair[-2] == {"role": "assistant", "content": '{"keypoints": ["unterminated'}
    assert "invalid json" in repair[-1]["content"] and "keypoints" in repair[-1]["content"]
    stats = client.accounting.of("keypoints", "generator")
    assert (stats.calls, stats.repairs, stats.failed) == (2, 1, 0)
    # The repaired reply is cached under the original request.
    [again] = make_client().run_many([req()])
    assert again.cached and len(server.requests) == 2


def test_schema_violation_after_repair_is_recorded_and_not_cached(server, make_client):
    server.script(ok({"facts": ["x"]}), ok({"keypoints": "not a list"}))
    client = make_client()
    [res] = client.run_many([req()])
    assert not res.ok and res.error == "schema violation" and res.value is None
    assert dict(client.accounting.of("keypoints", "generator").failures) == {"schema violation": 1}
    server.script(ok(KP))
    [again] = make_client().run_many([req()])
    assert again.ok and not again.cached
    assert len(server.requests) == 3


def test_refusal_and_empty_reply(server, make_client):
    server.script(refusal(), empty())
    client = make_client(concurrency=1)
    results = client.run_many([req(1), req(2)])
    assert [r.error for r in results] == ["refusal", "refusal"]
    assert "sorry" in results[0].detail
    assert client.accounting.of("keypoints", "generator").failures["refusal"] == 2
    assert len(server.requests) == 2  # a refusal is not repaired


def test_json_schema_rejection_falls_back_to_json_mode(server, make_client):
    server.supports_json_schema = False
    server.responder = lambda body: ok(KP)
    client = make_client(concurrency=1)
    results = client.run_many([req(1), req(2)])
    assert all(r.ok for r in results)
    kinds = [r.response_format_type for r in server.requests]
    # First request learns the endpoint's limit; the second goes straight to JSON mode.
    assert kinds == ["json_schema", "json_object", "json_object"]
    assert server.requests[0].body["response_format"]["json_schema"]["name"] == "Keypoints"


def test_json_mode_rejection_falls_back_to_plain_text(server, make_client):
    server.supports_json_schema = False
    server.supports_json_object = False
    server.responder = lambda body: fenced(KP)
    client = make_client(concurrency=1)
    results = client.run_many([req(1), req(2)])
    assert all(r.ok for r in results)
    # json_schema, then JSON mode with the schema attached, then plain JSON mode, then none
    assert [r.response_format_type for r in server.requests] == ["json_schema", "json_object", "json_object", None, None]
    assert "schema" in server.requests[1].body["response_format"] and "schema" not in server.requests[2].body["response_format"]


def test_image_parts_reach_the_server(server, make_client):
    server.responder = lambda body: ok({"description": "Bar chart of defect rates per tool."})
    client = make_client(config=LLMConfig(vision_model="vlm-small"))
    image = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
    request = LLMRequest.for_task("describe_image", "vision", "images", images=[image],
                                  caption="Figure 2: defect rates", nearby_text="", title="Litho report")
    [res] = client.run_many([request])
    assert res.ok and res.value.description.startswith("Bar chart")
    [seen] = server.requests
    assert seen.has_image and seen.model == "vlm-small" and seen.has_json_schema
    assert seen.messages[-1]["content"][1]["image_url"]["url"] == image


def test_role_without_model_fails_cleanly(server, make_client):
    client = make_client()  # vision_model unset
    [res] = client.run_many([req(role="vision")])
    assert res.error == "no model" and not server.requests


def test_models_per_role(server, make_client):
    server.responder = lambda body: ok(KP)
    client = make_client(config=LLMConfig(generator_model="gen-m", verifier_model="ver-m"))
    client.run_many([req(1, role="generator"), req(2, role="verifier")])
    assert sorted(r.model for r in server.requests) == ["gen-m", "ver-m"]
    with pytest.raises(ValueError):
        client.model_for("writer")


# Accounting and budgets ------------------------------------------------------

def test_accounting_figures_exact(server, make_client):
    client = make_client(concurrency=1)
    server.script(ok(KP, 100, 10), ok(KP, 200, 20))
    client.run_many([req(1, stage="keypoints"), req(2, stage="keypoints")])
    server.script(rate_limited(0.01), ok({"answerable_without": [False, False], "single_item_answers": False,
                                          "faithful": True, "standalone": True, "closed_book_answerable": False},
                                         50, 5))
    client.run_many([req(3, stage="verify", role="verifier", schema=ChainVerification)])
    server.script(refusal(prompt_tokens=8, completion_tokens=2))
    client.run_many([req(4, stage="verify", role="verifier", schema=ChainVerification)])
    client.run_many([req(1, stage="keypoints")])  # cache hit

    d = client.accounting.to_dict()
    assert d["stages"]["keypoints/generator"] == {
        "calls": 2, "tokens_in": 300, "tokens_out": 30, "cache_hits": 1, "retries": 0, "repairs": 0,
        "failures": 0, "failure_reasons": {},
    }
    assert d["stages"]["verify/verifier"] == {
        "calls": 2, "tokens_in": 58, "tokens_out": 7, "cache_hits": 0, "retries": 1, "repairs": 0,
        "failures": 1, "failure_reasons": {"refusal": 1},
    }
    assert d["total"]["calls"] == 4 and d["total"]["cache_hits"] == 1
    table = client.accounting.table()
    assert "keypoints" in table and "refusal: 1" in table and table.splitlines()[-1].startswith("total")
    # merge adds, from_dict round-trips
    merged = Accounting().merge(client.accounting).merge(Accounting.from_dict(d))
    assert merged.calls == 8 and merged.of("verify", "verifier").failures["refusal"] == 2


def test_accounting_tokens_exact_for_verifier(server, make_client):
    client = make_client()
    server.script(ok(KP, 7, 3))
    [res] = client.run_many([req(stage="s", role="verifier")])
    assert (res.usage.tokens_in, res.usage.tokens_out) == (7, 3)
    s = client.accounting.of("s", "verifier")
    assert (s.calls, s.tokens_in, s.tokens_out) == (1, 7, 3)


def test_max_calls_stops_cleanly_and_keeps_results(server, make_client):
    server.responder = lambda body: ok(KP)
    server.latency = 0.05
    client = make_client(max_calls=3, concurrency=2)
    seen: list[int] = []
    results = client.run_many([req(i) for i in range(8)], on_result=lambda i, r: seen.append(i))
    assert sum(r.ok for r in results) == 3
    assert sum(r.budget_exhausted for r in results) == 5
    assert len(server.requests) == 3 and sorted(seen) == list(range(8))
    assert client.budget_exhausted
    assert client.accounting.of("keypoints", "generator").failures["budget exhausted"] == 5
    with pytest.raises(BudgetExhausted):
        client.raise_if_exhausted()
    # The paid-for results are in the cache: a new run serves them free and asks only for the rest.
    rerun = make_client().run_many([req(i) for i in range(8)])
    assert all(r.ok for r in rerun) and sum(r.cached for r in rerun) == 3
    assert len(server.requests) == 8


def test_budget_tokens(server, make_client):
    server.responder = lambda body: ok(KP, 60, 40)
    client = make_client(budget_tokens=150, concurrency=1)
    results = client.run_many([req(i) for i in range(5)])
    # 100 tokens per call: the second call crosses the budget, the rest never start.
    assert [r.ok for r in results] == [True, True, False, False, False]
    assert len(server.requests) == 2 and client.budget_exhausted


def test_cache_hits_still_served_when_budget_exhausted(server, make_client):
    server.responder = lambda body: ok(KP)
    make_client().run_many([req(0)])
    client = make_client(max_calls=0)
    results = client.run_many([req(0), req(1)])
    assert results[0].ok and results[0].cached
    assert results[1].budget_exhausted
    assert len(server.requests) == 1


def test_dry_run_sends_nothing(server, tmp_path):
    client = LLMClient(LLMConfig(), dry_run=True, cache_path=tmp_path / "c.sqlite", expected_output_tokens=100)
    messages = [{"role": "user", "content": "x" * 400}]
    r = LLMRequest("keypoints", "generator", messages, Keypoints, "keypoints", "v1")
    results = client.run_many([r, r, r])
    assert all(x.error == "dry run" and x.value is None and not x.ok for x in results)
    assert not server.requests
    s = client.accounting.of("keypoints", "generator")
    assert (s.calls, s.tokens_in, s.tokens_out, s.failed) == (3, 300, 300, 0)
    assert client.accounting.to_dict()["dry_run"] is True and "dry run" in client.accounting.table()


def test_estimate_tokens_counts_images_flat():
    msgs = [{"role": "user", "content": [{"type": "text", "text": "abcd" * 10},
                                         {"type": "image_url", "image_url": {"url": "data:" + "A" * 10_000}}]}]
    assert estimate_tokens(msgs) == 10 + 765


# Concurrency and limits --------------------------------------------------------

def test_concurrency_bounds_parallel_requests(server, make_client):
    server.responder = lambda body: ok(KP)
    server.latency = 0.2
    client = make_client(concurrency=4, no_cache=True)
    t0 = time.monotonic()
    results = client.run_many([req(i) for i in range(8)])
    elapsed = time.monotonic() - t0
    assert all(r.ok for r in results)
    assert 0.39 <= elapsed < 1.2  # two waves of four


def test_requests_per_minute_limit(server, make_client):
    server.responder = lambda body: ok(KP)
    # 600/min = 10/s with a 100-request burst: 100 go at once, then 10 per second.
    bucket = TokenBucket(600)

    async def take(n):
        for _ in range(n):
            await bucket.acquire()

    t0 = time.monotonic()
    asyncio.run(take(102))
    assert 0.15 <= time.monotonic() - t0 < 0.6


def test_gather_inside_event_loop_and_run_many_refuses(server, make_client):
    server.responder = lambda body: ok(KP)
    client = make_client()

    async def main():
        results = await client.gather([req(1), req(2)])
        with pytest.raises(RuntimeError):
            client.run_many([req(3)])
        await client.aclose()
        return results

    assert all(r.ok for r in asyncio.run(main()))


def test_run_many_twice_uses_fresh_loops(server, make_client):
    server.responder = lambda body: ok(KP)
    client = make_client(no_cache=True)
    for _ in range(3):
        assert client.run_many([req(1)])[0].ok
    assert len(server.requests) == 3


# Configuration -------------------------------------------------------------

def test_no_endpoint_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError):
        LLMClient(LLMConfig(), cache_path=tmp_path / "c.sqlite")


def test_from_settings_reads_endpoint_and_data_dir(server, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    settings = Settings(store={"data_dir": str(tmp_path / "data")})
    client = LLMClient.from_settings(settings, backoff_base=0.01)
    assert client.base_url == server.base_url
    assert client.cache is not None and client.cache.path == tmp_path / "data" / "llm_cache.sqlite"
    server.responder = lambda body: ok(KP)
    assert client.run_many([req()])[0].ok
    assert server.requests[0].headers["authorization"] == "Bearer not-needed"


# Parsing ---------------------------------------------------------------------

@pytest.mark.parametrize(
    "text",
    [
        '{"keypoints": ["a"]}',
        '```json\n{"keypoints": ["a"]}\n```',
        'Here you go:\n```\n{"keypoints": ["a"]}\n```\nDone.',
        'The result is {"keypoints": ["a"]} as requested.',
        'Note {not json} then {"keypoints": ["a"]}',
        '{"keypoints": ["a } tricky { brace"]}',
        # cut off by max_tokens: the unfinished last item goes
        '{"keypoints": ["a", "b was cut off mid-sent',
        '```json\n{"keypoints": ["a", "b was cut',
        '{"keypoints": ["a"], "extra": [{"x": 1}, {"x": 2, "y": "cut',
    ],
)
def test_extract_json_variants(text):
    value = parse_reply(text, Keypoints)
    assert len(value.keypoints) == 1


def test_truncated_reply_keeps_whole_list_items_only():
    cut = '{"passages": [{"index": 0, "keypoints": ["A is B."]}, {"index": 1, "keypoints": ["C is'
    assert extract_json(cut) == {"passages": [{"index": 0, "keypoints": ["A is B."]}]}
    with pytest.raises(ReplyError):
        extract_json('{"keypoints": "no list was open when it was cut')


def test_parse_reply_errors_have_kinds():
    with pytest.raises(ReplyError) as e1:
        extract_json("no json here")
    assert e1.value.kind == "invalid json"
    with pytest.raises(ReplyError) as e2:
        parse_reply('{"keypoints": 3}', Keypoints)
    assert e2.value.kind == "schema violation" and "keypoints" in e2.value.detail


def test_packaged_schemas_cover_packaged_prompts():
    from kg.llm.prompts import packaged_tasks
    from kg.llm.structured import TASK_SCHEMAS

    assert sorted(TASK_SCHEMAS) == packaged_tasks()
    assert Path(__file__).exists()
