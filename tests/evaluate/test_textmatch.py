"""Exact match and token F1 compare normalised answers."""

from __future__ import annotations

import pytest

from evaluate.textmatch import exact_match, numbered, token_f1


def test_exact_match_ignores_case_punctuation_and_articles():
    assert exact_match("The HPC Cluster.", "hpc cluster") == 1.0
    assert exact_match("HPC", "HPC cluster") == 0.0
    assert exact_match("", "") == 0.0  # an empty gold answer matches nothing


def test_token_f1_gives_partial_credit():
    assert token_f1("large HPC cluster", "HPC cluster") == pytest.approx(0.8)
    assert token_f1("nothing", "HPC cluster") == 0.0


def test_numbered_passages_and_the_empty_context():
    assert numbered(["a\n b", "c"]) == "[1] a b\n[2] c"
    assert "no passages" in numbered([])
