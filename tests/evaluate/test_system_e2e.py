"""`hopgraph eval system` end to end on a dataset hopgraph builds from held-out documents.

`hopgraph build` (offline) turns HotpotQA paragraph files that no other test
builds from into a dataset; a small BM25-plus-reader app (tests/evaluate/rag_app.py)
indexes the same files; its reader and the judge are the scripted LLM server.
The app's answers are scored three ways, (a) a JSONL of answers, (b) the app served
on 127.0.0.1 as an OpenAI-compatible endpoint, (c) the app run as a command per
question, and a rerun of each spends no LLM call and asks the app nothing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from evaluate.textmatch import normalise
from hopgraph.cli import app
from tests.evaluate.rag_app import Rag, RagApp
from tests.fake_llm import user_text
from tests.llm_server import ScriptedLLMServer
from testing_support import ROOT

# The shared corpus beside the checkout (a worktree sits one folder deeper than main).
WIKI = next((p / "shared" / "corpus" / "text" / "wiki_hotpotqa_train100" for p in ROOT.parents
             if (p / "shared" / "corpus").is_dir()), Path("/nonexistent"))
pytestmark = pytest.mark.skipif(not WIKI.is_dir(), reason="shared corpus (HotpotQA paragraphs) not found")
HOPGRAPH = str(Path(sys.executable).parent / "hopgraph")
HELD_OUT = slice(-4, None)  # the last four HotpotQA questions' paragraphs: no other test builds from them
RAG_APP = Path(__file__).with_name("rag_app.py")


def reply(body):
    """App reader: the first capitalised word of the first passage. Judge: containment of forms and claims."""
    system, text = body["messages"][0]["content"], user_text(body)
    if "reader of a small RAG app" in system:
        first = text.split("\n")[0].split("] ", 1)[-1]
        return next((w.strip(".,;:()") for w in first.split()[1:] if w[:1].isupper()), first.split()[0])
    if "You grade answers" in system:
        prediction = text.split("Predicted answer: ")[1].split("\n")[0]
        reference = text.split("Reference answer: ")[1].split("\n")[0]
        return {"rationale": "containment", "correctness": float(bool(normalise(prediction))
                                                                  and normalise(prediction) in normalise(reference)),
                "keypoints_matched": []}
    if "You audit the answers" in system:
        answer = text.split("The system's answer: ")[1].split("\n")[0]
        return {"claims": [answer], "supported": [answer.lower() in text.lower().split("the system's answer")[0]],
                "rationale": "r", "relevancy": 1.0}
    raise AssertionError(system[:80])


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A dataset built from the held-out files, and the data dir holding its graph."""
    root = tmp_path_factory.mktemp("held-out")
    docs = root / "docs"
    docs.mkdir()
    from evaluate.hotpotqa import _fallback_file

    questions = json.loads((WIKI.parents[1] / "qa" / "hotpotqa" / "hotpotqa_train100_hipporag.json").read_text())
    for title in {c[0] for q in questions[HELD_OUT] for c in q["context"]}:
        page = WIKI / _fallback_file(title)
        if page.is_file():
            (docs / page.name).write_bytes(page.read_bytes())
    env = {**os.environ, "HOPGRAPH_INGEST__MIN_TOKENS": "16"}
    env.pop("HOPGRAPH_LLM__BASE_URL", None)
    proc = subprocess.run([HOPGRAPH, "build", str(docs), str(root / "out"), "--n", "4", "--types", "text_chain"],
                          cwd=root, capture_output=True, text=True, env=env, timeout=900)
    assert proc.returncode == 0, proc.stderr[-2000:]
    dataset = root / "out" / "dataset.jsonl"
    assert dataset.read_text().strip(), "the build produced no records"
    return root, docs, dataset


@pytest.fixture
def server(monkeypatch, tmp_path):
    with ScriptedLLMServer(responder=reply) as running:
        monkeypatch.setenv("HOPGRAPH_LLM__BASE_URL", running.base_url)
        monkeypatch.setenv("HOPGRAPH_LLM__JUDGE_MODEL", f"judge-{tmp_path.name}")
        yield running


def judge_calls(server) -> int:
    return sum(1 for r in server.chat_requests if "reader of a small RAG app" not in r.messages[0]["content"])


def evaluate(root: Path, dataset: Path, out: Path, *source: str) -> dict:
    result = CliRunner().invoke(app, ["--data-dir", str(root / ".hopgraph"), "eval", "system", str(dataset),
                                      *source, "--out", str(out)])
    assert result.exit_code == 0, result.output + repr(result.exception)
    return json.loads((out / "metrics.json").read_text())["system"]


def test_three_sources_end_to_end_and_reruns_spend_nothing(built, server, tmp_path):
    root, docs, dataset = built
    n = len(dataset.read_text().splitlines())
    rag = Rag(docs, server.base_url)
    lines = [{"id": r["id"], **rag.answer(r["question"])} for r in map(json.loads, dataset.read_text().splitlines())]
    answers = tmp_path / "answers.jsonl"
    answers.write_text("".join(json.dumps(line) + "\n" for line in lines))

    first = evaluate(root, dataset, tmp_path / "a", "--answers", str(answers))
    assert first["answered"] == n and first["overall"]["n"] == n
    assert first["overall"]["context_recall"] > 0  # BM25 over the same files finds some gold evidence
    assert {"correctness", "faithfulness", "answer_relevancy", "hit_per_step"} <= set(first["overall"])
    assert "text_chain" in first["by_graph_type"] and "text" in first["by_modality"]
    spent = judge_calls(server)
    assert spent == 2 * n  # a correctness and a grounding judgement per question
    assert evaluate(root, dataset, tmp_path / "a", "--answers", str(answers))["overall"] == first["overall"]
    assert judge_calls(server) == spent

    with RagApp(docs, server.base_url) as served:
        via_endpoint = evaluate(root, dataset, tmp_path / "b", "--endpoint", served.base_url, "--model", "rag")
        assert len(served.questions) == n
        evaluate(root, dataset, tmp_path / "b", "--endpoint", served.base_url, "--model", "rag")
        assert len(served.questions) == n  # the rerun asked the app nothing
    # the app answers the same way however it is reached: same figures, and the judge's replies come from the cache
    assert via_endpoint["overall"] == first["overall"] and judge_calls(server) == spent

    template = f"{sys.executable} {RAG_APP} {docs} {server.base_url} {{question_file}}"
    via_command = evaluate(root, dataset, tmp_path / "c", "--cmd", template)
    assert via_command["overall"] == first["overall"] and via_command["system_queries_this_run"] == n
    rerun = evaluate(root, dataset, tmp_path / "c", "--cmd", template)
    assert rerun["system_queries_this_run"] == 0 and rerun["llm_calls"] == 0 and judge_calls(server) == spent
