"""Benchmark exact kNN pairs on synthetic clustered vectors.

Target from the design: 100,000 x 384 in at most 60 s and 4 GB on 2 cores.
Clustered data (not uniform noise) so that many scores pass min_score, as with
real chunk embeddings, and the pair collection step is exercised too.

    .venv/bin/python bench/knn.py [--n 100000] [--dim 384] [--k 10]
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kg.enrich.similarity import knn_pairs  # noqa: E402


def clustered_vectors(n: int, dim: int, clusters: int, noise: float, seed: int) -> np.ndarray:
    """n unit vectors scattered around `clusters` random centres."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((clusters, dim), dtype=np.float32)
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    labels = rng.integers(0, clusters, size=n)
    # float32 throughout, so the peak RSS reported is the kNN's, not the generator's.
    vecs = rng.standard_normal((n, dim), dtype=np.float32)
    vecs *= noise / np.sqrt(dim)
    vecs += centres[labels]
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    return vecs


def peak_rss_mb() -> float:
    # ru_maxrss is in KiB on Linux.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--min-score", type=float, default=0.5)
    parser.add_argument("--block", type=int, default=2048)
    parser.add_argument("--clusters", type=int, default=500)
    parser.add_argument("--noise", type=float, default=1.0)
    args = parser.parse_args()

    vecs = clustered_vectors(args.n, args.dim, args.clusters, args.noise, seed=0)
    ids = [f"c{i:07d}" for i in range(args.n)]
    rss_before = peak_rss_mb()
    t0, cpu0 = time.perf_counter(), time.process_time()
    pairs = knn_pairs(vecs, ids, k=args.k, min_score=args.min_score, block=args.block)
    seconds = time.perf_counter() - t0
    cpu = time.process_time() - cpu0  # both cores: wall time is noisy on a shared machine
    print(
        f"n={args.n} dim={args.dim} k={args.k} min_score={args.min_score} block={args.block}: "
        f"{len(pairs)} pairs in {seconds:.1f} s wall ({cpu:.1f} s CPU); "
        f"peak RSS {peak_rss_mb():.0f} MB (after data generation {rss_before:.0f} MB)"
    )


if __name__ == "__main__":
    main()
