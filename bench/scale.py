"""Ingest at growing corpus sizes: seconds per file should stay flat.

    python bench/scale.py [--sizes 100 400 800 0] [--offline] [--executor local|ray]

Ingests the first K files (sorted by name) of ../shared/corpus/text/
wiki_hotpotqa_train100 (994 .txt files there; 0 = all of them) into a fresh
data dir with a fresh embedding cache, one size after the other, and prints
the ingest wall time, the time without model loads (RAGAS's "KG build" figure
excludes its setup too), seconds per file, and the per-stage timings of the
run manifest. By default an LLM answers at 0 s latency (the scripted fake of
bench/generate.py, in its own process), as in RAGAS's measurement; --offline
runs without one (keypoints from sentences).

RAGAS 0.4.3's KG build on the same files (../shared/ragas_bench/
RAGAS_BASELINE.md, latency 0): 3.7 / 17.5 / 53.8 / 73.7 s for 100 / 400 /
800 / all (992 there). Targets (issue 15): all files <= 0.5x RAGAS's, and
seconds per file at all files within 1.3x of that at 100.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "bench")]
WIKI = ROOT.parent / "shared" / "corpus" / "text" / "wiki_hotpotqa_train100"
RAGAS_KG_S = {100: 3.7, 400: 17.5, 800: 53.8, "all": 73.7}


def ingest_size(files: list[Path], base_url: str | None, executor: str) -> dict:
    from rich.console import Console

    import kg.config
    from kg.config import Settings
    from kg.context import RunContext
    from kg.pipeline import run_ingest
    from kg.runs import latest_manifests
    from kg.store.falkor import FalkorStore

    with tempfile.TemporaryDirectory(prefix="hopgraph-scale-") as tmp:
        data_dir = Path(tmp) / ".hopgraph"
        s = Settings()
        s.store.data_dir = data_dir
        s.ingest.executor = executor
        if base_url:
            s.llm.base_url = base_url
            s.llm.generator_model = s.llm.verifier_model = "fake-generator"
            s.llm.concurrency = 16
        else:
            kg.config.Settings.llm_configured = property(lambda self: False)
        store = FalkorStore(data_dir)
        store.ensure_schema()
        try:
            t0 = time.perf_counter()
            summary = run_ingest(RunContext.open(s, store, console=Console(file=io.StringIO())), files)
            wall = time.perf_counter() - t0
        finally:
            store.close()
            store.server.stop()
        stages = latest_manifests(data_dir, command="ingest")[0]["stages"]
    loads = stages.get("model load", {}).get("seconds", 0.0)
    return {"files": len(files), "wall_s": wall, "without_loads_s": wall - loads, "summary": summary.to_dict(),
            "stages": stages}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[100, 400, 800, 0], help="0 = all files")
    ap.add_argument("--offline", action="store_true", help="no LLM (keypoints from sentences)")
    ap.add_argument("--executor", default="local", choices=["local", "ray"])
    args = ap.parse_args()
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    everything = sorted(WIKI.glob("*.txt"))
    server = None
    if not args.offline:
        from generate import ServerProcess

        server = ServerProcess(0.0)
    rows = []
    try:
        for size in args.sizes:
            files = everything[:size] if size else everything
            row = ingest_size(files, server.base_url if server else None, args.executor)
            rows.append(row)
            per_file = row["without_loads_s"] / row["files"]
            print(f"{row['files']:5d} files: wall {row['wall_s']:6.1f} s, without model loads "
                  f"{row['without_loads_s']:6.1f} s = {per_file * 1000:5.1f} ms/file; "
                  f"{row['summary']['ingested']} ingested, {row['summary']['similar_to']} SIMILAR_TO; stages "
                  + json.dumps({k: v["seconds"] for k, v in row["stages"].items()}), flush=True)
    finally:
        if server is not None:
            server.close()
    print(f"\n{'files':>6} {'hopgraph s':>11} {'s/file':>8} {'vs 100':>7} {'RAGAS KG s':>11} {'ratio':>6}"
          f"   ({time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores, {'offline' if args.offline else 'LLM at 0 s'},"
          f" executor {args.executor})")
    base = rows[0]["without_loads_s"] / rows[0]["files"]
    for row in rows:
        per_file = row["without_loads_s"] / row["files"]
        ragas = RAGAS_KG_S.get(row["files"], RAGAS_KG_S["all"] if row["files"] == len(everything) else None)
        ratio = f"{row['without_loads_s'] / ragas:6.2f}" if ragas else "     -"
        print(f"{row['files']:6d} {row['without_loads_s']:11.1f} {per_file:8.3f} {per_file / base:7.2f} "
              f"{ragas if ragas else '-':>11} {ratio}")
    print("targets: all files <= 0.5x RAGAS; s/file at all files <= 1.3x that at 100")
    return 0


if __name__ == "__main__":
    sys.exit(main())
