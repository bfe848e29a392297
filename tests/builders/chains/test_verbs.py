"""Verbs a statement needs (builders/chains/verbs.py), from spaCy's real tagger, on sentences of the
shared wiki and PDF corpora."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def finders():
    from builders.chains.verbs import spacy_verbs

    return spacy_verbs(), spacy_verbs(agents=True)


def verbs_of(find, text: str) -> list[str]:
    return [text[a:b] for a, b in find([text])[0]]


def test_a_participle_with_its_agent_is_a_verb_in_strict_runs_only(finders):
    plain, strict = finders
    # HotpotQA wiki (Bharya Bhartala Bhagotham): who directed the film is stated by "directed by" alone.
    film = ("Bharya Bhartala Bhagotham is a 1988 Telugu comedy film, produced by Maripalli Mahiratnam Gupta "
            "on Gangotri Pictures banner and directed by Mahesh Kumar.")
    assert verbs_of(plain, film) == ["is"]
    assert verbs_of(strict, film) == ["is", "produced", "directed"]
    brewery = "The Bass Brewery, founded in 1777 by William Bass in Burton-upon-Trent, grew fast."
    assert "founded" in verbs_of(strict, brewery) and "founded" not in verbs_of(plain, brewery)


@pytest.mark.parametrize("text", [
    # PaperMage: a citation's author is no agent of a fact (it passed for a rival answer "Shen").
    "The I-VILA model is a layoutinfused Transformer model pretrained by Shen et al. (2022) on the S2-VL set.",
    "The tagger was trained by (Collins, 2002) on newswire text.",
    "The model, trained, by contrast, on news text, is small.",
])
def test_a_cited_or_interrupted_agent_is_no_verb(finders, text):
    plain, strict = finders
    assert verbs_of(strict, text) == verbs_of(plain, text)


def test_one_rule_says_when_a_name_is_a_citations_author():
    """statements.py (a blank) and agent_participle (a verb's agent) ask the same rule."""
    from builders.chains.verbs import cited_after

    for after in (" et al. (2019a) report", " and Farber (2019)", ", 2002) on", " (2022) show"):
        assert cited_after(after), after
    for after in (" reaches 41.2 in 2019", " [12] reaches 41.2", " and PEGASUS reach 44.7"):
        assert not cited_after(after), after
