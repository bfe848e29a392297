"""Both query levels and the breakdowns, with a retriever whose answers are known."""

from __future__ import annotations

from evaluate.records import parse_record
from evaluate.retrieval import evaluate_retrieval, hop_queries


class FirstHopOnly:
    """Returns the first hop's evidence for every query: right for hop 0, wrong for hop 1."""

    def __init__(self, records):
        self.first = {r.id: r.hops[0].gold_ids for r in records}

    def search(self, queries, k):
        return [self.first[q.key.split("#")[0]] + ["noise"] for q in queries]


def records():
    out = []
    for rid, kind in (("a", "text_chain"), ("b", "image_initiated_chain")):
        r = parse_record({"id": rid, "question": "q", "graph_type": kind, "subqa_chain": [
            {"subquestion": "s0", "supporting_fact_id": f"{rid}0", "modality": "image" if rid == "b" else "text"},
            {"subquestion": "s1", "supporting_fact_id": f"{rid}1"}]})
        for hop in r.hops:
            hop.gold_ids = [hop.evidence[0].id]
        out.append(r)
    return out


def test_hop_and_question_levels_with_breakdowns():
    data = records()
    result = evaluate_retrieval(data, {"first": FirstHopOnly(data)}, [1, 2])
    metrics = result.metrics["first"]
    assert metrics["hop"]["hit@2"] == 0.5 and metrics["hop"]["n"] == 4
    assert metrics["question"]["recall@2"] == 0.5 and metrics["question"]["all_hops@2"] == 0.0
    assert set(metrics["by_graph_type"]["question"]) == {"text_chain", "image_initiated_chain"}
    assert metrics["by_modality"]["hop"]["image"]["hit@1"] == 1.0
    assert metrics["by_modality"]["question"]["mixed"]["n"] == 1
    row = next(r for r in result.rows if r["level"] == "hop" and r["hop"] == 1)
    assert row["gold_ranks"] == [None] and row["ranked"][0].endswith("0")


def test_hops_without_a_sub_question_are_scored_per_question_only():
    data = records()
    data[0].hops[1].subquestion = ""
    assert [q.key for q, _, _ in hop_queries(data)] == ["a#0", "b#0", "b#1"]
