"""Pass 1 of the PDF reader on one page: lines without footnote markers, captions as blocks of their own,
hyphenation undone, images and drawings collected."""

from __future__ import annotations

import pymupdf

from kg.ingest.pdf import parse_pages
from pdf_maker import save


def raised(page: pymupdf.Page, y: float, before: str, mark: str, after: str = "") -> None:
    """`before`, then `mark` set small and raised (a footnote marker or an exponent), then `after`."""
    page.insert_text((72, y), before, fontsize=10)
    x = 72 + pymupdf.get_text_length(before, fontsize=10)
    page.insert_text((x, y - 4), mark, fontsize=6)
    if after:
        page.insert_text((x + pymupdf.get_text_length(mark, fontsize=6), y), after, fontsize=10)


def page_of(tmp_path, draw) -> object:
    doc = pymupdf.open()
    draw(doc.new_page())
    [page] = parse_pages(save(doc, tmp_path / "p.pdf"), [0])
    return page


def test_footnote_markers_go_and_exponents_stay(tmp_path):
    def draw(page):
        raised(page, 100, "Rivers carry sediment", "1", " to the sea.")
        raised(page, 130, "The bay covers 18 km", "2")
        raised(page, 160, "Counts reached 10", "6", " per litre.")
        raised(page, 190, "See the survey,", "*", " as before.")

    texts = [b.text for b in page_of(tmp_path, draw).blocks]
    assert texts == ["Rivers carry sediment to the sea.", "The bay covers 18 km2", "Counts reached 106 per litre.",
                     "See the survey, as before."]


def test_captions_start_blocks_of_their_own_and_hyphenation_is_undone(tmp_path):
    def draw(page):
        page.insert_text((72, 100), "Figure 1: Left picture.", fontsize=9)
        page.insert_text((320, 100), "Figure 2: Right picture.", fontsize=9)
        page.insert_text((72, 150), "The seg-", fontsize=10)
        page.insert_text((72, 162), "mentation of the banks and the well-", fontsize=10)
        page.insert_text((72, 174), "Known channel of DeepSeek-", fontsize=10)
        page.insert_text((72, 186), "R1 and GPT-", fontsize=10)
        page.insert_text((72, 198), "4.", fontsize=10)

    blocks = page_of(tmp_path, draw).blocks
    assert [(b.kind, b.label) for b in blocks[:2]] == [("caption", "Figure 1"), ("caption", "Figure 2")]
    # before a capital or a digit the hyphen is the name's own: kept, and no space in the name
    assert blocks[2].text == "The segmentation of the banks and the well-Known channel of DeepSeek-R1 and GPT-4."


def test_images_keep_their_pixel_size_and_drawings_cluster_into_figures(tmp_path):
    def draw(page):
        pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 240, 160), False)
        pix.clear_with(70)
        page.insert_image(pymupdf.Rect(72, 72, 312, 232), pixmap=pix)
        for i in range(3):  # three touching boxes: one figure
            page.draw_rect(pymupdf.Rect(72 + 60 * i, 300, 134 + 60 * i, 360))
        page.draw_rect(pymupdf.Rect(400, 500, 403, 503))  # a speck
        page.insert_text((72, 400), "Text below the drawing.", fontsize=10)

    page = page_of(tmp_path, draw)
    [image] = page.images
    assert (image.width, image.height) == (240, 160) and round(image.bbox.x1) == 312
    [figure] = page.drawings
    assert (round(figure.bbox.x0), round(figure.bbox.x1)) == (72, 254)
    assert page.table_cue == ""  # boxes without rules of one width or number columns: no table detection


def test_ligatures_are_spelled_out_in_prose():
    """The bundled S2ORC paper prints "Artiﬁcial" and "uniﬁed" with the U+FB01 glyph: the text keeps the
    letters, so a quote, a keyword and a retriever's token are the word a reader types."""
    from pathlib import Path

    from kg.ingest.pdf.layout import collect_page

    pdf = Path(__file__).resolve().parents[4] / "examples" / "corpus" / "ai2_s2orc_acl2020.pdf"
    page = pymupdf.open(pdf)[0]
    assert "\ufb01" in page.get_text()  # the glyph is in the file
    text = " ".join(line.text for block in collect_page(page).blocks for line in block.lines)
    assert "\ufb01" not in text and "Artificial" in text and "unified" in text


def test_a_space_set_after_a_ligature_inside_a_word_is_no_word_break():
    """An FAA handbook chapter (q18) prints "Preﬂ ight" and "ﬁ rst" 135 times: the glyph says the word
    goes on. A space after a letter is still a word break. An IBM white paper's title read "z/OS
    R⃝Workload Manager"."""
    from kg.ingest.pdf.layout import _enclosed_marks, collect_page

    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_font(fontname="F0", fontbuffer=pymupdf.Font("cjk").buffer)  # a font with the glyphs
    page.insert_text((72, 100), "Pre\ufb02 ight checks come \ufb01 rst, then the speci\ufb01 c ones.",
                     fontname="F0", fontsize=11)
    page.insert_text((72, 130), "Check the fl aps.", fontname="F0", fontsize=11)
    text = [line.text for block in collect_page(page).blocks for line in block.lines]
    assert text == ["Preflight checks come first, then the specific ones.", "Check the fl aps."]
    # TeX's marks as pymupdf reads them: a letter and a combining circle (no test font has that glyph)
    assert _enclosed_marks("z/OS R\u20ddWorkload Manager, C\u20dd 2008 IBM") == "z/OS\u00ae Workload Manager, \u00a9 2008 IBM"


def test_a_word_broken_at_a_capital_is_mended_where_the_document_spells_it_whole():
    from kg.ingest.pdf.types import rejoin_broken_words

    texts = ["We fine-tune Sci-BERT on the task.", "SciBERT is a BERT model.", "SciBERT was trained on papers.",
             "DeepSeek-R1 and DeepSeek-R1 again.", "Self-BLEU measures diversity.", "Arena-Hard and ArenaHard."]
    broken = {"Sci-BERT": 1, "DeepSeek-R1": 1, "Arena-Hard": 0}  # the words formed at line ends
    assert rejoin_broken_words(texts, broken)[0] == "We fine-tune SciBERT on the task."
    # DeepSeek-R1 is written with its hyphen mid-line too; Arena-Hard only mid-line: both kept
    assert rejoin_broken_words(texts, broken)[3:] == texts[3:]
