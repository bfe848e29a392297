"""The output folder every `hopgraph eval` verb writes into.

DIR/metrics.json   one object: {"retrieval": {retriever: {...}}, "answers": {setting: {...}}, ...}
DIR/results.jsonl  one row per question (and hop), tagged with "eval": the verb that wrote it
DIR/report.md      tables and plots, rebuilt from metrics.json (evaluate.report)

Verbs share the folder: each replaces only its own section and its own rows,
so `eval retrieval` then `eval answers` into one DIR gives one report.
Files are written to a temporary name, then renamed (no half-written file).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kg.atomic_write import atomic_write_text

METRICS = "metrics.json"
RESULTS = "results.jsonl"


def read_metrics(out_dir: Path) -> dict[str, Any]:
    path = Path(out_dir) / METRICS
    if not path.is_file():
        return {}
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError:
        return {}  # a damaged file from an older run is replaced, not merged


def write_section(out_dir: Path, section: str, metrics: dict[str, Any], rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Replace `section` in metrics.json and its rows in results.jsonl; return the whole metrics object."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    everything = read_metrics(out_dir)
    everything[section] = metrics
    atomic_write_text(out_dir / METRICS, json.dumps(everything, indent=2, ensure_ascii=False, default=str) + "\n")
    kept: list[str] = []
    results = out_dir / RESULTS
    if results.is_file():
        for line in results.read_text(encoding="utf-8").splitlines():
            try:
                if json.loads(line).get("eval") != section:
                    kept.append(line)
            except json.JSONDecodeError:
                continue
    fresh = [json.dumps({"eval": section, **row}, ensure_ascii=False, default=str) for row in rows]
    atomic_write_text(results, "\n".join(kept + fresh) + "\n")
    return everything
