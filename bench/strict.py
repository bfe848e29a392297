"""What hopgraph's LLM path yields with a given endpoint: offline ingest, then `generate` through it.

    export OPENAI_BASE_URL=http://127.0.0.1:28411/v1 OPENAI_API_KEY=local   # ../shared/strict_llm/server.py
    .venv/bin/python bench/strict.py DOCS_DIR [--n 8] [--model strong] [--data-dir DIR] [--json OUT]

1. `hopgraph ingest DOCS_DIR` with every LLM variable removed from the
   environment (offline: the graph does not depend on the model judged);
   re-runs skip documents already ingested.
2. `hopgraph generate --n N` with the endpoint (flags, or OPENAI_BASE_URL /
   OPENAI_API_KEY), the generator and verifier set to --model, a long
   timeout (a reply may be written by hand) and --concurrency.
3. Reads the generate run's manifest and prints: accepted / verbalized,
   LLM calls per accepted chain (every call of generate: domain, verbalize,
   verify, repair), rejections by reason and by chain type, accepted by
   type, candidates dropped by the pre-check before any call, and how many
   were accepted after a repair.
4. From the chains in the graph: how well the question-level retrieval
   check (BM25 ranks the last hop first and the first hop nowhere near,
   construction.question_ranks) predicted the verifier's "hop not needed" or
   "shortcut" verdicts: precision and recall, so the check can be calibrated
   against a strict model's verdicts before it is allowed to drop anything.

Documents byte-identical to a file of the bundled or shared corpus (which the
project is developed against) are named in a warning and in the figures
(`known_documents`): such a run is no figure for unseen documents.

The script only starts hopgraph and reads its records; it answers no
request. Against tests/fake_llm.py (which judges every hop needed) its
figures say nothing about quality, only that the path works.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LLM_ENV = ("OPENAI_BASE_URL", "OPENAI_API_KEY")
# Documents the project is developed against: a strict run on any of them says nothing about
# unseen documents (session 7's q7 had three of them, fetched again under other names).
KNOWN_CORPORA = (ROOT / "examples" / "corpus", ROOT.parent / "shared" / "corpus")


def hopgraph(args: list[str], env: dict[str, str], timeout: float | None, ok: tuple[int, ...] = (0,)) -> None:
    cmd = [sys.executable, "-c", "from hopgraph.cli import main; main()", *args]
    proc = subprocess.run(cmd, env=env, cwd=ROOT, timeout=timeout)
    if proc.returncode not in ok:
        raise SystemExit(f"bench/strict.py: `hopgraph {' '.join(args)}` exited with {proc.returncode}")


def offline_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in LLM_ENV and not k.startswith("HOPGRAPH_LLM__")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH", "")]))
    return env


def llm_env(opts: argparse.Namespace) -> dict[str, str]:
    env = offline_env()
    base_url = opts.base_url or os.environ.get("OPENAI_BASE_URL")
    if not base_url:
        raise SystemExit("bench/strict.py: give --base-url or set OPENAI_BASE_URL (the endpoint to judge)")
    env.update({"OPENAI_BASE_URL": base_url, "OPENAI_API_KEY": opts.api_key or os.environ.get("OPENAI_API_KEY", "local"),
                "HOPGRAPH_LLM__GENERATOR_MODEL": opts.model, "HOPGRAPH_LLM__VERIFIER_MODEL": opts.model,
                "HOPGRAPH_LLM__TIMEOUT": str(opts.timeout), "HOPGRAPH_LLM__CONCURRENCY": str(opts.concurrency),
                # a hand-written reply may take minutes: silence is not a stuck endpoint here
                "HOPGRAPH_LLM__STALL_SECONDS": str(opts.timeout)})
    return env


def last_generate_report(data_dir: Path) -> dict:
    runs = sorted(glob.glob(str(data_dir / "runs" / "*-generate.json")))
    if not runs:
        raise SystemExit(f"bench/strict.py: no generate run recorded under {data_dir / 'runs'}")
    return json.loads(Path(runs[-1]).read_text(encoding="utf-8"))


def summarise(manifest: dict) -> dict:
    """The figures of one generate run (its manifest's "generate" section and LLM accounting)."""
    gen = manifest.get("generate") or {}
    accepted = sum(gen.get("accepted_by_type", {}).values())
    verbalized = gen.get("verbalized", 0)
    calls = (gen.get("llm") or {}).get("total", {}).get("calls", 0)
    by_reason: Counter = Counter()
    by_type: Counter = Counter()
    for key, n in gen.get("rejected_by_reason", {}).items():
        gtype, _, reason = key.partition(": ")
        by_reason[reason] += n
        by_type[gtype] += n
    return {
        "accepted": accepted, "verbalized": verbalized,
        "accepted_share": round(accepted / verbalized, 3) if verbalized else None,
        "llm_calls": calls, "calls_per_accepted": round(calls / accepted, 2) if accepted else None,
        "accepted_by_type": gen.get("accepted_by_type", {}), "rejected_by_type": dict(by_type),
        "rejected_by_reason": dict(by_reason), "precheck_dropped": gen.get("precheck_dropped", {}),
        "accepted_after_repair": gen.get("accepted_after_repair", 0),
        "llm_failed": gen.get("llm_failed", {}), "llm_unavailable": gen.get("llm_unavailable", ""),
    }


def shortcut_agreement(chains: list[dict]) -> dict:
    """The question-level check against the verifier's verdicts, over chains an LLM verified."""
    tp = fp = fn = tn = 0
    for c in chains:
        if not str(c.get("verifier", "")).startswith("llm"):
            continue
        ranks = json.loads(c.get("construction") or "{}").get("question_ranks") or []
        predicted = bool(ranks) and ranks[-1] == 1 and ranks[0] != 1
        reason = c.get("reject_reason") or ""
        failed = c.get("status") == "rejected" and ("not needed" in reason or "shortcut" in reason)
        tp, fp, fn, tn = tp + (predicted and failed), fp + (predicted and not failed), \
            fn + (failed and not predicted), tn + (not predicted and not failed)
    return {"true_pos": tp, "false_pos": fp, "false_neg": fn, "true_neg": tn,
            "precision": round(tp / (tp + fp), 3) if tp + fp else None,
            "recall": round(tp / (tp + fn), 3) if tp + fn else None}


def stored_chains(data_dir: Path) -> list[dict]:
    sys.path.insert(0, str(ROOT))
    from kg.store.falkor import FalkorStore

    store = FalkorStore(data_dir)
    try:
        return [r["chain"] for r in store.run("chains_for_export")]
    finally:
        store.close()
        store.server.stop()


def print_summary(s: dict) -> None:
    for line in s.get("known_documents") or []:
        print(f"not an unseen document: {line}")
    share = f"{s['accepted_share']:.0%}" if s["accepted_share"] is not None else "n/a"
    print(f"accepted / verbalized: {s['accepted']} / {s['verbalized']} ({share})")
    print(f"LLM calls: {s['llm_calls']}, per accepted chain: {s['calls_per_accepted'] or 'n/a'}")
    print(f"accepted after a repair: {s['accepted_after_repair']}")
    for title, key in (("accepted by type", "accepted_by_type"), ("rejected by type", "rejected_by_type"),
                       ("rejected by reason", "rejected_by_reason"),
                       ("dropped by the pre-check (no LLM call)", "precheck_dropped"),
                       ("calls failed (retried next run)", "llm_failed")):
        print(f"{title}:" + ("" if s[key] else " none"))
        for name, n in sorted(s[key].items(), key=lambda kv: -kv[1]):
            print(f"  {n:4d}  {name}")
    if s["llm_unavailable"]:
        print(f"stopped: {s['llm_unavailable']}")
    q = s.get("question_check")
    if q:
        print(f"question-level shortcut check vs the verifier: precision {q['precision']}, recall {q['recall']} "
              f"(tp {q['true_pos']}, fp {q['false_pos']}, fn {q['false_neg']}, tn {q['true_neg']})")


def known_documents(docs: Path) -> list[str]:
    """Files of `docs` byte-identical to a file of the bundled or shared corpus, as "doc = known"."""
    import hashlib

    def digest(path: Path) -> str:
        return hashlib.md5(path.read_bytes()).hexdigest()

    wanted = {digest(p): p for p in ([docs] if docs.is_file() else sorted(docs.rglob("*"))) if p.is_file()}
    found = []
    for folder in KNOWN_CORPORA:
        for known in sorted(folder.rglob("*")) if folder.is_dir() else []:
            if known.is_file() and known.stat().st_size and (doc := wanted.get(digest(known))):
                found.append(f"{doc.name} = {known}")
    return found


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("docs", type=Path, help="folder (or file) of documents to ingest offline")
    ap.add_argument("--data-dir", type=Path, default=None, help="hopgraph data dir (default: a new temp dir)")
    ap.add_argument("--n", type=int, default=8, help="chains to generate (default 8)")
    ap.add_argument("--base-url", default=None, help="OpenAI-compatible endpoint (default $OPENAI_BASE_URL)")
    ap.add_argument("--api-key", default=None, help="API key (default $OPENAI_API_KEY, else 'local')")
    ap.add_argument("--model", default="strong", help="generator and verifier model (default 'strong')")
    ap.add_argument("--timeout", type=float, default=3600, help="per-call LLM timeout in s (default 3600)")
    ap.add_argument("--concurrency", type=int, default=4, help="LLM calls in flight (default 4)")
    ap.add_argument("--json", type=Path, default=None, help="also write the figures to this JSON file")
    opts = ap.parse_args(argv)
    data_dir = opts.data_dir or Path(tempfile.mkdtemp(prefix="hopgraph-strict-")) / ".hopgraph"
    known = known_documents(opts.docs)
    for line in known:
        print(f"warning: not an unseen document: {line}", file=sys.stderr)
    # exit 1: some files failed (each named above); the rest is ingested and worth generating from
    hopgraph(["--data-dir", str(data_dir), "ingest", str(opts.docs)], offline_env(), None, ok=(0, 1))
    hopgraph(["--data-dir", str(data_dir), "generate", "--n", str(opts.n)], llm_env(opts), None)
    figures = summarise(last_generate_report(data_dir))
    figures["question_check"] = shortcut_agreement(stored_chains(data_dir))
    figures["data_dir"] = str(data_dir)
    figures["known_documents"] = known
    print_summary(figures)
    if opts.json:
        opts.json.write_text(json.dumps(figures, indent=1, sort_keys=True), encoding="utf-8")
    return figures


if __name__ == "__main__":
    main()
