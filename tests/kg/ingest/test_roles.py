"""Section roles: which blocks are body (chain evidence) and which are front matter, contents,
references, acknowledgements, appendix or boilerplate."""

from __future__ import annotations

import pytest

from kg.ingest.roles import PROSE_CHARS, assign_roles, heading_role, is_boilerplate, is_dot_leader
from kg.models import Block

PROSE = "The river delta grew by four kilometres over the decade, as sediment from the upper basin " * 4


def h(text: str, level: int = 1, page: int = 1, section: str = "") -> Block:
    return Block(text=text, kind="heading", heading_level=level, page=page, section=section)


def t(text: str, page: int = 1) -> Block:
    return Block(text=text, kind="text", page=page)


def roles(blocks: list[Block], front_matter: bool = False) -> list[str]:
    assign_roles(blocks, front_matter=front_matter)
    return [b.role for b in blocks]


@pytest.mark.parametrize("text, role", [
    ("References", "references"), ("7. References", "references"), ("Section 3 Bibliography", "references"),
    ("VI. Works Cited:", "references"), ("Acknowledgments", "acknowledgements"), ("Funding", "acknowledgements"),
    ("Table of Contents", "contents"), ("List of Figures", "contents"), ("Appendix B: Proofs", "appendix"),
    ("Supplementary Materials", "appendix"), ("Copyright Notice", "boilerplate"), ("B Abbreviations", "boilerplate"),
    ("Methods", ""), ("3 Results and References to Prior Work", ""), ("Index of refraction", ""),
])
def test_heading_roles(text, role):
    assert heading_role(text) == role


def test_a_paper_from_title_block_to_appendix():
    blocks = [t("A Study of Rivers"), t("J. Smith, University of Water"), t("© 2024 The Authors. All rights reserved."),
              h("Abstract"), t(PROSE), h("1 Introduction", section="1"), t(PROSE),
              h("Acknowledgements"), t("We thank the river people."),
              h("5 Discussion", section="5"), t(PROSE),
              h("References"), t("[1] Smith J (2020) Rivers."),
              h("A Extra tables"), t("More numbers."), h("Notes", level=1), t("Still the appendix.")]
    assert roles(blocks, front_matter=True) == [
        "front_matter", "front_matter", "boilerplate", "body", "body", "body", "body",
        "acknowledgements", "acknowledgements", "body", "body",
        "references", "references", "appendix", "appendix", "appendix", "appendix"]


def test_without_front_matter_a_document_starts_with_its_content():
    blocks = [t("A Study of Rivers"), h("Introduction"), t(PROSE)]
    assert roles(blocks) == ["body", "body", "body"]


def test_without_an_opening_heading_the_first_prose_paragraph_ends_the_front_matter():
    assert len(PROSE) >= PROSE_CHARS
    blocks = [t("Annual Report 2023"), t("Prepared by the Water Board"), t(PROSE), t("A short body line.")]
    assert roles(blocks, front_matter=True) == ["front_matter", "front_matter", "body", "body"]


def test_a_paragraph_set_a_line_a_block_ends_the_front_matter_but_a_title_blocks_lines_do_not():
    """J&J's Q2 2023 release sets its opening paragraph one line a block; none is PROSE_CHARS long, so its
    first three pages (the results tables among them) had been front matter. Lines of names and
    affiliations, however many, hold no sentence ending."""
    title = [t("Quarterly Results of the Water Board"), *(t(f"Jane Smith{k}, Department of Rivers, University of "
                                                              f"Water, Delta City, Country {k}") for k in range(6))]
    lines = [t("Delta City (July 20, 2023) - The Water Board today announced results for the second quarter"),
             t("of 2023. Our robust performance in the quarter is a testament to the work of the river"),
             t("crews around the delta, who kept every sluice open through the spring floods and the dry"),
             t("summer months alike, said the chairman of the board in a statement.")]
    assigned = roles([*title, *lines, t("Results table line")], front_matter=True)
    assert assigned == ["front_matter"] * len(title) + ["body"] * (len(lines) + 1)
    assert sum(len(b.text) for b in title) >= PROSE_CHARS  # long enough; no sentence in it


def test_front_matter_ends_after_three_pages_whatever_they_hold():
    blocks = [t("Cover", page=1), t("Notices", page=2), t("Foreword line", page=3), t("Short text", page=4)]
    assert roles(blocks, front_matter=True) == ["front_matter", "front_matter", "front_matter", "body"]


def test_a_contents_list_ends_where_prose_starts():
    blocks = [h("Contents"), t("1 Introduction 3"), t("2 Methods"), t("Chapter one starts here. It is prose.")]
    assert roles(blocks) == ["contents", "contents", "contents", "body"]


def test_a_subheading_stays_inside_its_role_and_a_sibling_heading_leaves_it():
    blocks = [h("References", level=2), h("Primary sources", level=3), t("[1] A."), h("Next part", level=2),
              t("Body again.")]
    assert roles(blocks) == ["references", "references", "references", "body", "body"]


def test_a_role_a_reader_set_is_kept():
    preset = t("Overview ........ 4")
    preset.role = "contents"
    blocks = [h("Introduction"), preset, t("Plain text.")]
    assert roles(blocks) == ["body", "contents", "body"]


def test_boilerplate_is_short_and_a_long_paragraph_about_licences_is_body():
    assert is_boilerplate("This work is licensed under a Creative Commons Attribution 4.0 License.")
    assert not is_boilerplate("This work is licensed under a Creative Commons Attribution 4.0 License. " + PROSE * 2)
    blocks = [h("Data"), t("Copyright 2021 Water Board"), t(PROSE)]
    assert roles(blocks) == ["body", "boilerplate", "body"]


@pytest.mark.parametrize("line, leader", [
    ("2.1 Scope ........ 4", True), ("Overview . . . . . . 12", True), ("Results....iv", True),
    ("He paused... and left.", False), ("The end. ...", False),
])
def test_dot_leaders(line, leader):
    assert is_dot_leader(line) is leader


def test_no_blocks_is_no_error():
    assign_roles([], front_matter=True)


def test_a_trademark_notice_is_boilerplate_however_long_its_list():
    """q40: two lines of an IBM paper's trademark notice were bridged through "United States"."""
    notice = ("Intel, Intel logo, Intel Inside, Celeron, Intel Xeon, Itanium, and Pentium are trademarks or registered "
              "trademarks of Intel Corporation or its subsidiaries in the United States and other countries.\n\n"
              "Java and all Java-based trademarks and logos are trademarks or registered trademarks of Oracle and/or "
              "its affiliates.\n\nLinux is a registered trademark of Linus Torvalds in the United States, other "
              "countries, or both.\n\nMicrosoft, Windows, Windows NT, and the Windows logo are trademarks of Microsoft "
              "Corporation in the United States, other countries, or both.\n\nOpenStack is a trademark of OpenStack "
              "LLC. The OpenStack trademark policy is available on the OpenStack website.\n\nUNIX is a registered "
              "trademark of The Open Group in the United States and other countries.")
    assert len(notice) > 600 and is_boilerplate(notice)
    law = ("A court weighs whether the mark is a trademark of the plaintiff before it turns to confusion. The "
           "likelihood of confusion is judged on eight factors, among them the strength of the mark, the "
           "proximity of the goods and the similarity of the marks. Evidence of actual confusion is not required.")
    assert not is_boilerplate(law)
