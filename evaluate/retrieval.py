"""`hopgraph eval retrieval`: score retrievers per hop and per question.

Per hop, the query is the hop's sub-question and the gold is that hop's
evidence; per question, the query is the final question and the gold is every
hop's evidence. Each retriever is asked once per level for max(k) units; every
metric at every k comes from that one ranking.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from evaluate.metrics import all_hops_hits, gold_ranks, mean_by, score_queries
from evaluate.records import EvalRecord
from evaluate.retrievers import Query
from evaluate.runfile import query_key

BREAKDOWNS = ("graph_type", "hops", "modality")


@dataclass
class RetrievalResult:
    metrics: dict[str, Any] = field(default_factory=dict)  # retriever -> level / breakdown -> metric -> value
    rows: list[dict[str, Any]] = field(default_factory=list)  # one per retriever, query
    seconds: dict[str, float] = field(default_factory=dict)


def hop_queries(records: list[EvalRecord]) -> list[tuple[Query, EvalRecord, int]]:
    """One query per hop that has a sub-question (imported HotpotQA hops have none)."""
    return [(Query(query_key(r.id, h.index), h.subquestion, h.gold_ids), r, h.index)
            for r in records for h in r.hops if h.subquestion.strip()]


def question_queries(records: list[EvalRecord]) -> list[tuple[Query, EvalRecord, None]]:
    return [(Query(query_key(r.id, None), r.question, r.gold_ids), r, None) for r in records]


def _rows(name: str, level: str, items: list, rankings: list, ks: list[int]) -> list[dict[str, Any]]:
    queries = [q for q, _, _ in items]
    per_query = score_queries(queries, rankings, ks)
    rows = []
    for (query, record, hop), ranking in zip(items, rankings):
        scores = dict(per_query.get(query.key, {}))
        if level == "question":
            scores.update(all_hops_hits([h.gold_ids for h in record.hops], ranking, ks))
        modality = record.modality if hop is None else next(h.modality for h in record.hops if h.index == hop)
        rows.append({"retriever": name, "level": level, "record_id": record.id, "hop": hop,
                     "graph_type": record.graph_type, "hops": len(record.hops), "modality": modality,
                     "query": query.text, "gold": query.gold, "gold_ranks": gold_ranks(query.gold, ranking),
                     "ranked": ranking, "scores": scores})
    return rows


def summarise(rows: list[dict[str, Any]], ks: list[int]) -> dict[str, Any]:
    """Means per level, and per level within each breakdown (chain type, hops, modality)."""
    levels = {lvl: [r for r in rows if r["level"] == lvl] for lvl in ("hop", "question")}
    out: dict[str, Any] = {lvl: mean_by(members, None, ks) for lvl, members in levels.items() if members}
    for group in BREAKDOWNS:
        out[f"by_{group}"] = {lvl: mean_by(members, group, ks) for lvl, members in levels.items() if members}
    return out


def evaluate_retrieval(records: list[EvalRecord], retrievers: dict[str, Any], ks: list[int],
                       progress: Any = None) -> RetrievalResult:
    """Run every retriever at both levels; `progress` is an optional rich Progress."""
    result = RetrievalResult()
    depth = max(ks)
    levels = (("hop", hop_queries(records)), ("question", question_queries(records)))
    task = progress.add_task("retrieval", total=len(retrievers) * 2) if progress else None
    for name, retriever in retrievers.items():
        started = time.perf_counter()
        rows: list[dict[str, Any]] = []
        for level, items in levels:
            if items:
                rankings = retriever.search([q for q, _, _ in items], depth)
                rows += _rows(name, level, items, rankings, ks)
            if progress:
                progress.advance(task)
        result.seconds[name] = round(time.perf_counter() - started, 2)
        result.metrics[name] = summarise(rows, ks)
        if getattr(retriever, "missing", 0):
            result.metrics[name]["queries_without_ranking"] = retriever.missing
        result.rows += rows
    return result
