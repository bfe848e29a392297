"""`hopgraph eval system` on the synthetic corpus: the three sources, judged and lexical metrics, reruns.

The judge and the app's reader are tests/llm_server.py's scripted server; the
app is tests/evaluate/rag_app.py (BM25 over the corpus's paragraphs).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import evaluate.services
from evaluate.textmatch import normalise
from hopgraph.cli import app
from tests.evaluate.conftest import HashEmbedder, chunk_rows, dataset_records, write_jsonl
from tests.evaluate.rag_app import RagApp
from tests.fake_llm import user_text
from tests.llm_server import ScriptedLLMServer

RAG_APP = Path(__file__).with_name("rag_app.py")


def reply(body):
    """App reader: the first FILLER word of the first passage. Judge: correctness 1 when the prediction is one of the
    reference's forms ("X (also accepted: Y)"), else 0;
    every claim supported when the answer occurs in a context; keypoints: the first one matched."""
    system, text = body["messages"][0]["content"], user_text(body)
    if "reader of a small RAG app" in system:
        first = text.split("\n")[0]
        return first.split(" records ")[1].split()[0] if " records " in first else "unknown"
    if "You grade answers" in system:
        prediction = text.split("Predicted answer: ")[1].split("\n")[0]
        reference = text.split("Reference answer: ")[1].split("\n")[0]
        keypoints = json.loads(text.split("Gold keypoints: ")[1].split("\n\nReturn")[0])
        return {"rationale": "compared", "correctness": float(normalise(prediction) in normalise(reference)),
                "keypoints_matched": [i == 0 for i in range(len(keypoints))]}
    if "You audit the answers" in system:
        answer = text.split("The system's answer: ")[1].split("\n")[0]
        contexts = text.split("Contexts the system retrieved:")[1].split("The system's answer")[0]
        return {"claims": [answer], "supported": [answer.lower() in contexts.lower()], "rationale": "r",
                "relevancy": 0.8}
    if "strictly from the evidence" in system:  # unique gold: only units about zorbat unit 0 answer "alpha"
        return {"answer": "alpha" if "zorbat unit 0 " in text else "UNANSWERABLE"}
    raise AssertionError(f"unexpected request: {system[:80]}")


@pytest.fixture
def server():
    with ScriptedLLMServer(responder=reply) as running:
        yield running


@pytest.fixture(autouse=True)
def environment(monkeypatch, server, tmp_path):
    monkeypatch.setenv("HOPGRAPH_STORE__GRAPH", "test")
    monkeypatch.setenv("HOPGRAPH_LLM__BASE_URL", server.base_url)
    monkeypatch.setenv("HOPGRAPH_LLM__JUDGE_MODEL", f"judge-{tmp_path.name}")  # a cache of its own per test
    monkeypatch.setattr(evaluate.services, "make_embedder", lambda settings: HashEmbedder())


@pytest.fixture
def docs(tmp_path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    for doc in ("d1", "d2", "d3", "d4"):
        rows = [r["text"] for r in chunk_rows() if r["doc_id"] == doc]
        (folder / f"{doc}.txt").write_text("\n\n".join(rows), encoding="utf-8")
    return folder


def run(eval_store, *args):
    return CliRunner().invoke(app, ["--data-dir", str(eval_store.server.data_dir), "eval", "system", *args])


def judge_calls(server) -> int:
    return sum(1 for r in server.chat_requests if "reader of a small RAG app" not in r.messages[0]["content"])


def test_answers_file_scored_with_aliases_recall_steps_and_judge(eval_store, tmp_path, server):
    records = dataset_records()
    records[0]["answer_aliases"] = ["Alpha Station"]
    records[0]["subqa_chain"][0]["keypoints"] = [{"id": "k1", "text": "alpha is first"}, {"id": "k2", "text": "b"}]
    dataset = write_jsonl(tmp_path / "dataset.jsonl", records)
    texts = {r["id"]: r["text"] for r in chunk_rows()}
    lines = [
        # r0: an alias, both hops' evidence returned as text, a two-step trace that hits both steps
        {"id": "r0", "answer": "alpha station", "contexts": [texts["d1c1"], texts["d2c3"]],
         "steps": [{"question": "a", "contexts": [texts["d1c1"]]}, {"question": "b", "contexts": [texts["d2c3"]]}]},
        # r1: wrong, one hop's evidence by id plus one unrelated passage; three steps for two gold hops
        {"id": "r1", "answer": "zzz", "contexts": [{"id": "d2c5"}, texts["d4c11"]],
         "steps": [{"contexts": [{"id": "d2c5"}]}, {"contexts": []}, {"contexts": []}]},
        {"id": "r2", "answer": "cobalt", "contexts": []},
    ]  # r3, r4: not answered
    answers = write_jsonl(tmp_path / "answers.jsonl", lines)
    out = tmp_path / "out"
    result = run(eval_store, str(dataset), "--answers", str(answers), "--out", str(out))
    assert result.exit_code == 0, result.output
    section = json.loads((out / "metrics.json").read_text())["system"]
    rows = {r["record_id"]: r for r in map(json.loads, (out / "results.jsonl").read_text().splitlines())}
    assert section["answered"] == 3 and sorted(section["unanswered"]) == ["r3", "r4"]
    assert rows["r0"]["em"] == 1.0 and rows["r0"]["em_strict"] == 0.0  # the alias counts, the strict form not
    assert rows["r0"]["context_recall"] == 1.0 and rows["r1"]["context_recall"] == 0.5
    assert rows["r1"]["retrieval_precision"] == 0.5 and rows["r1"]["retrieval_recall"] == 0.5
    assert rows["r0"]["hit_per_step"] == 1.0 and rows["r0"]["rollout_deviation"] == 0
    assert rows["r1"]["hit_per_step"] == 0.5 and rows["r1"]["rollout_deviation"] == 1
    assert "hit_per_step" not in rows["r2"]
    assert rows["r0"]["correctness"] == 1.0 and rows["r0"]["correctness_rationale"] == "compared"
    assert rows["r0"]["keypoints_matched"] == [True, False]
    assert section["charge"] == {"keypoint_correctness": 0.0, "keypoint_coverage": 0.5, "n": 1}
    assert rows["r0"]["faithfulness"] == 0.0 and rows["r0"]["answer_relevancy"] == 0.8
    assert "faithfulness" not in rows["r2"]  # no contexts: nothing to be faithful to
    assert section["by_graph_type"]["text_chain"]["n"] == 3 and "2" in section["by_hops"]
    assert section["judge"].startswith("judge-")
    report = (out / "report.md").read_text()
    assert "## Your system" in report and (out / "system_by_graph_type.png").stat().st_size > 0
    calls = judge_calls(server)
    assert calls == 3 + 2  # three correctness judgements, two answers with contexts judged for grounding
    rerun = run(eval_store, str(dataset), "--answers", str(answers), "--out", str(out))
    assert rerun.exit_code == 0 and judge_calls(server) == calls


def test_endpoint_app_is_asked_once_per_question_and_rerun_asks_nothing(eval_store, dataset_file, docs, server,
                                                                        tmp_path):
    out = tmp_path / "out"
    with RagApp(docs, server.base_url) as rag:
        result = run(eval_store, str(dataset_file), "--endpoint", rag.base_url, "--model", "my-rag", "--out", str(out))
        assert result.exit_code == 0, result.output
        assert len(rag.questions) == 5
        section = json.loads((out / "metrics.json").read_text())["system"]
        assert section["answered"] == 5 and section["system_queries_this_run"] == 5
        assert 0 < section["overall"]["context_recall"] <= 1 and "hit_per_step" in section["overall"]
        calls = len(server.chat_requests)
        rerun = run(eval_store, str(dataset_file), "--endpoint", rag.base_url, "--model", "my-rag", "--out", str(out))
        assert rerun.exit_code == 0, rerun.output
        assert len(rag.questions) == 5 and len(server.chat_requests) == calls  # no app query, no LLM call
        assert json.loads((out / "metrics.json").read_text())["system"]["overall"] == section["overall"]


def test_command_per_question_and_a_failing_command_is_named(eval_store, dataset_file, docs, server, tmp_path):
    out = tmp_path / "out"
    template = f"{sys.executable} {RAG_APP} {docs} {server.base_url} {{question_file}}"
    result = run(eval_store, str(dataset_file), "--cmd", template, "--limit", "2", "--out", str(out))
    assert result.exit_code == 0, result.output
    section = json.loads((out / "metrics.json").read_text())["system"]
    assert section["answered"] == 2 and section["overall"]["n"] == 2
    broken = run(eval_store, str(dataset_file), "--cmd", f"{sys.executable} -c 'import sys; sys.exit(3)' "
                 "{question_file}", "--limit", "1", "--out", str(tmp_path / "o2"))
    assert broken.exit_code == 0, broken.output
    failed = json.loads((tmp_path / "o2" / "metrics.json").read_text())["system"]
    assert failed["answered"] == 0 and "exited 3" in failed["failures"]["r0"]


def test_without_an_llm_judged_metrics_are_not_computed_and_say_why(eval_store, dataset_file, monkeypatch, tmp_path):
    monkeypatch.delenv("HOPGRAPH_LLM__BASE_URL")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    answers = write_jsonl(tmp_path / "a.jsonl", [{"id": "r0", "answer": "alpha", "contexts": []}])
    result = run(eval_store, str(dataset_file), "--answers", str(answers), "--out", str(tmp_path / "o"))
    assert result.exit_code == 0, result.output
    section = json.loads((tmp_path / "o" / "metrics.json").read_text())["system"]
    assert section["overall"]["em"] == 1.0 and "correctness" not in section["overall"]
    assert any("not computed: no LLM is configured" in note for note in section["notes"])


def test_exactly_one_source_is_required(eval_store, dataset_file, tmp_path):
    result = run(eval_store, str(dataset_file), "--out", str(tmp_path / "o"))
    assert result.exit_code == 2 and "exactly one of" in result.output


@pytest.mark.parametrize("method", ["lexical", "llm"])
def test_another_unit_that_answers_the_hop_counts_under_its_own_name(eval_store, dataset_file, server, tmp_path,
                                                                      method):
    # r0's first hop ("alpha", gold d1c1) is also answered by d1c0: the answer with the hop's relation words
    # (by id: the synthetic chunks are templated, so d1c0's words match d1c1's too closely to tell them apart)
    answers = write_jsonl(tmp_path / "a.jsonl", [{"id": "r0", "answer": "alpha",
                                                  "contexts": [{"id": "d1c0"}, {"id": "d2c3"}]}])
    out = tmp_path / method
    result = run(eval_store, str(dataset_file), "--answers", str(answers), "--unique-gold", method, "--out", str(out))
    assert result.exit_code == 0, result.output
    section = json.loads((out / "metrics.json").read_text())["system"]
    row = next(map(json.loads, (out / "results.jsonl").read_text().splitlines()))
    assert section["unique_gold"] == method
    assert row["context_recall"] == 0.5 and row["context_recall_any_answering"] == 1.0
    assert "d1c0" in row["per_hop"][0]["answering_units"]
    confirmations = [r for r in server.chat_requests if "strictly from the evidence" in r.messages[0]["content"]]
    assert bool(confirmations) == (method == "llm")
    if method == "llm":  # the verifier confirmed d1c0 only, among lexical and BM25 candidates
        assert all(u.startswith("d1c0") for u in row["per_hop"][0]["answering_units"])
