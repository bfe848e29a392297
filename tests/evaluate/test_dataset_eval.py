"""`hopgraph eval dataset`: structural figures offline, judged ones through the scripted server."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

import evaluate.services
from evaluate.corpus import EvidenceCorpus
from evaluate.dataset_eval import near_duplicate_rate, topic_jsd
from evaluate.records import parse_record
from hopgraph.cli import app
from tests.evaluate.conftest import HashEmbedder, dataset_records, write_jsonl
from tests.llm_server import ScriptedLLMServer


def record(rid: str, question: str, gold: list[str]):
    r = parse_record({"id": rid, "question": question, "answer": "x", "subqa_chain": [{"supporting_fact_id": g}
                                                                                      for g in gold]})
    for hop, g in zip(r.hops, gold):
        hop.gold_ids = [g]
    return r


def test_a_copied_question_with_the_same_evidence_is_a_near_duplicate():
    records = [record("a", "Which station records the zorbat unit?", ["c1", "c2"]),
               record("b", "Which station records the zorbat unit?", ["c1", "c2"]),
               record("c", "How tall is the marnex engine tower today?", ["c7", "c9"])]
    assert near_duplicate_rate(records, HashEmbedder(), 0.7) == {"near_duplicate_rate": pytest.approx(0.6667, abs=1e-4),
                                                                 "near_duplicate_pairs": 1}


def test_topic_jsd_is_zero_for_the_corpus_mix_and_one_for_a_disjoint_topic():
    corpus = EvidenceCorpus(chunk_topic={"c1": "t1", "c2": "t2", "c3": "t1", "c4": "t2"})
    assert topic_jsd([record("a", "q", ["c1", "c2"])], corpus) == pytest.approx(0.0)
    corpus.chunk_topic["c5"] = "t3"
    assert 0 < topic_jsd([record("a", "q", ["c5"])], corpus) <= 1.0
    assert topic_jsd([record("a", "q", ["c1"])], EvidenceCorpus()) is None


@pytest.fixture(autouse=True)
def environment(monkeypatch, tmp_path):
    monkeypatch.setenv("HOPGRAPH_STORE__GRAPH", "test")
    monkeypatch.setenv("HOPGRAPH_LLM__READER_MODEL", f"reader-{tmp_path.name}")
    monkeypatch.setenv("HOPGRAPH_LLM__JUDGE_MODEL", f"judge-{tmp_path.name}")  # the judge: a cache of its own too
    monkeypatch.setattr(evaluate.services, "make_embedder", lambda settings: HashEmbedder())


def run(eval_store, *args):
    return CliRunner().invoke(app, ["--data-dir", str(eval_store.server.data_dir), "eval", *args])


def test_without_an_llm_structural_figures_only_and_a_note(eval_store, dataset_file, tmp_path):
    result = run(eval_store, "dataset", str(dataset_file), "--out", str(tmp_path / "o"))
    assert result.exit_code == 0, result.output
    section = json.loads((tmp_path / "o" / "metrics.json").read_text())["dataset"]
    assert section["figures"]["hops_mean"] == pytest.approx((4 * 2 + 3) / 5)
    assert section["figures"]["modality_mix"] == {"text": pytest.approx(10 / 11, abs=1e-4), "image": pytest.approx(1 / 11, abs=1e-4)}
    assert "faithfulness" not in section["figures"]
    assert any("need an LLM" in note for note in section["notes"])


def test_judged_figures_with_the_scripted_server(eval_store, tmp_path, monkeypatch):
    verdict = {"faithfulness": 0.9, "relevance": 1.0, "answerable_from_evidence": True,
               "answerable_without_evidence": False, "difficulty": 0.4, "hops_needed": 2}
    dataset = write_jsonl(tmp_path / "d.jsonl", dataset_records())
    with ScriptedLLMServer(responder=lambda body: verdict) as server:
        monkeypatch.setenv("HOPGRAPH_LLM__BASE_URL", server.base_url)
        result = run(eval_store, "dataset", str(dataset), "--out", str(tmp_path / "o"))
        assert result.exit_code == 0, result.output
        assert len(server.requests) == 5
    figures = json.loads((tmp_path / "o" / "metrics.json").read_text())["dataset"]["figures"]
    assert figures["faithfulness"] == 0.9 and figures["answerability"] == 1.0
    assert figures["answerable_without_evidence"] == 0.0 and figures["judged_hops_mean"] == 2.0
