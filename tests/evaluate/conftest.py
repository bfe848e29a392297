"""A small synthetic corpus graph and dataset for the evaluation tests.

Four documents about made-up things, a dozen chunks each (the words are
invented so no retriever can lean on world knowledge), two images, a few
entities linking chunks across documents, and a dataset of 2- and 3-hop
records whose evidence is those chunks and images. A hashing embedder
stands in for the sentence model so tests stay fast and deterministic.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import numpy as np
import pytest

DOCS = {
    "d1": ("Zorbat Works", "corpus/zorbat.txt"),
    "d2": ("Quellin Valley", "corpus/quellin.txt"),
    "d3": ("Marnex Engines", "corpus/marnex.txt"),
    "d4": ("Tivor Archive", "corpus/tivor.txt"),
}
SUBJECTS = ["zorbat", "quellin", "marnex", "tivor"]
FILLER = ["alpha", "bravo", "cobalt", "delta", "ember", "fjord", "garnet", "harbor", "indigo", "juniper",
          "kestrel", "lumen"]


class HashEmbedder:
    """Bag of hashed words, L2-normalised: similar wording, similar vector."""

    dim = 64
    computed = 0

    def encode(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"[a-z0-9]+", text.lower()):
                out[row, int(hashlib.md5(word.encode()).hexdigest(), 16) % self.dim] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.maximum(norms, 1e-12)


def chunk_rows() -> list[dict]:
    rows = []
    for d, subject in zip(DOCS, SUBJECTS):
        for i in range(12):
            words = " ".join(FILLER[(i + j) % len(FILLER)] for j in range(4))
            rows.append({"id": f"{d}c{i}", "doc_id": d, "index": i, "kind": "text",
                         "text": f"The {subject} unit {i} records {words} near the {FILLER[i]} station."})
    return rows


def dataset_records() -> list[dict]:
    """Hops whose sub-questions reuse the wording of their evidence chunk."""
    def hop(index, chunk, modality="text", kind="chunk"):
        text = next((r["text"] for r in chunk_rows() if r["id"] == chunk), "a bronze lantern figure")
        evidence = {"kind": kind, "doc_id": chunk[:2], "chunk_id": chunk if kind == "chunk" else None,
                    "image_id": chunk if kind == "image" else None, "text": text}
        return {"index": index, "subquestion": f"What does {text.lower().rstrip('.')} mention?",
                "answer": FILLER[index], "modality": modality, "supporting_fact_id": chunk, "evidence": evidence}

    records = []
    for n, (a, b) in enumerate([("d1c1", "d2c3"), ("d2c5", "d3c7"), ("d3c2", "d4c9"), ("d4c4", "d1c8")]):
        records.append({"id": f"r{n}", "graph_type": "text_chain", "question": f"Which station links {a} and {b}?",
                        "answer": FILLER[n], "subqa_chain": [hop(0, a), hop(1, b)], "hops": 2})
    records.append({"id": "r4", "graph_type": "image_initiated_chain", "question": "What does the lantern show?",
                    "answer": "bronze", "hops": 3,
                    "subqa_chain": [hop(0, "img1", "image", "image"), hop(1, "d1c2"), hop(2, "d3c5")]})
    return records


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def fill_store(store) -> None:
    """Write the synthetic corpus with the project's own write queries."""
    store.write("upsert_documents", [{"id": d, "title": t, "path": p} for d, (t, p) in DOCS.items()])
    chunks = chunk_rows()
    store.write("upsert_chunks", chunks)
    store.write("chunk_part_of", [{"s": c["id"], "d": c["doc_id"]} for c in chunks], key=None)
    store.write("upsert_images", [{"id": "img1", "doc_id": "d1", "description": "a bronze lantern figure",
                                   "caption": "Figure 1: lantern", "page": 1},
                                  {"id": "img2", "doc_id": "d2", "description": "", "caption": "Figure 2: valley map",
                                   "page": 1}])
    store.write("upsert_entities", [{"id": "lumen", "name": "Lumen", "label": "ORG", "aliases": []}])
    store.write("chunk_mentions", [{"s": c, "d": "lumen", "count": 1} for c in ("d1c1", "d2c3", "d3c7")], key=None)
    store.write("image_captioned_by", [{"s": "img1", "d": "d1c2"}], key=None)


@pytest.fixture
def hash_embedder() -> HashEmbedder:
    return HashEmbedder()


@pytest.fixture(scope="module")
def eval_store(tmp_path_factory):
    """One filled store per test module (starting a FalkorDB server costs seconds); tests only read it."""
    from kg.store.falkor import FalkorStore

    store = FalkorStore(tmp_path_factory.mktemp("eval") / ".hopgraph", graph="test")
    store.ensure_schema()
    fill_store(store)
    yield store
    store.close()
    store.server.stop()


@pytest.fixture
def dataset_file(tmp_path) -> Path:
    return write_jsonl(tmp_path / "dataset.jsonl", dataset_records())
