"""The dataset in the shapes two evaluation tools read (`export --format ragas,deepeval`).

ragas.jsonl             one RAGAS evaluation sample per line, in dataset.jsonl's order:
                        {"user_input", "reference", "reference_contexts"}; load with
                        ragas.EvaluationDataset.from_jsonl("ragas.jsonl") and add your
                        system's response / retrieved_contexts before evaluating.
deepeval_goldens.json   a JSON list of DeepEval goldens: {"input", "expected_output",
                        "context", "additional_metadata": {"id", "graph_type", "hops"}};
                        load with EvaluationDataset().add_goldens_from_json_file(...).

The contexts are the gold evidence of the hops, in hop order: a chunk's text,
a keypoint's fact, an image's description (else its caption, else its path).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

RAGAS_NAME = "ragas.jsonl"
DEEPEVAL_NAME = "deepeval_goldens.json"


def evidence_texts(record: dict[str, Any]) -> list[str]:
    """One context per hop, in hop order."""
    texts = []
    for hop in record["subqa_chain"]:
        ev = hop["evidence"]
        texts.append(ev.get("text") or ev.get("description") or ev.get("caption") or ev.get("image_path") or "")
    return texts


def ragas_samples(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"user_input": r["question"], "reference": r["answer"], "reference_contexts": evidence_texts(r)}
            for r in records]


def deepeval_goldens(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"input": r["question"], "expected_output": r["answer"], "context": evidence_texts(r),
             "additional_metadata": {"id": r["id"], "graph_type": r["graph_type"], "hops": r["hops"]}}
            for r in records]


def write_interop(records: list[dict[str, Any]], out_dir: Path, formats: list[str], write) -> list[Path]:
    """Write the requested tool files with `write(path, bytes)` (the exporter's atomic writer)."""
    files = []
    if "ragas" in formats:
        path = Path(out_dir) / RAGAS_NAME
        write(path, "".join(json.dumps(s, ensure_ascii=False) + "\n" for s in ragas_samples(records)).encode())
        files.append(path)
    if "deepeval" in formats:
        path = Path(out_dir) / DEEPEVAL_NAME
        write(path, (json.dumps(deepeval_goldens(records), ensure_ascii=False, indent=2) + "\n").encode())
        files.append(path)
    return files
