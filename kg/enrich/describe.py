"""Image descriptions (MiRAGE's description prompt): the text that stands in
for an image in search, keypoints and hop evidence.

- With a client whose config names a vision model (`client.model_for("vision")`):
  one `describe_image` request per image, the image attached as a base64
  data URL next to its caption and nearby text; description_source "vlm",
  generator = the vision model. All requests go through `client.run_many`.
- Without a vision model (or without a client): no request; the description
  is the caption (or, when there is no caption, the markdown alt text) plus
  the nearby text, trimmed to about 600 characters; description_source
  "caption" ("alt" when the alt text stands in for a missing caption);
  generator "offline".
- A vision model that turns out to read no images (the endpoint refuses
  image parts) is switched off for the run by the client, with one warning:
  its images keep the caption description and count as no failure.
- A failed vision call (or an unreadable image file) falls back to the
  caption description, and the failure is reported in the returned list's
  `.failures` [(image_id, reason)] and logged. A rerun retries only those:
  the successful replies are cached.
"""

from __future__ import annotations

import base64
import logging
import mimetypes
import re
from pathlib import Path
from typing import Any

log = logging.getLogger("hopgraph.describe")

STAGE = "describe"
OFFLINE = "offline"
OFFLINE_CHARS = 600
NEARBY_PROMPT_CHARS = 1500
# Formats the OpenAI-style image_url part accepts; others are converted to PNG.
_SUPPORTED_MIME = {"image/png", "image/jpeg", "image/gif", "image/webp"}
_EXT_MIME = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".jpe": "image/jpeg",
             ".gif": "image/gif", ".webp": "image/webp"}


class Descriptions(list):
    """list[dict] of description rows, plus `.failures` [(image_id, reason)]."""

    def __init__(self, rows: list[dict[str, Any]] | None = None,
                 failures: list[tuple[str, str]] | None = None) -> None:
        super().__init__(rows or [])
        self.failures: list[tuple[str, str]] = failures or []


def caption_description(image: dict[str, Any], limit: int = OFFLINE_CHARS) -> tuple[str, str]:
    """(description, description_source) from the text around an image, no model."""
    caption = _clean(image.get("caption"))
    alt = _clean(image.get("alt"))
    nearby = _clean(image.get("nearby_text"))
    lead, source = (caption, "caption") if caption else ((alt, "alt") if alt else ("", "caption"))
    if lead and nearby and nearby.startswith(lead):
        nearby = nearby[len(lead):].strip()
    text = " ".join(x for x in (_sentence(lead), nearby) if x)
    return _trim(text, limit), source


def image_data_url(path: str | Path) -> str:
    """base64 data URL of an image file; the MIME type comes from the extension
    (or the file's magic bytes); formats an endpoint may reject are converted to PNG."""
    p = Path(path)
    data = p.read_bytes()
    mime = _EXT_MIME.get(p.suffix.lower()) or mimetypes.guess_type(p.name)[0] or _sniff(data)
    if mime not in _SUPPORTED_MIME:
        data, mime = _to_png(data), "image/png"
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"


def describe_images(images: list[dict[str, Any]], client: Any = None, prompts_dir: Path | None = None) -> Descriptions:
    """Rows {id, description, description_source, generator}, in input order; see the module docstring."""
    fallback = {im["id"]: caption_description(im) for im in images}

    def offline_row(im: dict[str, Any]) -> dict[str, Any]:
        desc, source = fallback[im["id"]]
        return {"id": im["id"], "description": desc, "description_source": source, "generator": OFFLINE}

    vision = client.model_for("vision") if client is not None else None
    if not vision:
        return Descriptions([offline_row(im) for im in images])

    from kg.llm.client import LLMRequest
    from kg.llm.types import VISION_UNSUPPORTED

    out = Descriptions()
    pending: list[tuple[int, dict[str, Any]]] = []
    requests: list[Any] = []
    for im in images:
        out.append(offline_row(im))  # replaced below when the vision call succeeds
        try:
            url = image_data_url(im["path"])
        except (OSError, KeyError, TypeError, ValueError, RuntimeError) as exc:
            reason = f"unreadable image: {type(exc).__name__}: {exc}"[:300]
            out.failures.append((im["id"], reason))
            log.warning("describe %s: %s", im["id"], reason)
            continue
        requests.append(LLMRequest.for_task(
            "describe_image", "vision", STAGE, prompts_dir=prompts_dir, images=[url],
            title=_clean(im.get("title")), caption=_clean(im.get("caption")) or _clean(im.get("alt")),
            nearby_text=_trim(_clean(im.get("nearby_text")), NEARBY_PROMPT_CHARS),
        ))
        pending.append((len(out) - 1, im))

    results = client.run_many(requests) if requests else []
    for (i, im), r in zip(pending, results):
        description = _clean(getattr(r.value, "description", "")) if r.ok else ""
        if r.ok and description:
            out[i] = {"id": im["id"], "description": description, "description_source": "vlm",
                      "generator": r.model or vision}
            continue
        if r.error == VISION_UNSUPPORTED:
            continue  # the model reads no images: the caption stands, as with no vision model (warned once)
        reason = (r.error or "empty description") + (f": {r.detail}" if r.detail else "")
        out.failures.append((im["id"], reason[:300]))
        log.warning("describe %s: vision call failed (%s); using the caption", im["id"], reason[:300])
    return out


# Internals -------------------------------------------------------------------
def _clean(text: Any) -> str:
    return re.sub(r"\s+", " ", str(text or "")).strip()


def _sentence(text: str) -> str:
    """End a caption with a period so the nearby text reads as a new sentence."""
    if text and text[-1] not in ".!?:;":
        return text + "."
    return text


def _trim(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text[:limit]
    space = cut.rfind(" ")
    if space > limit * 0.6:
        cut = cut[:space]
    return cut.rstrip(" ,;:") + "…"


def _sniff(data: bytes) -> str | None:
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def _to_png(data: bytes) -> bytes:
    """Convert another raster format (TIFF, BMP, JPX, ...) to PNG with PyMuPDF."""
    import pymupdf

    pix = pymupdf.Pixmap(data)
    if pix.colorspace is not None and pix.colorspace.n not in (1, 3):  # CMYK and the like
        pix = pymupdf.Pixmap(pymupdf.csRGB, pix)
    return pix.tobytes("png")
