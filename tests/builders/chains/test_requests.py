"""The LLM requests of generation: what the writer, verifier and answerer are sent."""

from __future__ import annotations

import json

import pymupdf

from builders.chains.candidate import Candidate, Hop
from builders.chains.requests import (
    DEFAULT_DOMAIN, DEFAULT_PERSONA, answer_requests, image_urls, repair_request, verbalize_request, verify_request,
)
from builders.chains.verbalize import Draft, HopText
from builders.chains.verify import ChainVerdict
from kg.config import Settings
from queries.corpus_view import CorpusView, EvidenceNode

TEXTS = {"c1": "Ada Lovelace wrote notes on the Analytical Engine in 1843.",
         "c2": "The Analytical Engine was designed by Charles Babbage.",
         "c3": "Charles Babbage was born in London in 1791."}


def sent(request) -> str:
    """Everything the request sends, as one string."""
    return json.dumps(request.messages, ensure_ascii=False)


def view_and_draft(tmp_path=None) -> tuple[CorpusView, Draft]:
    view = CorpusView()
    for cid, text in TEXTS.items():
        view.nodes[cid] = EvidenceNode(id=cid, label="Chunk", doc_id="d", text=text)
    hops = [Hop("c1", "Chunk", "engine", "entity"), Hop("c2", "Chunk", "babbage", "entity"), Hop("c3", "Chunk")]
    if tmp_path is not None:  # the middle hop is a picture
        png = tmp_path / "engine.png"
        pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 4, 4), False)
        pix.clear_with(200)
        pix.save(str(png))
        view.nodes["img"] = EvidenceNode(id="img", label="Image", doc_id="d", text="a brass machine", kind="image",
                                         path=str(png))
        hops[1] = Hop("img", "Image", "babbage", "entity")
    view.entity_name.update({"engine": "Analytical Engine", "babbage": "Charles Babbage"})
    cand = Candidate("text_chain", hops, [(0, 1), (1, 2), (2, 3)])
    draft = Draft(cand, [HopText("q0?", "the Analytical Engine"), HopText("q1?", "Charles Babbage"),
                         HopText("q2?", "London")],
                  "Where was the designer of the machine Ada Lovelace wrote on born?", "London", "test")
    return view, draft


def test_a_corpus_without_domain_or_persona_gets_the_fallbacks():
    view, draft = view_and_draft()
    text = sent(verbalize_request(view, draft.candidate, Settings()))
    assert DEFAULT_DOMAIN in text and DEFAULT_PERSONA in text
    view.domain, view.persona = "computing history", "a museum guide"
    text = sent(verbalize_request(view, draft.candidate, Settings()))
    assert "computing history" in text and "a museum guide" in text and DEFAULT_PERSONA not in text
    for evidence in TEXTS.values():  # every hop's evidence reaches the writer
        assert evidence in text


def test_the_verifier_gets_the_question_the_answer_and_all_evidence():
    view, draft = view_and_draft()
    request = verify_request(view, draft, Settings())
    text = sent(request)
    assert draft.question in text and "London" in text
    assert all(evidence in text for evidence in TEXTS.values())
    assert (request.task, request.role, request.stage) == ("verify_chain", "verifier", "verify")


def test_answer_requests_leave_out_one_hop_each():
    view, draft = view_and_draft()
    requests = answer_requests(view, draft, Settings())
    assert len(requests) == 4  # all evidence, then without each of the three hops
    assert all(e in sent(requests[0]) for e in TEXTS.values())
    for removed, request in enumerate(requests[1:]):
        text = sent(request)
        missing = list(TEXTS.values())[removed]
        assert missing not in text
        assert all(e in text for e in TEXTS.values() if e != missing)


def test_the_repair_request_says_what_the_verifier_found_wrong():
    view, draft = view_and_draft()
    verdict = ChainVerdict(necessary=[True, False, True], no_shortcut=False, reasons=["the answer is not London"])
    text = sent(repair_request(view, draft, verdict, Settings()))
    assert "item 1 not needed" in text and "item 0 not needed" not in text
    assert "one evidence item answers the question alone" in text
    assert "the answer is not London" in text
    assert draft.question in text  # the rejected draft is shown to the writer


def test_image_hops_go_as_pictures_only_with_a_vision_model(tmp_path):
    view, draft = view_and_draft(tmp_path)
    assert image_urls(view, draft.candidate, Settings()) is None
    settings = Settings()
    settings.llm.vision_model = "a-vision-model"
    urls = image_urls(view, draft.candidate, settings)
    assert len(urls) == 1 and urls[0].startswith("data:image/png;base64,")
    assert "data:image/png;base64," in sent(verify_request(view, draft, settings))
    text_only, text_draft = view_and_draft()
    assert image_urls(text_only, text_draft.candidate, settings) is None  # no image hop: no pictures
