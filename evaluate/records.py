"""The records `hopgraph eval` scores, read from our JSONL or MC-Search-shaped JSONL.

Both shapes share `id`, `question`, `answer`, `graph_type` and a
`subqa_chain` of hops. A hop names its evidence by `supporting_fact_id` (a
string or a list, MC-Search) and/or by an `evidence` object (ours: chunk_id /
image_id plus doc path and title). Imported datasets (HotpotQA) carry only
the path and title of a document; evaluate.corpus maps those to chunk ids.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from evaluate.errors import DatasetError


class EvidenceRef(BaseModel):
    """Where one evidence item of a hop lives: an id and/or a document path and title."""

    model_config = ConfigDict(extra="ignore")

    id: str | None = None
    kind: str = "chunk"  # chunk, image, keypoint, document
    doc_id: str | None = None
    path: str | None = None
    title: str | None = None
    text: str | None = None
    image_path: str | None = None  # relative to the dataset file's folder (our export writes images/)


class EvalHop(BaseModel):
    """One step of a gold chain."""

    index: int
    subquestion: str = ""
    answer: str = ""
    modality: str = "text"
    evidence: list[EvidenceRef] = Field(default_factory=list)
    keypoints: list[str] = Field(default_factory=list)  # CHARGE keypoints, when the dataset has them
    gold_ids: list[str] = Field(default_factory=list)  # evidence ids in the corpus graph (set by resolve)


class EvalRecord(BaseModel):
    """One question with its gold chain."""

    id: str
    question: str
    answer: str = ""
    aliases: list[str] = Field(default_factory=list)  # other accepted forms of the answer (answer_aliases)
    graph_type: str = "unknown"
    hops: list[EvalHop]

    @property
    def gold_ids(self) -> list[str]:
        """Every hop's evidence, in hop order, without repeats."""
        return list(dict.fromkeys(i for h in self.hops for i in h.gold_ids))

    @property
    def modality(self) -> str:
        """text, image, or mixed: the modalities of the record's hops."""
        kinds = {h.modality for h in self.hops}
        return kinds.pop() if len(kinds) == 1 else "mixed"


def _evidence_refs(hop: dict[str, Any]) -> list[EvidenceRef]:
    """Our `evidence` object (or a list of them) plus MC-Search's supporting_fact_id(s)."""
    raw = hop.get("evidence")
    items = raw if isinstance(raw, list) else [raw] if isinstance(raw, dict) else []
    refs = []
    for item in items:
        ident = item.get("chunk_id") or item.get("image_id") or item.get("keypoint_id") or item.get("id")
        refs.append(EvidenceRef(id=ident, kind=item.get("kind") or "chunk", doc_id=item.get("doc_id"),
                                path=item.get("path"), title=item.get("title"),
                                text=item.get("text") or item.get("description"),
                                image_path=item.get("image_path")))
    facts = hop.get("supporting_fact_id")
    facts = facts if isinstance(facts, list) else [facts] if facts else []
    known = {r.id for r in refs}
    refs += [EvidenceRef(id=str(f)) for f in facts if str(f) not in known]
    return refs


def _keypoint_text(item: Any) -> str:
    """A hop keypoint: our export writes {"id", "text"}; other datasets a plain string."""
    return str(item.get("text") or "") if isinstance(item, dict) else str(item or "")


def parse_record(data: dict[str, Any]) -> EvalRecord:
    """One JSON object (ours or MC-Search-shaped) -> EvalRecord; raises ValueError if unusable."""
    chain = data.get("subqa_chain")
    if not isinstance(chain, list) or not chain:
        raise ValueError("no subqa_chain")
    hops = []
    for position, hop in enumerate(chain):
        if not isinstance(hop, dict):
            raise ValueError(f"hop {position} is not an object")
        hops.append(EvalHop(
            index=int(hop.get("index", position)),
            subquestion=str(hop.get("subquestion") or hop.get("sub_question") or ""),
            answer=str(hop.get("answer") or ""),
            modality=str(hop.get("modality") or "text"),
            evidence=_evidence_refs(hop),
            keypoints=[_keypoint_text(k) for k in hop.get("keypoints") or [] if _keypoint_text(k)],
        ))
    if "question" not in data or "id" not in data:
        raise ValueError("missing id or question")
    aliases = data.get("answer_aliases") or data.get("aliases") or []
    return EvalRecord(id=str(data["id"]), question=str(data["question"]), answer=str(data.get("answer") or ""),
                      aliases=[str(a) for a in aliases if a] if isinstance(aliases, list) else [],
                      graph_type=str(data.get("graph_type") or data.get("type") or "unknown"), hops=hops)


def load_records(path: Path) -> list[EvalRecord]:
    """Read a dataset JSONL; a missing file or a bad line is a DatasetError naming both."""
    path = Path(path)
    if not path.is_file():
        raise DatasetError(f"{path}: no such dataset file")
    records: list[EvalRecord] = []
    seen: set[str] = set()
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                record = parse_record(json.loads(line))
            except (json.JSONDecodeError, ValueError, ValidationError, TypeError) as exc:
                reason = str(exc).splitlines()[0]
                raise DatasetError(f"{path}:{number}: not a dataset record ({reason})") from None
            if record.id in seen:
                raise DatasetError(f"{path}:{number}: duplicate record id {record.id}")
            seen.add(record.id)
            records.append(record)
    if not records:
        raise DatasetError(f"{path}: no records")
    return records
