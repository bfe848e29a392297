"""The CHARGE keypoints a hop carries in the dataset: {"id", "text"} per keypoint.

A hop whose evidence is a keypoint carries that keypoint. A hop whose evidence
is a chunk or an image carries the keypoints of that unit that state its
answer (the normalised answer occurs in the keypoint's words): the facts a
correct sub-answer must reproduce. A unit with no such keypoint gives none
(no keypoints were extracted, or none states the answer), and CHARGE's
Correctness/Coverage then leave the hop out. The sub-answers are not yet
grounded in a keypoint at generation time (see the README's metric table).
"""

from __future__ import annotations

import re
import string
from collections import defaultdict
from typing import Any

_ID_BATCH = 500
_PUNCTUATION = str.maketrans("", "", string.punctuation)


def _plain(text: str) -> str:
    text = (text or "").lower().translate(_PUNCTUATION)
    return " " + " ".join(w for w in text.split() if w not in ("a", "an", "the")) + " "


def unit_keypoints(store: Any, unit_ids: list[str]) -> dict[str, list[dict[str, str]]]:
    """unit id -> its keypoints [{"id", "text"}], in id order."""
    found: dict[str, list[dict[str, str]]] = defaultdict(list)
    ids = sorted(set(unit_ids))
    for start in range(0, len(ids), _ID_BATCH):
        for row in store.run("export_unit_keypoints", {"ids": ids[start:start + _ID_BATCH]}):
            found[row["unit_id"]].append({"id": row["id"], "text": row["text"] or ""})
    return {unit: sorted(kps, key=lambda k: k["id"]) for unit, kps in found.items()}


def hop_keypoints(evidence: dict[str, Any], answer: str, by_unit: dict[str, list[dict[str, str]]]) -> list[dict]:
    """The keypoints one hop carries (see the module docstring)."""
    if evidence.get("kind") == "keypoint" and evidence.get("keypoint_id"):
        return [{"id": evidence["keypoint_id"], "text": evidence.get("text") or ""}]
    unit = evidence.get("chunk_id") or evidence.get("image_id")
    wanted = _plain(answer)
    if not unit or not wanted.strip():
        return []
    pattern = re.compile(re.escape(wanted))
    return [k for k in by_unit.get(unit, []) if pattern.search(_plain(k["text"]))]
