"""Statements quote the document as printed: numbers untouched, only complete prose sentences."""

from __future__ import annotations

import re

import pytest

from builders.chains.statements import node_sentences, quotable
from tests.kg.ingest.pdf_corpus import ALL_PDFS, parsed_pdf  # noqa: F401  (fixture)

NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


@pytest.mark.parametrize("text", [
    "Qwen2 shows enhancements of 1.6 and 9.8 on GPQA and Theorem QA over the baseline.",
    "The instruction-tuned model attains 9.1 on MT-Bench and 84.2 on MMLU.",
    "The series spans models ranging from 0.5 to 72 billion parameters.",
    "We parse each PDF with SCIENCEPARSE v3.0.0 and GROBID v0.5.5 in this release.",
    "The corpus holds 1,000,000 papers, 8.1M of them with full text (see Fig.3 for details).",
])
def test_numbers_are_never_changed(text):
    kept, why = quotable(text)
    assert why == "" and kept == text


@pytest.mark.parametrize("text, expected", [
    ("We lowered the threshold,11 the rate fell to 4.5 percent.", "We lowered the threshold, the rate fell to 4.5 percent."),
    ("(2) Before using the tool, participants read the 12 pages of guidance.", "Before using the tool, participants read the 12 pages of guidance."),
])
def test_list_labels_and_inline_footnote_markers_are_taken_off(text, expected):
    assert quotable(text) == (expected, "")


@pytest.mark.parametrize("text, reason", [
    ("4.1. what feels overwhelmed while using a default PDF reader.", "section number"),
    ("3 Method We propose a reader that guides attention to the key sentences.", "section number"),
    ("And ability to identify relevant information? • in comparison with a standard reader", "bullet"),
    ("• The reader highlights the sentences that answer the question.", "bullet"),
    ("RQ1: How does providing reading guidance (i.e., highlights) change reading time?", "question"),
    ("(c) Attention weights of the second layer over the input tokens.", "panel label"),
    ("disheartened that they can't get more out of the papers they read.", "fragment"),
    ("In addition, we evaluate two of our provided baselines on the", "fragment"),
])
def test_what_is_not_a_complete_prose_sentence_is_rejected_with_its_reason(text, reason):
    assert quotable(text) == ("", reason)


def test_a_heading_is_never_run_into_the_first_sentence():
    chunk = "4.1 Participants\n\nWe recruited 12 graduate students. Each read two papers."
    assert node_sentences(chunk) == ["4.1 Participants", "We recruited 12 graduate students.", "Each read two papers."]


@pytest.mark.parametrize("path", ALL_PDFS, ids=lambda p: p.stem)
def test_every_number_of_every_statement_of_the_shared_pdfs_is_in_its_evidence(parsed_pdf, path):  # noqa: F811
    """Property over the whole shared corpus: a statement's numbers occur in its block, as written."""
    doc = parsed_pdf(path)
    checked = 0
    for block in doc.blocks:
        written = set(NUMBER.findall(block.text))  # whole numbers: "84." from "84.2" is no match
        for sentence in node_sentences(block.text):
            statement, _ = quotable(sentence)
            for number in NUMBER.findall(statement):
                assert number in written, (number, statement)
                checked += 1
    assert checked > 0


def test_an_evidence_window_ends_at_a_sentence_end_never_inside_a_word():
    from builders.chains.windows import evidence_window
    text = "The model has 7.5 billion parameters. One prominent feature is its context length of 128K tokens."
    assert evidence_window(text, 60) == "The model has 7.5 billion parameters."
    assert evidence_window("word " * 30, 42).endswith("word")
    assert evidence_window(text, 500) == text


def test_a_panel_label_after_a_sentence_starts_a_piece_that_is_no_statement():
    caption = "Any staining above the background is considered positive. (c) Illustrates Ki67 negative nuclei."
    pieces = node_sentences(caption)
    assert pieces == ["Any staining above the background is considered positive.", "(c) Illustrates Ki67 negative nuclei."]
    assert quotable(pieces[1], prose=False) == ("", "panel label")


def test_a_banner_in_capitals_is_no_statement():
    text = "INTERNATIONAL TECHNICAL SUPPORT ORGANIZATION BUILDING TECHNICAL INFORMATION BASED ON PRACTICAL EXPERIENCE."
    assert quotable(text, prose=False) == ("", "all capitals")
    assert quotable("The FAA and NASA tested the AOA sensor of the MCAS in 2019.")[1] == ""
