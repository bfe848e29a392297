"""`hopgraph eval retrieval` end to end on the synthetic corpus (named test_eval_cli: tests/test_cli.py exists)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

import evaluate.services
from hopgraph.cli import app
from tests.evaluate.conftest import HashEmbedder, dataset_records, write_jsonl


@pytest.fixture
def data_dir(eval_store):
    return eval_store.server.data_dir


@pytest.fixture(autouse=True)
def fake_embedder(monkeypatch):
    monkeypatch.setenv("HOPGRAPH_STORE__GRAPH", "test")  # the graph eval_store filled
    monkeypatch.setattr(evaluate.services, "make_embedder", lambda settings: HashEmbedder())


def run(data_dir, *args):
    result = CliRunner().invoke(app, ["--data-dir", str(data_dir), "eval", *args])
    return result


def test_retrieval_writes_metrics_results_and_report(data_dir, dataset_file, tmp_path):
    out = tmp_path / "out"
    result = run(data_dir, "retrieval", str(dataset_file), "--k", "1,5,10", "--out", str(out))
    assert result.exit_code == 0, result.output
    metrics = json.loads((out / "metrics.json").read_text())["retrieval"]
    retrievers = metrics["retrievers"]
    assert set(retrievers) == {"bm25", "dense", "hybrid", "graph", "oracle", "random"}
    oracle = retrievers["oracle"]["question"]
    assert oracle["hit@1"] == oracle["mrr@10"] == oracle["ndcg@10"] == oracle["recall@10"] == 1.0
    assert oracle["all_hops@10"] == 1.0 and retrievers["oracle"]["hop"]["hit@1"] == 1.0
    for values in retrievers.values():
        assert all(0.0 <= v <= 1.0 for k, v in values["question"].items() if k != "n")
    assert retrievers["bm25"]["hop"]["hit@1"] > retrievers["random"]["hop"]["hit@1"]
    assert "text_chain" in retrievers["bm25"]["by_graph_type"]["question"]
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(rows) == 6 * (5 + 11)  # 6 retrievers x (5 questions + 11 hops)
    report = (out / "report.md").read_text()
    assert "| oracle |" in report and (out / "recall_at_k.png").stat().st_size > 0


def test_random_scores_about_k_over_n(data_dir, tmp_path):
    # 40 one-hop records over the 50 units: hit@10 of a random ranking is 10/50 in expectation.
    records = [{"id": f"q{i}", "question": f"question {i}", "subqa_chain": [
        {"subquestion": f"s {i}", "supporting_fact_id": f"d{1 + i % 4}c{i % 12}"}]} for i in range(40)]
    dataset = write_jsonl(tmp_path / "one_hop.jsonl", records)
    result = run(data_dir, "retrieval", str(dataset), "--retriever", "random", "--k", "10", "--out", str(tmp_path / "o"))
    assert result.exit_code == 0, result.output
    hop = json.loads((tmp_path / "o" / "metrics.json").read_text())["retrieval"]["retrievers"]["random"]["hop"]
    assert 0.05 <= hop["hit@10"] <= 0.4


def test_an_external_run_file_is_scored_beside_the_baselines(data_dir, dataset_file, tmp_path):
    lines = [{"id": r["id"], "ranked": [h["supporting_fact_id"] for h in r["subqa_chain"]]} for r in dataset_records()]
    run_file = write_jsonl(tmp_path / "mysystem.jsonl", lines[:4])  # r4 has no line
    result = run(data_dir, "retrieval", str(dataset_file), "--retriever", "bm25", "--run", str(run_file),
                 "--out", str(tmp_path / "o"))
    assert result.exit_code == 0, result.output
    ours = json.loads((tmp_path / "o" / "metrics.json").read_text())["retrieval"]["retrievers"]["run:mysystem"]
    assert ours["question"]["hit@1"] == pytest.approx(0.8)  # 4 of 5 answered perfectly, 1 missing
    assert ours["queries_without_ranking"] == 1 + 11  # r4's question and every hop


def test_a_dataset_from_another_corpus_is_an_error_naming_the_file(data_dir, tmp_path):
    dataset = write_jsonl(tmp_path / "foreign.jsonl", [{"id": "x", "question": "q", "subqa_chain": [
        {"supporting_fact_id": "not-in-graph"}]}])
    result = run(data_dir, "retrieval", str(dataset), "--out", str(tmp_path / "o"))
    assert result.exit_code != 0
    assert "foreign.jsonl: none of the 1 records has its evidence in the graph" in str(result.exception)


def test_unknown_retriever_is_refused(data_dir, dataset_file, tmp_path):
    result = run(data_dir, "retrieval", str(dataset_file), "--retriever", "bm25,magic")
    assert result.exit_code == 2 and "magic" in result.output
