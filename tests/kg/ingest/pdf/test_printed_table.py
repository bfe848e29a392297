"""Table cells as printed (kg.ingest.pdf.printed_table): PDFs written here with pymupdf, read back
through the reader, and the grid rebuilt from a page's real words when detection packs printed rows
and columns into one cell box."""

from __future__ import annotations

import json

import pymupdf

from kg.ingest.pdf import read_pdf
from kg.ingest.pdf.printed_table import doubt, printed_grid, spell_ligatures
from pdf_maker import HEIGHT, LOREM, WIDTH, line, paragraph, save
from tests.kg.ingest.pdf_corpus import S2ORC, parsed_pdf  # noqa: F401 (fixture)

COLUMNS = [124, 260, 330, 400]
ROWS = [(["BM25"], "43.8", "59.1", "73.7"), (["Dense passage", "retriever"], "68.3", "78.4", "85.4"),
        (["BM25 + DPR"], "65.2", "76.6", "83.8")]


def booktabs(path) -> pymupdf.Document:
    """A paper's table: only horizontal rules, a header spanning the value columns, a label on two lines."""
    doc = pymupdf.open()
    page = doc.new_page(width=WIDTH, height=HEIGHT)
    paragraph(page, 72, LOREM * 2)
    line(page, 190, "Table 2: Retrieval accuracy on the test sets.")
    page.draw_line((120, 198), (470, 198), width=1)
    line(page, 212, "Top-k accuracy", x=320)
    page.draw_line((255, 216), (470, 216), width=0.5)
    for x, text in zip(COLUMNS, ["Retriever", "Top-5", "Top-20", "Top-100"]):
        line(page, 228, text, x=x)
    page.draw_line((120, 233), (470, 233), width=0.5)
    y = 247
    for label, *values in ROWS:
        for k, part in enumerate(label):
            line(page, y + 12 * k, part, x=COLUMNS[0])
        for x, value in zip(COLUMNS[1:], values):
            line(page, y, value, x=x)
        y += 12 * len(label) + 4
    page.draw_line((120, y - 6), (470, y - 6), width=1)
    paragraph(page, y + 20, "After the table. " + LOREM)
    return save(doc, path)


def test_a_booktabs_table_reads_as_printed_with_its_multi_line_label_in_one_cell(tmp_path):
    doc = read_pdf(booktabs(tmp_path / "b.pdf"), tmp_path / "assets", workers=1)
    [table] = [b for b in doc.blocks if b.kind == "table"]
    grid = json.loads(table.cells)
    assert table.label == "Table 2" and "kept_as_text" not in grid
    assert grid["rows"] == [["BM25", "43.8", "59.1", "73.7"], ["Dense passage retriever", "68.3", "78.4", "85.4"],
                            ["BM25 + DPR", "65.2", "76.6", "83.8"]]
    assert grid["header"][:2] == ["Retriever", "Top-5"] and grid["header"][3] == "Top-100"
    assert grid["header"][2].endswith("Top-20")  # the spanning "Top-k accuracy" sits over this column


def packed_page(tmp_path):
    """Two printed rows and a two-number column, as a results table prints them."""
    doc = pymupdf.open()
    page = doc.new_page(width=WIDTH, height=HEIGHT)
    line(page, 100, "Before Perturb", x=190)
    for x, text in ((190, "ALL"), (240, "SEQ"), (300, "V"), (330, "P")):
        line(page, 114, text, x=x)
    for y, label, values in ((130, "TAPAS inter", ("70.6", "43.9", "66.1", "10.8%")),
                             (144, "TABLEFORMER inter", ("72.4", "47.5", "72.3", "0.1%"))):
        line(page, y, label, x=72)
        for x, value in zip((190, 240, 300, 330), values):
            line(page, y, value, x=x)
    save(doc, tmp_path / "p.pdf")
    return pymupdf.open(tmp_path / "p.pdf")


def test_cell_boxes_holding_two_printed_rows_and_two_columns_are_split(tmp_path):
    with packed_page(tmp_path) as doc:
        words = doc[0].get_text("words")
    # what detection returns on such tables: a spanning header cell (its neighbour covered: None), one box
    # over both data rows, and the "V P" column pair in one box
    boxes = [[(70, 90, 180, 104), (185, 90, 295, 104), None, (295, 90, 360, 104)],
             [(70, 104, 180, 118), (185, 104, 235, 118), (235, 104, 295, 118), (295, 104, 360, 118)],
             [(70, 118, 180, 150), (185, 118, 235, 150), (235, 118, 295, 150), (295, 118, 360, 150)]]
    rows = printed_grid(boxes, words)
    assert rows[0] == ["", "Before Perturb ALL", "Before Perturb SEQ", "V", "P"]
    assert rows[1:] == [["TAPAS inter", "70.6", "43.9", "66.1", "10.8%"],
                        ["TABLEFORMER inter", "72.4", "47.5", "72.3", "0.1%"]]
    assert doubt(rows) == ""


def test_a_grid_with_two_numbers_in_a_cell_is_kept_as_text_with_the_reason():
    rows = [["Dataset", "Train"], ["NQ", "79,168 58,880"], ["SQuAD", "78,713"]]
    assert "two or more printed numbers" in doubt(rows)
    assert doubt([["Model", "dev"], ["Table 5: ALL questions", "x"], ["A", "1"]]).startswith("a caption")
    assert doubt([["Model", "Score"], ["A", "85.3 ± 0.2"], ["B", "1,200"]]) == ""


def test_ligatures_are_spelled_out_and_nothing_else_changes():
    assert spell_ligatures("ﬂow ﬁle oﬀ eﬃcient") == "flow file off efficient"
    assert spell_ligatures("x² −3 ½ Ⅳ ＡＢ") == "x² −3 ½ Ⅳ ＡＢ"  # NFKC would change these: they stay


def test_the_s2orc_paper_tables_read_as_printed(parsed_pdf):
    """A real paper (shared corpus): the ligature in a header is spelled out, a header broken at a
    hyphen ("S2ORC-" over "SCIBERT") is one header cell, and the results rows read as printed."""
    tables = [json.loads(b.cells) for b in parsed_pdf(S2ORC).blocks if b.kind == "table" and b.cells]
    headers = [t.get("header", []) for t in tables]
    assert ["Corpus", "Papers w/ body text", "Citation contexts", "References to tables / figures / equations",
            "Linked to graph", "Academic disciplines"] in headers
    [results] = [t for t in tables if t.get("header", [""])[0] == "Domain"]
    assert results["header"] == ["Domain", "Dataset", "Reference", "Task", "SCIBERT", "S2ORC-SCIBERT"]
    assert ["", "BC5CDR", "Li et al. (2016)", "NER", "90.01", "90.41 ± 0.06"] == results["rows"][0]
    assert not any("\ufb01" in c or "\ufb02" in c for t in tables for r in t.get("rows", []) for c in r)


def test_a_table_kept_as_text_shows_its_printed_lines_and_says_why_in_its_cells():
    from kg.ingest.pdf.order import to_block
    from kg.ingest.pdf.types import RawTable
    from kg.ingest.tables import table_cells
    markdown = "|Dataset|Train|\n|---|---|\n|NQ|79,168 58,880|\n|SQuAD|78,713 70,096|"
    reason = doubt([["Dataset", "Train"], ["NQ", "79,168 58,880"], ["SQuAD", "78,713 70,096"]])
    block = to_block(RawTable(pymupdf.Rect(0, 0, 100, 50), markdown, None, reason), 4, 10.0, {})
    assert block.kind == "table" and json.loads(block.cells) == {"kept_as_text": reason}
    assert block.text == "Dataset  Train\nNQ  79,168 58,880\nSQuAD  78,713 70,096"
    assert table_cells(block) == []  # no chain asks for one of its cells


GROUPS = (("Language-only Model", (("Qwen2.5", "72B-Inst."), ("LLaMA-3.1", "405B-Inst."), ("DeepSeek", "V3"))),
          ("Vision-Language Model", (("Qwen2-VL",), ("GPT-4o", "0513"), ("Kimi", "k1.5"))))
BENCHMARKS = (("MMLU (EM)", ("85.3", "88.6", "88.5", "-", "87.2", "87.4")),
              ("C-Eval (EM)", ("86.1", "61.5", "86.5", "-", "76.0", "88.3")),
              ("MATH-500 (EM)", ("80.0", "73.8", "90.2", "-", "74.6", "94.6")),
              ("MMMU-Val (Pass@1)", ("-", "-", "-", "64.5", "69.1", "68.0")))
CENTRES = (215, 270, 325, 390, 445, 500)  # each column's names and values are centred here


def centred(page: pymupdf.Page, y: float, text: str, centre: float, size: float = 9) -> None:
    line(page, y, text, size, x=centre - pymupdf.get_text_length(text, "helv", size) / 2)


def grouped_header_page(path):
    """A results table as LLM reports print it (booktabs rules): a spanning header over each group of
    columns, each column's own name on one or two lines under it, values centred under the names."""
    doc = pymupdf.open()
    page = doc.new_page(width=WIDTH, height=HEIGHT)
    paragraph(page, 72, LOREM * 2)
    line(page, 180, "Table 3: Performance of the models on text and vision benchmarks.")
    page.draw_line((80, 190), (530, 190), width=1)
    names = [column for _, columns in GROUPS for column in columns]
    for (group, _), first in zip(GROUPS, (0, 3)):  # centred over its columns' span, a rule under it
        left = CENTRES[first] - pymupdf.get_text_length(names[first][0], "helv", 9) / 2
        right = CENTRES[first + 2] + pymupdf.get_text_length(names[first + 2][0], "helv", 9) / 2
        centred(page, 202, group, (left + right) / 2)
        page.draw_line((left, 206), (right, 206), width=0.5)
    for centre, column in zip(CENTRES, names):
        for k, part in enumerate(column):
            centred(page, 216 + 10 * k, part, centre)
    line(page, 216, "Benchmark", 9, x=90)
    page.draw_line((80, 232), (530, 232), width=0.5)
    for r, (label, values) in enumerate(BENCHMARKS):
        line(page, 244 + 12 * r, label, 9, x=90)
        for centre, value in zip(CENTRES, values):
            centred(page, 244 + 12 * r, value, centre)
    page.draw_line((80, 286), (530, 286), width=1)
    paragraph(page, 300, "After the table. " + LOREM)
    return save(doc, path)


def test_columns_under_a_spanning_header_each_get_their_own_name(tmp_path):
    """Each column is named as printed over it, the spanning header kept as a prefix, not the whole
    header text repeated in every column of its group; the cells read as printed."""
    doc = read_pdf(grouped_header_page(tmp_path / "g.pdf"), tmp_path / "assets", workers=1)
    [table] = [b for b in doc.blocks if b.kind == "table"]
    grid = json.loads(table.cells)
    assert table.label == "Table 3" and "kept_as_text" not in grid
    # the group's words stop short of "Kimi k1.5"; the rule printed under the group reaches it
    assert grid["header"] == ["Benchmark", "Language-only Model Qwen2.5 72B-Inst.",
                              "Language-only Model LLaMA-3.1 405B-Inst.", "Language-only Model DeepSeek V3",
                              "Vision-Language Model Qwen2-VL", "Vision-Language Model GPT-4o 0513",
                              "Vision-Language Model Kimi k1.5"]
    assert grid["rows"] == [[label, *values] for label, values in BENCHMARKS]


def test_a_spanning_header_box_over_detected_columns_is_shared_out_by_position(tmp_path):
    """What detection returns on such a table: one header box over a group (its other columns None)
    holding the group's name and its columns' names, and a box holding two printed columns."""
    with pymupdf.open(grouped_header_page(tmp_path / "g.pdf")) as doc:
        words = doc[0].get_text("words")
    header = [(85, 192, 185, 230), (185, 192, 352, 230), None, None, (352, 192, 530, 230), None]
    edges = (85, 185, 242, 297, 352, 472, 530)  # the vision box holds Qwen2-VL and GPT-4o
    body = [[(a, y, b, y + 12) for a, b in zip(edges, edges[1:])] for y in (234, 246, 258, 270)]
    rows = printed_grid([header, *body], words)  # no rules given: the words alone say which columns
    assert rows[0] == ["Benchmark", "Language-only Model Qwen2.5 72B-Inst.", "Language-only Model LLaMA-3.1 405B-Inst.",
                       "Language-only Model DeepSeek V3", "Vision-Language Model Qwen2-VL",
                       "Vision-Language Model GPT-4o 0513", "Kimi k1.5"]  # the group's words stop short of Kimi
    assert rows[1:] == [[label, *values] for label, values in BENCHMARKS]
    # a vertical rule between the groups (Kimi k1.5's Table 3) says the second group runs to the table's edge
    ruled = printed_grid([header, *body], words, ([], [(350.0, 190.0, 230.0)]))
    assert ruled[0][6] == "Vision-Language Model Kimi k1.5" and ruled[0][:6] == rows[0][:6]


def test_column_names_set_close_together_are_not_read_as_one_phrase(tmp_path):
    """"GPT-4o" and "DeepSeek" printed a narrow space apart over two columns (DeepSeek-R1's Table 4)
    are two names, each centred on its column's values; a two-word spanning header is not split."""
    doc = pymupdf.open()
    page = doc.new_page(width=WIDTH, height=HEIGHT)
    for text, centre in (("GPT-4o", 200), ("DeepSeek", 247), ("0513", 200), ("V3", 247)):
        centred(page, 100 if text in ("GPT-4o", "DeepSeek") else 110, text, centre, 10)
    for y, values in ((130, ("87.2", "88.5")), (144, ("72.6", "75.9")), (158, ("83.7", "91.6"))):
        line(page, y, "MMLU", 10, x=72)
        for value, centre in zip(values, (200, 247)):
            centred(page, y, value, centre, 10)
    save(doc, tmp_path / "c.pdf")
    with pymupdf.open(tmp_path / "c.pdf") as doc:
        words = doc[0].get_text("words")
    gap, height = words[1][0] - words[0][2], words[0][3] - words[0][1]
    assert [w[4] for w in words][:2] == ["GPT-4o", "DeepSeek"] and gap < 0.5 * height  # narrower than a cell gap
    boxes = [[(70, 90, 150, 114), (180, 90, 260, 114)]] + [[(70, y - 12, 150, y + 2), (180, y - 12, 260, y + 2)]
                                                            for y in (130, 144, 158)]
    rows = printed_grid(boxes, words)
    assert rows[0] == ["", "GPT-4o 0513", "DeepSeek V3"]
    assert rows[1] == ["MMLU", "87.2", "88.5"]


def test_a_section_label_row_stays_one_cell_and_out_of_the_header(tmp_path):
    """"Open-source models" centred across the value columns under the header labels the rows below it:
    one cell, where detection put it, not copied into each column nor joined to the header."""
    doc = pymupdf.open()
    page = doc.new_page(width=WIDTH, height=HEIGHT)
    for text, centre in (("MMLU", 215), ("GSM8K", 270)):
        centred(page, 100, text, centre)
    line(page, 100, "Model", 9, x=90)
    centred(page, 114, "Open-source models", 242)
    for y, label, values in ((128, "ChatGLM2", ("45.5", "28.8")), (140, "QWEN-7B", ("55.8", "50.3"))):
        line(page, y, label, 9, x=90)
        for value, centre in zip(values, (215, 270)):
            centred(page, y, value, centre)
    save(doc, tmp_path / "s.pdf")
    with pymupdf.open(tmp_path / "s.pdf") as doc:
        words = doc[0].get_text("words")
    columns = ((85, 185), (185, 242), (242, 300))
    boxes = [[(a, 90, b, 104) for a, b in columns], [(85, 104, 300, 118), None, None],
             *([(a, y - 10, b, y + 2) for a, b in columns] for y in (128, 140))]
    assert printed_grid(boxes, words) == [["Model", "MMLU", "GSM8K"], ["Open-source models", "", ""],
                                          ["ChatGLM2", "45.5", "28.8"], ["QWEN-7B", "55.8", "50.3"]]


def test_model_names_set_on_two_or_three_lines_over_their_columns_stay_whole(tmp_path):
    """MiniMax-M1's Table 2 sets each model's name on two or three lines in one header row ("Gemini 2.5"
    over "Pro (06-05)", "Claude" over "4 Opus", "Seed-" over "Thinking-" over "v1.5"). The "2.5" and the
    "4" made each line look like a printed row of values: the columns were named "Claude" and "Seed-",
    and "4 Opus" became a row. Lines whose value columns mostly hold no number are one row of names."""
    doc = pymupdf.open()
    page = doc.new_page(width=WIDTH, height=HEIGHT)
    names = {200: ["Gemini 2.5", "Pro (06-05)"], 260: ["Claude", "4 Opus"], 320: ["Seed-", "Thinking-", "v1.5"]}
    centred(page, 84, "Closed-Weights Models", 260)
    for centre, parts in names.items():
        for k, part in enumerate(parts):
            centred(page, 100 + 11 * k, part, centre)
    for y, values in ((140, ("92.0", "76.0", "86.7")), (154, ("88.0", "75.5", "74.0"))):
        line(page, y, "AIME", 9, x=80)
        for value, centre in zip(values, names):
            centred(page, y, value, centre)
    save(doc, tmp_path / "m.pdf")
    with pymupdf.open(tmp_path / "m.pdf") as doc:
        words = doc[0].get_text("words")
    columns = ((75, 170), (170, 230), (230, 290), (290, 350))
    boxes = [[(75, 74, 170, 88), (170, 74, 350, 88), None, None], [(a, 90, b, 126) for a, b in columns]]
    boxes += [[(a, y - 10, b, y + 2) for a, b in columns] for y in (140, 154)]
    rows = printed_grid(boxes, words)
    assert rows[0] == ["", *(f"Closed-Weights Models {n}" for n in ("Gemini 2.5 Pro (06-05)", "Claude 4 Opus",
                                                                      "Seed-Thinking-v1.5"))]
    assert rows[1] == ["AIME", "92.0", "76.0", "86.7"] and len(rows) == 3


def test_a_group_label_set_between_two_printed_rows_leaves_them_two_rows(tmp_path):
    """dots.llm1's Table 2 prints "Chinese" beside and between "CLUEWSC" and "C3", in one cell box with
    both rows' values: the label overlapped both lines, joined them into one and the table was lost."""
    doc = pymupdf.open()
    page = doc.new_page(width=WIDTH, height=HEIGHT)
    for x, text in ((110, "Benchmark"), (220, "Qwen"), (280, "DeepSeek")):
        line(page, 100, text, x=x)
    for y, label, values in ((120, "CLUEWSC", ("93.2", "92.6")), (130, "C3", ("97.2", "97.4"))):
        line(page, y, label, x=110)
        for x, value in zip((220, 280), values):
            line(page, y, value, x=x)
    line(page, 125, "Chinese", x=60)
    save(doc, tmp_path / "g.pdf")
    with pymupdf.open(tmp_path / "g.pdf") as saved:
        words = saved[0].get_text("words")
    boxes = [[(55, 90, 105, 104), (105, 90, 215, 104), (215, 90, 275, 104), (275, 90, 340, 104)],
             [(55, 110, 105, 134), (105, 110, 215, 134), (215, 110, 275, 134), (275, 110, 340, 134)]]
    rows = printed_grid(boxes, words)
    assert rows[1:] == [["Chinese", "CLUEWSC", "93.2", "92.6"], ["", "C3", "97.2", "97.4"]]
    assert doubt(rows) == ""


def test_a_currency_sign_at_the_end_of_a_cell_opens_the_next_one(tmp_path):
    """Credo's release: "(4,225)" and "$ (9,540)" side by side, the "$" inside the first cell's box."""
    doc = pymupdf.open()
    page = doc.new_page(width=WIDTH, height=HEIGHT)
    for x, text in ((72, "Quarter"), (200, "Q2"), (280, "Q1")):
        line(page, 100, text, x=x)
    for x, text in ((72, "Net loss"), (200, "(4,225)"), (262, "$"), (280, "(9,540)")):
        line(page, 120, text, x=x)
    save(doc, tmp_path / "c.pdf")
    with pymupdf.open(tmp_path / "c.pdf") as saved:
        words = saved[0].get_text("words")
    boxes = [[(70, 90, 190, 104), (190, 90, 270, 104), (270, 90, 340, 104)],
             [(70, 110, 190, 124), (190, 110, 270, 124), (270, 110, 340, 124)]]
    assert printed_grid(boxes, words)[1] == ["Net loss", "(4,225)", "$ (9,540)"]
    from kg.ingest.pdf.printed_table import _currency_to_next

    # PG&E's outlook: "470 ~ $" beside "470" is "470" and "~ $ 470"; a column of signs alone stays.
    assert _currency_to_next(["Costs", "470 ~ $", "470"]) == ["Costs", "470", "~ $ 470"]
    assert _currency_to_next(["Costs", "$", "470"]) == ["Costs", "$", "470"]


def test_a_labelled_row_whose_second_line_is_mostly_words_stays_one_row(tmp_path):
    """Gemini 2.5 Pro's model card: "Code editing" over "Aider Polyglot", each score over its mode
    ("82.2%" over "diff-fenced", "76.5% /" over "72.7% whole"): one row of two-line cells, not two rows."""
    doc = pymupdf.open()
    page = doc.new_page(width=WIDTH, height=HEIGHT)
    for x, text in ((72, "Task"), (200, "A"), (260, "B"), (320, "C"), (380, "D")):
        line(page, 100, text, x=x)
    for y, texts in ((120, ("Code editing", "82.2%", "76.5% /", "79.6%", "72.0%")),
                     (132, ("Aider Polyglot", "diff-fenced", "72.7% whole", "diff", "diff"))):
        for x, text in zip((72, 200, 260, 320, 380), texts):
            line(page, y, text, x=x, size=9)
    save(doc, tmp_path / "w.pdf")
    with pymupdf.open(tmp_path / "w.pdf") as saved:
        words = saved[0].get_text("words")
    boxes = [[(70, 90, 195, 104), (195, 90, 255, 104), (255, 90, 315, 104), (315, 90, 375, 104), (375, 90, 440, 104)],
             [(70, 110, 195, 136), (195, 110, 255, 136), (255, 110, 315, 136), (315, 110, 375, 136), (375, 110, 440, 136)]]
    rows = printed_grid(boxes, words)
    assert len(rows) == 2 and rows[1][0] == "Code editing Aider Polyglot" and rows[1][1] == "82.2% diff-fenced"


def test_a_value_set_bold_by_overprinting_is_read_once(tmp_path):
    """Ling-Coder-Lite's Table 4 (q59) drew its best average three times a fraction of a point apart:
    read as "67.7 67.7 67.7", one cell held three numbers and the whole table went back to text."""
    from kg.ingest.pdf.tables import page_words

    doc = booktabs(tmp_path / "b.pdf")
    with pymupdf.open(doc) as pdf:
        page = pdf[0]
        for dx in (0.3, 0.6):  # the poor man's bold of the last row's last value
            line(page, 247 + 16 + 28, "83.8", x=COLUMNS[3] + dx)  # the rows of booktabs(): 247, 263, 291
        pdf.save(tmp_path / "bold.pdf")
    with pymupdf.open(tmp_path / "bold.pdf") as pdf:
        assert [w[4] for w in pdf[0].get_text("words")].count("83.8") == 3
        assert [w[4] for w in page_words(pdf[0])].count("83.8") == 1
    read = read_pdf(tmp_path / "bold.pdf", tmp_path / "assets", workers=1)
    [table] = [b for b in read.blocks if b.kind == "table"]
    grid = json.loads(table.cells)
    assert "kept_as_text" not in grid and grid["rows"][-1] == ["BM25 + DPR", "65.2", "76.6", "83.8"]


def test_a_first_rows_amount_a_box_to_the_left_joins_its_column(tmp_path):
    """BlackRock's AUM tables (q59/q60): the first row's "$ 396,013" started a cell box left of the amounts
    under it, so the grid held two half-filled columns (sparse_columns.join_complementary)."""
    doc = pymupdf.open()
    page = doc.new_page(width=WIDTH, height=HEIGHT)
    line(page, 100, "Average AUM", x=270)
    for y, (label, x, value) in zip((120, 140, 160), (("Equity", 196, "$ 396,013"), ("Fixed income", 280, "306,870"),
                                                    ("Multi-asset", 280, "129,891"))):
        line(page, y, label)
        line(page, y, value, x=x)
    save(doc, tmp_path / "aum.pdf")
    with pymupdf.open(tmp_path / "aum.pdf") as saved:
        words = saved[0].get_text("words")
    boxes = [[(70, y - 10, 190, y + 4), (190, y - 10, 265, y + 4), (265, y - 10, 340, y + 4)] for y in (100, 120, 140, 160)]
    assert printed_grid(boxes, words) == [["", "Average AUM"], ["Equity", "$ 396,013"], ["Fixed income", "306,870"],
                                          ["Multi-asset", "129,891"]]
