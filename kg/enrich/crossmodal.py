"""CHARGE's crossmodal verification of image keypoints (Eq. 2).

An image keypoint is kept when the image confirms it and the text alone does
not: keep k iff V_image(k) = 1 and V_text(k) = 0. A keypoint the surrounding
text already states is no evidence that needs the image, and a keypoint the
image does not show is not the image's; both are dropped.

- With a vision model (the client's vision role reads images) and the image
  file at hand: two verdicts per keypoint through kg/prompts/keypoint_crossmodal.md,
  text-only (caption and nearby text, no image; verifier role) and image-only
  (the image, no text; vision role). The keypoint records crossmodal = "vision".
- Otherwise the offline lexical check, recorded as crossmodal = "lexical":
  V_text is token containment of the keypoint in the caption and nearby text
  (kg.enrich.keypoints.stated_by, 80%); V_image is taken as 1 (the keypoint was
  read off the image's description). A vision call that fails falls back to
  the lexical verdict for that keypoint.

Text keypoints are not checked: a chunk holds no image to test them against,
so their other-modality verdict is 0 and Eq. 2 keeps them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

VISION = "vision"
LEXICAL = "lexical"
NO_TEXT = "(no text around the image)"


def _requests(keypoints: list[dict[str, Any]], contexts: dict[str, str], urls: dict[str, str],
              prompts_dir: Path | None) -> list[Any]:
    from kg.llm.client import LLMRequest

    out = []
    for k in keypoints:
        source = k["source_id"]
        out.append(LLMRequest.for_task("keypoint_crossmodal", "verifier", "keypoints", prompts_dir=prompts_dir,
                                       keypoint=k["text"], source=contexts.get(source) or NO_TEXT))
        out.append(LLMRequest.for_task("keypoint_crossmodal", "vision", "keypoints", prompts_dir=prompts_dir,
                                       images=[urls[source]], keypoint=k["text"],
                                       source="(the image is attached)"))
    return out


def verify_image_keypoints(keypoints: list[dict[str, Any]], contexts: dict[str, str], image_paths: dict[str, str],
                           client: Any, prompts_dir: Path | None,
                           lexical: Callable[[str, str], bool]) -> set[str]:
    """Set `crossmodal` on every image keypoint and return the ids Eq. 2 drops.

    contexts: image id -> caption and nearby text; image_paths: image id -> file.
    """
    from kg.enrich.describe import image_data_url

    image_kps = [k for k in keypoints if k["modality"] == "image"]
    urls: dict[str, str] = {}
    vision_model = getattr(client, "model_for", None)  # stand-in clients of tests have no roles
    if vision_model is not None and vision_model("vision"):
        for source in {k["source_id"] for k in image_kps}:
            path = image_paths.get(source)
            if path and Path(path).is_file():
                urls[source] = image_data_url(path)
    checked = [k for k in image_kps if k["source_id"] in urls]
    results = client.run_many(_requests(checked, contexts, urls, prompts_dir)) if checked else []
    verdicts: dict[str, tuple[bool, bool]] = {}
    for i, k in enumerate(checked):
        text_only, image_only = results[2 * i], results[2 * i + 1]
        if text_only.ok and image_only.ok:
            verdicts[k["id"]] = (image_only.value.stated, text_only.value.stated)
    dropped = set()
    for k in image_kps:
        if k["id"] in verdicts:
            k["crossmodal"] = VISION
            by_image, by_text = verdicts[k["id"]]
        else:
            k["crossmodal"] = LEXICAL
            by_image, by_text = True, bool(contexts.get(k["source_id"])) and lexical(k["text"], contexts[k["source_id"]])
        if not (by_image and not by_text):
            dropped.add(k["id"])
    return dropped


def drop_rejected(result: Any, contexts: dict[str, str], images: list[dict[str, Any]], client: Any,
                  prompts_dir: Path | None, lexical: Callable[[str, str], bool]) -> Any:
    """Drop from a KeypointResult the image keypoints Eq. 2 rejects, with their edges."""
    paths = {im["id"]: im["path"] for im in images if im.get("path")}
    dropped = verify_image_keypoints(result.keypoints, contexts, paths, client, prompts_dir, lexical)
    if dropped:
        result.keypoints = [k for k in result.keypoints if k["id"] not in dropped]
        result.has_keypoint = [e for e in result.has_keypoint if e["d"] not in dropped]
        result.mentions = [m for m in result.mentions if m["s"] not in dropped]
        result.crossmodal_dropped = sorted(dropped)
    return result
