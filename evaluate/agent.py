"""`hopgraph eval agent`: a plain agentic loop scored against the gold chain (MC-Search).

The loop: the reader decomposes the question into sub-questions (one call),
a retriever fetches the top k units for each, and the reader answers the
question from all retrieved units (one call). Scores per record:

  hit_per_step       MC-Search HPS with exact evidence identity: a gold step is hit
                     when its matched predicted step (one-to-one, maximum-weight
                     bipartite matching) retrieved all of its evidence
  hit_per_step_partial  hopgraph's variant: any part of the evidence (evaluate.paper_metrics)
  rollout_deviation  | predicted steps - gold steps |
  f1, em             the final answer against the gold answer
  delta_f1           f1 minus the reader's f1 with no context (MIRAGE's base)
  golden_f1          the reader's f1 with the gold evidence (oracle)
  judge_*            the LLM judge of the chain: accuracy, coherence, entity
                     coverage, step alignment (1-5)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from evaluate.corpus import EvidenceCorpus
from evaluate.paper_metrics import hit_per_step, hit_per_step_partial, rollout_deviation
from evaluate.records import EvalRecord
from evaluate.retrievers import Query
from evaluate.services import JUDGE_ROLE, llm_request
from evaluate.textmatch import exact_match, numbered, token_f1
from kg.errors import LLMUnavailable

MAX_STEPS = 6  # a plan longer than this is cut: the loop is plain, not open-ended
PASSAGE_CHARS = 1500
JUDGE_KEYS = ("accuracy", "coherence", "entity_coverage", "step_alignment")


def _passages(ids: list[str], corpus: EvidenceCorpus) -> list[str]:
    return [corpus.texts[corpus.position[u]][:PASSAGE_CHARS] for u in ids]


def _read(client: Any, settings: Any, jobs: list[tuple[EvalRecord, list[str]]], corpus: EvidenceCorpus) -> list:
    """Reader answers (None where a call failed) for (record, context ids) jobs."""
    results = client.run_many([llm_request("eval_read", "reader", "eval_answers", settings, question=r.question,
                                           context=numbered(_passages(ids, corpus))) for r, ids in jobs])
    return [res.value.answer if res.ok else None for res in results]


def _plans(records: list[EvalRecord], client: Any, settings: Any) -> list[list[str] | None]:
    results = client.run_many([llm_request("eval_decompose", "reader", "eval_agent", settings, question=r.question)
                               for r in records])
    if records and not any(r.ok for r in results):
        raise LLMUnavailable(f"eval agent: every planning call failed ({results[0].error}: {results[0].detail[:120]})")
    return [[s for s in res.value.steps if s.strip()][:MAX_STEPS] or [r.question] if res.ok else None
            for r, res in zip(records, results)]


def _judge(client: Any, settings: Any, rows: list[dict], records: dict[str, EvalRecord]) -> None:
    requests = []
    for row in rows:
        record = records[row["record_id"]]
        gold_chain = "\n".join(f"{i}. {h.subquestion or '(evidence only)'} -> {h.answer or '?'}"
                               for i, h in enumerate(record.hops, 1))
        predicted = "\n".join(f"{i}. {s}" for i, s in enumerate(row["steps"], 1))
        requests.append(llm_request("eval_judge_chain", JUDGE_ROLE, "eval_agent_judge", settings, question=record.question,
                                    gold_answer=record.answer, gold_chain=gold_chain, predicted_chain=predicted,
                                    predicted_answer=row["answer"]))
    for row, result in zip(rows, client.run_many(requests)):
        if result.ok:
            row.update({f"judge_{k}": getattr(result.value, k) for k in JUDGE_KEYS})


def run_agent(records: list[EvalRecord], corpus: EvidenceCorpus, retrievers: dict[str, Any], k: int,
              client: Any, settings: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Plan once per record, then retrieve, answer and score with each retriever."""
    plans = _plans(records, client, settings)
    planned = [(r, p) for r, p in zip(records, plans) if p is not None]
    base = _read(client, settings, [(r, []) for r, _ in planned], corpus)
    oracle = _read(client, settings, [(r, r.gold_ids) for r, _ in planned], corpus)
    by_id = {r.id: r for r in records}
    metrics: dict[str, Any] = {}
    all_rows: list[dict[str, Any]] = []
    for name, retriever in retrievers.items():
        steps = [(r, s) for r, plan in planned for s in plan]
        rankings = iter(retriever.search([Query(f"{r.id}#step", s) for r, s in steps], k))
        retrieved = [[next(rankings) for _ in plan] for _, plan in planned]
        contexts = [list(dict.fromkeys(u for ranking in per_step for u in ranking)) for per_step in retrieved]
        answers = _read(client, settings, [(r, ids) for (r, _), ids in zip(planned, contexts)], corpus)
        rows = []
        for (record, plan), per_step, answer, base_answer, gold_answer in zip(planned, retrieved, answers, base, oracle):
            if answer is None:
                continue
            f1 = token_f1(answer, record.answer)
            row = {"retriever": name, "record_id": record.id, "graph_type": record.graph_type, "steps": plan,
                   "retrieved": per_step, "answer": answer, "gold": record.answer,
                   "hit_per_step": hit_per_step(per_step, [h.gold_ids for h in record.hops]),
                   "hit_per_step_partial": hit_per_step_partial(per_step, [h.gold_ids for h in record.hops]),
                   "rollout_deviation": rollout_deviation(len(plan), len(record.hops)), "f1": f1,
                   "em": exact_match(answer, record.answer)}
            if base_answer is not None:
                row["delta_f1"] = f1 - token_f1(base_answer, record.answer)
            if gold_answer is not None:
                row["golden_f1"] = token_f1(gold_answer, record.answer)
            rows.append(row)
        _judge(client, settings, rows, by_id)
        metrics[name] = _means(rows, len(records))
        all_rows += rows
    return metrics, all_rows


def _means(rows: list[dict[str, Any]], total: int) -> dict[str, Any]:
    keys = ("hit_per_step", "hit_per_step_partial", "rollout_deviation", "f1", "em", "delta_f1", "golden_f1") + tuple(
        f"judge_{k}" for k in JUDGE_KEYS)
    out: dict[str, Any] = {"n": len(rows), "failed": total - len(rows)}
    for key in keys:
        values = [row[key] for row in rows if key in row]
        if values:
            out[key] = round(float(np.mean(values)), 4)
    return out
