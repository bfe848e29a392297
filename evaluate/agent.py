"""`hopgraph eval agent`: an iterative agent's rollouts scored against the gold chain (MC-Search).

The loop, per record and retriever, up to MAX_STEPS sub-questions: the reader
sees the question and the (sub-question -> answer) trail so far and either
asks the next sub-question or answers (kg/prompts/eval_next_step.md); a
sub-question's top k units are retrieved and the reader answers it from them
(eval_read). A rollout that reaches the limit, or ends without an answer, is
answered by the reader from every unit it retrieved. So the step count is the
rollout's own, and rollout deviation measures a rollout, not a plan.
Scores per record:

  hit_per_step       MC-Search HPS with exact evidence identity: a gold step is hit
                     when its matched predicted step (one-to-one, maximum-weight
                     bipartite matching) retrieved all of its evidence
  hit_per_step_partial  hopgraph's variant: any part of the evidence (evaluate.paper_metrics)
  rollout_deviation  | predicted steps - gold steps |
  f1, em             the final answer against the gold answer
  delta_f1           f1 minus the reader's f1 with no context (MIRAGE's base)
  golden_f1          the reader's f1 with the gold evidence (oracle)
  judge_*            the judge model's grades of the chain: accuracy, coherence,
                     entity coverage, step alignment (1-5)
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

MAX_STEPS = 6  # sub-questions per rollout at most: the loop is plain, not open-ended
PASSAGE_CHARS = 1500
JUDGE_KEYS = ("accuracy", "coherence", "entity_coverage", "step_alignment")


def _passages(ids: list[str], corpus: EvidenceCorpus) -> list[str]:
    return [corpus.texts[corpus.position[u]][:PASSAGE_CHARS] for u in ids]


def _read(client: Any, settings: Any, jobs: list[tuple[str, list[str]]], corpus: EvidenceCorpus) -> list:
    """Reader answers (None where a call failed) for (question, context ids) jobs."""
    results = client.run_many([llm_request("eval_read", "reader", "eval_answers", settings, question=q,
                                           context=numbered(_passages(ids, corpus))) for q, ids in jobs])
    return [res.value.answer if res.ok else None for res in results]


def _trail(state: dict[str, Any]) -> str:
    if not state["steps"]:
        return "(nothing yet)"
    return "\n".join(f"{i}. {q} -> {a or '(not found)'}"
                     for i, (q, a) in enumerate(zip(state["steps"], state["sub_answers"]), 1))


def _decide(client: Any, settings: Any, active: list[EvalRecord], state: dict[str, dict], left: int) -> list:
    results = client.run_many([llm_request("eval_next_step", "reader", "eval_agent", settings, question=r.question,
                                           trail=_trail(state[r.id]), steps_left=str(left)) for r in active])
    if active and left == MAX_STEPS and not any(res.ok for res in results):
        raise LLMUnavailable(f"eval agent: every first step failed ({results[0].error}: {results[0].detail[:120]})")
    return results


def rollouts(records: list[EvalRecord], retriever: Any, k: int, corpus: EvidenceCorpus, client: Any,
             settings: Any) -> dict[str, dict[str, Any]]:
    """Each record's rollout {steps, retrieved, sub_answers, answer}; records whose calls failed are absent."""
    state = {r.id: {"steps": [], "retrieved": [], "sub_answers": [], "answer": None} for r in records}
    failed: set[str] = set()
    active = list(records)
    for left in range(MAX_STEPS, -1, -1):
        asking = []
        for record, result in zip(active, _decide(client, settings, active, state, left) if active else []):
            mine = state[record.id]
            if not result.ok:
                failed.add(record.id)
                continue
            sub = result.value.next_subquestion.strip()
            if result.value.done or not sub or left == 0 or sub in mine["steps"]:
                mine["answer"] = result.value.answer.strip() or None
                continue
            asking.append((record, sub))
        if not asking:
            break
        rankings = retriever.search([Query(f"{r.id}#step{len(state[r.id]['steps'])}", sub) for r, sub in asking], k)
        answers = _read(client, settings, [(sub, ids) for (_, sub), ids in zip(asking, rankings)], corpus)
        for (record, sub), ids, answer in zip(asking, rankings, answers):
            mine = state[record.id]
            mine["steps"].append(sub)
            mine["retrieved"].append(list(ids))
            mine["sub_answers"].append(answer or "")
        active = [r for r, _ in asking]
    unanswered = [r for r in records if r.id not in failed and not state[r.id]["answer"]]
    finals = _read(client, settings, [(r.question, list(dict.fromkeys(u for ids in state[r.id]["retrieved"]
                                                                          for u in ids))) for r in unanswered], corpus)
    for record, answer in zip(unanswered, finals):
        state[record.id]["answer"] = answer
    return {ident: mine for ident, mine in state.items() if ident not in failed and mine["answer"] is not None}


def _judge(client: Any, settings: Any, rows: list[dict], records: dict[str, EvalRecord]) -> None:
    requests = []
    for row in rows:
        record = records[row["record_id"]]
        gold_chain = "\n".join(f"{i}. {h.subquestion or '(evidence only)'} -> {h.answer or '?'}"
                               for i, h in enumerate(record.hops, 1))
        predicted = "\n".join(f"{i}. {s} -> {a or '?'}"
                              for i, (s, a) in enumerate(zip(row["steps"], row["sub_answers"]), 1))
        requests.append(llm_request("eval_judge_chain", JUDGE_ROLE, "eval_agent_judge", settings, question=record.question,
                                    gold_answer=record.answer, gold_chain=gold_chain, predicted_chain=predicted,
                                    predicted_answer=row["answer"]))
    for row, result in zip(rows, client.run_many(requests)):
        if result.ok:
            row.update({f"judge_{k}": getattr(result.value, k) for k in JUDGE_KEYS})


def run_agent(records: list[EvalRecord], corpus: EvidenceCorpus, retrievers: dict[str, Any], k: int,
              client: Any, settings: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Roll the agent out with each retriever; score each rollout against its gold chain."""
    base = dict(zip([r.id for r in records], _read(client, settings, [(r.question, []) for r in records], corpus)))
    oracle = dict(zip([r.id for r in records],
                      _read(client, settings, [(r.question, r.gold_ids) for r in records], corpus)))
    by_id = {r.id: r for r in records}
    metrics: dict[str, Any] = {}
    all_rows: list[dict[str, Any]] = []
    for name, retriever in retrievers.items():
        rows = []
        for ident, rollout in rollouts(records, retriever, k, corpus, client, settings).items():
            record, answer = by_id[ident], rollout["answer"]
            gold_steps = [h.gold_ids for h in record.hops]
            f1 = token_f1(answer, record.answer)
            row = {"retriever": name, "record_id": ident, "graph_type": record.graph_type,
                   "steps": rollout["steps"], "sub_answers": rollout["sub_answers"],
                   "retrieved": rollout["retrieved"], "answer": answer, "gold": record.answer,
                   "hit_per_step": hit_per_step(rollout["retrieved"], gold_steps),
                   "hit_per_step_partial": hit_per_step_partial(rollout["retrieved"], gold_steps),
                   "rollout_deviation": rollout_deviation(len(rollout["steps"]), len(record.hops)), "f1": f1,
                   "em": exact_match(answer, record.answer)}
            if base[ident] is not None:
                row["delta_f1"] = f1 - token_f1(base[ident], record.answer)
            if oracle[ident] is not None:
                row["golden_f1"] = token_f1(oracle[ident], record.answer)
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
