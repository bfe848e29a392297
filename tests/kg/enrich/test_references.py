"""Reference resolution: synthetic chunks for the grammar, real PDFs for the wiring."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg.ingest import read_document
from kg.enrich.chunking import chunk_document
from kg.enrich.references import caption_label, caption_links, find_mentions, resolve_references
from kg.models import Chunk, ImageRef

CORPUS = Path(__file__).resolve().parents[4] / "shared" / "corpus"
NIST = CORPUS / "pdf" / "report_nist_sp800-223_hpc_security.pdf"
FAA = CORPUS / "pdf" / "manual_faa_amt_handbook_sample.pdf"


def _chunk(cid: str, text: str, kind: str = "text", section: str = "", label: str = "", page: int = 1) -> Chunk:
    return Chunk(id=cid, doc_id="d", index=0, text=text, kind=kind, section=section, label=label,
                 page_start=page, page_end=page)


def test_caption_label_grammar():
    assert caption_label("Figure 3: Results") == "Figure 3"
    assert caption_label("Fig. 3. Results") == "Figure 3"
    assert caption_label("FIGURE 7-26. Nuts") == "Figure 7-26"
    assert caption_label("Table 2 Scores per model") == "Table 2"
    assert caption_label("Figure 4b: Detail") == "Figure 4"
    assert caption_label("Table 3 for more provenance statistics.") == ""
    assert caption_label("Fig. 1. Architecture ........................ 5") == ""
    assert caption_label("As Figure 3 shows") == ""


def test_find_mentions_variants():
    text = "See Figure 3, Fig. 4b and Figs. 5 and 6; Table 2; Section 4.1; Eq. (7); Figures 8-10."
    assert find_mentions(text) == [
        "Figure 3", "Figure 4", "Figure 5", "Figure 6", "Figure 8-10",
        "Table 2", "Section 4.1", "Eq. 7",
    ]
    assert find_mentions("Figures 2\u20134 compare runs") == ["Figure 2", "Figure 3", "Figure 4"]
    assert find_mentions("under 44 U.S.C. \u00a7 3551") == []


def test_resolve_against_images_tables_sections_equations():
    images = [ImageRef(id="img3", path="a.png", page=2, label="Figure 3", caption="Figure 3: Plot.")]
    chunks = [
        _chunk("c1", "As Figure 3 and Table 2 show, see Section 4.1 and Eq. (1). Figure 9 is gone."),
        _chunk("cap3", "Figure 3: Plot.", kind="caption", label="Figure 3", page=2),
        _chunk("t2", "Table 2: Scores.\n\n| a | b |\n|---|---|\n| x | 0.81 |", kind="table", label="Table 2"),
        _chunk("s41", "4.1 Setup\n\nWe train.", section="4.1"),
        _chunk("s41b", "More setup.", section="4.1"),
        _chunk("eq", "The loss is L = a + b (1)\nwhere a is ...", section="4.1"),
        _chunk("self", "Section 4.1 describes this very setup.", section="4.1"),
        _chunk("cap5", "Figure 5: Only a caption, see Table 2.", kind="caption", label="Figure 5"),
        _chunk("c2", "Figure 5 has no extracted image."),
    ]
    resolved, unresolved = resolve_references(chunks, images)
    got = {(r["source"], r["label"], r["target"], r["target_kind"]) for r in resolved}
    assert got == {
        ("c1", "Figure 3", "img3", "image"),
        ("c1", "Table 2", "t2", "chunk"),
        ("c1", "Section 4.1", "s41", "chunk"),
        ("c1", "Eq. 1", "eq", "chunk"),
        ("self", "Section 4.1", "s41", "chunk"),
        ("cap5", "Table 2", "t2", "chunk"),
        ("c2", "Figure 5", "cap5", "chunk"),  # no image: the caption chunk stands in
    }
    assert unresolved == [{"source": "c1", "label": "Figure 9", "reason": "no caption with this label"}]
    # Captions and tables do not reference themselves through their own label.
    assert not any(r["source"] == r["target"] for r in resolved)
    assert not any(r["source"] in ("cap3", "t2") for r in resolved)


def test_section_reference_never_targets_itself():
    chunks = [_chunk("only", "Section 2 explains it.", section="2")]
    resolved, unresolved = resolve_references(chunks, [])
    assert resolved == [] and unresolved == [{"source": "only", "label": "Section 2", "reason": "no section with this number"}]


def test_caption_links_by_text_then_label():
    images = [
        ImageRef(id="a", path="a.png", page=8, label="Figure 4", caption="Figure 4. Cont."),
        ImageRef(id="b", path="b.png", page=9, label="Figure 4", caption="Figure 4. (a) Positive nuclei."),
        ImageRef(id="c", path="c.png", page=3, label="Figure 1"),
        ImageRef(id="d", path="d.png", page=3),
    ]
    chunks = [
        _chunk("k9", "Figure 4. (a) Positive nuclei.", kind="caption", label="Figure 4", page=9),
        _chunk("k8", "Figure 4. Cont.", kind="caption", label="Figure 4", page=8),
        _chunk("k1", "Figure 1: Overview.", kind="caption", label="Figure 1", page=3),
        _chunk("txt", "Figure 1 shows it.", page=3),
    ]
    assert caption_links(chunks, images) == [("a", "k8"), ("b", "k9"), ("c", "k1")]


@pytest.fixture(scope="module")
def assets(tmp_path_factory):
    return tmp_path_factory.mktemp("assets")


def _real(path: Path, assets: Path):
    if not path.exists():
        pytest.skip(f"corpus file missing: {path}")
    doc = read_document(path, assets)
    return doc, chunk_document(doc, doc.sha256[:16], method="fixed", size=300, overlap=50)


def test_nist_figure_mentions_resolve_to_image(assets):
    doc, chunks = _real(NIST, assets)
    [figure] = doc.images
    resolved, _ = resolve_references(chunks, doc.images)
    to_figure = [r for r in resolved if r["target"] == figure.id]
    assert to_figure and all(r["label"] == "Figure 1" and r["target_kind"] == "image" for r in to_figure)
    sources = {c.id: c for c in chunks}
    assert any(sources[r["source"]].kind == "text" and "Fig. 1" in sources[r["source"]].text for r in to_figure)
    assert caption_links(chunks, doc.images) == [
        (figure.id, next(c.id for c in chunks if c.kind == "caption" and c.label == "Figure 1"))
    ]
    # Section mentions in the report resolve to numbered sections.
    assert any(r["label"].startswith("Section") for r in resolved)


def test_faa_text_mentions_resolve_and_captions_link(assets):
    doc, chunks = _real(FAA, assets)
    resolved, unresolved = resolve_references(chunks, doc.images)
    by_label = {img.label: img.id for img in doc.images}
    assert {(r["label"], r["target"]) for r in resolved} == {
        ("Figure 7-26", by_label["Figure 7-26"]),
        ("Figure 7-27", by_label["Figure 7-27"]),
    }
    assert unresolved == []
    links = dict(caption_links(chunks, doc.images))
    captions = {c.id: c.label for c in chunks if c.kind == "caption"}
    assert {img: captions[chunk] for img, chunk in links.items()} == {v: k for k, v in by_label.items()}


def test_tab_abbreviation_captions_and_mentions_resolve():
    from kg.enrich.references import caption_label
    assert caption_label("Tab. 2: Results on the test set") == "Table 2"
    chunks = [
        Chunk(id="t", doc_id="d", index=0, text="Tab. 2: Results\n\n| a | b |\n|---|---|\n| x | 1 |", kind="table",
              page_start=5, page_end=5, section="", label="Table 2"),
        Chunk(id="p", doc_id="d", index=1, text="As Tab. 2 shows on the next page, x is 1.", kind="text",
              page_start=4, page_end=4, section=""),
    ]
    resolved, unresolved = resolve_references(chunks, [])
    assert [(r["source"], r["target"]) for r in resolved] == [("p", "t")] and unresolved == []


def test_unresolved_mentions_are_counted_by_reason():
    from kg.enrich.references import unresolved_reasons
    rows = [{"label": "Figure 9", "reason": "no caption with this label"},
            {"label": "Figure 8", "reason": "no caption with this label"},
            {"label": "Section 2", "reason": "no section with this number"}]
    assert unresolved_reasons(rows) == {"no caption with this label": 2, "no section with this number": 1}
