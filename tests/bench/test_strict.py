"""bench/strict.py against the scripted server (tests/fake_llm.py): behaviour only.

The fake verifier here finds hop 0 unneeded in every first draft and accepts
every rewrite, so the run exercises repair; its acceptance figures say
nothing about what a strict model accepts.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
from collections import Counter

import pytest

from testing_support import PDF_DIR, ROOT, WIKI, needs_corpus
from tests.fake_llm import FakeLLM, task_of, user_text
from tests.llm_server import ScriptedLLMServer

pytestmark = [needs_corpus, pytest.mark.timeout(900)]


def load_bench():
    spec = importlib.util.spec_from_file_location("bench_strict", ROOT / "bench" / "strict.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def docs(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    shutil.copy(PDF_DIR / "manual_faa_amt_handbook_sample.pdf", folder)
    index = json.loads((WIKI / "_index.json").read_text(encoding="utf-8"))
    for entry in index[:100]:
        shutil.copy(WIKI / entry["file"], folder)
    return folder


def test_bench_ingests_offline_and_reports_the_llm_path(docs, tmp_path, monkeypatch, capsys):
    for var in ("OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    # The answer-side rule would leave about one chain of this corpus; this test is about the bench.
    monkeypatch.setenv("HOPGRAPH_GENERATE__MIN_ANSWER_RIVALS", "0")
    bench = load_bench()
    fake = FakeLLM(not_needed=lambda n, q, e: set() if q.endswith("(revised)") else {0})
    with ScriptedLLMServer(responder=fake) as server:
        figures = bench.main([str(docs), "--data-dir", str(tmp_path / ".hopgraph"), "--n", "3",
                              "--base-url", server.base_url, "--model", "fake", "--timeout", "60",
                              "--json", str(tmp_path / "figures.json")])
        bodies = [r.body for r in server.chat_requests]
    tasks = Counter(task_of(b) for b in bodies)
    # Ingest sent nothing (offline); generate named the domain once, then wrote and verified chains;
    # each rewrite the verifier passed was probed without the hop its first verdict found unneeded.
    assert set(tasks) == {"domain_persona", "verbalize_chain", "verify_chain", "answer_from_evidence"}, tasks
    assert tasks["domain_persona"] == 1
    repairs = sum("Reviewer's verdict:" in user_text(b) for b in bodies)
    assert figures["accepted"] >= 1 and figures["accepted_after_repair"] == figures["accepted"]
    # The FAA handbook page is a shared-corpus file: the figures say the run was not on unseen documents.
    assert any(line.startswith("manual_faa_amt_handbook_sample.pdf = ") for line in figures["known_documents"])
    assert repairs >= figures["accepted"]
    assert tasks["answer_from_evidence"] >= figures["accepted"]  # every accepted repair was probed
    assert figures["llm_calls"] == len(bodies)
    assert figures["calls_per_accepted"] == round(len(bodies) / figures["accepted"], 2)
    assert figures["verbalized"] >= figures["accepted"]
    assert sum(figures["precheck_dropped"].values()) > 0  # the pre-check spared calls
    assert json.loads((tmp_path / "figures.json").read_text()) == figures
    q = figures["question_check"]
    assert q["true_pos"] + q["false_pos"] + q["false_neg"] + q["true_neg"] >= figures["accepted"]
    out = capsys.readouterr().out
    assert "accepted / verbalized:" in out and "dropped by the pre-check" in out


def test_bench_needs_an_endpoint(docs, tmp_path, monkeypatch):
    for var in ("OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    bench = load_bench()
    with pytest.raises(SystemExit, match="OPENAI_BASE_URL"):
        bench.llm_env(bench.argparse.Namespace(base_url=None, api_key=None, model="m", timeout=1, concurrency=1))
