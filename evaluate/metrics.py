"""Retrieval metrics per query, computed by ranx, and their means by group.

Names in metrics.json (k from --k):
  hit@k        Recall@k as a hit rate: 1 if any gold item is in the top k (RAGalyst; CHARGE's first kind)
  recall@k     the fraction of the gold items in the top k (CHARGE's second kind)
  all_hops@k   question level only: every hop has an evidence item in the top k
  mrr@k        reciprocal rank of the first gold item, 0 past k (the standard IR measure of the
               TREC QA track; none of the five papers defines it, MIRAGE does not use it)
  precision@k  gold items in the top k / k
  f1@k         retrieval F1: 2 P R / (P + R) of precision@k and recall@k, per query (hopgraph's;
               evaluate.paper_metrics.f1_of)
  ndcg@k       binary-relevance NDCG
"""

from __future__ import annotations

import warnings
from collections import defaultdict
from collections.abc import Iterable

from evaluate.paper_metrics import f1_of
from evaluate.retrievers import Query, Ranking

# Our name -> ranx's metric name.
RANX_METRICS = {"hit": "hit_rate", "recall": "recall", "mrr": "mrr", "precision": "precision", "ndcg": "ndcg"}
METRIC_ORDER = ("hit", "recall", "all_hops", "mrr", "precision", "f1", "ndcg")
_EMPTY = "\x00none"  # ranx needs a non-empty run per query: a placeholder no qrels can match


def score_queries(queries: list[Query], rankings: list[Ranking], ks: list[int]) -> dict[str, dict[str, float]]:
    """Per query key: {"hit@5": 1.0, "recall@5": 0.5, ...} for every metric and k."""
    from ranx import Qrels, Run, evaluate

    if not queries:
        return {}
    qrels = Qrels({q.key: {g: 1 for g in q.gold} for q in queries})
    run = Run({q.key: ({u: float(len(r) - i) for i, u in enumerate(r)} or {_EMPTY: 0.0})
               for q, r in zip(queries, rankings)})
    names = [f"{ranx_name}@{k}" for ranx_name in RANX_METRICS.values() for k in ks]
    with warnings.catch_warnings():  # numba's uint64 -> int64 cast notice, once per metric
        warnings.simplefilter("ignore")
        evaluate(qrels, run, names, return_mean=False, make_comparable=True)
    ours = {v: k for k, v in RANX_METRICS.items()}
    out: dict[str, dict[str, float]] = defaultdict(dict)
    for name, per_query in run.scores.items():
        ranx_name, k = name.split("@")
        for key, value in per_query.items():
            out[key][f"{ours[ranx_name]}@{k}"] = float(value)
    for values in out.values():
        for k in ks:
            values[f"f1@{k}"] = f1_of(values.get(f"precision@{k}", 0.0), values.get(f"recall@{k}", 0.0))
    return dict(out)


def all_hops_hits(hop_gold: list[list[str]], ranking: Ranking, ks: list[int]) -> dict[str, float]:
    """all_hops@k: 1.0 when every hop's evidence has an item in the top k of the question's ranking."""
    position = {u: i for i, u in enumerate(ranking)}
    first = [min((position[g] for g in gold if g in position), default=len(ranking) + 1) for gold in hop_gold]
    worst = max(first) if first else len(ranking) + 1
    return {f"all_hops@{k}": float(worst < k) for k in ks}


def gold_ranks(gold: list[str], ranking: Ranking) -> list[int | None]:
    """1-based rank of each gold item in the ranking (None if not retrieved)."""
    position = {u: i + 1 for i, u in enumerate(ranking)}
    return [position.get(g) for g in gold]


def mean_by(rows: Iterable[dict], group: str | None, ks: list[int]) -> dict:
    """Mean of each metric over rows (all rows, or per value of `group`), with a count `n`."""
    groups: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        groups[str(row[group]) if group else "all"].append(row)
    out = {}
    for value, members in sorted(groups.items()):
        means: dict[str, float] = {"n": len(members)}
        for metric in METRIC_ORDER:
            for k in ks:
                name = f"{metric}@{k}"
                present = [m["scores"][name] for m in members if name in m["scores"]]
                if present:
                    means[name] = round(sum(present) / len(present), 4)
        out[value] = means
    return out["all"] if group is None and "all" in out else out
