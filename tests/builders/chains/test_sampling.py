"""Drawing a round's candidates (builders/chains/sampling.py): shares handed on, limits, opening up within a round."""

from __future__ import annotations

from builders.chains import sampling
from builders.chains.candidate import Candidate, Hop


class Report:
    candidates = 0


class FakeWalker:
    """Type "many" always finds a new 2-hop chain, type "none" never does."""

    min_hops = 2
    strict = False

    def __init__(self) -> None:
        self.drawn = 0

    def sample(self, gtype: str) -> Candidate | None:
        if gtype == "none":
            return None
        self.drawn += 1
        hops = [Hop(f"c{self.drawn}a", "Chunk", f"e{self.drawn}", "entity"), Hop(f"c{self.drawn}b", "Chunk")]
        return Candidate(gtype, hops, [(0, 1), (1, 2)], answer_entity=f"ans{self.drawn}")


class CountingQuotas:
    """Allows `target // 10` chains: relaxing (a larger target) allows more."""

    def __init__(self, view, target: int, used_docs=None, used_topics=None, variety=None) -> None:
        self.allowed = target // 10
        self.taken = 0

    def allows_chain(self, view, node_ids, bridges, template="") -> bool:
        return self.taken < self.allowed

    def take_chain(self, view, node_ids, bridges, template="") -> None:
        self.taken += 1


def test_a_type_that_runs_dry_hands_its_share_on_and_the_limit_holds(monkeypatch):
    monkeypatch.setattr(sampling, "MAX_EMPTY_SAMPLES", 5)
    quotas = CountingQuotas(None, 1000)
    got = list(sampling.draw_candidates(None, FakeWalker(), ["many", "none"], {"many": 3, "none": 4}, set(),
                                        quotas, Report()))
    assert [c.graph_type for c in got] == ["many"] * 7  # its own 3 and the 4 "none" could not find
    capped = list(sampling.draw_candidates(None, FakeWalker(), ["many", "none"], {"many": 3, "none": 4}, set(),
                                           CountingQuotas(None, 1000), Report(), limit=5))
    assert len(capped) == 5


def test_a_short_round_opens_up_within_the_round(monkeypatch):
    """The first caps allow 5 chains (n = 50); the round asks for 12: it relaxes
    the caps (n x 3 allows 15) instead of ending short and costing a round."""
    monkeypatch.setattr(sampling, "Quotas", CountingQuotas)
    monkeypatch.setattr(sampling, "MAX_EMPTY_SAMPLES", 5)
    draw = sampling.RoundDraw(None, FakeWalker(), ["many"], 50, set(), Report())
    first = list(draw.round({"many": 12}, 12))
    assert len(first) == 12 and draw.open_all and draw.relaxed == 1
    # Each id drawn once: the next round draws new chains only.
    second = list(draw.round({"many": 30}, 30))
    assert len(second) == 8 + 20  # what n x 3 still allows, then n x 4 (fresh caps) allows 20
    assert draw.relaxed == 2
    assert not {c.id for c in first} & {c.id for c in second}
    assert list(draw.round({"many": 5}, 5)) == []  # the caps are as open as they go


def test_rounds_that_fill_up_do_not_open_the_caps(monkeypatch):
    monkeypatch.setattr(sampling, "Quotas", CountingQuotas)
    draw = sampling.RoundDraw(None, FakeWalker(), ["many"], 100, set(), Report())
    assert len(list(draw.round({"many": 4}, 4))) == 4
    assert not draw.open_all and draw.relaxed == 0


def test_one_table_or_the_table_template_gives_at_most_the_variety_share():
    """n = 50 at the default 20%: one table is in at most 10 chains, and at most 10 chains
    are table-cell questions, however often the walker offers them."""
    from types import SimpleNamespace

    from builders.chains.quotas import TABLE_TEMPLATE, VarietyLimit

    view = SimpleNamespace(nodes={"t1": SimpleNamespace(kind="table"), "t2": SimpleNamespace(kind="table"),
                                  "p": SimpleNamespace(kind="text")})
    limit = VarietyLimit(50, 0.2)
    taken = 0
    for _ in range(40):
        if limit.allows(view, ["p", "t1"]):
            limit.take(view, ["p", "t1"])
            taken += 1
    assert taken == 10 and limit.allows(view, ["p", "t2"]) and limit.allows(view, ["p"])
    cells = sum(1 for i in range(40) if limit.allows(view, ["p"], TABLE_TEMPLATE) and
                limit.take(view, ["p"], TABLE_TEMPLATE) is None)
    assert cells == 10


def test_llm_written_table_questions_have_no_template_and_no_template_cap():
    """Offline, a chain ending in a table cell is asked with the one table-cell template, capped at the
    variety share. With an LLM every question is written for its chain: a strict run of n=10 had been
    held to 2 table chains (q17-q22), most of what strict walks find."""
    from builders.chains.candidate import Candidate, Hop
    from builders.chains.quotas import TABLE_TEMPLATE
    from builders.chains.sampling import template_of

    cell = {"table_id": "t1", "row_label": "Gulf Star", "column_label": "Crew", "value": "12"}
    cand = Candidate("text_chain", [Hop("c1", "Chunk", "gulf star", "entity"), Hop("t1", "Chunk")],
                     [(0, 1), (1, 2)], "", {"table_cell": cell})
    assert template_of(cand) == TABLE_TEMPLATE
    assert template_of(cand, llm_writes=True) == ""
    assert template_of(Candidate("text_chain", cand.hops, cand.structure, "x"), llm_writes=False) == ""
