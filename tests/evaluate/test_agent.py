"""`hopgraph eval agent`: step matching, and the loop end to end against the scripted server."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

import evaluate.services
from evaluate.agent import hit_per_step
from hopgraph.cli import app
from tests.evaluate.conftest import HashEmbedder, chunk_rows
from tests.fake_llm import user_text
from tests.llm_server import ScriptedLLMServer


def test_matching_is_one_to_one():
    # One predicted step retrieved both gold steps' evidence: it can hit only one of them.
    assert hit_per_step([["a", "b"]], [["a"], ["b"]]) == 0.5
    assert hit_per_step([["x"], ["a", "b"]], [["a"], ["b"]]) == 0.5
    assert hit_per_step([["b"], ["a"]], [["a"], ["b"]]) == 1.0  # order does not matter
    assert hit_per_step([], [["a"]]) == 0.0


TEXTS = {c["id"]: c["text"] for c in chunk_rows()}


def reply(body):
    """The agent asks the gold chunks' text for r0, one step at a time (so dense finds them), then answers;
    for every other record it answers at once. Sub-questions are read as 'alpha'."""
    system, text = body["messages"][0]["content"], user_text(body)
    if "You run a search agent" in system:
        if "d1c1 and d2c3" in text:
            asked = text.count(" -> ")
            if asked < 2:
                return {"done": False, "next_subquestion": TEXTS[["d1c1", "d2c3"][asked]], "answer": ""}
            return {"done": True, "next_subquestion": "", "answer": "alpha"}
        return {"done": True, "next_subquestion": "", "answer": "nothing"}
    if "You grade multi-hop" in system:
        return {"accuracy": 4, "coherence": 5, "entity_coverage": 3, "step_alignment": 4}
    return {"answer": "alpha" if "[1]" in text else "nothing"}


def test_agent_end_to_end_scores_steps_and_spends_nothing_on_a_rerun(eval_store, dataset_file, tmp_path, monkeypatch):
    monkeypatch.setenv("HOPGRAPH_STORE__GRAPH", "test")
    monkeypatch.setenv("HOPGRAPH_LLM__READER_MODEL", f"reader-{tmp_path.name}")
    monkeypatch.setenv("HOPGRAPH_LLM__JUDGE_MODEL", f"judge-{tmp_path.name}")
    monkeypatch.setattr(evaluate.services, "make_embedder", lambda settings: HashEmbedder())
    args = ["--data-dir", str(eval_store.server.data_dir), "eval", "agent", str(dataset_file), "--retriever",
            "dense,bm25", "--k", "2", "--out", str(tmp_path / "o")]
    with ScriptedLLMServer(responder=reply) as server:
        monkeypatch.setenv("HOPGRAPH_LLM__BASE_URL", server.base_url)
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 0, result.output
        spent = len(server.requests)
        # base and oracle reads (5 + 5); per retriever: r0 decides three times and reads two sub-questions,
        # the four others decide once; one judge call per record. The two retrievers' identical requests
        # (r0's decisions before any retrieval, the others' single decision) are cache hits.
        assert 5 + 5 + (3 + 2 + 4) + 5 <= spent <= 5 + 5 + 2 * ((3 + 2 + 4) + 5)
        assert CliRunner().invoke(app, args).exit_code == 0 and len(server.requests) == spent
    section = json.loads((tmp_path / "o" / "metrics.json").read_text())["agent"]
    dense = section["settings"]["dense"]
    assert dense["n"] == 5 and dense["judge_coherence"] == 5
    rows = [json.loads(line) for line in (tmp_path / "o" / "results.jsonl").read_text().splitlines()]
    r0 = next(r for r in rows if r["record_id"] == "r0" and r["retriever"] == "dense")
    assert r0["hit_per_step"] == 1.0 and r0["rollout_deviation"] == 0 and r0["f1"] == 1.0
    r4 = next(r for r in rows if r["record_id"] == "r4" and r["retriever"] == "dense")
    assert r4["rollout_deviation"] == 3 and r4["steps"] == []  # answered at once: 0 steps for 3 gold hops
    assert r0["steps"] == [TEXTS["d1c1"], TEXTS["d2c3"]] and r0["sub_answers"] == ["alpha", "alpha"]
    assert dense["golden_f1"] == pytest.approx(0.2)  # with context the reader says "alpha": right for r0 only
