"""Real servers' ways of failing, replayed by the scripted server: error
classes, format and vision negotiation, the circuit breaker, adaptive
concurrency, remembered capabilities and the `llm check` probe."""

from __future__ import annotations

import asyncio
import json
import time

import pytest

from kg.config import LLMConfig
from kg.llm import ImageDescription, Keypoints, LLMClient, LLMRequest
from kg.llm.capabilities import CapabilityStore
from kg.llm.classify import classify_status
from kg.llm.limits import AdaptiveLimiter
from kg.llm.probe import check_endpoint, tiny_png
from tests.kg.llm.error_shapes import SHAPES, Shape
from tests.llm_server import ScriptedLLMServer, ok, rate_limited, raw

pytestmark = pytest.mark.timeout(60)

KP = {"keypoints": ["The Eiffel Tower is 330 metres tall."]}
PNG_URL = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="


@pytest.fixture
def server():
    with ScriptedLLMServer() as s:
        yield s


def make(server, tmp_path, **kw) -> LLMClient:
    cfg = kw.pop("config", None) or LLMConfig(concurrency=kw.pop("concurrency", 4), timeout=kw.pop("timeout", 5.0),
                                              max_retries=kw.pop("max_retries", 4), vision_model="vlm")
    kw.setdefault("base_url", server.base_url)
    kw.setdefault("cache_path", tmp_path / "llm_cache.sqlite")
    kw.setdefault("backoff_base", 0.02)
    return LLMClient(cfg, **kw)


def req(i: int = 0, role: str = "generator", images: bool = False) -> LLMRequest:
    content: object = f"passage {i}"
    if images:
        content = [{"type": "text", "text": f"passage {i}; the figure's caption: a red square."},
                   {"type": "image_url", "image_url": {"url": PNG_URL}}]
    schema = ImageDescription if role == "vision" else Keypoints
    return LLMRequest("keypoints", role, [{"role": "user", "content": content}], schema, "keypoints", "v1")


# Classification ---------------------------------------------------------------

@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: s.id)
def test_recorded_error_shapes_are_classified(shape: Shape):
    assert classify_status(shape.status, json.dumps(shape.body), shape.images, True) == shape.expected


@pytest.mark.parametrize("shape", [s for s in SHAPES if s.expected in ("rejected", "context")], ids=lambda s: s.id)
def test_deterministic_rejections_are_sent_once(server, tmp_path, shape: Shape):
    server.script(raw(shape.status, shape.body))
    client = make(server, tmp_path)
    [res] = client.run_many([req()])
    assert not res.ok and len(server.chat_requests) == 1
    if shape.expected == "context":
        assert res.error == "prompt too long"
    else:
        assert res.error in (f"http {shape.status}", f"rejected (http {shape.status})")
    assert client.accounting.total().retries == 0


@pytest.mark.parametrize("shape", [s for s in SHAPES if s.expected == "format"], ids=lambda s: s.id)
def test_format_rejection_in_any_status_downgrades(server, tmp_path, shape: Shape):
    server.supports_json_schema = False
    server.format_rejection = raw(shape.status, shape.body)
    server.responder = lambda body: ok(KP)
    client = make(server, tmp_path, concurrency=1)
    results = client.run_many([req(1), req(2)])
    assert all(r.ok for r in results)
    assert [r.response_format_type for r in server.chat_requests] == ["json_schema", "json_object", "json_object"]


@pytest.mark.parametrize("shape", [s for s in SHAPES if s.expected in ("overloaded", "transient")],
                         ids=lambda s: s.id)
def test_transient_and_overload_errors_are_retried(server, tmp_path, shape: Shape):
    server.script(raw(shape.status, shape.body))
    server.responder = lambda body: ok(KP)
    client = make(server, tmp_path)
    [res] = client.run_many([req()])
    assert res.ok and len(server.chat_requests) == 2


# Vision ---------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [s for s in SHAPES if s.expected == "vision"], ids=lambda s: s.id)
def test_text_only_model_turns_the_vision_role_off_once(server, tmp_path, shape: Shape):
    """Every image goes to the vision model once at most: after the first
    refusal the role is off (captions are used) and nothing more is sent."""
    server.supports_images = False
    server.image_rejection = raw(shape.status, shape.body)
    client = make(server, tmp_path, concurrency=1)
    results = client.run_many([req(i, role="vision", images=True) for i in range(5)])
    assert [r.error for r in results] == ["vision unsupported"] * 5
    assert len(server.chat_requests) == 1
    assert client.model_for("vision") is None and client.model_for("generator")


def test_text_only_generator_gets_image_hops_as_text(server, tmp_path):
    server.supports_images = False
    server.responder = lambda body: ok(KP)
    client = make(server, tmp_path, concurrency=1)
    results = client.run_many([req(1, images=True), req(2, images=True)])
    assert all(r.ok for r in results)
    sent = server.chat_requests
    assert [r.has_image for r in sent] == [True, False, False]  # one refusal, then text only
    assert "red square" in sent[1].messages[0]["content"] and "not shown" in sent[1].messages[0]["content"]


# Circuit breaker --------------------------------------------------------------

def test_dead_endpoint_stops_within_seconds(tmp_path):
    """A closed port: after 5 connection failures in a row every queued call
    fails at once, not after 6 retries each."""
    cfg = LLMConfig(concurrency=4, timeout=5.0, max_retries=6)
    client = LLMClient(cfg, base_url="http://127.0.0.1:9/v1", cache_path=tmp_path / "c.sqlite", backoff_base=0.2)
    start = time.monotonic()
    results = client.run_many([req(i) for i in range(40)])
    took = time.monotonic() - start
    assert client.endpoint_down
    assert {r.error for r in results} <= {"endpoint down", "connection error"}
    assert sum(r.error == "endpoint down" for r in results) >= 30
    assert sum(r.requests for r in results) <= 12  # threshold plus the calls already in flight
    assert took < 5.0
    assert "stopped answering" in client.down_message() and "re-run" in client.down_message()


def test_server_dying_mid_run_ends_the_batch_quickly(tmp_path):
    server = ScriptedLLMServer(latency=0.05).start()
    server.responder = lambda body: ok(KP)
    client = LLMClient(LLMConfig(concurrency=2, timeout=5.0, max_retries=6), base_url=server.base_url,
                       cache_path=tmp_path / "c.sqlite", backoff_base=0.2)

    def stop_after_five(i, res):
        if i == 4:
            server.stop()

    start = time.monotonic()
    results = client.run_many([req(i) for i in range(60)], on_result=stop_after_five)
    assert sum(r.ok for r in results) >= 5
    assert results[-1].error == "endpoint down"
    assert time.monotonic() - start < 10.0


# Adaptive concurrency ------------------------------------------------------------

def test_limiter_halves_on_overload_and_grows_back():
    async def scenario() -> list[int]:
        limiter = AdaptiveLimiter(8, 8, cooldown=0.0)
        seen = [limiter.limit]
        limiter.on_overload()
        seen.append(limiter.limit)
        limiter.on_overload()
        seen.append(limiter.limit)
        for _ in range(2):  # a limit's worth of successes raises it by one
            limiter.on_success()
        seen.append(limiter.limit)
        for _ in range(3):
            limiter.on_success()
        seen.append(limiter.limit)
        return seen

    assert asyncio.run(scenario()) == [8, 4, 2, 3, 4]


def test_limiter_bounds_calls_in_flight():
    async def scenario() -> int:
        limiter = AdaptiveLimiter(3, 8)
        peak = 0

        async def one() -> None:
            nonlocal peak
            async with limiter:
                peak = max(peak, limiter.in_flight)
                await asyncio.sleep(0.01)

        await asyncio.gather(*(one() for _ in range(20)))
        return peak

    assert asyncio.run(scenario()) == 3


def test_429s_lower_the_concurrency_of_the_run(server, tmp_path):
    server.script(*[rate_limited(retry_after=0.01) for _ in range(4)])
    server.responder = lambda body: ok(KP)
    client = make(server, tmp_path, concurrency=8)
    results = client.run_many([req(i) for i in range(8)])
    assert all(r.ok for r in results)
    assert client.limiter.decreases >= 1 and client.limiter.limit < 8


# Capabilities -----------------------------------------------------------------------

def test_learned_format_and_vision_carry_over_to_the_next_run(server, tmp_path):
    server.supports_json_schema = False
    server.supports_images = False
    server.responder = lambda body: ok(KP)
    store = CapabilityStore.in_dir(tmp_path)
    first = make(server, tmp_path, capabilities=store, concurrency=1)
    first.run_many([req(1), req(2, role="vision", images=True)])
    server.reset()
    second = make(server, tmp_path, capabilities=store, concurrency=1, no_cache=True)
    assert second.model_for("vision") is None
    [res] = second.run_many([req(3)])
    assert res.ok and [r.response_format_type for r in server.chat_requests] == ["json_object"]


def test_probe_reports_and_stores_what_the_endpoint_can_do(server, tmp_path):
    server.supports_json_schema = False
    server.format_rejection = raw(SHAPES[0].status, SHAPES[0].body)  # llama.cpp's 500
    server.supports_images = False
    server.responder = lambda body: ok({"city": "Paris"})
    cfg = LLMConfig(generator_model="small", verifier_model="small", vision_model="small", timeout=5.0)
    store = CapabilityStore.in_dir(tmp_path)
    [report] = check_endpoint(cfg, server.base_url, None, store)
    checks = {c.name: c for c in report.checks}
    assert report.roles == ["generator", "verifier", "vision", "reader"]
    assert checks["json_schema"].ok is False and "HTTP 500" in checks["json_schema"].detail
    assert checks["json_object + schema"].ok is True and checks["json_object"].ok is True
    assert checks["plain JSON"].ok is True and checks["vision"].ok is False
    assert report.format_mode == "json_object_schema" and report.vision is False
    assert set(report.throughput) == {1, 2, 4, 8} and report.slots in (1, 2, 4, 8)
    cap = store.get(server.base_url, "small")
    assert cap is not None and cap.source == "probe" and cap.format_mode == "json_object_schema" and cap.vision is False
    # a later run starts in JSON mode, at the measured concurrency, vision off: no failed call
    server.reset()
    client = LLMClient(cfg, base_url=server.base_url, cache_path=tmp_path / "c.sqlite", capabilities=store)
    assert client.model_for("vision") is None and client.limiter.limit == report.slots
    server.responder = lambda body: ok(KP)
    [res] = client.run_many([req(1)])
    assert res.ok and [r.response_format_type for r in server.chat_requests] == ["json_object"]
    assert "schema" in server.chat_requests[0].body["response_format"]


def test_probe_of_a_dead_endpoint_says_unreachable(tmp_path):
    cfg = LLMConfig(generator_model="m", verifier_model="m", timeout=2.0)
    [report] = check_endpoint(cfg, "http://127.0.0.1:9/v1", None, CapabilityStore.in_dir(tmp_path))
    assert not report.reachable and "unreachable" in report.checks[0].detail
    assert not (tmp_path / "llm_capabilities.json").exists()


def test_tiny_png_is_a_valid_png():
    from PIL import Image
    import io

    image = Image.open(io.BytesIO(tiny_png((220, 20, 20), 8)))
    assert image.size == (8, 8) and image.getpixel((3, 3)) == (220, 20, 20)


def test_context_window_refuses_what_cannot_fit_without_sending(server, tmp_path):
    client = make(server, tmp_path, config=LLMConfig(context_window=256, timeout=5.0))
    big = LLMRequest("keypoints", "generator", [{"role": "user", "content": "word " * 2000}], Keypoints,
                     "keypoints", "v1")
    [res] = client.run_many([big])
    assert res.error == "prompt too long" and len(server.chat_requests) == 0


def test_reply_budget_shrinks_to_what_the_window_leaves(server, tmp_path):
    server.responder = lambda body: ok(KP)
    client = make(server, tmp_path, config=LLMConfig(context_window=1024, timeout=5.0,
                                                     max_tokens={"keypoints": 800}))
    prompt = LLMRequest("keypoints", "generator", [{"role": "user", "content": "w" * 2400}], Keypoints,
                        "keypoints", "v1")  # about 600 tokens by the client's estimate
    [res] = client.run_many([prompt])
    assert res.ok and server.chat_requests[0].body["max_tokens"] == 1024 - 600
