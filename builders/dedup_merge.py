"""`[dedup] llm_merge`: rewrite a kept chain from its near-duplicates with the LLM (MiRAGE Eq. 11).

MiRAGE merges each group of near-duplicate QA pairs into one with an LLM. Here
the group's kept chain (the best verified) is folded with each duplicate in
turn through kg/prompts/merge_duplicates.md, which merges two questions: one
call per duplicate, in id order. The kept chain records `merged_from`; a
chain already merged from exactly these duplicates is left alone, so a rerun
of dedup spends no call (and every call goes through the LLM cache anyway).
A failed call keeps the chain as it was.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)


def llm_merge_hook(settings: Any, client: Any) -> Callable[[dict, list[dict]], dict | None]:
    """A run_dedup merge hook backed by the merge_duplicates prompt (verifier role)."""
    from kg.llm.client import LLMRequest

    def merge(kept: dict[str, Any], duplicates: list[dict[str, Any]]) -> dict[str, Any] | None:
        if sorted(kept.get("merged_from") or []) == sorted(d["id"] for d in duplicates):
            return None  # merged from these already (a rerun)
        question, answer = str(kept.get("question") or ""), str(kept.get("answer") or "")
        for dup in duplicates:
            request = LLMRequest.for_task("merge_duplicates", "verifier", "dedup", prompts_dir=settings.llm.prompts_dir,
                                          question_a=question, answer_a=answer,
                                          question_b=str(dup.get("question") or ""),
                                          answer_b=str(dup.get("answer") or ""), evidence="")
            result = client.run_many([request])[0]
            if not result.ok:
                log.warning("dedup: merging %s with %s failed (%s); kept as it was", kept["id"], dup["id"],
                            result.error)
                return None
            question, answer = result.value.question, result.value.answer
        return {"question": question, "answer": answer}

    return merge
