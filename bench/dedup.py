"""Benchmark Leiden dedup (builders.dedup.find_duplicates) on synthetic chains.

Target: 20,000 chains in at most 60 s and 3 GB peak RSS.

Synthetic data shaped like a real dataset: chains come in topic clusters whose
questions are related (cosine ~0.6 between siblings) but whose answers differ,
and whose evidence is drawn from a shared pool of the topic's chunks (so
siblings overlap a little). A share of chains are planted near-duplicates of
another chain: a reworded question (cos ~0.97), the same answer up to noise
and the same evidence. The bench reports time, peak RSS and how many planted
pairs were found (recall) and how many reported pairs were planted (precision).

    .venv/bin/python bench/dedup.py [--n 20000] [--dim 384] [--dup-share 0.1]
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from builders.dedup import find_duplicates  # noqa: E402


def _unit(v: np.ndarray) -> np.ndarray:
    return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)


def synthetic_chains(n: int, dim: int, topic_size: int, dup_share: float, seed: int):
    """(chains, q_emb, a_emb, planted) with planted = {(duplicate_id, original_id)}."""
    rng = np.random.default_rng(seed)
    n_dup = int(n * dup_share)
    n_orig = n - n_dup
    n_topics = max(1, n_orig // topic_size)
    topic = rng.integers(0, n_topics, size=n_orig)
    q_centres = _unit(rng.standard_normal((n_topics, dim)))
    a_centres = _unit(rng.standard_normal((n_topics, dim)))
    noise = lambda rows, s: s * rng.standard_normal((rows, dim)).astype(np.float32) / np.sqrt(dim)  # noqa: E731
    q = _unit(q_centres[topic] + noise(n_orig, 0.8))  # siblings: cos ~ 1 / (1 + 0.64) ~ 0.61
    a = _unit(a_centres[topic] + noise(n_orig, 1.5))  # sibling answers: cos ~ 0.3
    pool = 10  # chunks per topic
    evidence = [[f"t{t}c{x}" for x in rng.choice(pool, size=rng.integers(2, 5), replace=False)] for t in topic]

    src = rng.choice(n_orig, size=n_dup, replace=False)
    q_dup = _unit(q[src] + noise(n_dup, 0.25))  # reworded question, cos ~ 0.97
    a_dup = _unit(a[src] + noise(n_dup, 0.1))  # same answer up to wording
    q_all = np.concatenate([q, q_dup])
    a_all = np.concatenate([a, a_dup])
    evidence += [list(evidence[s]) for s in src]
    scores = rng.random(n)
    chains = [
        {"id": f"ch{i:06d}", "seq": i, "evidence_ids": evidence[i], "doc_ids": [e.split("c")[0] for e in evidence[i][:1]],
         "hops": len(evidence[i]), "score": float(scores[i])}
        for i in range(n)
    ]
    planted = {frozenset((f"ch{n_orig + j:06d}", f"ch{int(s):06d}")) for j, s in enumerate(src)}
    return chains, q_all, a_all, planted


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20_000)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--topic-size", type=int, default=20)
    parser.add_argument("--dup-share", type=float, default=0.1)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--alpha", type=float, default=0.6)
    parser.add_argument("--tau", type=float, default=0.7)
    parser.add_argument("--resolution", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args()

    chains, q, a, planted = synthetic_chains(args.n, args.dim, args.topic_size, args.dup_share, seed=0)
    rss_before = peak_rss_mb()
    t0, cpu0 = time.perf_counter(), time.process_time()
    groups, dups = find_duplicates(chains, q, a, alpha=args.alpha, tau=args.tau, k=args.k,
                                   resolution=args.resolution, seed=args.seed)
    seconds = time.perf_counter() - t0
    cpu = time.process_time() - cpu0
    found = {frozenset((d, kept)) for d, kept, _ in dups}
    hit = len(found & planted)
    print(f"n={args.n} dim={args.dim} k={args.k} alpha={args.alpha} tau={args.tau} resolution={args.resolution}: "
          f"{seconds:.1f} s wall, {cpu:.1f} s CPU, peak RSS {peak_rss_mb():.0f} MB "
          f"(before dedup {rss_before:.0f} MB)")
    print(f"groups={len(groups)} duplicates={len(dups)} planted={len(planted)} "
          f"recall={hit / max(len(planted), 1):.3f} precision={hit / max(len(found), 1):.3f}")
    ok = seconds <= 60 and peak_rss_mb() <= 3072
    print("targets (<= 60 s, <= 3 GB):", "met" if ok else "MISSED")


if __name__ == "__main__":
    main()
