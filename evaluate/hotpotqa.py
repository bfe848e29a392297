"""Import HotpotQA questions as MC-Search-shaped records, to score on the same retrievers.

A HotpotQA question's gold evidence is its supporting paragraphs (one per
title in `supporting_facts`); each becomes a hop, in the order the facts
first name it. HotpotQA has no sub-questions, so hops carry only evidence:
they are scored per question (all hops' evidence as gold), not per hop.

Evidence points at a document, not a chunk id: `path` is the paragraph's file
in the wiki folder (one text file per title, listed in its _index.json) and
`title` the Wikipedia title. After `hopgraph ingest` of that folder,
evaluate.corpus maps each to the chunks of the document with that file name
or title; a title the graph lacks leaves the record unresolved (reported).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from evaluate.errors import DatasetError


def _file_names(corpus_dir: Path | None) -> dict[str, str]:
    """title -> file name, from the wiki folder's _index.json when there is one."""
    index = corpus_dir / "_index.json" if corpus_dir else None
    if not index or not index.is_file():
        return {}
    return {entry["title"]: entry["file"] for entry in json.loads(index.read_text(encoding="utf-8"))}


def _fallback_file(title: str) -> str:
    return re.sub(r"_+", "_", re.sub(r"[^A-Za-z0-9]+", "_", title)).strip("_") + ".txt"


def convert(question: dict[str, Any], files: dict[str, str], corpus_dir: Path | None) -> dict[str, Any]:
    """One HotpotQA question -> one record of our (MC-Search-shaped) format."""
    paragraphs = {title: "".join(sentences) for title, sentences in question.get("context", [])}
    titles = list(dict.fromkeys(title for title, _ in question["supporting_facts"]))
    hops = []
    for index, title in enumerate(titles):
        name = files.get(title) or _fallback_file(title)
        hops.append({"index": index, "subquestion": "", "answer": "", "modality": "text",
                     "supporting_facts": [[t, s] for t, s in question["supporting_facts"] if t == title],
                     "evidence": {"kind": "document", "title": title,
                                  "path": str(corpus_dir / name) if corpus_dir else name,
                                  "text": paragraphs.get(title, "")}})
    return {"id": str(question["_id"]), "graph_type": f"hotpotqa_{question.get('type', 'unknown')}",
            "question": question["question"], "answer": question["answer"], "level": question.get("level"),
            "subqa_chain": hops, "hops": len(hops), "source": "hotpotqa"}


def import_hotpotqa(source: Path, out: Path, corpus_dir: Path | None = None) -> int:
    """Write `out` (JSONL) from a HotpotQA JSON list; returns the number of records."""
    source = Path(source)
    if not source.is_file():
        raise DatasetError(f"{source}: no such HotpotQA file")
    try:
        questions = json.loads(source.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise DatasetError(f"{source}: not JSON ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(questions, list):
        raise DatasetError(f"{source}: expected a JSON list of HotpotQA questions")
    files = _file_names(corpus_dir)
    records = []
    for position, question in enumerate(questions):
        try:
            records.append(convert(question, files, corpus_dir))
        except (KeyError, TypeError, ValueError) as exc:
            raise DatasetError(f"{source}: question {position} is not HotpotQA-shaped (missing {exc})") from None
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return len(records)
