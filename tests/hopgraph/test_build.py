"""`hopgraph build`, the one-command run: resumable, and a second run adds and spends nothing."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from testing_support import CORPUS, needs_corpus

pytestmark = needs_corpus
HOPGRAPH = str(Path(sys.executable).parent / "hopgraph")


def test_build_twice_adds_nothing_and_exports_the_same_bytes(tmp_path, shared_embedding_cache):
    docs = tmp_path / "docs"
    docs.mkdir()
    for page in sorted((CORPUS / "text" / "wiki_hotpotqa_train100").glob("*.txt"))[:40]:
        shutil.copy(page, docs / page.name)
    env = {**os.environ, "HOPGRAPH_EMBEDDINGS__CACHE_DIR": str(shared_embedding_cache),
           "HOPGRAPH_INGEST__MIN_TOKENS": "16"}

    def build():
        proc = subprocess.run([HOPGRAPH, "build", str(docs), str(tmp_path / "out"), "--n", "8",
                               "--types", "text_chain"], cwd=tmp_path, capture_output=True, text=True,
                              env=env, timeout=900)
        assert proc.returncode == 0, proc.stderr[-2000:]
        stats = subprocess.run([HOPGRAPH, "stats", "--json"], cwd=tmp_path, capture_output=True, text=True,
                               env=env, timeout=300)
        data = json.loads(stats.stdout)
        return proc, (data["nodes"], data["relationships"]), (tmp_path / "out" / "dataset.jsonl").read_bytes()

    first, counts1, data1 = build()
    assert "dataset:" in first.stdout and "graph:" in first.stdout
    assert "generate: 8 accepted this run" in first.stderr  # a small n is met on the first run
    records = [json.loads(line) for line in data1.splitlines()]
    assert records and all(r["graph_type"] == "text_chain" and r["hops"] >= 2 for r in records)
    second, counts2, data2 = build()
    assert counts2 == counts1
    assert data2 == data1
    # n is the records the user gets: when dedup left fewer than n, the second run looks again
    # and says why it is short; either way it adds nothing
    assert "nothing to do" in second.stderr or "ran out of new candidates" in second.stderr
    assert "0 new" in second.stderr
