"""The LLM requests of generation, built in one place.

`generate --dry-run` estimates with exactly these requests (images, domain
and persona fallbacks included), so its estimate is for the messages a real
run sends.
"""

from __future__ import annotations

from builders.chains.verbalize import Draft, hops_payload
from builders.chains.verify import evidence_payload
from builders.chains.walkers import Candidate
from kg.config import Settings
from queries.corpus_view import CorpusView

DEFAULT_DOMAIN = "the documents"
DEFAULT_PERSONA = "a careful expert reader"


def voice(view: CorpusView, cand: Candidate) -> tuple[str, str]:
    """The domain and persona a chain is written in: its last hop's document's (the answer's), else
    the corpus's (a mixed collection's NLP chain is not asked by its hydrologist)."""
    own = view.doc_personas.get(view.nodes[cand.hops[-1].node_id].doc_id) or {}
    return (own.get("domain") or view.domain or DEFAULT_DOMAIN, own.get("persona") or view.persona or DEFAULT_PERSONA)


def verbalize_request(view: CorpusView, cand: Candidate, settings: Settings):
    from kg.llm.client import LLMRequest

    domain, persona = voice(view, cand)
    return LLMRequest.for_task(
        "verbalize_chain", "generator", "generate", prompts_dir=settings.llm.prompts_dir,
        images=image_urls(view, cand, settings), domain=domain, persona=persona,
        graph_type=cand.graph_type, hops=hops_payload(view, cand))


def repair_request(view: CorpusView, draft: Draft, verdict, settings: Settings):
    """The writer's one rewrite, given the verifier's reasons (MiRAGE's refinement); verbalize's schema."""
    import json

    from kg.llm.client import LLMRequest

    cand = draft.candidate
    rejected = {"hops": [{"subquestion": h.sub_question, "answer": h.answer} for h in draft.hops],
                "question": draft.question, "answer": draft.answer}
    unneeded = [i for i, need in enumerate(verdict.necessary) if not need]
    review = [f"item {i} not needed: the question can be answered without it" for i in unneeded]
    if not verdict.no_shortcut:
        review.append("one evidence item answers the question alone")
    review += [r for r in verdict.reasons if r]
    domain, persona = voice(view, cand)
    return LLMRequest.for_task(
        "repair_chain", "generator", "generate", prompts_dir=settings.llm.prompts_dir,
        images=image_urls(view, cand, settings), domain=domain, persona=persona,
        graph_type=cand.graph_type, hops=hops_payload(view, cand),
        draft=json.dumps(rejected, ensure_ascii=False, indent=1), review="\n".join(f"- {r}" for r in review))


def verify_request(view: CorpusView, draft: Draft, settings: Settings):
    from kg.llm.client import LLMRequest

    return LLMRequest.for_task(
        "verify_chain", "verifier", "verify", prompts_dir=settings.llm.prompts_dir, question=draft.question,
        images=image_urls(view, draft.candidate, settings),
        answer=draft.answer, evidence=evidence_payload(view, draft), n_hops=len(draft.candidate.hops))


def answer_requests(view: CorpusView, draft: Draft, settings: Settings, removed_hops: list | None = None) -> list:
    """Empirical necessity: answer with all evidence, then with each hop's evidence removed (or
    only without each of `removed_hops`: a repaired chain's probe)."""
    from kg.llm.client import LLMRequest

    out = []
    for removed in ([None, *range(len(draft.candidate.hops))] if removed_hops is None else removed_hops):
        evidence = evidence_payload(view, draft, skip=removed)
        out.append(LLMRequest.for_task("answer_from_evidence", "verifier", "verify",
                                       prompts_dir=settings.llm.prompts_dir, question=draft.question,
                                       evidence=evidence))
    return out


def image_urls(view: CorpusView, cand: Candidate, settings: Settings) -> list[str] | None:
    """Image hops go to the model as pictures when a vision model is configured."""
    if not settings.llm.vision_model:
        return None
    from kg.enrich.describe import image_data_url

    urls = [image_data_url(view.nodes[h.node_id].path) for h in cand.hops
            if h.label == "Image" and view.nodes[h.node_id].path]
    return [u for u in urls if u] or None
