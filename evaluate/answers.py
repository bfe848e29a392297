"""`hopgraph eval answers`: a reader LLM in MIRAGE's three settings, judged three ways.

Settings (MIRAGE): base, the question alone; oracle, the record's gold
evidence; mixed, the gold evidence plus noise units from a retriever (the
top-ranked non-gold units for the question), 5 items in all, in a seeded order.
Per setting: exact match (MIRAGE's accuracy, here against the gold answer and
its aliases) and token F1, the judge's answer correctness in [0, 1] with a
rationale (RAGalyst; the judge model, not the reader) and, where hops carry
keypoints, CHARGE's Correctness (all matched, 0/1) and Coverage (matched /
gold). MIRAGE's four adaptability rates are reported twice: on alias-aware
exact match (`adaptability`) and on judged correctness (`adaptability_judged`,
a reply counts as correct at JUDGED_CORRECT or more).
Every reader and judge call goes through the LLM cache: a re-run spends 0.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from evaluate.context_match import answer_forms
from evaluate.corpus import EvidenceCorpus
from evaluate.records import EvalRecord
from evaluate.services import JUDGE_ROLE, llm_request
from evaluate.textmatch import exact_match, numbered, token_f1
from kg.errors import LLMUnavailable

SETTINGS = ("base", "oracle", "mixed")
MIXED_SIZE = 5  # MIRAGE: gold plus noise, five passages in all
PASSAGE_CHARS = 2000  # a passage longer than this is cut (imported documents can be long)
JUDGED_CORRECT = 0.5  # hopgraph's threshold: MIRAGE's rates need right/wrong, the judge gives a score


def contexts(record: EvalRecord, setting: str, noise: list[str]) -> list[str]:
    """Evidence unit ids the reader sees in `setting`."""
    if setting == "base":
        return []
    gold = record.gold_ids
    if setting == "oracle":
        return gold
    extra = [u for u in noise if u not in gold][: max(0, MIXED_SIZE - len(gold))]
    mixed = gold + extra
    random.Random(record.id).shuffle(mixed)  # gold first would teach the reader where to look
    return mixed


def adaptability(correct: dict[str, dict[str, bool]]) -> dict[str, float]:
    """MIRAGE's four shares over questions answered in all three settings; they partition them.

    noise_vulnerability: oracle right, mixed wrong; context_acceptability: oracle and mixed right;
    context_insensitivity: base and oracle wrong; context_misinterpretation: base right, oracle wrong.
    """
    complete = [c for c in correct.values() if all(s in c for s in SETTINGS)]
    counts = {"noise_vulnerability": 0, "context_acceptability": 0, "context_insensitivity": 0,
              "context_misinterpretation": 0}
    for c in complete:
        if c["oracle"]:
            counts["context_acceptability" if c["mixed"] else "noise_vulnerability"] += 1
        else:
            counts["context_misinterpretation" if c["base"] else "context_insensitivity"] += 1
    return {k: round(v / len(complete), 4) for k, v in counts.items()} | {"n": len(complete)} if complete else {}


def _passages(ids: list[str], corpus: EvidenceCorpus) -> list[str]:
    return [corpus.texts[corpus.position[u]][:PASSAGE_CHARS] for u in ids]


def _run(client: Any, requests: list, on_done: Callable[[], None] | None) -> list:
    return client.run_many(requests, (lambda i, r: on_done()) if on_done else None)


def evaluate_answers(records: list[EvalRecord], corpus: EvidenceCorpus, settings: list[str], noise: dict[str, list[str]],
                     client: Any, app_settings: Any, on_done: Callable[[], None] | None = None):
    """Read and judge every (record, setting); returns (metrics, rows)."""
    jobs = [(r, s, contexts(r, s, noise.get(r.id, []))) for r in records for s in settings]
    reads = _run(client, [llm_request("eval_read", "reader", "eval_answers", app_settings, question=r.question,
                                      context=numbered(_passages(ids, corpus))) for r, _, ids in jobs], on_done)
    if jobs and not any(res.ok for res in reads):
        raise LLMUnavailable(f"eval answers: every reader call failed ({reads[0].error}: {reads[0].detail[:120]})")
    answered = [(job, res.value.answer) for job, res in zip(jobs, reads) if res.ok]
    judgements = _run(client, [llm_request(
        "eval_judge_answer", JUDGE_ROLE, "eval_judge", app_settings, question=r.question,
        reference=" / ".join(answer_forms(r, corpus)),
        prediction=answer, keypoints=[k for h in r.hops for k in h.keypoints]) for (r, _, _), answer in answered],
        on_done)
    rows: list[dict[str, Any]] = []
    correct: dict[str, dict[str, bool]] = {}
    correct_judged: dict[str, dict[str, bool]] = {}
    for ((record, setting, ids), answer), judged in zip(answered, judgements):
        keypoints = [k for h in record.hops for k in h.keypoints]
        forms = answer_forms(record, corpus) or [record.answer]
        row = {"record_id": record.id, "setting": setting, "graph_type": record.graph_type, "context": ids,
               "question": record.question, "gold": record.answer, "answer": answer,
               "em": max(exact_match(answer, f) for f in forms),
               "f1": round(max(token_f1(answer, f) for f in forms), 4)}
        if judged.ok:
            row.update(correctness=judged.value.correctness, correctness_rationale=judged.value.rationale)
            correct_judged.setdefault(record.id, {})[setting] = judged.value.correctness >= JUDGED_CORRECT
            matched = judged.value.keypoints_matched[: len(keypoints)]
            if keypoints:
                row["keypoint_coverage"] = sum(matched) / len(keypoints)
                row["keypoint_correctness"] = float(len(matched) == len(keypoints) and all(matched))
        rows.append(row)
        correct.setdefault(record.id, {})[setting] = bool(row["em"])
    return _summary(rows, settings, len(records), correct, correct_judged), rows


def _summary(rows: list[dict], settings: list[str], n_records: int, correct: dict,
             correct_judged: dict) -> dict[str, Any]:
    out: dict[str, Any] = {"settings": {}, "notes": []}
    for setting in settings:
        mine = [r for r in rows if r["setting"] == setting]
        values: dict[str, Any] = {"n": len(mine), "failed": n_records - len(mine)}
        for metric in ("em", "f1", "correctness", "keypoint_correctness", "keypoint_coverage"):
            present = [r[metric] for r in mine if metric in r]
            if present:
                values[metric] = round(sum(present) / len(present), 4)
        out["settings"][setting] = values
    if not any("keypoint_coverage" in r for r in rows):
        out["notes"].append("CHARGE keypoint Correctness/Coverage: no hop of this dataset carries keypoints")
    shares = adaptability(correct)
    if shares:
        out["adaptability"] = shares
        judged_shares = adaptability(correct_judged)
        if judged_shares:
            out["adaptability_judged"] = judged_shares
    elif set(settings) != set(SETTINGS):
        out["notes"].append("MIRAGE adaptability shares need all three settings (base, oracle, mixed)")
    return out
