"""`hopgraph llm check`: what each configured model's endpoint can do.

One small call per capability, so the answer costs seconds and a handful of
tokens: reachable and /v1/models, response_format json_schema and
json_object, plain JSON by prompt, an image part (a generated 8x8 PNG),
latency, output tokens/s, and throughput at 1, 2, 4 and 8 calls in flight.
(json_object + schema is llama.cpp's grammar-constrained JSON mode.)
The result is stored per base URL + model (kg.llm.capabilities), so later
runs start in the right format mode, with the vision role off when the model
reads no images, and at the concurrency that still raised throughput.

It talks to the endpoint with the openai SDK directly rather than through
LLMClient: a probe wants each raw answer (status, body, time), not retries,
downgrades and the cache. Errors are read with the client's own classifier.
"""

from __future__ import annotations

import asyncio
import base64
import struct
import time
import zlib
from dataclasses import asdict, dataclass, field
from typing import Any

import openai
from pydantic import BaseModel

from kg.llm.capabilities import Capabilities, CapabilityStore
from kg.llm.classify import ErrorClass, classify_api_error, error_text
from kg.llm.structured import FormatMode, ReplyError, parse_reply, response_format

IN_FLIGHT_LEVELS = (1, 2, 4, 8)
# More calls in flight count as slots only when they raise throughput by this
# factor over the best fewer calls did: a single-slot server (llama-cpp-python
# serves one request at a time) measures within noise at every level.
SLOT_GAIN = 1.25


class _City(BaseModel):
    city: str


class _Colour(BaseModel):
    colour: str


@dataclass
class Check:
    name: str
    ok: bool | None  # None: not run (an earlier check made it pointless)
    detail: str = ""
    seconds: float = 0.0


@dataclass
class ProbeReport:
    base_url: str
    model: str
    roles: list[str]
    checks: list[Check] = field(default_factory=list)
    format_mode: FormatMode | None = None
    vision: bool | None = None
    slots: int | None = None
    latency_s: float | None = None
    tokens_per_s: float | None = None
    throughput: dict[int, float] = field(default_factory=dict)  # calls in flight -> output tokens/s

    @property
    def reachable(self) -> bool:
        return bool(self.checks) and self.checks[0].ok is True

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def capabilities(self) -> Capabilities:
        probe = {k: v for k, v in self.to_dict().items() if k not in ("base_url", "model")}
        return Capabilities(self.base_url, self.model, self.format_mode, self.vision, self.slots, "probe", 0.0, probe)


def tiny_png(rgb: tuple[int, int, int] = (220, 20, 20), size: int = 8) -> bytes:
    """A solid-colour PNG, written by hand (zlib + CRCs) so the probe needs no imaging library."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    row = b"\x00" + bytes(rgb) * size
    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(row * size))
            + chunk(b"IEND", b""))


def roles_by_model(config: Any) -> dict[str, list[str]]:
    """Distinct configured models, each with the roles it serves."""
    out: dict[str, list[str]] = {}
    pairs = [("generator", config.generator_model), ("verifier", config.verifier_model),
             ("vision", config.vision_model), ("reader", config.reader_model or config.generator_model)]
    for role, model in pairs:
        if model:
            out.setdefault(model, []).append(role)
    return out


async def probe_model(api: openai.AsyncOpenAI, base_url: str, model: str, roles: list[str],
                      throughput: bool = True) -> ProbeReport:
    report = ProbeReport(base_url, model, roles)
    listed = await _check_models(api, model)
    report.checks.append(listed)
    if listed.ok is not True:
        for name in ("json_schema", "json_object + schema", "json_object", "plain JSON", "vision", "latency",
                     "output tokens/s"):
            report.checks.append(Check(name, None, "skipped: endpoint unreachable"))
        return report
    modes: list[FormatMode] = ["json_schema", "json_object_schema", "json_object", "none"]
    checks = [await _check_format(api, model, mode) for mode in modes]
    report.checks += checks
    report.format_mode = next((m for m, c in zip(modes, checks) if c.ok), "none")
    vision = await _check_vision(api, model)
    report.checks.append(vision)
    report.vision = vision.ok
    latency = await _timed_call(api, model, "Reply with the word OK.", 2)
    report.latency_s = latency[0] if latency else None
    report.checks.append(Check("latency", latency is not None, f"{latency[0]:.2f} s" if latency else "failed"))
    long = await _timed_call(api, model, "Count from 1 to 60, separated by commas.", 64)
    if long and long[0] > 0:
        report.tokens_per_s = long[1] / long[0]
    report.checks.append(Check("output tokens/s", long is not None,
                               f"{report.tokens_per_s:.1f}" if report.tokens_per_s else "failed"))
    if throughput:
        await _measure_throughput(api, model, report)
    return report


async def _check_models(api: openai.AsyncOpenAI, model: str) -> Check:
    start = time.monotonic()
    try:
        page = await api.models.list()
    except openai.APIConnectionError as exc:
        return Check("reachable, /v1/models", False, f"unreachable: {exc}", time.monotonic() - start)
    except openai.APIStatusError as exc:  # it answered: reachable, just without a model list
        return Check("reachable, /v1/models", True, f"reachable; /v1/models answered HTTP {exc.status_code}",
                     time.monotonic() - start)
    ids = [m.id for m in page.data]
    where = "listed" if model in ids else f"not listed (the server has: {', '.join(ids[:4]) or 'none'})"
    return Check("reachable, /v1/models", True, f"{len(ids)} models; {model} {where}", time.monotonic() - start)


async def _check_format(api: openai.AsyncOpenAI, model: str, mode: FormatMode) -> Check:
    name = {"json_schema": "json_schema", "json_object_schema": "json_object + schema",
            "json_object": "json_object", "none": "plain JSON"}[mode]
    messages = [{"role": "user", "content": 'What is the capital of France? Reply with only the JSON object '
                 '{"city": "<the city>"}.'}]
    fmt = response_format(_City, mode)
    extra = {"response_format": fmt} if fmt is not None else {}
    start = time.monotonic()
    try:
        resp = await api.chat.completions.create(model=model, messages=messages, max_tokens=48, temperature=0,
                                                 **extra)
    except openai.APIStatusError as exc:
        cls = classify_api_error(exc, False, fmt is not None)
        return Check(name, False, _rejection(exc, cls), time.monotonic() - start)
    except openai.APIConnectionError as exc:
        return Check(name, False, f"connection failed: {exc}", time.monotonic() - start)
    seconds = time.monotonic() - start
    content = resp.choices[0].message.content if resp.choices else ""
    try:
        value = parse_reply(content or "", _City)
        return Check(name, True, f"accepted; valid JSON ({getattr(value, 'city', '')!r})", seconds)
    except ReplyError as exc:
        # Accepted by the server: the format works, this model's reply did not parse.
        return Check(name, mode != "none", f"accepted; reply not valid JSON ({exc.kind})", seconds)


async def _check_vision(api: openai.AsyncOpenAI, model: str) -> Check:
    url = "data:image/png;base64," + base64.b64encode(tiny_png()).decode("ascii")
    messages = [{"role": "user", "content": [
        {"type": "text", "text": 'What colour is this image? Reply with only {"colour": "<one word>"}.'},
        {"type": "image_url", "image_url": {"url": url}}]}]
    start = time.monotonic()
    try:
        resp = await api.chat.completions.create(model=model, messages=messages, max_tokens=24, temperature=0)
    except openai.APIStatusError as exc:
        cls = classify_api_error(exc, True, False)
        return Check("vision", False if cls in ("vision", "rejected") else None, _rejection(exc, cls),
                     time.monotonic() - start)
    except openai.APIConnectionError as exc:
        return Check("vision", None, f"connection failed: {exc}", time.monotonic() - start)
    content = (resp.choices[0].message.content or "") if resp.choices else ""
    said = "red" in content.lower()
    return Check("vision", True, "accepted; " + ("answered red" if said else f"answered {content[:40]!r} (not red)"),
                 time.monotonic() - start)


async def _timed_call(api: openai.AsyncOpenAI, model: str, prompt: str, max_tokens: int) -> tuple[float, int] | None:
    """(seconds, output tokens) of one plain call, or None when it failed."""
    start = time.monotonic()
    try:
        resp = await api.chat.completions.create(model=model, messages=[{"role": "user", "content": prompt}],
                                                 max_tokens=max_tokens, temperature=0)
    except openai.OpenAIError:
        return None
    tokens = resp.usage.completion_tokens if resp.usage is not None else 0
    if not tokens and resp.choices:
        tokens = len(resp.choices[0].message.content or "") // 4
    return time.monotonic() - start, tokens


async def _measure_throughput(api: openai.AsyncOpenAI, model: str, report: ProbeReport) -> None:
    for level in IN_FLIGHT_LEVELS:
        start = time.monotonic()
        done = await asyncio.gather(*(_timed_call(api, model, f"Write one sentence about the number {i}.", 32)
                                      for i in range(level)))
        wall = time.monotonic() - start
        tokens = sum(d[1] for d in done if d is not None)
        failed = sum(d is None for d in done)
        report.throughput[level] = tokens / wall if wall > 0 else 0.0
        detail = f"{report.throughput[level]:.1f} tokens/s" + (f", {failed} failed" if failed else "")
        report.checks.append(Check(f"{level} in flight", failed == 0, detail, wall))
        if failed:
            break  # the endpoint refuses this many at once: more will not help
    best_level, best = 0, 0.0
    for level, value in sorted(report.throughput.items()):
        if best_level == 0 or value >= SLOT_GAIN * best:
            best_level, best = level, value
    report.slots = best_level or None


def _rejection(exc: openai.APIStatusError, cls: ErrorClass) -> str:
    text = " ".join(error_text(exc).split())  # one line: servers put tracebacks in here
    return f"rejected: HTTP {exc.status_code} ({cls}): {text[:120]}"


def check_endpoint(config: Any, base_url: str | None, api_key: str | None, store: CapabilityStore | None,
                   roles: list[str] | None = None, throughput: bool = True) -> list[ProbeReport]:
    """Probe every configured model (or those serving `roles`) and store what was found."""
    models = roles_by_model(config)
    if roles:
        models = {m: r for m, r in models.items() if set(r) & set(roles)}

    async def run() -> list[ProbeReport]:
        api = openai.AsyncOpenAI(base_url=base_url, api_key=api_key or "not-needed", timeout=config.timeout,
                                 max_retries=0)
        try:
            return [await probe_model(api, base_url or str(api.base_url), m, r, throughput)
                    for m, r in models.items()]
        finally:
            await api.close()

    reports = asyncio.run(run())
    if store is not None:
        for report in reports:
            if report.reachable:
                cap = report.capabilities()
                cap.base_url = base_url or "default"
                store.put(cap)
    return reports
