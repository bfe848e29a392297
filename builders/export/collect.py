"""Chains in the graph -> dataset records (typed by builders.export.records)."""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from builders.export.keypoints import hop_keypoints, unit_keypoints
from builders.export.names import IMAGES_DIR
from builders.export.records import DatasetRecord
from builders.export.summary import VERIFY_FLAGS
from kg.atomic_write import atomic_write_bytes

_ID_BATCH = 500
_EVIDENCE_LABELS = ("Chunk", "Image", "Keypoint")


def build_records(store: Any, settings: Any, out_dir: Path,
                  warnings: list[str]) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """Read chains, hops and evidence; return validated records (as JSON-ready dicts) and skip counts."""
    cfg = settings.export
    wanted = {"accepted"}
    if cfg.include_duplicates:
        wanted.add("duplicate")
    if cfg.include_rejected:
        wanted.add("rejected")

    chains = [row["chain"] for row in store.run("chains_for_export")]
    chains.sort(key=_chain_order)
    skipped = {"rejected": 0, "duplicate": 0, "other": 0}
    selected = []
    for chain in chains:
        status = chain.get("status")
        if status in wanted:
            selected.append(chain)
        elif status in ("rejected", "duplicate", "stale"):  # stale: quoted a document since changed or removed
            skipped[status] = skipped.get(status, 0) + 1
        else:
            skipped["other"] += 1
            warnings.append(f"chain {chain.get('id')}: unknown status {status!r}, not exported")

    kept_of: dict[str, str] = {}
    merged: dict[str, set[str]] = defaultdict(set)
    for row in store.run("duplicates_of"):
        kept_of[row["duplicate"]] = row["kept"]
        merged[row["kept"]].add(row["duplicate"])

    ids = [c["id"] for c in selected]
    hop_rows: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for start in range(0, len(ids), _ID_BATCH):
        for row in store.run("export_hops", {"chain_ids": ids[start:start + _ID_BATCH]}):
            hop_rows[row["chain_id"]].append(row)

    copier = _ImageCopier(out_dir, _search_roots(settings), warnings)
    drafts = []
    for chain in selected:
        hops = [_resolve_hop(rows, copier, warnings) for rows in _group_by_hop(hop_rows.get(chain["id"], []))]
        if not hops:
            warnings.append(f"chain {chain['id']}: no hops in the graph")
        drafts.append((chain, hops))

    topics_of = _chunk_topics(store, drafts)
    keypoints_of = unit_keypoints(store, [h["evidence"].get("chunk_id") or h["evidence"].get("image_id")
                                          for _, hops in drafts for h in hops
                                          if h["evidence"].get("kind") in ("chunk", "image")])

    records = []
    for chain, hops in drafts:
        record = _record(chain, hops, merged.get(chain["id"], set()), kept_of.get(chain["id"]),
                         topics_of, warnings)
        for hop in record["subqa_chain"]:
            hop["keypoints"] = hop_keypoints(hop["evidence"], hop["answer"], keypoints_of)
        records.append(DatasetRecord.model_validate(record).model_dump(mode="json"))
    return records, skipped


def _chain_order(chain: dict[str, Any]) -> tuple:
    seq = chain.get("seq")
    return (seq is None, seq if isinstance(seq, (int, float)) else 0, str(chain.get("id")))


def _group_by_hop(rows: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    groups: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault(row["hop"]["id"], []).append(row)
    return sorted(groups.values(), key=lambda g: (_int(g[0]["hop"].get("index"), 0), g[0]["hop"]["id"]))


def _pick(rows: list[dict[str, Any]], key: str, want: Any) -> dict[str, Any]:
    """The row whose `key` equals `want`, else the first with any `key`, else the first."""
    if want is not None:
        for row in rows:
            if row.get(key) == want:
                return row
    for row in rows:
        if row.get(key) is not None:
            return row
    return rows[0]


def _label(labels: Any) -> str | None:
    for label in labels or []:
        if label in _EVIDENCE_LABELS:
            return label
    return None


def _resolve_hop(rows: list[dict[str, Any]], copier: "_ImageCopier", warnings: list[str]) -> dict[str, Any]:
    hop = rows[0]["hop"]
    ev_row = _pick(rows, "evidence_id", hop.get("evidence_id"))
    kp_rows = [r for r in rows if r.get("evidence_id") == ev_row.get("evidence_id")]
    # a keypoint shared by several sources: prefer the one it names
    src_row = _pick(kp_rows or [ev_row], "source_id", ev_row.get("keypoint_source_id"))
    label = _label(ev_row.get("evidence_labels")) or hop.get("evidence_label")
    evidence_id = ev_row.get("evidence_id") or hop.get("evidence_id")
    evidence: dict[str, Any] = {"kind": label.lower() if label in _EVIDENCE_LABELS else None}

    if ev_row.get("evidence_id") is None:
        warnings.append(f"hop {hop['id']}: evidence {hop.get('evidence_id')!r} not found in the graph")
        if label == "Chunk":
            evidence["chunk_id"] = evidence_id
        elif label == "Image":
            evidence["image_id"] = evidence_id
        elif label == "Keypoint":
            evidence["keypoint_id"] = evidence_id
    elif label == "Keypoint":
        evidence.update(keypoint_id=evidence_id, text=ev_row.get("text"))
        origin = _label(src_row.get("source_labels"))
        if origin is None:
            warnings.append(f"hop {hop['id']}: keypoint {evidence_id} has no source chunk or image")
        evidence.update(doc_id=src_row.get("source_doc_id"), path=src_row.get("source_doc_path"),
                        title=src_row.get("source_doc_title"))
        if origin == "Chunk":
            evidence.update(chunk_id=src_row.get("source_id"), page=_int(src_row.get("source_page_start")),
                            page_end=_int(src_row.get("source_page_end")))
        elif origin == "Image":
            evidence.update(image_id=src_row.get("source_id"), page=_int(src_row.get("source_page")),
                            caption=src_row.get("source_caption"),
                            description=src_row.get("source_description"),
                            image_path=copier.copy(src_row.get("source_image_path"), src_row.get("source_id")))
    else:
        evidence.update(doc_id=ev_row.get("doc_id"), path=ev_row.get("doc_path"), title=ev_row.get("doc_title"))
        if label == "Chunk":
            evidence.update(chunk_id=evidence_id, text=ev_row.get("text"),
                            page=_int(ev_row.get("page_start")), page_end=_int(ev_row.get("page_end")))
        elif label == "Image":
            evidence.update(image_id=evidence_id, page=_int(ev_row.get("page")), caption=ev_row.get("caption"),
                            description=ev_row.get("description"),
                            image_path=copier.copy(ev_row.get("image_path"), evidence_id))
        if evidence.get("doc_id") is None:
            warnings.append(f"hop {hop['id']}: evidence {evidence_id} is not PART_OF a document")

    bridge_row = _pick(rows, "bridge_id", hop.get("bridge_id"))
    return {
        "hop": hop,
        "evidence_id": evidence_id,
        "evidence": evidence,
        "bridge_id": hop.get("bridge_id") or bridge_row.get("bridge_id"),
        "bridge_name": bridge_row.get("bridge_name") if bridge_row.get("bridge_id") is not None else None,
    }


def _chunk_topics(store: Any, drafts: list[tuple[dict[str, Any], list[dict[str, Any]]]]) -> dict[str, list[str]]:
    """Topic ids of evidence chunks, for chains that carry no topic_ids of their own."""
    chunk_ids = sorted({h["evidence"]["chunk_id"] for chain, hops in drafts if not chain.get("topic_ids")
                        for h in hops if h["evidence"].get("chunk_id")})
    topics: dict[str, list[str]] = defaultdict(list)
    for start in range(0, len(chunk_ids), _ID_BATCH):
        for row in store.run("export_chunk_topics", {"ids": chunk_ids[start:start + _ID_BATCH]}):
            topics[row["chunk_id"]].append(str(row["topic_id"]))
    return topics


def _record(chain: dict[str, Any], hops: list[dict[str, Any]], merged: set[str], duplicate_of: str | None,
            topics_of: dict[str, list[str]], warnings: list[str]) -> dict[str, Any]:
    cid = chain["id"]
    subqa = []
    for h in hops:
        hop = h["hop"]
        checked = hop.get("necessity_checked")
        subqa.append({
            "index": _int(hop.get("index"), 0),
            "subquestion": hop.get("sub_question") or "",
            "answer": _text(hop.get("answer")),
            "modality": hop.get("modality") if hop.get("modality") in ("text", "image")
            else ("image" if h["evidence"].get("kind") == "image" else "text"),
            "supporting_fact_id": h["evidence_id"],
            "bridge_entity": h["bridge_name"],
            "bridge_entity_id": h["bridge_id"],
            "necessary": None if checked is False or hop.get("necessary") is None else bool(hop.get("necessary")),
            "necessity_method": hop.get("necessity_method"),
            "evidence": h["evidence"],
            "table_cell": _table_cell(hop.get("table_cell"), hop["id"], warnings),
            "figure_value": _figure_value(hop.get("figure_value"), hop["id"], warnings),
        })

    bridge_ids = _str_list(chain.get("bridge_entities")) or [s["bridge_entity_id"] for s in subqa
                                                              if s["bridge_entity_id"]]
    bridge_names = _str_list(chain.get("bridge_names")) or [s["bridge_entity"] for s in subqa
                                                            if s["bridge_entity"]]

    structure = _structure(chain.get("structure"), [s["index"] for s in subqa], cid, warnings)
    prompt_versions = _json_value(chain.get("prompt_versions"), {}, f"chain {cid}: prompt_versions", warnings)
    if not isinstance(prompt_versions, dict):
        warnings.append(f"chain {cid}: prompt_versions is not an object")
        prompt_versions = {}

    topics = _str_list(chain.get("topic_ids"))
    if not topics:
        topics = sorted({t for s in subqa if s["evidence"].get("chunk_id")
                         for t in topics_of.get(s["evidence"]["chunk_id"], [])})
    doc_ids = _str_list(chain.get("doc_ids")) or sorted({s["evidence"]["doc_id"] for s in subqa
                                                         if s["evidence"].get("doc_id")})
    merged_ids = sorted(set(merged) | set(_str_list(chain.get("merged_from"))) - {cid})

    return {
        "id": cid,
        "graph_type": chain.get("graph_type") or "",
        "question": _text(chain.get("question")),
        "answer": _text(chain.get("answer")),
        "subqa_chain": subqa,
        "hops": len(subqa),
        "bridge_entities": bridge_names,
        "bridge_entity_ids": bridge_ids,
        "structure": structure,
        "domain": chain.get("domain"),
        "persona": chain.get("persona"),
        "verification": {
            **{flag: _bool(chain.get(flag)) for flag in VERIFY_FLAGS},
            "hop_necessity": [s["necessary"] for s in subqa],
            "score": float(chain["score"]) if isinstance(chain.get("score"), (int, float)) else None,
            "construction": chain.get("construction") or None,
            "fork": chain.get("fork") or None,
        },
        "generator": {
            "llm": chain.get("generator"),
            "prompt_versions": {str(k): str(v) for k, v in sorted(prompt_versions.items())},
        },
        "topics": topics,
        "doc_ids": doc_ids,
        "duplicates_merged": merged_ids,
        "duplicate_of": duplicate_of if chain.get("status") == "duplicate" else None,
        "status": chain.get("status"),
        "reject_reason": chain.get("reject_reason") or None,
    }


def _figure_value(value: Any, hop_id: str, warnings: list[str]) -> dict[str, Any] | None:
    fact = _json_value(value, None, f"hop {hop_id}: figure_value", warnings)
    if fact is None:
        return None
    if not isinstance(fact, dict) or not all(isinstance(fact.get(k), str) for k in ("label", "value")):
        warnings.append(f"hop {hop_id}: figure_value is not a label/value object; left out")
        return None
    return {"label": fact["label"], "value": fact["value"], "figure": fact.get("figure") or None}


def _table_cell(value: Any, hop_id: str, warnings: list[str]) -> dict[str, Any] | None:
    cell = _json_value(value, None, f"hop {hop_id}: table_cell", warnings)
    if cell is None:
        return None
    if not isinstance(cell, dict) or not all(isinstance(cell.get(k), str) for k in ("row_label", "column_label",
                                                                                    "value")):
        warnings.append(f"hop {hop_id}: table_cell is not a row_label/column_label/value object; left out")
        return None
    return {"row_label": cell["row_label"], "column_label": cell["column_label"], "value": cell["value"],
            "unit": cell.get("unit") or None}


def _structure(value: Any, indices: list[int], cid: str, warnings: list[str]) -> list[list[int]]:
    parsed = _json_value(value, None, f"chain {cid}: structure", warnings)
    if parsed:
        try:
            edges = [[int(a), int(b)] for a, b in parsed]
        except (TypeError, ValueError):
            warnings.append(f"chain {cid}: structure is not a list of [from, to] pairs")
        else:
            unknown = {i for e in edges for i in e} - set(indices)
            if unknown:
                warnings.append(f"chain {cid}: structure names hops {sorted(unknown)} the chain does not have")
            return edges
    ordered = sorted(indices)
    return [[a, b] for a, b in zip(ordered, ordered[1:])]


def _json_value(value: Any, default: Any, what: str, warnings: list[str]) -> Any:
    if value is None or value == "":
        return default
    if isinstance(value, str):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            warnings.append(f"{what} is not valid JSON")
            return default
    return value


def _int(value: Any, default: int | None = None) -> int | None:
    if isinstance(value, bool) or value is None:
        return default
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def _bool(value: Any) -> bool | None:
    return None if value is None else bool(value)


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def _str_list(value: Any) -> list[str]:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            return [value]
    return [str(v) for v in value or [] if v is not None]


# ---------------------------------------------------------------------------
# images


def _search_roots(settings: Any) -> list[Path]:
    data_dir = Path(settings.store.data_dir)
    roots = [Path.cwd(), data_dir, data_dir.parent]
    return list(dict.fromkeys(r.resolve() for r in roots))


class _ImageCopier:
    """Copies image evidence into out/images/<image id><suffix>; returns the relative path."""

    def __init__(self, out_dir: Path, roots: list[Path], warnings: list[str]):
        self.out_dir = out_dir
        self.roots = roots
        self.warnings = warnings
        self.done: dict[str, str] = {}

    def copy(self, path: str | None, image_id: str | None) -> str | None:
        if not path:
            return None
        if path in self.done:
            return self.done[path]
        source = self._find(path)
        if source is None:
            self.warnings.append(f"image {image_id or path}: file {path} not found; kept its original path")
            self.done[path] = path
            return path
        name = (image_id or hashlib.sha256(path.encode()).hexdigest()[:16]) + (source.suffix.lower() or ".png")
        target = self.out_dir / IMAGES_DIR / name
        data = source.read_bytes()
        if not target.is_file() or target.read_bytes() != data:
            target.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_bytes(target, data)
        rel = f"{IMAGES_DIR}/{name}"
        self.done[path] = rel
        return rel

    def _find(self, path: str) -> Path | None:
        p = Path(path)
        candidates = [p] if p.is_absolute() else [root / p for root in self.roots]
        for c in candidates:
            if c.is_file():
                return c
        return None


# ---------------------------------------------------------------------------
# writers
