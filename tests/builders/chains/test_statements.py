"""Statements a question is built on: a blank that hides its answer, no citation authors."""

from __future__ import annotations

import random

import pytest

from tests.builders.chains.synthetic import build_synthetic_corpus


@pytest.fixture
def statements(falkor_store):
    from builders.chains.generate import make_walker
    from kg.config import Settings
    from queries.corpus_view import load_corpus_view

    build_synthetic_corpus(falkor_store)
    return make_walker(load_corpus_view(falkor_store), Settings(), random.Random(1)).statements


@pytest.mark.parametrize("text,name", [
    ("Following Liu et al. (2019a), we observe that the final layers excel.", "Liu"),
    ("Inspired by Saier and Farber (2019), we first convert the sources.", "Saier"),
    ("As shown by Kovacs, 2001 the harbour silted up.", "Kovacs"),
])
def test_an_author_in_a_citation_is_never_blanked(text, name):
    from builders.chains.statements import whole_name

    start = text.index(name)
    assert not whole_name(text, (start, start + len(name)))


def test_a_name_in_prose_can_be_blanked():
    from builders.chains.statements import whole_name

    text = "The Nordic Ocean Council and Maria Kovacs signed the charter in 2004."
    start = text.index("Maria Kovacs")
    assert whole_name(text, (start, start + len("Maria Kovacs")))


def test_a_statement_that_still_names_its_answer_gives_it_away(statements):
    from builders.chains.statements import Statement

    twice = Statement("The Aurora Research Vessel left before the Aurora Research Vessel crew arrived",
                      "aurora research vessel", "Aurora Research Vessel")
    once = Statement("The Aurora Research Vessel mapped the Gulf of Riga", "aurora research vessel",
                     "Aurora Research Vessel")
    assert statements.gives_away(twice)
    assert not statements.gives_away(once)


def test_a_relation_that_names_the_previous_answer_twice_gives_it_away(statements):
    from builders.chains.statements import Statement

    # The final question replaces the previous answer once, by a letter; the second
    # mention would let a reader skip the hop that finds it.
    leaky = Statement("Karl Lindqvist and Karl Lindqvist's crew sailed the Gulf of Riga", "gulf of riga",
                      "Gulf of Riga", "karl lindqvist", "Karl Lindqvist")
    fine = Statement("Karl Lindqvist sailed the Gulf of Riga", "gulf of riga", "Gulf of Riga",
                     "karl lindqvist", "Karl Lindqvist")
    assert statements.gives_away(leaky)
    assert not statements.gives_away(fine)


def test_names_that_hold_one_another_never_meet_in_a_chain(falkor_store):
    """"AOA sensors" asked for while the question names "AOA sensor failures" gives the hop away."""
    from builders.chains.generate import make_walker
    from kg.config import Settings
    from queries.corpus_view import load_corpus_view

    build_synthetic_corpus(falkor_store)
    walker = make_walker(load_corpus_view(falkor_store), Settings(), random.Random(1))
    walker.view.entity_name.update({"x1": "AOA sensors", "x2": "AOA sensor failures", "x3": "AOA event"})
    assert walker.names_overlap("x1", {"x2"}) and walker.names_overlap("x2", {"x1"})
    assert not walker.names_overlap("x1", {"x3"})
    for _ in range(40):
        cand = walker.sample("text_chain")
        if cand is None:
            continue
        named = [h.bridge for h in cand.hops if h.bridge] + [cand.answer_entity]
        assert not any(walker.names_overlap(e, set(named)) for e in named)


def test_a_footnote_run_into_a_sentence_is_not_prose():
    from builders.chains.bridges import clean_text

    assert not clean_text("Clusters are built to reflect how authors tend to view their 20Used to determine "
                          "PDF page number and page dimensions.")
    assert clean_text("The model has 12 Transformer layers and 110M parameters.")


# NIST SP 800-223 (bundled corpus) as the PDF reader gives it: its bullets run on one line.
NIST_LIST = ("HPC systems are shared by many research groups. • Management network: The management network is a "
             "dedicated network that allows system administrators to remotely control, monitor, and configure "
             "computer nodes in an HPC system. • Granular access control on databases: Since different research "
             "groups may have a need to know for different portions of data, granular access control capabilities "
             "are necessary. • Party descriptions.")
MARKDOWN_LIST = ("The converter handles several formats:\n- Docling parses PDF documents with a layout model.\n"
                 "- The HTML backend reads web pages as they are.")


def test_list_items_are_sentences_of_their_own_in_strict_runs():
    from builders.chains.statements import node_sentences, quotable

    quoted = [s for s in node_sentences(NIST_LIST, list_items=True) if not quotable(s)[1]]
    assert quoted == [
        "HPC systems are shared by many research groups.",
        "Management network: The management network is a dedicated network that allows system administrators "
        "to remotely control, monitor, and configure computer nodes in an HPC system.",
        "Granular access control on databases: Since different research groups may have a need to know for "
        "different portions of data, granular access control capabilities are necessary."]  # not "Party descriptions."
    items = node_sentences(MARKDOWN_LIST, list_items=True)
    assert "Docling parses PDF documents with a layout model." in items
    assert "The HTML backend reads web pages as they are." in items
    # Offline the pieces stay as they were: the run-on line is one unquotable "bullet".
    assert [quotable(s)[1] for s in node_sentences(NIST_LIST)] == ["bullet"]


def test_an_author_in_a_citation_stands_in_no_relation(statements):
    from builders.chains.statements import Sentence

    # S2ORC (bundled corpus), a list item: the cited author would pass for a rival of "BERT-Base".
    text = "Beltagy et al. (2019) report a pretraining corpus of biomedical and computer science papers."
    cited = Sentence(text, {"beltagy": (0, 7), "pretraining corpus": (31, 49)}, [(22, 28)])
    assert statements._relation_in(cited, (0, 7), (31, 49), "beltagy", "pretraining corpus", True,
                                   lambda e: True) is None
    plain = "Iz Beltagy reported a pretraining corpus of biomedical and computer science papers."
    named = Sentence(plain, {"iz beltagy": (0, 10), "pretraining corpus": (22, 40)}, [(11, 19)])
    assert statements._relation_in(named, (0, 10), (22, 40), "iz beltagy", "pretraining corpus", True,
                                   lambda e: True) is not None
