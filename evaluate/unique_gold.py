"""Unique gold, confirmed by the LLM: which other units also answer a hop's sub-question.

Offline (evaluate.context_match.answering_units) a unit answers a hop when
it holds the hop's answer with its relation. With an LLM (`eval system
--unique-gold llm`), the candidates are that lexical set plus the BM25 top
CANDIDATES for the sub-question (gold units left out), and each is confirmed
by the verifier role (the judge model) answering the sub-question from that
unit alone (kg/prompts/answer_from_evidence.md, the HAVE probe's prompt): a
unit is kept when its answer matches the hop's (token F1 >= verify.answer_match).
Every call goes through the LLM cache.
"""

from __future__ import annotations

from typing import Any

from evaluate.context_match import answering_units
from evaluate.corpus import EvidenceCorpus
from evaluate.records import EvalRecord
from evaluate.retrievers import BM25Retriever, Query
from evaluate.services import JUDGE_ROLE, llm_request
from evaluate.textmatch import numbered, token_f1

CANDIDATES = 3  # BM25 candidates per hop, beside the lexical ones
PASSAGE_CHARS = 2000


def confirmed_answering_units(records: list[EvalRecord], corpus: EvidenceCorpus, client: Any,
                              settings: Any) -> dict[tuple[str, int], list[str]]:
    """(record id, hop index) -> units other than the gold that the verifier confirms answer the hop."""
    hops = [(r, h) for r in records for h in r.hops if h.subquestion and h.answer]
    rankings = BM25Retriever(corpus).search([Query(f"{r.id}#{h.index}", h.subquestion) for r, h in hops],
                                            CANDIDATES + 3) if hops else []
    jobs = []
    for (record, hop), ranking in zip(hops, rankings):
        bm25 = [u for u in ranking if u not in hop.gold_ids][:CANDIDATES]
        for unit in dict.fromkeys(answering_units(hop, corpus) + bm25):
            jobs.append((record.id, hop, unit))
    results = client.run_many([llm_request("answer_from_evidence", JUDGE_ROLE, "eval_unique_gold", settings,
                                           question=hop.subquestion, evidence=numbered(
                                               [corpus.texts[corpus.position[unit]][:PASSAGE_CHARS]]))
                               for _, hop, unit in jobs])
    found: dict[tuple[str, int], list[str]] = {(r.id, h.index): [] for r, h in hops}
    for (ident, hop, unit), result in zip(jobs, results):
        if result.ok and token_f1(result.value.answer, hop.answer) >= settings.verify.answer_match:
            found[(ident, hop.index)].append(unit)
    return found
