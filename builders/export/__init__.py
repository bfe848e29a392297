"""`hopgraph export`: chains in the graph -> a self-contained dataset folder.

    out/
      dataset.jsonl        one record per chain (always), sorted by generation order
      dataset.parquet      on request: scalars native, nested fields as JSON strings
      hf/                  on request: datasets.Dataset.save_to_disk (nested fields native)
      record.schema.json   JSON Schema of a record (builders.export.records)
      stats.json           counts of the exported records (+ builders.stats when it has any)
      README.md            dataset card, with plots/hops_by_graph_type.png and plots/modality_share.png
      images/              every image a hop uses, copied; records point here with relative paths

Every file is written to a temporary name in its own folder and moved into
place with os.replace (the hf/ folder is saved aside and renamed), so a killed
export never leaves a half-written file. Nothing in the output depends on the
clock or on dict ordering in the store: exporting twice gives identical bytes.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import tempfile
from collections import Counter, defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from builders.export.records import (
    JSON_FIELDS,
    SCALAR_FIELDS,
    SCHEMA_VERSION,
    DatasetRecord,
    record_json_schema,
)
from kg.errors import HopgraphError

JSONL_NAME = "dataset.jsonl"
PARQUET_NAME = "dataset.parquet"
HF_DIR = "hf"
SCHEMA_NAME = "record.schema.json"
STATS_NAME = "stats.json"
CARD_NAME = "README.md"
IMAGES_DIR = "images"
PLOTS_DIR = "plots"
HOPS_PLOT = "hops_by_graph_type.png"
MODALITY_PLOT = "modality_share.png"
PARQUET_META_KEY = b"hopgraph"

_ID_BATCH = 500
_EVIDENCE_LABELS = ("Chunk", "Image", "Keypoint")
_VERIFY_FLAGS = ("faithful", "standalone", "requires_content", "navigation", "no_shortcut")


# ---------------------------------------------------------------------------
# entry point


def run_export(settings: Any, store: Any, out_dir: Path) -> dict[str, Any]:
    """Export the chains of `store` into `out_dir`; returns a report.

    Report keys: records, path (the JSONL file), files (every file written),
    skipped {rejected, duplicate, other}, by_graph_type, warnings.
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    cfg = settings.export
    formats = list(dict.fromkeys(cfg.formats or ["jsonl"]))
    warnings: list[str] = []

    records, skipped = build_records(store, settings, out_dir, warnings)

    files: list[Path] = []
    jsonl_path = out_dir / JSONL_NAME
    _atomic_write_bytes(jsonl_path, _jsonl_bytes(records))
    files.append(jsonl_path)

    schema_path = out_dir / SCHEMA_NAME
    _atomic_write_text(schema_path, _dumps_pretty(record_json_schema()))
    files.append(schema_path)

    if "parquet" in formats:
        files.append(write_parquet(records, out_dir / PARQUET_NAME))
    if "hf" in formats:
        files.append(write_hf(records, out_dir / HF_DIR))

    own = summarize(records)
    stats = {"export": own}
    graph_stats = _graph_stats(store, warnings)
    if graph_stats:
        stats = {**{k: v for k, v in graph_stats.items() if k != "export"}, "export": own}
    stats_path = out_dir / STATS_NAME
    _atomic_write_text(stats_path, _dumps_pretty(stats))
    files.append(stats_path)

    plots = write_plots(own, out_dir / PLOTS_DIR)
    files.extend(plots)
    card_path = out_dir / CARD_NAME
    _atomic_write_text(card_path, dataset_card(own, settings, formats, skipped))
    files.append(card_path)

    images = sorted({(out_dir / e["evidence"]["image_path"]) for r in records for e in r["subqa_chain"]
                     if e["evidence"].get("image_path") and not Path(e["evidence"]["image_path"]).is_absolute()
                     and (out_dir / e["evidence"]["image_path"]).is_file()})
    files.extend(images)

    return {
        "records": len(records),
        "path": str(jsonl_path),
        "files": [str(p) for p in files],
        "skipped": skipped,
        "by_graph_type": own["by_graph_type"],
        "warnings": warnings,
    }


# ---------------------------------------------------------------------------
# graph -> records


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
        elif status in ("rejected", "duplicate"):
            skipped[status] += 1
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

    records = []
    for chain, hops in drafts:
        record = _record(chain, hops, merged.get(chain["id"], set()), kept_of.get(chain["id"]),
                         topics_of, warnings)
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
            **{flag: _bool(chain.get(flag)) for flag in _VERIFY_FLAGS},
            "hop_necessity": [s["necessary"] for s in subqa],
            "score": float(chain["score"]) if isinstance(chain.get("score"), (int, float)) else None,
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
            _atomic_write_bytes(target, data)
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


def _jsonl_bytes(records: Iterable[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode("utf-8")


def _dumps_pretty(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, indent=2, sort_keys=False) + "\n"


def _tmp_path(path: Path) -> Path:
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    return Path(name)


def _atomic_write_bytes(path: Path, data: bytes) -> None:
    tmp = _tmp_path(path)
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _atomic_write_text(path: Path, text: str) -> None:
    _atomic_write_bytes(path, text.encode("utf-8"))


def parquet_table(records: list[dict[str, Any]]):
    """Arrow table of the records: scalar fields native, list/object fields as JSON strings.

    JSON strings round-trip exactly through both pyarrow and pandas (structs come
    back from pandas as numpy arrays of dicts, and maps with varying keys get
    null-filled), so `json.loads` on those columns gives back the JSONL record.
    The schema metadata key b"hopgraph" lists the JSON columns.
    """
    pa = _require("pyarrow", "parquet")
    types = {"string": pa.string(), "int64": pa.int64()}
    fields = [pa.field(name, types[SCALAR_FIELDS[name]]) if name in SCALAR_FIELDS else pa.field(name, pa.string())
              for name in DatasetRecord.model_fields]
    meta = {"schema_version": SCHEMA_VERSION, "json_columns": list(JSON_FIELDS)}
    schema = pa.schema(fields, metadata={PARQUET_META_KEY: json.dumps(meta).encode()})
    columns = {}
    for name in DatasetRecord.model_fields:
        if name in SCALAR_FIELDS:
            columns[name] = [r[name] for r in records]
        else:
            columns[name] = [json.dumps(r[name], ensure_ascii=False) for r in records]
    return pa.Table.from_pydict(columns, schema=schema)


def write_parquet(records: list[dict[str, Any]], path: Path) -> Path:
    _require("pyarrow", "parquet")
    import pyarrow.parquet as pq

    tmp = _tmp_path(path)
    try:
        pq.write_table(parquet_table(records), tmp)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


def read_parquet_records(path: Path) -> list[dict[str, Any]]:
    """Read dataset.parquet back into records identical to the JSONL lines."""
    _require("pyarrow", "parquet")
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    meta = json.loads((table.schema.metadata or {}).get(PARQUET_META_KEY, b"{}"))
    json_cols = set(meta.get("json_columns", JSON_FIELDS))
    rows = table.to_pylist()
    return [{k: (json.loads(v) if k in json_cols and v is not None else v) for k, v in row.items()} for row in rows]


def write_hf(records: list[dict[str, Any]], target: Path) -> Path:
    """datasets.Dataset.save_to_disk, nested fields native; saved aside then renamed into place.

    `generator.prompt_versions` becomes a struct over every task seen in the
    dataset (tasks a chain did not use come back as null).
    """
    datasets = _require("datasets", "hf")
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    old = None
    bars_were_off = datasets.are_progress_bars_disabled()
    datasets.disable_progress_bars()
    try:
        ds = datasets.Dataset.from_list(records) if records else datasets.Dataset.from_dict(
            {name: [] for name in DatasetRecord.model_fields})
        ds.save_to_disk(str(staging / "data"))
        if target.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old.", dir=target.parent))
            os.replace(target, old / "data")
        os.replace(staging / "data", target)
    finally:
        if not bars_were_off:
            datasets.enable_progress_bars()
        shutil.rmtree(staging, ignore_errors=True)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    return target


def _require(module: str, fmt: str):
    try:
        return __import__(module)
    except ImportError:
        raise HopgraphError(f"export format {fmt!r} needs {module}: pip install 'hopgraph[export]'") from None


# ---------------------------------------------------------------------------
# statistics, plots, card


def _graph_stats(store: Any, warnings: list[str]) -> dict[str, Any]:
    try:
        from builders.stats import dataset_stats
    except ImportError:
        return {}
    try:
        stats = dataset_stats(store)
    except Exception as exc:  # another stage's statistics must never break the export
        warnings.append(f"builders.stats.dataset_stats failed: {exc}")
        return {}
    return stats if isinstance(stats, dict) else {}


def _share(counter: Counter, total: int) -> dict[str, float]:
    return {k: round(v / total, 4) if total else 0.0 for k, v in sorted(counter.items())}


def summarize(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Small, deterministic counts of the exported records (stats.json "export", the card, the plots)."""
    by_type = Counter(r["graph_type"] for r in records)
    hops_hist = Counter(r["hops"] for r in records)
    hops_by_type: dict[str, Counter] = defaultdict(Counter)
    modality = Counter()
    modality_by_type: dict[str, Counter] = defaultdict(Counter)
    evidence_kinds = Counter()
    verification = {flag: Counter() for flag in (*_VERIFY_FLAGS, "hop_necessity")}
    generators = Counter()
    prompt_versions: dict[str, set[str]] = defaultdict(set)
    docs, images = set(), set()
    for r in records:
        hops_by_type[r["graph_type"]][r["hops"]] += 1
        generators[r["generator"]["llm"] or "unknown"] += 1
        for task, version in r["generator"]["prompt_versions"].items():
            prompt_versions[task].add(version)
        for flag in _VERIFY_FLAGS:
            verification[flag][_tri(r["verification"][flag])] += 1
        for s in r["subqa_chain"]:
            modality[s["modality"]] += 1
            modality_by_type[r["graph_type"]][s["modality"]] += 1
            evidence_kinds[s["evidence"].get("kind") or "unresolved"] += 1
            verification["hop_necessity"][_tri(s["necessary"])] += 1
            if s["evidence"].get("doc_id"):
                docs.add(s["evidence"]["doc_id"])
            if s["evidence"].get("image_id"):
                images.add(s["evidence"]["image_id"])
    total_hops = sum(modality.values())
    return {
        "records": len(records),
        "hops_total": total_hops,
        "documents": len(docs),
        "images": len(images),
        "by_graph_type": dict(sorted(by_type.items())),
        "by_status": dict(sorted(Counter(r["status"] for r in records).items())),
        "hops_histogram": {str(k): v for k, v in sorted(hops_hist.items())},
        "hops_by_graph_type": {t: {str(k): v for k, v in sorted(c.items())} for t, c in sorted(hops_by_type.items())},
        "modality_counts": dict(sorted(modality.items())),
        "modality_share": _share(modality, total_hops),
        "modality_by_graph_type": {t: dict(sorted(c.items())) for t, c in sorted(modality_by_type.items())},
        "evidence_kinds": dict(sorted(evidence_kinds.items())),
        "verification_share": {flag: _share(c, sum(c.values())) for flag, c in verification.items()},
        "generators": dict(sorted(generators.items())),
        "prompt_versions": {t: sorted(v) for t, v in sorted(prompt_versions.items())},
    }


def _tri(value: Any) -> str:
    return "unchecked" if value is None else ("pass" if value else "fail")


def write_plots(summary: dict[str, Any], plots_dir: Path) -> list[Path]:
    """Two PNGs for the card: hops per graph_type (stacked bars) and modality share."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    from matplotlib.figure import Figure  # no pyplot: no global state, no GUI backend
    from matplotlib.ticker import MaxNLocator

    plots_dir.mkdir(parents=True, exist_ok=True)
    meta = {"Software": None}  # keep the bytes independent of the matplotlib version string

    fig = Figure(figsize=(7, 4), dpi=100)
    ax = fig.add_subplot()
    types = list(summary["hops_by_graph_type"])
    hop_values = sorted({int(h) for c in summary["hops_by_graph_type"].values() for h in c})
    bottoms = [0] * len(types)
    for h in hop_values:
        heights = [summary["hops_by_graph_type"][t].get(str(h), 0) for t in types]
        ax.bar(types, heights, bottom=bottoms, label=f"{h} hops")
        bottoms = [b + v for b, v in zip(bottoms, heights)]
    if not types:
        ax.text(0.5, 0.5, "no records", ha="center", va="center", transform=ax.transAxes)
    ax.set_title("Chains per graph type, by number of hops")
    ax.set_ylabel("chains")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.tick_params(axis="x", labelrotation=20, labelsize=8)
    if hop_values:
        ax.legend()
    fig.tight_layout()
    hops_png = plots_dir / HOPS_PLOT
    _save_fig(fig, hops_png, meta)

    fig = Figure(figsize=(6, 4), dpi=100)
    ax = fig.add_subplot()
    by_type = summary["modality_by_graph_type"]
    types = list(by_type)
    bottoms = [0.0] * len(types)
    for modality in ("text", "image"):
        shares = []
        for t in types:
            total = sum(by_type[t].values())
            shares.append(by_type[t].get(modality, 0) / total if total else 0.0)
        ax.bar(types, shares, bottom=bottoms, label=f"{modality} hops")
        bottoms = [b + s for b, s in zip(bottoms, shares)]
    if not types:
        ax.text(0.5, 0.5, "no records", ha="center", va="center", transform=ax.transAxes)
    overall = summary["modality_share"]
    ax.set_title("Hop modality share (all: " + ", ".join(f"{k} {v:.0%}" for k, v in overall.items()) + ")")
    ax.set_ylabel("share of hops")
    ax.set_ylim(0, 1)
    ax.tick_params(axis="x", labelrotation=20, labelsize=8)
    if types:
        ax.legend()
    fig.tight_layout()
    modality_png = plots_dir / MODALITY_PLOT
    _save_fig(fig, modality_png, meta)
    return [hops_png, modality_png]


def _save_fig(fig: Any, path: Path, meta: dict[str, Any]) -> None:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata=meta)
    _atomic_write_bytes(path, buf.getvalue())


def dataset_card(summary: dict[str, Any], settings: Any, formats: list[str], skipped: dict[str, int]) -> str:
    """The dataset card (README.md), with a Hugging Face YAML header."""
    s = summary
    lines = [
        "---",
        "pretty_name: hopgraph multi-hop QA",
        "task_categories:",
        "- question-answering",
        "tags:",
        "- multi-hop",
        "- multimodal",
        "- rag-evaluation",
        "- hopgraph",
        "configs:",
        "- config_name: default",
        f"  data_files: {JSONL_NAME}",
        "---",
        "",
        "# hopgraph multi-hop QA dataset",
        "",
        "Multi-hop question-answer chains generated from a document collection by "
        "hopgraph (documents -> knowledge graph -> verified chains). "
        "Each record is one question whose answer needs every hop of its `subqa_chain`: each hop is "
        "a sub-question answered by one piece of evidence (a text chunk, an image, or an atomic fact "
        "extracted from either), and consecutive hops are joined by a bridge entity. It is meant for "
        "evaluating retrieval-augmented generation systems on multi-hop, multimodal questions.",
        "",
        f"- records: **{s['records']}** ({s['hops_total']} hops) drawing on {s['documents']} documents "
        f"and {s['images']} image{'' if s['images'] == 1 else 's'}",
        f"- statuses exported: {', '.join(f'{k} {v}' for k, v in s['by_status'].items()) or 'none'}; "
        f"not exported: {skipped.get('rejected', 0)} rejected, {skipped.get('duplicate', 0)} duplicate",
        f"- generator: {', '.join(f'{k} ({v})' for k, v in s['generators'].items()) or 'n/a'}",
        f"- prompt versions: {', '.join(f'`{t}` {chr(47).join(v)}' for t, v in s['prompt_versions'].items()) or 'n/a'}",
        "",
        "## Chain types",
        "",
        "| graph_type | records |",
        "|---|---:|",
        *[f"| `{t}` | {n} |" for t, n in s["by_graph_type"].items()],
        "",
        "Types follow MC-Search: `text_chain` (text hops joined by bridge entities), "
        "`image_initiated_chain` (an image hop, then text hops), `text_initiated_chain` (text hops ending "
        "in an image hop), `parallel_visual_textual_fork` (an image branch and a text branch joined in the "
        "final question), `multi_image_fork` (several images combined, plus a text hop).",
        "",
        "## Hops",
        "",
        "| hops | records |",
        "|---:|---:|",
        *[f"| {h} | {n} |" for h, n in s["hops_histogram"].items()],
        "",
        f"![Chains per graph type by number of hops]({PLOTS_DIR}/{HOPS_PLOT})",
        "",
        "## Modality",
        "",
        "| modality | hops | share |",
        "|---|---:|---:|",
        *[f"| {m} | {s['modality_counts'][m]} | {share:.1%} |" for m, share in s["modality_share"].items()],
        "",
        f"![Hop modality share by graph type]({PLOTS_DIR}/{MODALITY_PLOT})",
        "",
        "## Verification",
        "",
        "Every chain was checked before export; the results are in each record's `verification`:",
        "`faithful` (the answer is supported by the evidence), `standalone` (the question needs no "
        "outside context such as \"the figure above\"), `requires_content` (not answerable from general "
        "knowledge), `navigation` (each hop's bridge or answer appears in the next sub-question), "
        "`no_shortcut` (no single evidence item answers the main question), and `hop_necessity` (per hop: "
        "with that hop's evidence removed the question is no longer answerable).",
        "",
        "| check | pass | fail | unchecked |",
        "|---|---:|---:|---:|",
        *[f"| {flag} | {c.get('pass', 0):.1%} | {c.get('fail', 0):.1%} | {c.get('unchecked', 0):.1%} |"
          for flag, c in s["verification_share"].items()],
        "",
        "## Files",
        "",
        f"- `{JSONL_NAME}`: one JSON record per line, in generation order",
        *([f"- `{PARQUET_NAME}`: the same records; scalar fields are native columns, list and object fields "
           "are JSON strings (`json.loads` gives back the JSONL value)"] if "parquet" in formats else []),
        *([f"- `{HF_DIR}/`: a `datasets.Dataset` saved with `save_to_disk` (nested fields native)"]
          if "hf" in formats else []),
        f"- `{SCHEMA_NAME}`: JSON Schema of a record",
        f"- `{STATS_NAME}`: the counts on this page, machine-readable",
        f"- `{IMAGES_DIR}/`: every image a hop uses; `evidence.image_path` is relative to this folder",
        "",
        "## Loading",
        "",
        "```python",
        "from datasets import load_dataset",
        f'ds = load_dataset("json", data_files="{JSONL_NAME}", split="train")',
        'print(ds[0]["question"], [h["subquestion"] for h in ds[0]["subqa_chain"]])',
        "```",
        "",
        *(["```python", "from datasets import load_from_disk", f'ds = load_from_disk("{HF_DIR}")', "```", ""]
          if "hf" in formats else []),
        "Plain Python: `[json.loads(line) for line in open(\"dataset.jsonl\")]`.",
        "",
        "## Record format",
        "",
        "`id`, `graph_type`, `question`, `answer`, `subqa_chain` (per hop: `index`, `subquestion`, "
        "`answer`, `modality`, `supporting_fact_id`, `bridge_entity`, `necessary`, `evidence` with "
        "`doc_id`, `path`, `page`, `chunk_id`/`image_id`/`keypoint_id`, `text`/`image_path`), `hops`, "
        "`bridge_entities`, `structure` (edges `[from_hop, to_hop]` between hop indices), `domain`, "
        "`persona`, `verification`, `generator` (`llm`, `prompt_versions`), `topics`, `doc_ids`, "
        "`duplicates_merged`, `status`. Field names follow MC-Search where it has one. "
        f"See `{SCHEMA_NAME}` for types.",
        "",
        "## Provenance",
        "",
        "Documents were parsed into chunks and images, linked into a knowledge graph (entity mentions, "
        "in-document references, embedding similarity, topics), and chains were sampled as graph walks "
        "whose consecutive hops share a bridge entity, then verbalized into questions and verified "
        "(the checks above). Near-duplicate chains were grouped (answer similarity and evidence "
        "overlap, Leiden communities); the best chain of a group is kept and lists the others in "
        "`duplicates_merged`. Every hop's `evidence` names the source document (`doc_id` is a content "
        "hash of the file, `path` where it was read from) and page, so each answer can be traced back to "
        "its source. `generator.llm` is the model that wrote the questions (`offline` means no LLM was "
        "used) and `generator.prompt_versions` the prompt versions used. Questions inherit the licence and "
        "any errors of the source documents.",
        "",
    ]
    return "\n".join(lines)
