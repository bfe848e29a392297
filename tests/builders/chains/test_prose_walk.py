"""Prose last hops with real rivals (builders/chains/prose_walk.py, issue 21), on the fleet register
of test_construction (a small real graph in the embedded FalkorDB store, spaCy's tagger for verbs):
a paragraph that says which ship each of three institutes runs ends an honest chain; a sentence
with two institutes, an earlier hop that names the rivals, or a fact worded like a rival's name
does not. Also the fork rule: branches that share only a place."""

from __future__ import annotations

import random

from builders.chains.candidate import Candidate, Hop
from tests.builders.chains.test_answer_side import add_chunk
from tests.builders.chains.test_construction import ARV, HMI, construction, serial, view  # noqa: F401

THREE = ("The Tallinn Sea Laboratory operates the Baltic Explorer, the Riga Coastal Centre operates the "
         "Saaremaa Pioneer, and the Helsinki Marine Institute operates the Aurora Research Vessel.")


def strict_walker(view, seed: int = 0):
    from builders.chains.bridges import BridgeRules
    from builders.chains.construction import ChainConstruction
    from builders.chains.shortcuts import CorpusIndex
    from builders.chains.statements import StatementIndex
    from builders.chains.verbs import spacy_verbs
    from builders.chains.walkers import Walker

    statements = StatementIndex(view, BridgeRules(view), spacy_verbs())
    walker = Walker(view, random.Random(seed), statements=statements)
    walker.construction = ChainConstruction(view, statements, CorpusIndex(view), walker.table_walk.tables)
    walker.strict = True
    return walker


def ties_of(view, *texts: tuple[str, str]):
    """Add each (chunk id, text), make its numbers value entities, and return a strict walker with
    every chunk's value ties (values.value_ties over its specific entities)."""
    from builders.chains.values import name_prose_values, value_ties

    for cid, text in texts:
        add_chunk(view, cid, text)
    name_prose_values(view, frozenset({"body"}))
    walker = strict_walker(view)
    return walker, {cid: value_ties(walker.statements, cid, [e for e in view.mentions[cid] if walker.rules.specific(e)])
                    for cid, _ in texts}


def with_saaremaa_pioneer(view) -> None:
    view.entity_name["saaremaa pioneer"], view.entity_label["saaremaa pioneer"], view.entity_aliases["saaremaa pioneer"] = \
        "Saaremaa Pioneer", "PRODUCT", []
    add_chunk(view, "c20", THREE)


def test_a_paragraph_stating_one_relation_for_three_institutes_ends_an_honest_chain(view):
    from builders.chains.prose_walk import pairings

    with_saaremaa_pioneer(view)
    walker = strict_walker(view)
    found = {(p.bridge, p.answer): set(p.rivals) for p in pairings(walker, walker.construction, "c20")}
    assert found[(HMI, ARV)] == {"tallinn sea laboratory", "riga coastal centre"}
    assert ("tallinn sea laboratory", "baltic explorer") in found
    chains = [c for c in (walker.prose_walk.chain(2) for _ in range(20)) if c is not None]
    assert chains, walker.deaths
    ours = [c for c in chains if c.answer_entity == ARV]
    assert ours and all(c.hops[-1].node_id == "c20" and c.hops[0].bridge == HMI for c in ours)
    # The hop before names the institute and none of its rivals ("founded ... after years of coastal fieldwork").
    figures = construction(view).check(ours[0])
    assert figures.reason == "" and figures.siblings == [2] and figures.answer_rivals == 2
    assert {"Baltic Explorer", "Saaremaa Pioneer"} == set(figures.answer_rival_names)


def test_two_institutes_are_no_pairing_and_a_hop_naming_the_rivals_is_never_the_one_before(view):
    from builders.chains.prose_walk import pairings

    walker = strict_walker(view)
    # c8: "The Tallinn Sea Laboratory operates the Baltic Explorer, while the Helsinki Marine Institute
    # operates the Aurora Research Vessel.": the other one is found by elimination.
    assert pairings(walker, walker.construction, "c8") == []
    with_saaremaa_pioneer(view)
    walker = strict_walker(view, seed=1)
    # c7 names all three institutes: it cannot identify one of them.
    starts = {c.hops[0].node_id for c in (walker.prose_walk.chain(2) for _ in range(30)) if c is not None}
    assert starts and "c7" not in starts


def test_a_fact_worded_like_a_rivals_name_is_not_a_way_to_describe_the_bridge(view):
    with_saaremaa_pioneer(view)
    add_chunk(view, "c21", "Maria Kovacs founded the Helsinki Marine Institute for coastal survey work.", doc="d1")
    figures = construction(view).check(serial(("c21", HMI), ("c20", ""), answer=ARV))
    # "coastal" is in the rival "Riga Coastal Centre": describing the institute by it points at the wrong one.
    assert "coastal" not in figures.describe_by[0] and "coastal" in figures.avoid_words[0]
    assert "survey" in figures.describe_by[0]


def test_fork_branches_sharing_only_a_city_are_refused(view):
    def fork(first: str, last: str, shared: str, answer: str) -> Candidate:
        return Candidate("parallel_visual_textual_fork", [Hop(first, "Chunk", shared, "entity"),
                                                          Hop(last, "Chunk", shared, "entity")], [(0, 2), (1, 2)], answer)

    add_chunk(view, "c22", "The Baltic Film Archive opened a small cinema in Stockholm last winter.", doc="d1")
    city = construction(view).check(fork("c22", "c6", "stockholm", "nordic ocean council"))
    assert "share only a place" in city.reason  # a cinema and a council: two questions joined by "and"
    ship = construction(view).check(fork("c3", "c4", "aurora research vessel", "karl lindqvist"))
    assert "share only a place" not in ship.reason


def test_numbers_a_paragraph_lists_per_institute_are_answers(view):
    from builders.chains.prose_walk import pairings
    from builders.chains.values import name_prose_values

    add_chunk(view, "c23", "In 2021 the Tallinn Sea Laboratory logged 41.2 survey days at sea, the Riga Coastal "
                           "Centre 35.6 and the Helsinki Marine Institute 28.9, as Table 3 shows.")
    assert name_prose_values(view, frozenset({"body"})) >= 3
    walker = strict_walker(view)
    found = {(p.bridge, view.entity_name[p.answer]): set(p.rivals) for p in pairings(walker, walker.construction, "c23")}
    assert found[(HMI, "28.9")] == {"tallinn sea laboratory", "riga coastal centre"}
    assert not any(name in ("3", "2021") for _, name in found)  # a table's number and a year are no values here
    figures = walker.construction.check(serial(("c1", HMI), ("c23", ""), answer="value:c23:28.9"))
    assert figures.reason == "" and sorted(figures.answer_rival_names) == ["35.6", "41.2"]


def test_citation_years_beside_names_are_no_pairing(view):
    from builders.chains.prose_walk import pairings
    from builders.chains.values import name_prose_values

    add_chunk(view, "c24", "Ship logs were kept by three bodies (Tallinn Sea Laboratory, 2019; Riga Coastal "
                           "Centre, 2020; Helsinki Marine Institute, 2021) for the survey.")
    name_prose_values(view, frozenset({"body"}))
    walker = strict_walker(view)
    assert pairings(walker, walker.construction, "c24") == []


def test_numbers_of_the_bridges_own_variants_are_no_rivals(view):
    """The other number in the last hop belongs to a name that holds the bridge's ("short-CoT" and
    "long-CoT" beside a "CoT" bridge): the bridge selects nothing, the modifier does, and a strict
    verifier answered from the last hop alone. Only a different entity's number is a rival."""
    from builders.chains.values import name_prose_values

    annex = "helsinki marine institute annex"
    view.entity_name[annex], view.entity_label[annex], view.entity_aliases[annex] = \
        "Helsinki Marine Institute Annex", "ORG", []
    add_chunk(view, "c25", "In 2021 the Helsinki Marine Institute Annex logged 41.2 survey days at sea, and "
                           "the Helsinki Marine Institute logged 28.9.")
    name_prose_values(view, frozenset({"body"}))
    walker = strict_walker(view)
    figures = walker.construction.check(serial(("c1", HMI), ("c25", ""), answer="value:c25:28.9"))
    assert figures.siblings == [0] and "holds no rival" in figures.reason


def test_names_a_number_is_measured_on_and_numbers_of_another_measure_are_no_rivals(view):
    """Kimi k1.5's "60.8 on AIME, 94.6 on MATH500 ... outperforming GPT-4o and Claude Sonnet 3.5 by a
    large margin": the benchmarks are what one subject's numbers are measured on, not subjects with
    numbers of their own, and "3.5 by a large margin" measures something else. Counted as rivals, they
    made a bridge look ambiguous in a last hop that names one subject; a strict verifier answered it
    from that hop alone."""
    from builders.chains.values import listed_rivals

    walker, tied = ties_of(view, ("c26", "In 2021 the Helsinki Marine Institute logged 28.9 survey days on the "
                                         "Baltic Explorer, 35.6 on the Aurora Research Vessel, and the Tallinn Sea "
                                         "Laboratory funded 12.5 new berths."))
    ties = tied["c26"]
    assert {view.entity_name[v] for v in ties[HMI]} == {"28.9"}
    assert "baltic explorer" not in ties and ARV not in ties  # measured on, not measured
    assert listed_rivals(view, ties, HMI, "value:c26:28.9") == []  # berths are no survey days
    figures = walker.construction.check(serial(("c1", HMI), ("c26", ""), answer="value:c26:28.9"))
    assert "holds no rival" in figures.reason


def test_a_list_of_subjects_with_numbers_of_one_measure_still_gives_rivals(view):
    from builders.chains.values import listed_rivals

    _, tied = ties_of(view, ("c27", "The Helsinki Marine Institute logged 28.9 survey days, the Tallinn Sea "
                                    "Laboratory logged 41.2 survey days and the Riga Coastal Centre 35.6."))
    ties = tied["c27"]
    assert listed_rivals(view, ties, HMI, "value:c27:28.9") == ["riga coastal centre", "tallinn sea laboratory"]


def test_a_name_the_subject_is_compared_with_has_no_number_of_its_own(view):
    """"DeepSeek-R1 ... outperforming DeepSeek-V3 with scores of 90.8% on MMLU": the score is the
    subject's; counted as the compared model's, a last hop naming one score looked like a list."""
    _, tied = ties_of(
        view,
        ("c28", "The Helsinki Marine Institute logged 28.9 survey days, outperforming the Tallinn Sea "
                "Laboratory with 31.5 survey days at sea."),
        # Past the compared name a number may be that name's: no one gets it (review of session 9).
        ("c29", "The Helsinki Marine Institute outperformed the Tallinn Sea Laboratory (31.5 survey days) "
                "with 28.9 survey days."),
        # Every name of a list after the comparing word is compared.
        ("c30", "The Helsinki Marine Institute logged 28.9 survey days, outperforming the Tallinn Sea "
                "Laboratory and the Riga Coastal Centre by 12.5 days."))
    assert {view.entity_name[v] for v in tied["c28"][HMI]} == {"28.9"}
    for chunk, ties in tied.items():
        assert not {"tallinn sea laboratory", "riga coastal centre"} & set(ties), chunk
        assert {view.entity_name[v] for v in ties.get(HMI, {})} <= {"28.9"}, chunk


def test_a_bridge_said_of_the_other_answers_too_picks_no_one_answer(view):
    """q19: "error rates of 5.4 and 2.7 ... without RandAugment", then "without RandAugment, which has
    an error rate of 2.84": every rate is one without the bridge, so the bridge chooses none of them
    (the verifier found the dataset choosing 2.84). In a list where the bridge stands beside its own
    number only, the chain is kept (test above)."""
    from builders.chains.values import name_prose_values

    add_chunk(view, "c31", "The Tallinn Sea Laboratory logged 41.2 survey days and the Riga Coastal Centre 35.6, "
                           "both without help from the Helsinki Marine Institute. In the gulf, the Helsinki Marine "
                           "Institute alone logged 28.9 survey days.")
    name_prose_values(view, frozenset({"body"}))
    walker = strict_walker(view)
    figures = walker.construction.check(serial(("c1", HMI), ("c31", ""), answer="value:c31:28.9"))
    assert sorted(figures.answer_rival_names) == ["35.6", "41.2"]
    assert "names its bridge beside other answers too" in figures.reason


def test_days_of_dates_and_equation_numbers_are_no_values():
    """q21: a chain asked for "17", the day of "May 17, 2022"; another for "3.1", an equation the text
    cites as "see (3.1)". Neither is a value a question should ask for."""
    from builders.chains.values import prose_values

    text = ("The Cosmopolitan was acquired on May 17, 2022 and 17 March 2023 is the next date; the MSUatWeight "
            "(see (3.1)) follows equations (3.3), (3.4), and (3.2). Revenue rose 12.5% to $1,234 million; we see 45 cases.")
    assert prose_values(text) == ["2022", "12.5%", "$1,234", "45"]
