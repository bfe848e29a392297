"""End-to-end set-up of the RAGAS comparison: ingest + generate with an LLM of fixed latency.

    .venv/bin/python bench/generate.py [--latency 2.0] [--concurrency 16] [--n 50] [--min-hops 3]

A scripted OpenAI-compatible server answers every task with the deterministic
fake LLM of tests/fake_llm.py after `--latency` seconds. It runs in its own
process (a real endpoint is elsewhere too), so its CPU time does not compete
with the pipeline's for the GIL. The LLM does every task: keypoints per chunk,
image descriptions (a vision model is configured), domain/persona, then one
verbalize and one verify call per chain (RAGAS's call count includes its
extraction, so ours does too).

Reports: total wall time (ingest included), ingest and generate time, LLM calls
per stage and per accepted chain (all stages; generate+verify only), time
blocked on the LLM (wall time inside client.run_many) against the ideal
calls x latency / concurrency, and accepted chains by type.
Targets (2 s latency, six PDFs, N=50 chains of >= 3 hops): wall <= 114 s,
<= 7.76 LLM calls per accepted chain.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

PDF_DIR = ROOT.parent / "shared" / "corpus" / "pdf"
TARGET_WALL_S = 114.0
TARGET_CALLS_PER_CHAIN = 7.76  # RAGAS: 388 calls for 50 questions

SERVER_CHILD = """
import json, sys
sys.path[:0] = [sys.argv[1]]
from llm_server import ScriptedLLMServer
from fake_llm import FakeLLM, task_of
from collections import Counter
fake = FakeLLM()
with ScriptedLLMServer(responder=fake, latency=float(sys.argv[2])) as server:
    print(server.base_url, flush=True)
    for line in sys.stdin:
        if line.strip() == "stats":
            reqs = server.chat_requests
            print(json.dumps({"requests": len(reqs), "by_task": Counter(task_of(r.body) for r in reqs),
                              "first": reqs[0].time if reqs else 0, "last": reqs[-1].time if reqs else 0}),
                  flush=True)
"""


class ServerProcess:
    def __init__(self, latency: float) -> None:
        self.proc = subprocess.Popen([sys.executable, "-c", SERVER_CHILD, str(ROOT / "tests"), str(latency)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.base_url = self.proc.stdout.readline().strip()
        if not self.base_url.startswith("http"):
            raise RuntimeError("the scripted server did not start")

    def stats(self) -> dict:
        self.proc.stdin.write("stats\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.terminate()
        self.proc.wait(10)


class Quiet:
    def print(self, *args, **kwargs):
        pass


class TimedClient:
    """Wraps client.run_many to measure wall time blocked on the LLM, per stage."""

    def __init__(self, client) -> None:
        self.client = client
        self.blocked = Counter()
        self.batches = Counter()
        inner = client.run_many

        def run_many(requests, on_result=None):
            stage = requests[0].stage if requests and hasattr(requests[0], "stage") else "?"
            t = time.perf_counter()
            try:
                return inner(requests, on_result)
            finally:
                self.blocked[stage] += time.perf_counter() - t
                self.batches[stage] += 1

        client.run_many = run_many


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--latency", type=float, default=2.0)
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--n", type=int, default=50)
    ap.add_argument("--min-hops", type=int, default=3)
    ap.add_argument("--max-hops", type=int, default=4)
    ap.add_argument("--docs", type=Path, nargs="*", default=None, help="Default: the six PDFs of the corpus.")
    ap.add_argument("--json", action="store_true", help="Print the result as JSON only.")
    args = ap.parse_args()

    from builders.chains.generate import run_generate
    from kg.config import Settings
    from kg.llm.client import LLMClient
    from kg.context import RunContext
    from kg.pipeline import run_ingest
    from kg.store.falkor import FalkorStore

    docs = args.docs or sorted(PDF_DIR.glob("*.pdf"))
    server = ServerProcess(args.latency)
    tmp = tempfile.TemporaryDirectory(prefix="hopgraph-bench-")
    data_dir = Path(tmp.name) / ".hopgraph"
    s = Settings()
    s.store.data_dir = data_dir
    s.llm.base_url = server.base_url
    s.llm.generator_model = "fake-generator"
    s.llm.verifier_model = "fake-verifier"
    s.llm.vision_model = "fake-vision"
    s.llm.concurrency = args.concurrency
    s.generate.n = args.n
    s.generate.min_hops = args.min_hops
    s.generate.max_hops = max(args.max_hops, args.min_hops)
    store = None
    try:
        t0 = time.perf_counter()
        store = FalkorStore(data_dir)
        store.ensure_schema()
        client = LLMClient.from_settings(s)
        timed = TimedClient(client)
        summary = run_ingest(RunContext(s, store, client=client, console=Quiet()), docs)
        t1 = time.perf_counter()
        report = run_generate(RunContext(s, store, client=client, console=Quiet()))
        t2 = time.perf_counter()
        served = server.stats()

        chains = [r["chain"] for r in store.run("chains_for_export")]
        ok = [c for c in chains if c["status"] == "accepted"]
        acct = client.accounting.to_dict()
        stages = {k: v["calls"] for k, v in acct["stages"].items()}
        total_calls = acct["total"]["calls"]
        gen_calls = sum(v for k, v in stages.items() if k.startswith(("generate/", "verify/")))
        kp_calls = sum(v for k, v in stages.items() if k.startswith("keypoints/"))
        n_ok = len(ok)
        blocked = sum(timed.blocked.values())
        wall = t2 - t0
        ideal = total_calls * args.latency / args.concurrency
        blocked_gen = sum(v for k, v in timed.blocked.items() if k in ("generate", "verify"))
        result = {
            "latency_s": args.latency, "concurrency": args.concurrency, "docs": len(docs),
            "n_wanted": args.n, "min_hops": args.min_hops,
            "wall_s": round(wall, 1), "ingest_s": round(t1 - t0, 1), "generate_s": round(t2 - t1, 1),
            "ingest": {k: getattr(summary, k) for k in ("ingested", "failed", "similar_to", "topics")},
            "accepted": n_ok, "rejected": len(chains) - n_ok,
            "accepted_by_type": dict(Counter(c["graph_type"] for c in ok)),
            "accepted_hops": dict(sorted(Counter(c["hops"] for c in ok).items())),
            "rejected_by_reason": report.to_dict()["rejected_by_reason"],
            "llm_calls_by_stage": stages,
            "llm_calls_total": total_calls,
            "server_requests": served["requests"], "server_requests_by_task": served["by_task"],
            "calls_per_accepted_chain": round(total_calls / n_ok, 2) if n_ok else None,
            "calls_per_accepted_chain_generate_verify": round(gen_calls / n_ok, 2) if n_ok else None,
            "calls_per_accepted_chain_without_keypoints": round((total_calls - kp_calls) / n_ok, 2) if n_ok else None,
            "llm_blocked_s": round(blocked, 1),
            "llm_blocked_by_stage_s": {k: round(v, 1) for k, v in timed.blocked.items()},
            "llm_batches_by_stage": dict(timed.batches),
            "llm_ideal_s (calls*latency/concurrency)": round(ideal, 1),
            "llm_ideal_generate_s": round(gen_calls * args.latency / args.concurrency, 1),
            "llm_blocked_generate_s": round(blocked_gen, 1),
            "compute_s (wall - blocked)": round(wall - blocked, 1),
            "targets": {"wall_s<=": TARGET_WALL_S, "calls_per_chain<=": TARGET_CALLS_PER_CHAIN,
                        "wall_ok": wall <= TARGET_WALL_S,
                        "calls_ok": bool(n_ok) and total_calls / n_ok <= TARGET_CALLS_PER_CHAIN},
        }
        result["accepted_below_min_hops"] = sum(c["hops"] < args.min_hops for c in ok)  # must be 0
    finally:
        if store is not None:
            store.close()
            store.server.stop()
        server.close()
        tmp.cleanup()

    if args.json:
        print(json.dumps(result, indent=1))
    else:
        width = max(len(k) for k in result)
        for k, v in result.items():
            print(f"{k:<{width}}  {json.dumps(v) if isinstance(v, (dict, list)) else v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
