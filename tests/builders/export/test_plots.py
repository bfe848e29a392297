"""The card's plots: real PNGs, the same bytes for the same figures, drawn for an empty export too."""

from __future__ import annotations

import pymupdf

from builders.export.plots import write_plots
from builders.export.summary import summarize
from records_support import make_record


def records() -> list[dict]:
    return [make_record("a"), make_record("b", "image_chain", ("image", "text", "text"))]


def test_two_pngs_of_the_card_size(tmp_path):
    paths = write_plots(summarize(records()), tmp_path / "plots")
    assert [p.name for p in paths] == ["hops_by_graph_type.png", "modality_share.png"]
    sizes = [(pymupdf.Pixmap(str(p)).width, pymupdf.Pixmap(str(p)).height) for p in paths]
    assert sizes == [(700, 400), (600, 400)]


def test_the_same_figures_give_the_same_bytes_and_other_figures_other_bytes(tmp_path):
    first = [p.read_bytes() for p in write_plots(summarize(records()), tmp_path / "one")]
    again = [p.read_bytes() for p in write_plots(summarize(records()), tmp_path / "two")]
    assert first == again
    assert all(b"matplotlib" not in data for data in first)  # no version string: other versions, same bytes
    other = [p.read_bytes() for p in write_plots(summarize(records()[:1]), tmp_path / "three")]
    assert other[0] != first[0] and other[1] != first[1]


def test_an_empty_export_still_gets_both_plots(tmp_path):
    paths = write_plots(summarize([]), tmp_path / "plots")
    assert all(pymupdf.Pixmap(str(p)).width > 0 for p in paths)
    full = write_plots(summarize(records()), tmp_path / "full")
    assert paths[0].read_bytes() != full[0].read_bytes()
