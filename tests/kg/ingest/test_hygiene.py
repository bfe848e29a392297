"""Corpus hygiene on the shared PDFs: page furniture gone, body text kept,
section roles and titles right; and on markdown and text built in tmp_path."""

from __future__ import annotations

import re
from collections import Counter

import pytest

import kg.ingest.pdf.reader as pdf_reader
from kg.enrich.chunking import count_tokens
from kg.ingest import read_document
from kg.ingest.pdf.furniture import Furniture
from tests.kg.ingest.conftest import ALL_PDFS, CORPUS, FEDREG, LONGEVAL, NIST, S2ORC

FURNITURE_RE = re.compile(
    r"jbell on DSK|</GPH>|Federal Register / Vol\.|VerDate|Sfmt \d|\.{6,}|E:\\\\FR\\\\FM", re.I)


def _all_text(doc) -> str:
    return "\n".join(b.text for b in doc.blocks)


def test_federal_register_furniture_gone_and_title(parsed_pdf):
    doc = parsed_pdf(FEDREG)
    assert doc.furniture_removed > 100
    for block in doc.blocks:
        assert not FURNITURE_RE.search(block.text), block.text[:120]
        # page numbers ("47698") never stand alone
        assert not re.fullmatch(r"\d{5}", block.text.strip())
    assert doc.title == "Airworthiness Directives; The Boeing Company Airplanes"
    assert doc.title_source == "heading"
    roles = {b.role for b in doc.blocks}
    assert "boilerplate" in roles  # "BILLING CODE 4910-13-P", "[FR Doc. ...]"
    billing = next(b for b in doc.blocks if b.text.startswith("BILLING CODE"))
    assert billing.role == "boilerplate"
    summary = next(b for b in doc.blocks if b.text.startswith("SUMMARY: The FAA proposes"))
    assert summary.role == "body"


def test_nist_contents_references_appendix(parsed_pdf):
    doc = parsed_pdf(NIST)
    assert doc.title_source == "metadata" and doc.title.startswith("High-Performance Computing (HPC) Security")
    assert not any(re.search(r"\.{6,}", b.text) for b in doc.blocks)  # dot-leader TOC lines
    toc = next(b for b in doc.blocks if b.text == "Table of Contents")
    assert toc.role == "contents"
    assert {b.role for b in doc.blocks if b.page == toc.page} == {"contents"}
    references = [b for b in doc.blocks if b.role == "references"]
    assert len(references) >= 10 and all(b.page >= 28 for b in references)
    assert any("[18] SLURM" in b.text for b in references)
    appendix = next(b for b in doc.blocks if b.text.startswith("Appendix A."))
    assert appendix.role == "appendix"
    abstract = next(b for b in doc.blocks if b.text.startswith("Security is essential component"))
    assert abstract.role == "body"
    disclaimer = next(b for b in doc.blocks if b.text.startswith("Certain commercial entities"))
    assert disclaimer.role in ("boilerplate", "front_matter")
    # the running header "NIST SP 800-223 / ... / February 2024" and page numbers are gone
    # (the cover and title pages keep theirs: there it is content)
    later = [b.text.strip() for b in doc.blocks if b.page >= 3]
    assert not any(t.startswith(("NIST SP 800-223", "February 2024")) for t in later)
    assert not any(re.fullmatch(r"[ivx]+|\d{1,2}", t) for t in later)


@pytest.mark.parametrize("path", [S2ORC, LONGEVAL], ids=["s2orc", "longeval"])
def test_acl_papers_roles_and_title(parsed_pdf, path):
    doc = parsed_pdf(path)
    assert doc.title_source in ("metadata", "heading")
    assert doc.title.startswith(("S2ORC: The Semantic Scholar", "LONGEVAL: Guidelines for Human Evaluation of Faith"))
    heading = next(b for b in doc.blocks if b.kind == "heading" and b.text == "References")
    assert heading.role == "references"
    after = doc.blocks[doc.blocks.index(heading) + 1:]
    entries = [b for b in after if b.role == "references"]
    assert len(entries) >= 20
    # every reference entry is tagged, up to the appendix
    assert all(b.role in ("references", "appendix") for b in after)
    assert not any(b.role == "body" and re.search(r"\b(?:19|20)\d\d\. .*\bIn Proceedings of\b", b.text)
                   for b in doc.blocks)
    abstract = next(b for b in doc.blocks if b.kind == "heading" and b.text == "Abstract")
    assert abstract.role == "body"
    assert doc.blocks[0].role == "front_matter"
    body = sum(count_tokens(b.text) for b in doc.blocks if b.role == "body")
    assert body >= 0.5 * sum(count_tokens(b.text) for b in doc.blocks)


@pytest.mark.parametrize("path", ALL_PDFS, ids=lambda p: p.stem[:12])
def test_filtering_keeps_every_paragraph(parsed_pdf, path, tmp_path, monkeypatch):
    """Parse again without furniture removal: every paragraph there is still
    here (furniture lines are short; a lost paragraph means lost content)."""
    doc = parsed_pdf(path)
    monkeypatch.setattr(pdf_reader, "drop_furniture", lambda pages: Furniture())
    unfiltered = read_document(path, tmp_path)
    kept = re.sub(r"\s+", " ", _all_text(doc))
    paragraphs = [b.text for b in unfiltered.blocks if b.kind == "text" and len(b.text) >= 200
                  and not re.search(r"\.{6,}", b.text)]
    assert paragraphs
    # the middle of a paragraph: furniture merged into its block sits at an end
    middles = [re.sub(r"\s+", " ", p[len(p) // 2 - 40: len(p) // 2 + 40]) for p in paragraphs]
    missing = [m for m in middles if m not in kept]
    assert not missing
    # words, not punctuation: a dot-leader line is a hundred "." tokens
    before, after = (len(re.findall(r"\w+", _all_text(d))) for d in (unfiltered, doc))
    assert after >= 0.9 * before  # the Federal Register notice is the densest: 7% of its words are furniture


def test_markdown_roles(tmp_path):
    md = tmp_path / "paper.md"
    md.write_text(
        "# A study\n\n## Table of Contents\n\n- [Intro](#intro)\n- [Method](#method)\n\n"
        "## 1 Introduction\n\nWe study rivers and their long meandering courses over many years.\n\n"
        "## Acknowledgments\n\nWe thank the river people.\n\n"
        "## References\n\nSmith, J. 2020. Rivers. In Proceedings of Water.\n\n"
        "## Appendix A Extra data\n\nMore river numbers.\n\n### A.1 Details\n\nEven more.\n",
        encoding="utf-8")
    doc = read_document(md, tmp_path / "assets")
    role = {b.text: b.role for b in doc.blocks}
    assert role["A study"] == "body"  # markdown starts with its content
    assert role["Table of Contents"] == "contents"
    assert role["We study rivers and their long meandering courses over many years."] == "body"
    assert role["We thank the river people."] == "acknowledgements"
    assert role["Smith, J. 2020. Rivers. In Proceedings of Water."] == "references"
    assert role["More river numbers."] == "appendix" and role["Even more."] == "appendix"
    assert doc.title_source == "heading"


def test_docling_markdown_is_mostly_body(tmp_path):
    folder = CORPUS / "text" / "docling_docs"
    if not folder.is_dir():
        pytest.skip("docling docs missing")
    tokens: Counter[str] = Counter()
    for path in sorted(folder.glob("*.md")):
        doc = read_document(path, tmp_path)
        for block in doc.blocks:
            tokens[block.role] += count_tokens(block.text)
    assert tokens["body"] >= 0.95 * sum(tokens.values()), tokens


def test_text_roles_and_dot_leaders(tmp_path):
    path = tmp_path / "report.txt"
    path.write_text(
        "Annual report\n\nContents\n\n1 Overview ........ 2\n2 Results .......... 5\n\n"
        "The year went well for the river project and its many volunteers.\n\n"
        "References\n\n[1] Smith J (2020) Rivers. Water Press.\n", encoding="utf-8")
    doc = read_document(path, tmp_path / "assets")
    assert doc.furniture_removed == 2
    assert not any("....." in b.text for b in doc.blocks)
    role = {b.text: b.role for b in doc.blocks}
    assert role["Annual report"] == "body" and role["Contents"] == "contents"
    assert role["The year went well for the river project and its many volunteers."] == "body"
    assert role["References"] == "references"
    assert role["[1] Smith J (2020) Rivers. Water Press."] == "references"
    assert doc.title == "Annual report" and doc.title_source == "first_line"
