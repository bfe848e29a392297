"""A PDF's title is what a reader calls it: never a margin stamp, link or series label."""

from __future__ import annotations

import pymupdf
import pytest

from kg.ingest import read_document
from kg.ingest.pdf.title import is_stamp, meaningful_metadata_title

BODY = ("The dominant sequence transduction models are based on complex recurrent networks. "
        "We propose a new simple network architecture based solely on attention mechanisms. ") * 3


def _pdf(path, title: str, stamp: str, rotate: int, metadata_title: str = "") -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    if rotate:
        page.insert_text((30, 560), stamp, fontsize=20, rotate=rotate)  # up the left margin
    else:
        page.insert_text((40, 760), stamp, fontsize=40)  # a cover's large series label
    page.insert_text((120, 110), title, fontsize=17)
    page.insert_textbox(pymupdf.Rect(72, 160, 540, 500), BODY, fontsize=10)
    doc.set_metadata({"title": metadata_title})
    doc.save(path)


@pytest.mark.parametrize("title, stamp, rotate", [
    ("Attention Is All You Need", "arXiv:1706.03762v5 [cs.CL] 6 Dec 2017", 90),
    ("Row and Column Access Control", "ibm.com/redbooks Redpaper", 0),
    ("Update to GPT-5 System Card: GPT-5.2", "ibm.com/redbooks Redpaper", 0),  # model names carry versions
])
def test_the_title_is_the_heading_not_the_larger_stamp(tmp_path, title, stamp, rotate):
    path = tmp_path / "paper.pdf"
    _pdf(path, title, stamp, rotate)
    doc = read_document(path, tmp_path / "assets")
    assert (doc.title, doc.title_source) == (title, "heading")


def test_a_file_name_in_the_metadata_is_no_title(tmp_path):
    path = tmp_path / "slides.pdf"
    _pdf(path, "Quarterly Results Overview", "arXiv:2004.04906v3 [cs.CL] 30 Sep 2020", 90, "odf_presentation.odp")
    doc = read_document(path, tmp_path / "assets")
    assert (doc.title, doc.title_source) == ("Quarterly Results Overview", "heading")
    assert meaningful_metadata_title("10811.exe") == ""
    # An energy supplier's tariff PDF (camelot's good_energy.pdf) carries the spreadsheet it was
    # printed from: a file name with spaces is no title either.
    assert meaningful_metadata_title("DOM Pricing Model SVT Opt 1.1 5% increase 2%_Elec_7%Gas - approved.xlsm") == ""
    assert meaningful_metadata_title("Qwen2 Technical Report") == "Qwen2 Technical Report"
    # IBM's z/OS education decks all carry PowerPoint's default (q59, q60: every question named its
    # source "PowerPoint Presentation", and the writer took the domain from nothing).
    for default in ("PowerPoint Presentation", "Microsoft PowerPoint - IEA 3.1 BCP.pptx", "PowerPoint"):
        assert meaningful_metadata_title(default) == "", default
    assert meaningful_metadata_title("PowerPoint Presentation Skills for Engineers") != ""


@pytest.mark.parametrize("text", [
    "arXiv:2407.10671v4 [cs.CL] 10 Sep 2024", "ibm.com/redbooks", "Redpaper", "Red paper",
    "https://doi.org/10.3390/curroncol30030241", "Source: https://www.industrydocuments.ucsf.edu/docs/x",
    "Journal of Machine Learning Research", "Proceedings of the 17th Conference", "Vol. 85",
])
def test_stamps_links_and_series_labels(text):
    assert is_stamp(text)


@pytest.mark.parametrize("text", ["Qwen2 Technical Report", "Attention Is All You Need",
                                  "Dense Passage Retrieval for Open-Domain Question Answering"])
def test_titles_are_not_stamps(text):
    assert not is_stamp(text)


def test_a_volume_in_the_metadata_is_no_title(tmp_path):
    """ACL Anthology PDFs carry their proceedings volume as the metadata title: every paper of the
    volume would be "Proceedings of the 45th Annual Meeting ..." and a question would name that."""
    path = tmp_path / "paper.pdf"
    volume = "Proceedings of the 45th Annual Meeting of the Association of Computational Linguistics"
    _pdf(path, "Sparse Information Extraction", "Pages 696-703, Prague, June 2007", 90, volume)
    doc = read_document(path, tmp_path / "assets")
    assert doc.title == "Sparse Information Extraction"
    assert meaningful_metadata_title(volume) == ""


def test_a_field_name_left_in_the_metadata_is_no_title():
    """q38: IBM's WLM velocity-goals paper carries "$FINAL" as its metadata title; the model read it as
    a source name ("the $FINAL z/OS WLM reports")."""
    from kg.ingest.pdf.title import meaningful_metadata_title

    for placeholder in ("$FINAL", "{TITLE}", "[Title]", "#DRAFT"):
        assert meaningful_metadata_title(placeholder) == "", placeholder
    assert meaningful_metadata_title("MVS WLM Velocity Goals") == "MVS WLM Velocity Goals"


def test_a_line_mostly_of_numbers_is_no_title():
    from kg.ingest.pdf.title import _digit_words

    assert _digit_words("2.5 kilograms CO2e/boe 1st woman ~70%") > 0.3  # figures of a cover
    assert _digit_words("Update to GPT-5 System Card: GPT-5.2") == 0.0
