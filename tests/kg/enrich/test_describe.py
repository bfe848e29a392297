"""Image descriptions: vision model through the scripted server, caption fallback offline."""

from __future__ import annotations

import base64

import pymupdf
import pytest

from kg.config import LLMConfig
from kg.enrich.describe import OFFLINE_CHARS, caption_description, describe_images, image_data_url
from kg.llm import LLMClient

try:
    from tests.llm_server import ScriptedLLMServer, refusal
except ImportError:  # tests/ on sys.path instead of the repo root
    from llm_server import ScriptedLLMServer, refusal  # type: ignore[no-redef]

pytestmark = pytest.mark.timeout(60)

VLM_TEXT = "Line chart of the Eiffel Tower's yearly visitors from 1990 to 2015, peaking at 7 million."


def tiny_image(path, color=(200, 30, 30)):
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 4, 4), False)
    pix.set_rect(pix.irect, color)
    pix.save(str(path))
    return path


def user_parts(body: dict) -> list[dict]:
    for m in body["messages"]:
        if m["role"] == "user" and isinstance(m["content"], list):
            return m["content"]
    return []


def responder(body: dict):
    assert any("You describe figures" in m["content"] for m in body["messages"] if m["role"] == "system")
    return {"description": VLM_TEXT}


@pytest.fixture
def server():
    with ScriptedLLMServer(responder) as s:
        yield s


@pytest.fixture
def make_client(server, tmp_path):
    made = []

    def make(vision_model: str | None = "vis-1") -> LLMClient:
        c = LLMClient(LLMConfig(vision_model=vision_model, concurrency=4, timeout=5.0, max_retries=1),
                      base_url=server.base_url, cache_path=tmp_path / "llm_cache.sqlite", backoff_base=0.01)
        made.append(c)
        return c

    yield make
    for c in made:
        c.close()


@pytest.fixture
def images(tmp_path):
    return [
        {"id": "im1", "path": str(tiny_image(tmp_path / "a.png")), "caption": "Figure 1: Eiffel Tower visitors.",
         "nearby_text": "Visitor numbers rose steadily.", "alt": ""},
        {"id": "im2", "path": str(tiny_image(tmp_path / "b.png", (0, 0, 255))), "caption": "",
         "nearby_text": "", "alt": "map of Paris"},
    ]


def test_vision_model_sends_the_image_and_stores_vlm(server, make_client, images):
    client = make_client()
    rows = describe_images(images, client=client)
    assert len(server.chat_requests) == 2
    for req in server.chat_requests:
        assert req.has_image
        assert req.model == "vis-1"
        image_part = next(p for p in user_parts(req.body) if p["type"] == "image_url")
        url = image_part["image_url"]["url"]
        assert url.startswith("data:image/png;base64,")
        assert base64.b64decode(url.split(",", 1)[1]).startswith(b"\x89PNG")
    texts = " ".join(p.get("text", "") for r in server.chat_requests for p in user_parts(r.body))
    assert "Figure 1: Eiffel Tower visitors." in texts and "Visitor numbers rose steadily." in texts
    assert [r["id"] for r in rows] == ["im1", "im2"]
    assert all(r["description"] == VLM_TEXT and r["description_source"] == "vlm" and r["generator"] == "vis-1"
               for r in rows)
    assert rows.failures == []

    # A rerun is served from the cache.
    again = describe_images(images, client=client)
    assert len(server.chat_requests) == 2
    assert list(again) == list(rows)


def test_without_vision_model_no_request_and_caption(server, make_client, images):
    for client in (make_client(vision_model=None), None):
        rows = describe_images(images, client=client)
        assert server.chat_requests == []
        assert rows[0] == {"id": "im1", "description": "Figure 1: Eiffel Tower visitors. Visitor numbers rose steadily.",
                           "description_source": "caption", "generator": "offline"}
        assert rows[1]["description_source"] == "alt" and rows[1]["description"] == "map of Paris."


def test_caption_description_trimmed_and_deduplicated():
    long = " ".join(["word"] * 400)
    desc, source = caption_description({"caption": "Table 2: Results", "nearby_text": long})
    assert source == "caption" and desc.startswith("Table 2: Results. word")
    assert len(desc) <= OFFLINE_CHARS + 1 and desc.endswith("…")
    # nearby text that repeats the caption is not doubled
    desc, _ = caption_description({"caption": "Figure 3: A map.", "nearby_text": "Figure 3: A map. Paris is shown."})
    assert desc == "Figure 3: A map. Paris is shown."
    assert caption_description({}) == ("", "caption")


def test_failed_vision_call_falls_back_to_caption(server, make_client, images, tmp_path):
    def flaky(body):
        texts = " ".join(p.get("text", "") for p in user_parts(body))
        return refusal() if "Eiffel Tower visitors" in texts else responder(body)

    server.responder = flaky
    missing = {"id": "im3", "path": str(tmp_path / "gone.png"), "caption": "Figure 9: Lost.", "nearby_text": ""}
    rows = describe_images([*images, missing], client=make_client())
    assert len(server.chat_requests) == 2  # the missing file is never sent
    by_id = {r["id"]: r for r in rows}
    assert by_id["im1"]["description_source"] == "caption"
    assert by_id["im1"]["description"].startswith("Figure 1: Eiffel Tower visitors.")
    assert by_id["im2"]["description_source"] == "vlm"
    assert by_id["im3"] == {"id": "im3", "description": "Figure 9: Lost.", "description_source": "caption",
                            "generator": "offline"}
    failures = dict(rows.failures)
    assert set(failures) == {"im1", "im3"}
    assert failures["im1"].startswith("refusal") and failures["im3"].startswith("unreadable image")


def test_data_url_mime_types(tmp_path):
    png = tiny_image(tmp_path / "x.png")
    jpg = tmp_path / "x.jpg"
    pymupdf.Pixmap(str(png)).save(str(jpg))
    assert image_data_url(jpg).startswith("data:image/jpeg;base64,")
    # no extension: sniffed from the bytes
    raw = tmp_path / "blob"
    raw.write_bytes(png.read_bytes())
    assert image_data_url(raw).startswith("data:image/png;base64,")
    # a format endpoints reject (PNM) is converted to PNG
    pnm = tmp_path / "x.pnm"
    pymupdf.Pixmap(str(png)).save(str(pnm))
    url = image_data_url(pnm)
    assert url.startswith("data:image/png;base64,")
    assert base64.b64decode(url.split(",", 1)[1]).startswith(b"\x89PNG")
