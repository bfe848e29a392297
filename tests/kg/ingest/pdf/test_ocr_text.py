"""Printed lines read from pictures by OCR (kg/ingest/pdf/ocr_text.py): lines, splits and word spaces."""

from __future__ import annotations

import json

import numpy as np

from kg.ingest.pdf.ocr_text import _ink_spaces, _segments, respell_labels


def test_ocr_lines_get_back_their_spaces_and_a_value_glued_to_the_next_label_is_split():
    def glyphs(x0, widths, gaps, height=20):
        out, x = [], x0
        for w, g in zip(widths, gaps):
            x += g
            out.append([[x, 0], [x + w, 0], [x + w, height], [x, height]])
            x += w
        return out

    title = "ClinicalInquiry"  # a 5-point gap at the case change: a dropped space
    assert _segments(title, glyphs(0, [8] * 15, [0] * 8 + [5] + [0] * 6))[0][0] == "Clinical Inquiry"
    assert _segments("HealthBench", glyphs(0, [8] * 11, [0] * 11))[0][0] == "HealthBench"  # one name, no gap
    glued = "39.6medgemma"  # a value, a word's space, and the next panel's label
    pieces = _segments(glued, glyphs(0, [8] * 12, [0] * 4 + [10] + [0] * 7))
    assert [p[0] for p in pieces] == ["39.6", "medgemma"] and pieces[1][1] > pieces[0][3]


def test_a_space_the_engine_boxed_is_a_word_break_and_splits_a_value_from_the_next_label():
    """RapidOCR boxes spaces too ("39.6 medgemma" came back with a box per character, the space's
    included): the line must still split, and keep its printed spaces."""
    def boxes(n, width=8, height=20):
        return [[[k * width, 0], [(k + 1) * width, 0], [(k + 1) * width, height], [k * width, height]] for k in range(n)]

    assert [p[0] for p in _segments("39.6 medgemma", boxes(13))] == ["39.6", "medgemma"]
    assert _segments("Lab Test Score", boxes(14))[0][0] == "Lab Test Score"
    assert _segments("Lab Test Score", boxes(5)) == []  # boxes that match no reading: the line as given


def test_a_blank_gap_the_picture_shows_between_letters_is_a_word_space_but_not_inside_a_number():
    """GPT-5.2's "% incorrect claims" came back as "incorrectclaims", its glyph boxes touching: the
    pixels show the space (0.2 of the line's height and more), a letter's side bearing does not, and
    the wide gaps around a decimal point ("91.9%") are no spaces."""
    pixels = np.full((20, 200, 3), 255, dtype=np.uint8)

    def ink(x0, x1):
        pixels[4:16, x0:x1] = 0

    # "ab cd": glyphs 8 px wide, 1 px apart, and a 6 px space (0.3 of the 20 px line) before "c"
    spans = [(10, 18), (19, 27), (33, 41), (42, 50)]
    for x0, x1 in spans:
        ink(x0, x1)
    boxes = [[[x0, 0], [x1, 0], [x1, 20], [x0, 20]] for x0, x1 in spans]
    assert _ink_spaces(pixels, list("abcd"), boxes) == {2}
    assert _ink_spaces(pixels, list("91.9"), boxes) == set()  # digits and a point: no word space
    assert _segments("abcd", boxes, {2})[0][0] == "ab cd"


def test_a_space_the_ocr_dropped_after_capitals_comes_back_as_the_documents_text_prints_it():
    """Seed1.5-Thinking's Figure 1, set in a serif with narrow word spaces: the OCR read "GPQADiamond" and
    "OpenAIo3-mini-high". The text prints "GPQA diamond" and "OpenAI" and "o3-mini-high" but never the
    glued forms, so the spaces go back; the figure's own letters (its capital D) stay."""
    from kg.models import ImageRef

    figure = ImageRef("i1", "/tmp/none.png", 1, [0, 0, 100, 100], label="Figure 1",
                      bar_values=json.dumps([["OpenAIo3-mini-high", "GPQADiamond", "79.7", "%"],
                                             ["HealthBench", "SWE-bench", "49.3", "%"]]),
                      visible_lines=json.dumps([["GPQADiamond", 1, 2, 3, 4], ["HealthBench", 5, 6, 7, 8]]))
    text = ["We compare with OpenAI models: o3-mini-high scores 79.7 on GPQA diamond.",
            "Health scores are on a bench of our own."]  # "Health" and "bench", never "HealthBench"
    respell_labels([figure], text)
    assert json.loads(figure.bar_values)[0][:2] == ["OpenAI o3-mini-high", "GPQA Diamond"]
    assert json.loads(figure.bar_values)[1][0] == "HealthBench"  # a lower-to-upper join was the OCR's call
    assert figure.visible_text.splitlines() == ["GPQA Diamond", "HealthBench"]


def test_a_box_skewed_a_few_pixels_is_a_level_line_and_a_rotated_one_is_not():
    from kg.ingest.pdf.ocr_text import _upright

    assert _upright([[319, 59], [377, 56], [378, 77], [320, 80]])  # GPT-5.2's "gpt-5.2": 3 px over 58
    assert not _upright([[0, 60], [40, 20], [52, 32], [12, 72]])  # a label at 45 degrees


def test_a_names_case_comes_from_the_text_only_for_words_with_a_capital_inside():
    from kg.models import ImageRef

    figure = ImageRef("i1", "/tmp/none.png", 1, [0, 0, 100, 100], label="Figure 1",
                      table_cells=json.dumps([["Charxiv Reasoning", "Others", "81.4%"]]),
                      visible_lines=json.dumps([["Charxiv Reasoning", 1, 2, 3, 4], ["Others", 5, 6, 7, 8]]))
    respell_labels([figure], ["CharXiv Reasoning tests charts; others test text."])
    assert json.loads(figure.table_cells)[0][:2] == ["CharXiv Reasoning", "Others"]


def test_a_name_whose_letters_lower_to_another_length_is_left_as_read():
    from kg.models import ImageRef

    figure = ImageRef("i1", "/tmp/none.png", 1, [0, 0, 100, 100], label="Figure 1",
                      bar_values=json.dumps([["İzmirLimanı", "G", "1.0", ""]]), visible_lines=json.dumps([]))
    respell_labels([figure], ["İzmir Limanı is a port."])  # no crash
    assert json.loads(figure.bar_values)[0][0] in ("İzmirLimanı", "İzmir Limanı")


def test_a_glyph_the_ocr_confuses_is_spelled_as_the_text_prints_the_word():
    """GPT-5.2's chart titles came back "OpenAl PRs" and "CVEBench blind Oday"."""
    from kg.models import ImageRef

    figure = ImageRef("i1", "/tmp/none.png", 1, [0, 0, 100, 100], label="Figure 1",
                      bar_values=json.dumps([["gpt-5", "OpenAl PRs", "45%", ""], ["gpt-5", "CVEBench blind Oday", "43%", ""]]),
                      visible_lines=json.dumps([]))
    respell_labels([figure], ["OpenAI PRs test code changes; CVEBench finds 0day flaws."])
    assert [row[1] for row in json.loads(figure.bar_values)] == ["OpenAI PRs", "CVEBench blind 0day"]


def test_a_picture_tried_by_several_readers_is_read_by_the_engine_once(monkeypatch):
    """A captioned picture may be tried as a chart, a table and a pie: the seconds of OCR are paid once."""
    from kg.ingest.pdf import ocr_text

    calls = []

    def engine(bgr, return_word_box=True):
        calls.append(bgr.shape)
        return [([[0, 0], [60, 0], [60, 12], [0, 12]], "Code: 11.0%", 0.99)], 0.1

    monkeypatch.setattr(ocr_text, "_ocr_engine", lambda: engine)
    monkeypatch.setattr(ocr_text, "_READ_CACHE", {})
    picture = np.full((40, 80, 3), 255, dtype=np.uint8)
    first = ocr_text.ocr_lines(picture)
    assert ocr_text.ocr_lines(picture.copy(), clean_ground=True) == first == [("Code: 11.0%", 0.0, 0.0, 60.0, 12.0)]
    assert len(calls) == 1
    other = picture.copy()
    other[10:20, 10:20] = 0
    ocr_text.ocr_lines(other)
    assert len(calls) == 2
