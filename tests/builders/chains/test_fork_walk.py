"""Forks that ask one thing (builders/chains/fork_walk.py): a chart's value and a text's value of one
measure, drawn by a strict walker from a real PDF made with pymupdf and ingested into the embedded
FalkorDB with spaCy and the real embedder; the comparison answer computed from the printed values."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import pymupdf
import pytest

from tests.kg.ingest.pdf.pdf_maker import CHART_BARS, CHART_PROSE, HEIGHT, WIDTH, line, paragraph, save

# The text states Tessaline's accuracy on another split: one subject, two values of one measure.
SPLIT_PROSE = ("On the summer split of the harbour traffic benchmark, Tessaline reaches an accuracy of 66.8 "
               "after retraining on the pilot boarding records.")
# Who built each model: the text hop of an image_initiated chain (the chart names the model by its value).
BUILDERS_PROSE = ("Tessaline was built by the Maritime Forecast Office in Aberdeen. "
                  "Korvex was built by Dunmore Logistics for its container terminal.")


SPRING_BARS = (("Tessaline", 62.5), ("Korvex", 70.3), ("Brumhal", 57.1), ("Ostrander", 60.6))


def draw_chart(page, bars, axis: float, caption: str) -> None:
    """A vector bar chart: each bar's value printed above it, its name below, and a caption."""
    page.draw_line((80, axis), (440, axis), width=1)
    for i, (name, value) in enumerate(bars):
        x = 100 + 85 * i
        bar_top = axis - (value - 40) * 4
        page.draw_rect(pymupdf.Rect(x, bar_top, x + 50, axis), color=(0, 0, 0), fill=(0.5, 0.5, 0.8))
        for text, y in ((str(value), bar_top - 3), (name, axis + 10)):
            page.insert_text((x + 25 - pymupdf.get_text_length(text, fontsize=8) / 2, y), text, fontsize=8)
    line(page, axis + 30, caption)


def chart_with_value_report(path):
    """Prose (one sentence gives Tessaline's accuracy on another split), a vector bar chart that prints
    each model's accuracy on the winter split above its bar, who built the models, and a second chart of
    the spring split."""
    doc = pymupdf.open()
    page = doc.new_page(width=WIDTH, height=HEIGHT)
    line(page, 60, "Forecasting models for harbour traffic", 16)
    line(page, 90, "1 Introduction", 12)
    top = 100
    for text in (*CHART_PROSE, SPLIT_PROSE):
        top = paragraph(page, top, text) + 6
    draw_chart(page, CHART_BARS, 460, "Figure 1: Accuracy of the four models on the winter split.")
    page = doc.new_page(width=WIDTH, height=HEIGHT)  # away from the charts: their page text is not their own
    line(page, 60, "2 The models", 12)
    paragraph(page, 80, BUILDERS_PROSE)
    page = doc.new_page(width=WIDTH, height=HEIGHT)
    line(page, 60, "3 Seasons", 12)
    draw_chart(page, SPRING_BARS, 400, "Figure 2: Accuracy of the four models on the spring split.")
    return save(doc, path, title="Forecasting models for harbour traffic")


@pytest.fixture
def fork_view(falkor_store, tmp_path):
    from tests.builders.chains.test_figure_walk import ingested_view

    return ingested_view(falkor_store, tmp_path, chart_with_value_report)


def _walker(view, settings, store, strict=True, seed=1):
    from builders.chains.generate import make_walker

    settings.generate.min_hops, settings.generate.max_hops = 2, 2
    return make_walker(view, settings, random.Random(seed), store, strict=strict)


@pytest.mark.timeout(900)
def test_a_strict_fork_compares_two_values_of_one_measure_and_asks_one_thing(fork_view):
    """The chart prints 71.4 at Tessaline, the text says Tessaline reaches 66.8 on another split: the
    fork asks their difference, 4.6, computed from the printed values; the writer is told to ask that
    one thing and gets the answer as its target; both parts stay on the candidate."""
    from builders.chains.requests import verbalize_request

    view, settings, store = fork_view
    walker = _walker(view, settings, store)
    drawn = [c for c in (walker.sample("parallel_visual_textual_fork") for _ in range(20)) if c is not None]
    assert drawn, f"no fork drawn: {dict(walker.deaths)}"
    answers = {"71.4": "4.6", "62.5": "4.3"}  # each chart's Tessaline against the text's 66.8
    for cand in drawn:
        fork = cand.meta["fork"]
        (subject_a, value_a), part_b = [(p["subject"], p["value"]) for p in fork["parts"]]
        assert subject_a == "Tessaline" and part_b == ("Tessaline", "66.8")
        assert fork["operation"] == "difference" and fork["answer"] == answers[value_a]
        assert [h.label for h in cand.hops] == ["Image", "Chunk"] and cand.structure == [(0, 2), (1, 2)]
        assert walker.construction.check(cand).reason == ""
    first = next(c for c in drawn if c.meta["fork"]["answer"] == "4.6")  # the winter chart's
    settings.llm.base_url = "http://127.0.0.1:9"  # a strict run's request; nothing is sent
    user = verbalize_request(view, first, settings).messages[-1]["content"]
    hops = json.loads(user[user.index("["):user.rindex("]") + 1])
    assert hops[0]["branch_value"] == {"subject": "Tessaline", "value": "71.4"}
    assert hops[1]["branch_value"] == {"subject": "Tessaline", "value": "66.8"}
    assert hops[1]["target_answer"] == "4.6" and hops[1]["ask_one_thing"].startswith("the difference between")
    assert "66.8" in hops[1]["evidence"]
    # Printed text runs in reading order; the evidence also says which value stands at which label.
    assert 'Values printed at labels (by position): "Tessaline": 71.4; "Korvex": 68.2' in hops[0]["evidence"]


@pytest.mark.timeout(900)
def test_a_strict_run_draws_no_fork_of_facts_of_two_kinds(fork_view):
    """Offline the old fork joins any fact of the figure with any fact of the text; a strict walker
    draws only forks whose two branch values share type, form and measure, and none when the text's
    value is of another kind."""
    from builders.chains.fork_walk import same_measure

    view, settings, store = fork_view
    walker = _walker(view, settings, store)
    facts = walker.forks.text_facts()
    figure = [f for fs in walker.forks.image_facts().values() for f in fs]
    assert {(f.subject, f.value) for f in figure} >= {(n, str(v)) for n, v in CHART_BARS[:1]}
    drawn = [c for c in (walker.sample("parallel_visual_textual_fork") for _ in range(20)) if c is not None]
    assert drawn
    for cand in drawn:  # the computed answer names the subject of the larger printed value
        fork = cand.meta["fork"]
        a, b = fork["parts"]
        larger = a if float(a["value"]) > float(b["value"]) else b
        assert fork["operation"] == "difference" or fork["answer"] == larger["subject"]
    # The text's accuracy pairs with the chart's; the same fact of another measure, kind or unit does not.
    other = [f for f in facts if f.value == "66.8"][0]
    assert any(walker.forks.pair_ok(a, other) for a in figure)
    ports = replace(other, measure=frozenset({"port"}))  # one kind (a decimal), another measure
    count = replace(other, value="12")  # one measure, another kind (a count)
    timed = replace(other, scale="ms")  # one measure and kind, a unit the chart's value lacks
    rough = replace(other, value="~66.8")  # one kind and measure, but no number to compare
    for changed in (ports, count, timed, rough):
        assert not any(walker.forks.pair_ok(a, changed) for a in figure), changed


def test_the_comparison_answer_is_computed_from_the_printed_values():
    from builders.chains.fork_walk import BranchFact, comparison, is_tied_value, same_measure, value_kind

    acc = frozenset({"accuracy"})
    a = BranchFact("img", "e1", "Tessaline", "71.4", acc)
    b = BranchFact("c1", "e2", "Korvex", "68.2", acc)
    assert comparison(a, b) == {"operation": "larger", "answer": "Tessaline",
                                "parts": [{"hop": 0, "subject": "Tessaline", "value": "71.4"},
                                          {"hop": 1, "subject": "Korvex", "value": "68.2"}]}
    same = BranchFact("c1", "e1", "Tessaline", "66.8", acc)
    assert comparison(a, same)["answer"] == "4.6"
    pct = (BranchFact("i", "p", "PubMed", "87%", frozenset({"bigram"})),
           BranchFact("c", "p", "PubMed", "54%", frozenset({"bigram"})))
    assert comparison(*pct)["answer"] == "33 percentage points"
    money = (BranchFact("i", "x", "Plan A", "$1,200", frozenset({"cost"})),
             BranchFact("c", "x", "Plan A", "$950", frozenset({"cost"})))
    assert comparison(*money)["answer"] == "$250"
    years = (BranchFact("i", "x", "Ruvo", "1998", frozenset({"founded"})),
             BranchFact("c", "y", "Kest", "1987", frozenset({"founded"})))
    assert comparison(*years) == {**comparison(*years), "operation": "earlier", "answer": "Kest"}
    assert comparison(a, BranchFact("c", "e2", "Korvex", "71.4", acc)) is None  # a tie tells nothing apart
    # One kind: a decimal score is no rival of a count or a percentage, nor of another measure.
    assert value_kind("71.4") != value_kind("12") and value_kind("54%") != value_kind("54")
    assert not same_measure(a, BranchFact("c", "e2", "Korvex", "68.2", frozenset({"latency"})))
    # A day after a month and a number run into a name are no values of the subject.
    assert not is_tied_value(" dated June 12", "12") and not is_tied_value(" 302 crashed", "302")
    assert is_tied_value(" reaches an accuracy of 66.8 after", "66.8")


@pytest.mark.timeout(900)
def test_a_strict_image_initiated_chain_starts_from_the_value_only_the_chart_prints(fork_view):
    """The chart identifies its bridge by the value printed at its bar (no other bar has it); the text
    hop that follows names the bridge among its rivals, so neither hop answers alone; the figure's fact
    is kept on the candidate and exported as the hop's figure_value, not as a table cell."""
    from builders.chains.writeback import _figure_facts

    view, settings, store = fork_view
    walker = _walker(view, settings, store, seed=3)
    drawn = [c for c in (walker.sample("image_initiated_chain") for _ in range(30)) if c is not None]
    assert drawn, f"no image_initiated chain: {dict(walker.deaths)}"
    for cand in drawn:
        assert [h.label for h in cand.hops] == ["Image", "Chunk"]
        fact = cand.meta["figure_fact"]
        chart = "Figure 1" if (fact["label"], fact["value"]) in {(n, str(v)) for n, v in CHART_BARS} else "Figure 2"
        assert (fact["label"], fact["value"]) in {(n, str(v)) for n, v in (*CHART_BARS, *SPRING_BARS)}
        assert view.entity_name[cand.hops[0].bridge] == fact["label"]
        assert _figure_facts(view, cand) == {0: {"label": fact["label"], "value": fact["value"], "figure": chart}}
        assert cand.table_cell is None


@pytest.mark.timeout(900)
def test_a_strict_multi_image_fork_compares_two_charts_through_a_text_hop(fork_view, monkeypatch):
    """Two charts print accuracies of one measure for the same models: the fork compares one model's two
    values, and its text hop (who built the model, no number) is how the question names the model."""
    view, settings, store = fork_view
    walker = _walker(view, settings, store, seed=4)
    drawn = [c for c in (walker.sample("multi_image_fork") for _ in range(20)) if c is not None]
    assert drawn, f"no multi_image_fork: {dict(walker.deaths)}"
    bars = {name: (str(w), str(s)) for (name, w), (_, s) in zip(CHART_BARS, SPRING_BARS)}
    for cand in drawn:
        fork = cand.meta["fork"]
        assert [h.label for h in cand.hops] == ["Image", "Image", "Chunk"] and fork["identifies"] == 2
        (a, va), (b, vb) = [(p["subject"], p["value"]) for p in fork["parts"]]
        assert a == b and {va, vb} == set(bars[a]) and fork["operation"] == "difference"
        assert fork["answer"] == f"{abs(float(va) - float(vb)):.1f}"
        assert view.entity_name[cand.meta["shared_entity"]] == a
        assert "Tessaline was built" in view.nodes[cand.hops[2].node_id].text or \
            "Korvex was built" in view.nodes[cand.hops[2].node_id].text
    # The text hop must tie the subject to something neither chart prints (fork_text.described_apart):
    # with no such text, no multi-image fork is drawn.
    monkeypatch.setattr("builders.chains.fork_walk.described_apart", lambda *args: False)
    walker = _walker(view, settings, store, seed=4)
    assert all(walker.sample("multi_image_fork") is None for _ in range(10))


def test_values_of_other_scales_units_or_signs_are_not_compared_as_equals():
    """"$45 billion" is no rival of "$450 million", "5 ms" none of "2 s"; a LaTeX minus keeps its sign;
    a value no number can be read from pairs with nothing (no comparison could be computed)."""
    from builders.chains.fork_walk import BranchFact, comparison, same_measure, scale_after
    from builders.chains.values import number, prose_values, value_kind

    rev = frozenset({"revenue"})
    big = BranchFact("i", "x", "Acme", "$45", rev, scale_after("Acme's revenue was $45 billion.", "$45"))
    small = BranchFact("c", "y", "Bolt", "$450", rev, scale_after("Bolt reported $450 million revenue", "$450"))
    assert (big.scale, small.scale) == ("billion", "million") and not same_measure(big, small)
    assert same_measure(big, replace(small, scale="billion"))  # "$450 bn" is of one scale with it
    fast, slow = (BranchFact("i", "x", "A", "5", frozenset({"latency"}), scale_after("latency of 5 ms", "5")),
                  BranchFact("c", "y", "B", "2", frozenset({"latency"}), scale_after("latency of 2 s.", "2")))
    assert (fast.scale, slow.scale) == ("ms", "s") and not same_measure(fast, slow)
    assert scale_after("12 thousand users", "12") != scale_after("12 million users", "12")
    # U+2212 as LaTeX prints it, an en dash, a hyphen: the sign is part of the value.
    assert prose_values("a change of \u22121.2 points, against 0.8 for B") == ["\u22121.2", "0.8"]
    assert prose_values("dropped by \u20133.5") == ["\u20133.5"] and prose_values("in 1990\u20132000") == ["1990"]  # a range, no -2000
    assert number("\u22121.2") == -1.2 and number("-$3") == -3.0 and number("¥500") == 500.0
    neg, pos = (BranchFact("i", "x", "A", "\u22121.2", frozenset({"gain"})),
                BranchFact("c", "y", "B", "0.8", frozenset({"gain"})))
    assert value_kind("\u22121.2") == value_kind("0.8") and comparison(neg, pos)["answer"] == "B"
    assert value_kind("¥500") == ("MONEY", "¥", False, False) != value_kind("$500")
    assert number("7B") is None and number("~50") is None


def test_same_measure_needs_a_word_of_the_measure_not_of_the_paper():
    from builders.chains.values import measure_words

    caption = measure_words("Accuracy of the four models", "")
    assert "accuracy" in caption and not caption & measure_words("a 12.5 GB model", "")
    for frame in ("figure", "table", "results", "data", "reported", "using", "model"):
        assert not measure_words(f"the {frame} of it", "")


def test_only_a_fork_that_computes_nothing_is_dropped_for_sharing_only_a_place():
    """Two branches about one country join two questions, unless the fork compares their values (a
    strict fork of two nations' figures asks one thing)."""
    from builders.chains.candidate import Candidate, Hop
    from builders.chains.fork_walk import fork_bridge
    from queries.corpus_view import CorpusView

    view = CorpusView()
    view.entity_label.update({"kenya": "GPE", "uganda": "GPE"})
    loose = Candidate("parallel_visual_textual_fork", [Hop("i", "Image", "kenya", "entity"),
                                                       Hop("c", "Chunk", "kenya", "entity")], [(0, 2), (1, 2)])
    assert fork_bridge(view, loose) == "pre-check: the fork's branches share only a place or a date"
    fork = {"operation": "larger", "answer": "Kenya",
            "parts": [{"hop": 0, "subject": "Kenya", "value": "5.1%"}, {"hop": 1, "subject": "Uganda", "value": "4.2%"}]}
    strict = Candidate("parallel_visual_textual_fork", [Hop("i", "Image", "kenya", "entity"),
                                                        Hop("c", "Chunk", "uganda", "entity")], [(0, 2), (1, 2)],
                       meta={"fork": fork})
    assert fork_bridge(view, strict) == ""


def test_two_numbers_that_count_different_things_are_no_fork():
    """q13: "XLM-R, which supports 100 languages" and "GPT-3, a massive language model 10 times larger
    than T5" share the word "language" but count languages and times: no comparison between them."""
    from builders.chains.fork_walk import BranchFact, counted_after, same_measure

    langs = BranchFact("c1", "xlm", "XLM-R", "100", frozenset({"languag", "support"}), "",
                       counted_after("XLM-R, which supports 100 languages", "100"))
    times = BranchFact("c2", "gpt3", "GPT-3", "10", frozenset({"languag", "massive"}), "",
                       counted_after("GPT-3, a massive language model that is 10 times larger", "10"))
    scored = BranchFact("c3", "t5", "T5", "61", frozenset({"languag"}), "", counted_after("T5 reaches 61 on it", "61"))
    assert (langs.counted, times.counted, scored.counted) == ("languages", "times", "")
    assert not same_measure(langs, times)
    assert same_measure(langs, scored)  # "61 on ..." says nothing of what it counts: the measure words decide


def test_two_subjects_of_two_documents_are_no_fork():
    """q32: a research agent's benchmark score (61.42, an LLM report) against a WLM service class's
    performance index (a z/OS manual) shared the word "performance"; q25 compared a figure's tick with
    another paper's masking rate. Rivals come from one document; one subject may span two."""
    from types import SimpleNamespace

    from builders.chains.fork_walk import BranchFact, ForkSteps

    nodes = {"fig": SimpleNamespace(doc_id="report"), "wlm": SimpleNamespace(doc_id="manual"),
             "text": SimpleNamespace(doc_id="manual")}
    walker = SimpleNamespace(view=SimpleNamespace(nodes=nodes))
    forks = ForkSteps(walker)
    agent = BranchFact("fig", "step-deepresearch", "Step-DeepResearch", "61.42", frozenset({"perform"}))
    cics = BranchFact("wlm", "cics", "CICS", "0.90", frozenset({"perform"}))
    assert not forks.pair_ok(agent, cics)
    same = BranchFact("text", "step-deepresearch", "Step-DeepResearch", "58.10", frozenset({"perform"}))
    assert forks.pair_ok(agent, same)  # one subject's two values: their difference


def test_a_branch_that_ranks_its_subject_among_all_others_answers_alone():
    """q45: "DeepSeek-Coder-V2-Instruct achieves 73.7% on Aider, the highest, surpassing all other
    models" answers "which scores higher on Aider?" without the chart's branch; such a branch makes no
    fork. A sentence that ranks nothing, or ranks without naming the subject, still may."""
    from builders.chains.fork_walk import ranks_subject

    q45 = ("On Aider, DeepSeek-Coder-V2-Instruct achieves 73.7%, the highest score, surpassing all other "
           "models including closed-source ones.")
    assert ranks_subject(q45, "DeepSeek-Coder-V2-Instruct")
    assert ranks_subject("Korvex outperforms every baseline on the winter split (68.2).", "Korvex")
    assert ranks_subject("Tessaline is state-of-the-art with 71.4.", "Tessaline")
    assert not ranks_subject("Tessaline reaches an accuracy of 66.8 after retraining.", "Tessaline")
    assert not ranks_subject("Korvex outperforms Tessaline by 2 points.", "Korvex")  # one rival: not all
    assert not ranks_subject("The best model reaches 71.4.", "Korvex")  # the subject is not named


@pytest.mark.timeout(900)
def test_a_strict_walker_draws_no_rival_fork_whose_text_ranks_its_subject(fork_view):
    """Rival pairs allowed whatever the chart names (pair_ok relaxed), the text's Tessaline 66.8 is
    compared with the chart's other models; once the text calls it the best of all models, no fork
    asking which rival is larger is drawn, while the difference of Tessaline's two values still is."""
    from builders.chains.fork_walk import same_measure

    view, settings, store = fork_view

    def drawn_forks():
        walker = _walker(view, settings, store)
        walker.forks.pair_ok = lambda a, b: same_measure(a, b) and a.node_id != b.node_id
        return walker, [c for c in (walker.sample("parallel_visual_textual_fork") for _ in range(30)) if c]

    _, before = drawn_forks()
    assert any(c.meta["fork"]["operation"] == "larger" for c in before)
    chunk = next(n for n, node in view.nodes.items() if node.label == "Chunk" and "66.8" in node.text)
    ranked = view.nodes[chunk].text.replace("66.8", "66.8, the best of all models,")
    view.nodes[chunk] = replace(view.nodes[chunk], text=ranked)
    walker, after = drawn_forks()
    assert after and all(c.meta["fork"]["operation"] == "difference" for c in after)
    assert walker.deaths["parallel_visual_textual_fork", "fork: a branch ranks its subject among all others; it answers alone"] > 0
