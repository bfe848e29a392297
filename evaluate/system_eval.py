"""`hopgraph eval system`: the user's RAG system's answers scored against a hopgraph dataset.

Per question (one row of results.jsonl):
  em, f1                  against the gold answer and its aliases (the best form; SQuAD-style
                          normalisation); em_strict against the gold answer string alone
  context_recall          per hop: the system's contexts hold all of the hop's gold evidence;
                          the question's figure is the share of its hops recalled
  context_recall_any_answering   the same, a hop also recalled by another unit that answers it
                          (evaluate.context_match, "unique gold")
  retrieval_precision / _recall / _f1   gold units among the contexts (evaluate.paper_metrics)
  hit_per_step, hit_per_step_partial, rollout_deviation   when the system returned steps (MC-Search)
Judged (the judge model, never a reader of this project; cached by request hash):
  correctness (+ correctness_rationale)   RAGalyst answer correctness, continuous 0-1
  keypoints_matched       CHARGE: per gold keypoint of the record's hops
  faithfulness            supported claims / claims of the answer, against the system's own contexts
  answer_relevancy (+ grounding_rationale)
Means overall and by graph_type, hops and modality; CHARGE Correctness/Coverage (Eq. 3-4)
over the questions with keypoints.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any

from evaluate.context_match import answer_forms, answering_units, matched_units
from evaluate.corpus import EvidenceCorpus
from evaluate.paper_metrics import hit_per_step, hit_per_step_partial, f1_of, keypoint_scores, rollout_deviation
from evaluate.records import EvalRecord
from evaluate.services import JUDGE_ROLE, llm_request
from evaluate.system_sources import SystemAnswer, SystemContext
from evaluate.textmatch import exact_match, numbered, token_f1

CONTEXT_CHARS = 2000  # a context longer than this is cut in the judge's prompt
MEANS = ("em", "em_strict", "f1", "context_recall", "context_recall_any_answering", "retrieval_precision",
         "retrieval_recall", "retrieval_f1", "hit_per_step", "hit_per_step_partial", "rollout_deviation",
         "correctness", "faithfulness", "answer_relevancy", "keypoint_correctness", "keypoint_coverage")
GROUPS = ("graph_type", "hops", "modality")


def _units(contexts: list[SystemContext], candidates: list[str], corpus: EvidenceCorpus) -> list[set[str]]:
    return [matched_units(c.id, c.text, candidates, corpus) for c in contexts]


def lexical_row(record: EvalRecord, reply: SystemAnswer, corpus: EvidenceCorpus,
                answering: dict[tuple[str, int], list[str]] | None = None) -> dict[str, Any]:
    """Every figure of one question that needs no LLM (`answering`: units confirmed by the LLM, if asked)."""
    forms = answer_forms(record, corpus)
    alternates = {h.index: (answering.get((record.id, h.index), []) if answering is not None
                            else answering_units(h, corpus)) for h in record.hops}
    candidates = list(dict.fromkeys(record.gold_ids + [u for a in alternates.values() for u in a]))
    per_context = _units(reply.contexts, candidates, corpus)
    found = set().union(*per_context) if per_context else set()
    hops = []
    for hop in record.hops:
        gold_hit = set(hop.gold_ids) <= found
        hops.append({"index": hop.index, "gold": hop.gold_ids, "hit": gold_hit,
                     "hit_any_answering": gold_hit or bool(found & set(alternates[hop.index])),
                     "answering_units": alternates[hop.index]})
    gold = set(record.gold_ids)
    # precision over the contexts returned (several may be one unit), recall over the gold units
    precision = sum(bool(units & gold) for units in per_context) / len(per_context) if per_context else 0.0
    recall = len(found & gold) / len(gold)
    row: dict[str, Any] = {
        "record_id": record.id, "graph_type": record.graph_type, "hops": len(record.hops),
        "modality": record.modality, "question": record.question, "gold": record.answer, "answer_forms": forms,
        "answer": reply.answer, "contexts": len(reply.contexts),
        "em": max(exact_match(reply.answer, f) for f in forms) if forms else 0.0,
        "em_strict": exact_match(reply.answer, record.answer),
        "f1": round(max((token_f1(reply.answer, f) for f in forms), default=0.0), 4),
        "context_recall": sum(h["hit"] for h in hops) / len(hops),
        "context_recall_any_answering": sum(h["hit_any_answering"] for h in hops) / len(hops),
        "retrieval_precision": precision, "retrieval_recall": recall, "retrieval_f1": f1_of(precision, recall),
        "per_hop": hops,
    }
    if reply.steps is not None:
        step_units = [set().union(*_units(s.contexts, record.gold_ids, corpus)) if s.contexts else set()
                      for s in reply.steps]
        gold_steps = [h.gold_ids for h in record.hops]
        row.update(steps=len(reply.steps), hit_per_step=hit_per_step(step_units, gold_steps),
                   hit_per_step_partial=hit_per_step_partial(step_units, gold_steps),
                   rollout_deviation=rollout_deviation(len(reply.steps), len(record.hops)))
    return row


def _reference(forms: list[str]) -> str:
    return forms[0] + (f" (also accepted: {'; '.join(forms[1:])})" if len(forms) > 1 else "")


def judge_rows(rows: list[dict[str, Any]], records: dict[str, EvalRecord], replies: dict[str, SystemAnswer],
               client: Any, settings: Any, on_done: Callable[[], None] | None = None) -> list[str]:
    """Add the judged figures to `rows` in place; returns notes on what could not be judged."""
    notes: list[str] = []
    correctness = [llm_request("eval_judge_answer", JUDGE_ROLE, "eval_system", settings,
                               question=row["question"], reference=_reference(row["answer_forms"]),
                               prediction=row["answer"],
                               keypoints=[k for h in records[row["record_id"]].hops for k in h.keypoints])
                   for row in rows]
    grounded = [row for row in rows if replies[row["record_id"]].contexts]
    grounding = [llm_request("eval_judge_grounding", JUDGE_ROLE, "eval_system", settings, question=row["question"],
                             answer=row["answer"], contexts=numbered(
                                 [c.text[:CONTEXT_CHARS] or f"(id {c.id})" for c in replies[row["record_id"]].contexts]))
                 for row in grounded]
    results = client.run_many(correctness + grounding, (lambda i, r: on_done()) if on_done else None)
    for row, result in zip(rows, results[: len(rows)]):
        if not result.ok:
            row["judge_error"] = f"{result.error}: {result.detail[:120]}"
            continue
        keypoints = [k for h in records[row["record_id"]].hops for k in h.keypoints]
        row.update(correctness=result.value.correctness, correctness_rationale=result.value.rationale)
        if keypoints:
            matched = (list(result.value.keypoints_matched) + [False] * len(keypoints))[: len(keypoints)]
            row["keypoints_matched"] = matched
            row.update(keypoint_scores([matched]))
    for row, result in zip(grounded, results[len(rows):]):
        if result.ok:
            claims = result.value.supported or [False]
            row.update(faithfulness=sum(claims) / len(claims), answer_relevancy=result.value.relevancy,
                       grounding_rationale=result.value.rationale)
    if len(grounded) < len(rows):
        notes.append(f"faithfulness and answer relevancy: {len(rows) - len(grounded)} answers came back without "
                     "contexts, so there is nothing to be faithful to; those are not scored")
    return notes


def _means(rows: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {"n": len(rows)}
    for key in MEANS:
        values = [row[key] for row in rows if key in row]
        if values:
            out[key] = round(sum(values) / len(values), 4)
    return out


def summarise(rows: list[dict[str, Any]], judged: bool) -> dict[str, Any]:
    """Overall means, means by chain type / hop count / modality, and CHARGE over questions with keypoints."""
    out: dict[str, Any] = {"overall": _means(rows)}
    for group in GROUPS:
        members: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for row in rows:
            members[str(row[group])].append(row)
        out[f"by_{group}"] = {value: _means(mine) for value, mine in sorted(members.items())}
    if judged:
        charge = keypoint_scores([row["keypoints_matched"] for row in rows if "keypoints_matched" in row])
        out["charge"] = {**{k: round(v, 4) for k, v in charge.items()},
                         "n": sum("keypoints_matched" in row for row in rows)}
    return out


def score_system(records: list[EvalRecord], replies: dict[str, SystemAnswer], corpus: EvidenceCorpus,
                 client: Any | None, settings: Any, on_done: Callable[[], None] | None = None,
                 unique_gold: str = "lexical"):
    """(metrics, rows) for the records the system answered; the judge runs when `client` is given.
    unique_gold "llm" has the judge confirm the other units that answer each hop (evaluate.unique_gold)."""
    from evaluate.unique_gold import confirmed_answering_units

    answered = [r for r in records if r.id in replies]
    answering = None
    if unique_gold == "llm" and client is not None:
        answering = confirmed_answering_units(answered, corpus, client, settings)
    rows = [lexical_row(r, replies[r.id], corpus, answering) for r in answered]
    notes: list[str] = []
    if client is not None:
        notes += judge_rows(rows, {r.id: r for r in answered}, replies, client, settings, on_done)
        if not any("keypoints_matched" in row for row in rows):
            notes.append("CHARGE keypoint Correctness/Coverage: no hop of this dataset carries keypoints "
                         "(export with a graph that has keypoints: ingest with an LLM)")
    else:
        notes.append("judged metrics (correctness, faithfulness, answer relevancy, CHARGE keypoints) not "
                     "computed: no LLM is configured for the judge (set llm.base_url / OPENAI_BASE_URL or "
                     "OPENAI_API_KEY); EM, F1, context recall, retrieval F1 and step metrics are lexical and ran")
    if unique_gold == "llm" and client is None:
        notes.append("unique gold: --unique-gold llm needs an LLM; the lexical rule was used")
    metrics = summarise(rows, client is not None)
    metrics["unique_gold"] = "llm" if answering is not None else "lexical"
    metrics["notes"] = notes
    return metrics, rows
