"""Joining a PDF's wrapped lines (kg/ingest/pdf/types.join_lines): names broken at a line end come back
as printed."""

from __future__ import annotations

from kg.ingest.pdf.types import join_lines


def test_hyphenation_is_undone_but_a_name_keeps_its_hyphen():
    assert join_lines(["The seg-", "mentation step"]) == "The segmentation step"
    assert join_lines(["DeepSeek-", "R1 and Seed-", "Thinking-", "v1.5"]) == "DeepSeek-R1 and Seed-Thinking-v1.5"


def test_a_dotted_name_broken_before_its_dot_is_one_name():
    """dots.llm1's tables print "dots.llm1" over ".base" as a column name."""
    assert join_lines(["dots.llm1", ".base"]) == "dots.llm1.base"
    assert join_lines(["see Table 2", ".5 points"]) == "see Table 2 .5 points"  # not a dotted name: unchanged
    # A name broken before a hyphen (Ling's Table 9 header, q60), not a list's dash.
    assert join_lines(["DeepSeek-V2.5", "-1210-Chat"]) == "DeepSeek-V2.5-1210-Chat"
    assert join_lines(["Qwen3-235B", "-Thinking-2507"]) == "Qwen3-235B-Thinking-2507"
    assert join_lines(["Steps:", "- install", "- run"]) == "Steps: - install - run"
