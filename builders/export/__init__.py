"""`hopgraph export`: chains in the graph -> a self-contained dataset folder.

    out/
      dataset.jsonl        one record per chain (always), sorted by generation order
      dataset.parquet      on request: scalars native, nested fields as JSON strings
      hf/                  on request: datasets.Dataset.save_to_disk (nested fields native)
      ragas.jsonl          on request: RAGAS evaluation samples (builders.export.interop)
      deepeval_goldens.json  on request: DeepEval goldens (builders.export.interop)
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

from dataclasses import dataclass, field
from pathlib import Path

from builders.export.card import dataset_card
from builders.export.collect import build_records
from builders.export.interop import write_interop
from builders.export.names import CARD_NAME, HF_DIR, JSONL_NAME, PARQUET_NAME, PLOTS_DIR, SCHEMA_NAME, STATS_NAME
from builders.export.plots import write_plots
from builders.export.records import record_json_schema
from builders.export.summary import graph_stats, summarize
from builders.export.writers import dumps_pretty, jsonl_bytes, read_parquet_records, write_hf, write_parquet
from kg.atomic_write import atomic_write_bytes, atomic_write_text
from kg.context import RunContext

__all__ = ["run_export", "ExportResult", "build_records", "read_parquet_records", "summarize", "dataset_card"]


@dataclass
class ExportResult:
    """What one export wrote."""

    records: int
    path: str  # the JSONL file
    files: list[str]  # every file written
    skipped: dict[str, int]  # chains not exported, by why (rejected, duplicate, stale, other)
    by_graph_type: dict[str, int]
    warnings: list[str] = field(default_factory=list)


def run_export(ctx: RunContext, out_dir: Path) -> ExportResult:
    """Export the chains of the context's store into `out_dir`."""
    settings, store = ctx.settings, ctx.store
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    cfg = settings.export
    formats = list(dict.fromkeys(cfg.formats or ["jsonl"]))
    warnings: list[str] = []

    records, skipped = build_records(store, settings, out_dir, warnings)

    files: list[Path] = []
    jsonl_path = out_dir / JSONL_NAME
    atomic_write_bytes(jsonl_path, jsonl_bytes(records))
    files.append(jsonl_path)

    schema_path = out_dir / SCHEMA_NAME
    atomic_write_text(schema_path, dumps_pretty(record_json_schema()))
    files.append(schema_path)

    if "parquet" in formats:
        files.append(write_parquet(records, out_dir / PARQUET_NAME))
    if "hf" in formats:
        files.append(write_hf(records, out_dir / HF_DIR))
    files += write_interop(records, out_dir, formats, atomic_write_bytes)

    own = summarize(records)
    stats = {"export": own}
    from_graph = graph_stats(store, warnings)
    if from_graph:
        stats = {**{k: v for k, v in from_graph.items() if k != "export"}, "export": own}
    stats_path = out_dir / STATS_NAME
    atomic_write_text(stats_path, dumps_pretty(stats))
    files.append(stats_path)

    plots = write_plots(own, out_dir / PLOTS_DIR)
    files.extend(plots)
    card_path = out_dir / CARD_NAME
    card_summary = {**own, "quality": (from_graph or {}).get("quality", {})}
    atomic_write_text(card_path, dataset_card(card_summary, settings, formats, skipped))
    files.append(card_path)

    images = sorted({(out_dir / e["evidence"]["image_path"]) for r in records for e in r["subqa_chain"]
                     if e["evidence"].get("image_path") and not Path(e["evidence"]["image_path"]).is_absolute()
                     and (out_dir / e["evidence"]["image_path"]).is_file()})
    files.extend(images)

    return ExportResult(len(records), str(jsonl_path), [str(p) for p in files], skipped, own["by_graph_type"],
                        warnings)
