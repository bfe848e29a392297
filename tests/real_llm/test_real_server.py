"""hopgraph against a real OpenAI-compatible server (see conftest.py):
llama-cpp-python 0.3.36 refuses json_schema and image parts with HTTP 500;
a run must negotiate both without retrying them, finish ingest and generate,
and stop fast when the server dies."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kg.config import LLMConfig
from kg.llm import Keypoints, LLMClient, LLMRequest
from collections.abc import Iterator

from tests.real_llm.llama_server import MODEL_ALIAS, LlamaServer, free_port, small_model_env

ROOT = Path(__file__).resolve().parents[2]
PDF = ROOT / "examples" / "corpus" / "manual_faa_amt_handbook_sample.pdf"
PNG = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
SERVER_PYTHON = os.environ.get("HOPGRAPH_LLM_SERVER_PYTHON")

pytestmark = [pytest.mark.skipif(not SERVER_PYTHON, reason="real-server tier: run `make test-llm`"),
              pytest.mark.timeout(3600)]


def hopgraph(env: dict[str, str], *args: str, timeout: float = 1800) -> subprocess.CompletedProcess:
    code = "import sys; sys.argv[0] = 'hopgraph'; from hopgraph.cli import main; main()"
    return subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, env={**env, "PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True, timeout=timeout)


def last_manifest(data_dir: Path, verb: str) -> dict:
    path = sorted((data_dir / "runs").glob(f"*-{verb}.json"))[-1]
    return json.loads(path.read_text())


def llm_totals(manifest: dict) -> dict:
    llm = manifest.get("llm") or {}
    return llm.get("total", llm)


@pytest.fixture(scope="module")
def llama(tmp_path_factory) -> Iterator[LlamaServer]:
    assert SERVER_PYTHON
    server = LlamaServer(SERVER_PYTHON, free_port()).start(tmp_path_factory.mktemp("llama") / "server.log")
    yield server
    server.kill()


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("hopgraph")


WIKI = ROOT.parent / "shared" / "corpus" / "text" / "wiki_hotpotqa_train100"


@pytest.fixture(scope="module")
def wiki_copy(tmp_path_factory) -> Path:
    """100 HotpotQA paragraph files: enough shared entities for 3-hop chains (one
    one-page PDF holds none, and a generate with no candidate proves nothing)."""
    index = json.loads((WIKI / "_index.json").read_text(encoding="utf-8"))
    folder = tmp_path_factory.mktemp("wiki")
    for entry in index[:100]:
        (folder / entry["file"]).write_bytes((WIKI / entry["file"]).read_bytes())
    return folder


def ingest_wiki(env: dict[str, str], folder: Path) -> subprocess.CompletedProcess:
    """Keypoints off: at ~15 tokens/s a 135M model would spend the tier on them;
    the keypoints test above covers that stage."""
    return hopgraph(env, "ingest", str(folder), "--no-keypoints")


def test_client_negotiates_format_and_vision_without_retrying_them(llama, tmp_path):
    client = LLMClient(LLMConfig(generator_model=MODEL_ALIAS, vision_model=MODEL_ALIAS, timeout=300,
                                 max_tokens={"keypoints": 120}),
                       base_url=llama.base_url, cache_path=tmp_path / "c.sqlite", backoff_base=0.1)
    with_image = [{"type": "text", "text": "Passage: The Wright Flyer first flew in 1903 at Kitty Hawk."},
                  {"type": "image_url", "image_url": {"url": PNG}}]
    requests = [
        LLMRequest("keypoints", "generator", [{"role": "user", "content": with_image}], Keypoints, "t", "v1"),
        LLMRequest.for_task("keypoints", "generator", "t", title="History",
                            section="", text="The Wright Flyer first flew in 1903 at Kitty Hawk."),
    ]
    results = client.run_many(requests)
    # json_schema refused with a 500: downgraded to JSON mode with the schema (a grammar in llama.cpp)
    assert client.profile.mode_for(MODEL_ALIAS) == "json_object_schema"
    assert client.model_for("vision") is None  # image parts refused with a 500: vision off
    reasons = {r.error for r in results if not r.ok}
    assert not reasons & {"server error", "timeout", "connection error"}, reasons
    assert client.accounting.total().retries == 0  # nothing retried (a format downgrade is no retry)


def test_llm_check_shows_the_capabilities(llama, data_dir):
    env = small_model_env(llama.base_url, data_dir)
    proc = hopgraph(env, "llm", "check", "--json")
    assert proc.returncode == 0, proc.stderr
    [report] = json.loads(proc.stdout)
    checks = {c["name"]: c for c in report["checks"]}
    assert checks["reachable, /v1/models"]["ok"] and "listed" in checks["reachable, /v1/models"]["detail"]
    assert checks["json_schema"]["ok"] is False and "HTTP 500" in checks["json_schema"]["detail"]
    assert checks["json_object + schema"]["ok"] is True and checks["json_object"]["ok"] is True
    assert checks["vision"]["ok"] is False
    assert report["format_mode"] == "json_object_schema" and report["vision"] is False and report["slots"] >= 1
    assert report["latency_s"] > 0 and report["tokens_per_s"] > 0
    assert (data_dir / "llm_capabilities.json").exists()


def test_ingest_keypoints_on_one_pdf(llama, data_dir):
    env = small_model_env(llama.base_url, data_dir)
    proc = hopgraph(env, "ingest", str(PDF), "--keypoints")
    assert "Traceback" not in proc.stderr, proc.stderr
    manifest = last_manifest(data_dir, "ingest")
    [doc] = manifest["documents"]
    assert doc["keypoints"] >= 3, proc.stderr
    totals = llm_totals(manifest)
    assert totals.get("retries", 0) == 0, totals  # no deterministic error was retried
    assert proc.returncode in (0, 1) and doc["status"] in ("ingested", "partial"), proc.stderr


def test_generate_three_ends_with_verdicts(llama, wiki_copy, tmp_path):
    env = small_model_env(llama.base_url, tmp_path / "data")
    assert ingest_wiki(env, wiki_copy).returncode == 0
    proc = hopgraph(env, "generate", "--n", "3", "--max-calls", "40")
    assert "Traceback" not in proc.stderr, proc.stderr
    report = last_manifest(tmp_path / "data", "generate")["generate"]
    # Real candidates went through the model; each ended with a verdict and its reason, or
    # (a 135M model often cannot write the verbalize JSON) a named failure kept for a re-run.
    assert report["candidates"] > 0, proc.stderr
    verdicts = sum(report["accepted_by_type"].values()) + sum(report["rejected_by_reason"].values())
    assert verdicts + sum(report["llm_failed"].values()) > 0, proc.stderr
    assert all(key.split(": ", 1)[1] for key in report["rejected_by_reason"]), report["rejected_by_reason"]
    if proc.returncode != 0:  # stopped because every reply of a round was unusable: said so
        assert proc.returncode == 1 and "unusable" in proc.stderr, proc.stderr


def test_killed_server_ends_the_run_fast_and_the_rerun_redoes_nothing(wiki_copy, tmp_path):
    assert SERVER_PYTHON
    server = LlamaServer(SERVER_PYTHON, free_port()).start(tmp_path / "server.log")
    data_dir = tmp_path / "data"
    env = small_model_env(server.base_url, data_dir)
    assert ingest_wiki(env, wiki_copy).returncode == 0
    cache = data_dir / "llm_cache.sqlite"
    before = _cached(cache)
    code = "import sys; sys.argv[0] = 'hopgraph'; from hopgraph.cli import main; main()"
    run = subprocess.Popen([sys.executable, "-c", code, "generate", "--n", "12"], cwd=ROOT,
                           env={**env, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
    deadline = time.monotonic() + 900
    while _cached(cache) <= before and time.monotonic() < deadline and run.poll() is None:
        time.sleep(1)  # until the run has paid for at least one new reply
    server.kill()
    killed_at = time.monotonic()
    _, stderr = run.communicate(timeout=120)
    took = time.monotonic() - killed_at
    assert run.returncode == 1, stderr
    assert took < 30, f"{took:.1f} s after the kill"
    assert "stopped answering" in stderr and "Traceback" not in stderr, stderr
    paid = _cached(cache)

    server.start(tmp_path / "server.log")
    try:
        again = ingest_wiki(env, wiki_copy)
        assert "Traceback" not in again.stderr
        assert llm_totals(last_manifest(data_dir, "ingest")).get("calls", 0) == 0  # nothing re-asked
        paid_for = _replies(cache)
        rerun = hopgraph(env, "generate", "--n", "12", "--max-calls", "6")
        assert "Traceback" not in rerun.stderr, rerun.stderr
        # What the killed run paid for is reused: every usable reply is still the one it
        # stored (an unusable one is asked again, by design).
        after = _replies(cache)
        usable = [key for key, (task, content, _) in paid_for.items() if _usable(task, content)]
        assert all(after[key] == paid_for[key] for key in usable), "a usable paid reply was asked again"
    finally:
        server.kill()


def _cached(path: Path) -> int:
    if not path.exists():
        return 0
    with sqlite3.connect(path) as db:
        return int(db.execute("SELECT count(*) FROM replies").fetchone()[0])


def _replies(path: Path) -> dict[str, tuple[str, str, float]]:
    with sqlite3.connect(path) as db:
        return {k: (t, c, at) for k, t, c, at in db.execute("SELECT key, task, content, created_at FROM replies")}


def _usable(task: str, content: str) -> bool:
    from kg.llm.structured import TASK_SCHEMAS, ReplyError, parse_reply

    try:
        parse_reply(content, TASK_SCHEMAS[task])
    except (ReplyError, KeyError):
        return False
    return True


def test_eval_answers_and_agent_end_to_end_on_a_small_model(llama, tmp_path):
    """issue 14: the reader and judge roles against a real server. The dataset is built
    offline (no LLM) so this test does not depend on what a 135M model generates."""
    offline_dir, dataset_dir = tmp_path / "offline", tmp_path / "dataset"
    offline = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "HOPGRAPH_"))}
    built = hopgraph(offline, "--data-dir", str(offline_dir), "build", str(PDF.parent), str(dataset_dir),
                     "--n", "3")
    assert built.returncode == 0, built.stderr
    [dataset] = sorted(dataset_dir.glob("*.jsonl"))
    env = small_model_env(llama.base_url, offline_dir)
    out = tmp_path / "eval"
    answers = hopgraph(env, "eval", "answers", str(dataset), "--limit", "2", "--out", str(out))
    assert answers.returncode == 0 and "Traceback" not in answers.stderr, answers.stderr
    agent = hopgraph(env, "eval", "agent", str(dataset), "--retriever", "bm25", "--limit", "2", "--out", str(out))
    assert agent.returncode == 0 and "Traceback" not in agent.stderr, agent.stderr
    metrics = json.loads((out / "metrics.json").read_text())
    settings = metrics["answers"]["settings"]
    assert set(settings) == {"base", "oracle", "mixed"}
    for scores in settings.values():  # a small model's unusable reply fails its record, visibly
        assert scores["n"] + scores["failed"] == 2 and scores["n"] >= 1, scores
        assert 0.0 <= scores["em"] <= 1.0 and 0.0 <= scores["f1"] <= 1.0
    shares = metrics["answers"]["adaptability"]
    assert sum(v for k, v in shares.items() if k != "n") == pytest.approx(1.0)
    steps = metrics["agent"]["settings"]["bm25"]
    assert steps["n"] + steps["failed"] == 2 and steps["n"] >= 1, steps
    assert 0.0 <= steps["hit_per_step"] <= 1.0
    rerun = hopgraph(env, "eval", "answers", str(dataset), "--limit", "2", "--out", str(out))
    assert rerun.returncode == 0 and "Traceback" not in rerun.stderr
