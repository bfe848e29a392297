"""`hopgraph eval answers` against the scripted LLM server: settings, metrics, adaptability, cache."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

import evaluate.services
from evaluate.answers import adaptability, contexts
from evaluate.records import parse_record
from hopgraph.cli import app
from tests.evaluate.conftest import HashEmbedder
from tests.fake_llm import user_text
from tests.llm_server import ScriptedLLMServer


def reply(body):
    """Reader: 'alpha' with no passages, 'bronze' if a passage mentions the lantern, else 'bravo'. Judge: 0.5."""
    system = body["messages"][0]["content"]
    text = user_text(body)
    if "You grade answers" in system:
        return {"correctness": 0.5, "keypoints_matched": []}
    if "(no passages" in text:
        return {"answer": "alpha"}
    return {"answer": "bronze" if "lantern" in text else "bravo"}


@pytest.fixture
def server():
    with ScriptedLLMServer(responder=reply) as running:
        yield running


@pytest.fixture(autouse=True)
def environment(monkeypatch, server, tmp_path):
    monkeypatch.setenv("HOPGRAPH_STORE__GRAPH", "test")
    monkeypatch.setenv("HOPGRAPH_LLM__BASE_URL", server.base_url)
    monkeypatch.setenv("HOPGRAPH_LLM__READER_MODEL", f"reader-{tmp_path.name}")
    monkeypatch.setenv("HOPGRAPH_LLM__JUDGE_MODEL", f"judge-{tmp_path.name}")  # a cache of its own per test
    monkeypatch.setattr(evaluate.services, "make_embedder", lambda settings: HashEmbedder())


def run(eval_store, *args):
    return CliRunner().invoke(app, ["--data-dir", str(eval_store.server.data_dir), "eval", *args])


def test_three_settings_scored_and_a_rerun_spends_no_calls(eval_store, dataset_file, server, tmp_path):
    out = tmp_path / "out"
    result = run(eval_store, "answers", str(dataset_file), "--out", str(out))
    assert result.exit_code == 0, result.output
    first = len(server.requests)
    assert first == 2 * 5 * 3  # a reader and a judge call per record and setting
    metrics = json.loads((out / "metrics.json").read_text())["answers"]
    settings = metrics["settings"]
    assert settings["base"]["em"] == pytest.approx(0.2)  # only r0's answer is "alpha"
    assert settings["oracle"]["em"] == pytest.approx(0.4)  # r1 ("bravo") and r4 (the lantern image)
    assert settings["oracle"]["correctness"] == 0.5
    shares = metrics["adaptability"]
    assert sum(v for k, v in shares.items() if k != "n") == pytest.approx(1.0) and shares["n"] == 5
    # the judge is the judge model, never the reader being judged
    judged_by = {r.model for r in server.chat_requests if "You grade answers" in r.messages[0]["content"]}
    assert judged_by == {metrics["judge"]} and metrics["judge"].startswith("judge-") != metrics["reader"].startswith(
        "judge-")
    # MIRAGE's rates on judged correctness: every judgement is 0.5 (>= 0.5 counts right), so all accept context
    assert metrics["adaptability_judged"]["context_acceptability"] == 1.0
    rerun = run(eval_store, "answers", str(dataset_file), "--out", str(out))
    assert rerun.exit_code == 0 and len(server.requests) == first


def test_no_llm_configured_says_so_in_one_line(eval_store, dataset_file, monkeypatch, tmp_path):
    monkeypatch.delenv("HOPGRAPH_LLM__BASE_URL")
    result = run(eval_store, "answers", str(dataset_file), "--out", str(tmp_path / "o"))
    assert result.exit_code != 0 and "eval answers needs an LLM" in str(result.exception)


def test_mixed_holds_all_gold_plus_noise_to_five():
    record = parse_record({"id": "x", "question": "q", "subqa_chain": [{"supporting_fact_id": "g1"},
                                                                      {"supporting_fact_id": "g2"}]})
    record.hops[0].gold_ids, record.hops[1].gold_ids = ["g1"], ["g2"]
    mixed = contexts(record, "mixed", ["g1", "n1", "n2", "n3", "n4"])
    assert sorted(mixed) == ["g1", "g2", "n1", "n2", "n3"]
    assert contexts(record, "base", []) == [] and contexts(record, "oracle", []) == ["g1", "g2"]


def test_adaptability_shares_partition_the_questions():
    outcomes = {"a": {"base": True, "oracle": True, "mixed": False}, "b": {"base": False, "oracle": True, "mixed": True},
                "c": {"base": False, "oracle": False, "mixed": True}, "d": {"base": True, "oracle": False, "mixed": False}}
    shares = adaptability(outcomes)
    assert shares == {"noise_vulnerability": 0.25, "context_acceptability": 0.25, "context_insensitivity": 0.25,
                      "context_misinterpretation": 0.25, "n": 4}


def test_a_judge_that_is_the_reader_is_named_in_a_note():
    from evaluate.services import judge_is_reader, judge_model
    from kg.config import Settings

    settings = Settings()
    # the defaults: the reader falls back to the generator, the judge to the verifier, both gpt-4o-mini
    settings.llm.reader_model = settings.llm.judge_model = None
    settings.llm.generator_model = settings.llm.verifier_model = "gpt-4o-mini"
    assert "is the reader being judged" in judge_is_reader(settings)
    settings.llm.judge_model = "a-bigger-model"
    assert judge_is_reader(settings) is None and judge_model(settings) == "a-bigger-model"
