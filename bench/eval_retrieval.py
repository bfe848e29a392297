"""Benchmark `hopgraph eval retrieval`: 1,000 questions over 10,000 chunks, all six retrievers.

Target: under 30 s on 2 cores, with the unit vectors already computed (ingest
stores every chunk's vector in the graph, and the embedder caches the rest).

Synthetic data shaped like a dataset: chunks are sentences over a Zipfian
vocabulary of pseudo-words, grouped in documents that share a topic
vocabulary; each record has 2-4 hops whose evidence is a chunk, whose
sub-question reuses a few of that chunk's words plus noise, and whose question
mixes words of all its hops. Entity links join each hop's chunk to the next
(as bridge entities do), so the graph retriever has edges to follow.

The real MiniLM embedder runs, with its SQLite cache in a temporary folder.
Its cache (--cache-dir, kept between runs) is filled first (every chunk, as ingest does, and every query, as a
first eval run does) and that time is printed on its own; then the timed run
is the evaluation as a user sees it after ingest and one earlier run.

    .venv/bin/python bench/eval_retrieval.py [--chunks 10000] [--questions 1000]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from evaluate.corpus import EvidenceCorpus  # noqa: E402
from evaluate.records import parse_record  # noqa: E402
from evaluate.retrieval import evaluate_retrieval  # noqa: E402
from evaluate.retrievers import BASELINES, build_retrievers  # noqa: E402

CHUNKS_PER_DOC = 20


HOTPOT = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "qa" / "hotpotqa" / "hotpotqa_train100_corpus_hipporag.json"


def sentence_pool(rng) -> list[str]:
    """Real English sentences (the HotpotQA sample's ~4,000) when ../shared is there, else pseudo-words."""
    if HOTPOT.is_file():
        import json

        return [s.strip() for sentences in json.loads(HOTPOT.read_text(encoding="utf-8")).values()
                for s in sentences if len(s.split()) >= 6]
    vocab = [f"w{i}" for i in range(5000)]
    return [" ".join(rng.choice(vocab, 15)) for _ in range(4000)]


def synthetic(n_chunks: int, n_questions: int, seed: int = 3):
    """Chunks are two sentences of the pool (distinct pairs); hops quote a few words of their chunk."""
    rng = np.random.default_rng(seed)
    pool = sentence_pool(rng)
    corpus = EvidenceCorpus()
    pairs = set()
    while len(corpus) < n_chunks:
        a, b = (int(x) for x in rng.integers(0, len(pool), 2))
        if a != b and (a, b) not in pairs:
            pairs.add((a, b))
            corpus.add(f"c{len(corpus)}", f"{pool[a]} {pool[b]}", "Chunk", f"d{len(corpus) // CHUNKS_PER_DOC}")
    records = []
    for q in range(n_questions):
        gold = [int(g) for g in rng.choice(n_chunks, int(rng.integers(2, 5)), replace=False)]
        hops = []
        for index, g in enumerate(gold):
            words = corpus.texts[g].split()
            noise = pool[int(rng.integers(len(pool)))].split()
            sub = " ".join(list(rng.choice(words, 6)) + list(rng.choice(noise, 3)))
            hops.append({"index": index, "subquestion": sub, "supporting_fact_id": f"c{g}"})
            if index:
                corpus.edges.append((f"c{gold[index - 1]}", f"c{g}", 0.5))
        question = " ".join(" ".join(h["subquestion"].split()[:3]) for h in hops)
        record = parse_record({"id": f"q{q}", "question": question, "graph_type": "text_chain", "subqa_chain": hops})
        for hop, g in zip(record.hops, gold):
            hop.gold_ids = [f"c{g}"]
        records.append(record)
    return corpus, records


def warm_cache(corpus, records, cache_dir: Path) -> tuple[float, int]:
    """Encode every chunk and query once (untimed by the evaluation); returns seconds and texts."""
    from kg.enrich.embeddings import Embedder

    embedder = Embedder(cache_path=cache_dir / "embeddings.sqlite", progress=False)
    started = time.perf_counter()
    texts = corpus.texts + [h.subquestion for r in records for h in r.hops] + [r.question for r in records]
    embedder.encode(texts)
    embedder.close()
    return time.perf_counter() - started, embedder.computed


def run_once(corpus, records, cache_dir: Path, ks):
    from kg.enrich.embeddings import Embedder

    embedder = Embedder(cache_path=cache_dir / "embeddings.sqlite", progress=False)
    started = time.perf_counter()
    retrievers = build_retrievers(list(BASELINES), corpus, lambda: embedder)
    built = time.perf_counter() - started
    result = evaluate_retrieval(records, retrievers, ks)
    total = time.perf_counter() - started
    embedder.close()
    return built, total, result, embedder.computed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--questions", type=int, default=1_000)
    parser.add_argument("--cache-dir", type=Path, default=Path(".hopgraph-bench"),
                        help="Embedding cache kept between runs (the fill is ingest's work, not the evaluation's).")
    args = parser.parse_args()
    corpus, records = synthetic(args.chunks, args.questions)
    ks = [1, 3, 5, 10]
    hops = sum(len(r.hops) for r in records)
    print(f"eval retrieval bench: {len(records)} questions ({hops} hops), {len(corpus)} chunks, "
          f"{len(BASELINES)} retrievers, k={ks}, {os.cpu_count()} cores")
    seconds, texts = warm_cache(corpus, records, args.cache_dir)
    print(f"  filling the embedding cache (ingest's and a first run's work): {texts} texts in {seconds:.1f} s")
    built, total, result, computed = run_once(corpus, records, args.cache_dir, ks)
    print(f"  evaluation: {total:.1f} s in all ({built:.1f} s building indexes; {computed} texts encoded)")
    print("    per retriever, both levels and all metrics (s): "
          + ", ".join(f"{k} {v:.1f}" for k, v in result.seconds.items()))
    print(f"  load average during the run: {os.getloadavg()[0]:.1f} (other work on the machine slows every figure)")
    question = {name: m["question"] for name, m in result.metrics.items()}
    print("  question-level recall@10: " + ", ".join(f"{n} {q['recall@10']:.3f}" for n, q in question.items()))
    print(f"  oracle hit@10 {question['oracle']['hit@10']:.3f}; random hit@10 {question['random']['hit@10']:.4f} "
          f"(k/N x hops ~ {10 / len(corpus) * hops / len(records):.4f})")


if __name__ == "__main__":
    main()
