"""The dataset card (README.md of an export): its header, the figures it states and the files it lists."""

from __future__ import annotations

import re

import yaml

from builders.export.card import dataset_card
from builders.export.summary import summarize
from kg.config import Settings
from records_support import make_record


def summary(quality: dict | None = None) -> dict:
    records = [make_record("a"), make_record("b"), make_record("c", "image_chain", ("image", "text", "text"))]
    return {**summarize(records), "quality": quality or {}}


def card(formats=("jsonl",), skipped=None, quality=None) -> str:
    return dataset_card(summary(quality), Settings(), list(formats), skipped or {})


def table_rows(text: str, header: str) -> list[list[str]]:
    """The body rows of the markdown table whose header line is `header`."""
    lines = text.splitlines()
    start = lines.index(header) + 2
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def test_the_header_is_valid_hugging_face_yaml_pointing_at_the_data():
    text = card()
    assert text.startswith("---\n")
    header = yaml.safe_load(text.split("---\n")[1])
    assert header["configs"] == [{"config_name": "default", "data_files": "dataset.jsonl"}]
    assert "question-answering" in header["task_categories"]


def test_the_headline_counts_are_those_of_the_records():
    text = card(skipped={"rejected": 4, "duplicate": 1})
    assert "- records: **3** (7 hops) drawing on 3 documents and 1 image\n" in text
    assert "statuses exported: accepted 3; not exported: 4 rejected, 1 duplicate" in text
    assert "generator: offline (3)" in text and "`verbalize_chain` 3" in text


def test_the_tables_state_types_hops_modality_and_checks():
    text = card()
    assert table_rows(text, "| graph_type | records |") == [["`image_chain`", "1"], ["`text_chain`", "2"]]
    assert table_rows(text, "| hops | records |") == [["2", "2"], ["3", "1"]]
    assert table_rows(text, "| modality | hops | share |") == [["image", "1", "14.3%"], ["text", "6", "85.7%"]]
    checks = {row[0]: row[1:] for row in table_rows(text, "| check | pass | fail | unchecked |")}
    assert checks["faithful"] == ["100.0%", "0.0%", "0.0%"]
    assert checks["hop_necessity"][0] == "57.1%"  # 4 of 7 hops necessary (every other hop in make_record)


def test_every_table_row_has_as_many_cells_as_its_header():
    text = card(("jsonl", "parquet", "hf"), quality={"average_hops": 2.33, "share_3plus_hops": 0.33})
    width = None
    for line in text.splitlines():
        if line.startswith("|"):
            cells = len(line.strip().strip("|").split("|"))
            width = cells if width is None else width
            assert cells == width, line
        else:
            width = None


def test_the_files_listed_are_the_formats_written():
    plain = card(("jsonl",))
    assert "`dataset.parquet`" not in plain and "load_from_disk" not in plain and "ragas.jsonl" not in plain
    full = card(("jsonl", "parquet", "hf", "ragas", "deepeval"))
    for name in ("`dataset.parquet`", "`hf/`", 'load_from_disk("hf")', "`ragas.jsonl`", "`deepeval_goldens.json`"):
        assert name in full
    assert re.search(r"!\[[^\]]+\]\(plots/[a-z_]+\.png\)", full)  # the plots are shown


def test_quality_figures_appear_only_when_the_graph_gave_them():
    assert "## Quality" not in card()
    text = card(quality={"average_hops": 2.33, "share_3plus_hops": 0.33})
    rows = table_rows(text, "| figure | value | target |")
    assert [r[1:] for r in rows] == [["2.33", ">= 3.0"], ["0.33", ">= 0.3"]]
