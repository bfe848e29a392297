"""Peak memory of ingest's corpus steps (SIMILAR_TO kNN and topics,
kg.pipeline.corpus) by the number of chunks of one new document: does it
grow with the document beyond the kNN's own vectors?

Each size runs in a fresh process: a fresh embedded FalkorDB gets one
Document and N chunks of real, distinct text (consecutive 650-character
slices of the source text, about 150 chunks per 100 KB as semantic chunking
makes of the PEPs), then link_similar and write_topics run as ingest runs
them. The vectors are not the model's (that would cost the embedding of the
whole text): unit vectors around 300 seeded centres, so each chunk has about
k neighbours above min_score as real text does. They are put in an embedding
cache under the chunks' pooled keys, as ingest leaves them, and link_similar
reads them back through kg.pipeline.prepare.item_vectors, as ingest does
(the model is never loaded: every vector is a cache hit). The resident memory of this
process is sampled every 20 ms (what the setup freed given back to the system first);
printed: chunks, SIMILAR_TO edges made, RSS
before the steps, peak during them, and the peak's growth over "before".

    .venv/bin/python bench/corpus_memory.py --text long.txt [--chunks 6000,20000]
"""

from __future__ import annotations

import argparse
import ctypes
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import psutil

DIM, CENTRES, SLICE = 384, 300, 650


def one_size(text: str, n: int) -> str:
    from kg.config import Settings
    from kg.enrich.embeddings import Embedder, pooled_key
    from kg.pipeline.corpus import link_similar, write_topics
    from kg.pipeline.prepare import item_vectors
    from kg.enrich.topics import _stop_words
    from kg.store.falkor import FalkorStore

    import igraph  # noqa: F401  what ingest has imported by then (its warm-up), not counted
    import leidenalg  # noqa: F401

    _stop_words()  # imports spaCy, as ingest has

    if len(text) < n * SLICE:
        return f"{n:>7} skipped: the text has {len(text) // SLICE} slices of {SLICE} characters"
    rng = np.random.default_rng(7)
    centres = rng.normal(size=(CENTRES, DIM))
    vecs = centres[rng.integers(0, CENTRES, n)] + rng.normal(scale=0.6, size=(n, DIM))
    vecs = (vecs / np.linalg.norm(vecs, axis=1, keepdims=True)).astype(np.float32)
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:  # the server may still be closing files
        settings = Settings()
        settings.store.data_dir = Path(tmp)
        store = FalkorStore(Path(tmp), graph="bench")
        embedder = Embedder(cache_path=Path(tmp) / "embeddings.sqlite", progress=False)
        try:
            store.ensure_schema()
            store.write("upsert_documents", [{"id": "doc", "path": "long.txt", "ingested": True, "linked": False}])
            store.write("upsert_chunks", [{"id": f"doc:{i:06d}", "doc_id": "doc", "index": i, "kind": "text",
                                           "text": text[i * SLICE:(i + 1) * SLICE]} for i in range(n)])
            for start in range(0, n, 2000):
                embedder.store({pooled_key(text[i * SLICE:(i + 1) * SLICE]): vecs[i]
                                for i in range(start, min(start + 2000, n))})
            del vecs  # what ingest holds by then: the vectors are in the cache, not in memory
            process, peak, running = psutil.Process(), [0], [True]

            def sample() -> None:
                while running[0]:
                    peak[0] = max(peak[0], process.memory_info().rss)
                    time.sleep(0.02)

            ctypes.CDLL(None).malloc_trim(0)  # what the setup freed is not there for the steps to reuse
            before = process.memory_info().rss
            sampler = threading.Thread(target=sample)
            sampler.start()
            edges = link_similar(settings, store, lambda items: item_vectors(items, embedder, True))
            topics = write_topics(settings, store)
            running[0] = False
            sampler.join()
        finally:
            store.close()
            embedder.close()
            store.server.stop()
    mb = 2 ** 20
    return (f"{n:>7} {edges:>8} {len(topics.ranked):>7} {before / mb:>9.0f} {peak[0] / mb:>8.0f} "
            f"{(peak[0] - before) / mb:>7.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--text", type=Path, required=True, help="a long text file of distinct text")
    parser.add_argument("--chunks", default="6000,20000", help="numbers of chunks, comma-separated")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)  # one size, in this process
    args = parser.parse_args()
    text = args.text.read_text(encoding="utf-8")
    if args.one:
        print(one_size(text, args.one), flush=True)
        return
    print(f"{'chunks':>7} {'edges':>8} {'topics':>7} {'before MB':>9} {'peak MB':>8} {'growth':>7}", flush=True)
    for n in (int(s) for s in args.chunks.split(",")):
        subprocess.run([sys.executable, __file__, "--text", str(args.text), "--one", str(n)], check=True)


if __name__ == "__main__":
    main()
