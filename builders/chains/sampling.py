"""Drawing the candidates of one generation round from the walker.

Types are drawn round-robin, each up to what the round wants of it, under
the diversity caps (quotas.py). A round that comes short opens up in steps,
within the same round: first every type may fill the others' share, then
the caps are relaxed (up to twice). Each step used to be a round of
its own, and with an LLM every round costs at least one verbalize and one
verify round trip, so a 50-chain run spent four rounds where one does.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from builders.chains.quotas import TABLE_TEMPLATE, Quotas, VarietyLimit
from builders.chains.structure import StructureError, build_structure
from builders.chains.walkers import Candidate, Walker
from queries.corpus_view import CorpusView

MAX_EMPTY_SAMPLES = 400  # consecutive failed samples of one type before it is declared exhausted
# A candidate the pre-check dropped, drawn again: counted apart, so the reasons count distinct
# candidates. A walk with few ways out redraws the same one (a markdown + wiki set: one table
# chain dropped 259 times in one round, which read as 259 candidates worded in a later hop).
DRAWN_AGAIN = "drawn again after the pre-check dropped it"
MAX_RELAXED = 2  # times the caps are relaxed (to n x 3, then n x 4) before a run stops for want of chains


class RoundDraw:
    """The walker, the caps and how far they have been opened, across the rounds of one run."""

    def __init__(self, view: CorpusView, walker: Walker, types: list[str], n: int, skip: set[str], report,
                 used_docs: Counter | None = None, used_topics: Counter | None = None,
                 variety_share: float = 0.2) -> None:
        self.view, self.walker, self.types, self.n = view, walker, types, n
        self.skip, self.report = skip, report  # ids already drawn or in the graph; report.candidates counts draws
        self.used_docs, self.used_topics = used_docs, used_topics
        self.variety = VarietyLimit(n, variety_share)  # one for the run: relaxing the caps keeps it
        self.quotas = Quotas(view, n, used_docs, used_topics, self.variety)
        self.open_all = False  # every type may take the whole round
        self.relaxed = 0
        self.seen_paths: set[tuple] = set()  # bridge sequences and (last hop, answer) pairs drawn this run

    def round(self, want: dict[str, int], size: int) -> Iterator[Candidate]:
        """Up to `size` candidates (want[type] of each), opening up in steps while short."""
        drawn = 0
        while True:
            for cand in draw_candidates(self.view, self.walker, self.types, want, self.skip, self.quotas,
                                        self.report, limit=size - drawn, seen=self.seen_paths):
                drawn += 1
                yield cand
            if drawn >= size or not self._open_up():
                return
            want = {t: size - drawn for t in self.types}

    def _open_up(self) -> bool:
        """One step more open; False when there is none left."""
        if not self.open_all:
            self.open_all = True
        elif self.relaxed < MAX_RELAXED:
            self.relaxed += 1
            self.quotas = Quotas(self.view, self.n * (2 + self.relaxed), self.used_docs, self.used_topics,
                                 self.variety)
        else:
            return False
        return True


def draw_candidates(view: CorpusView, walker: Walker, types: list[str], want: dict[str, int],
                    skip: set[str], quotas: Quotas, report, limit: int | None = None,
                    seen: set[tuple] | None = None) -> Iterator[Candidate]:
    """New candidates, round-robin over the types, up to want[type] each and
    `limit` in all, one at a time (an LLM round starts on each as it comes).

    A type that runs dry hands what it still wanted to the types still
    drawing, so the round holds about as many chains as it asked for."""
    want = dict(want)
    failures: Counter = Counter()
    got: Counter = Counter()
    active = [t for t in types if want.get(t, 0) > 0]
    dry: set[str] = set()
    total = 0
    while active and (limit is None or total < limit):
        for gtype in list(active):
            cand = walker.sample(gtype)
            report.candidates += cand is not None
            if usable(view, walker, cand, skip, quotas) and distinct(walker, cand, seen, report):
                skip.add(cand.id)
                quotas.take_chain(view, cand.node_ids, cand.bridges, template_of(cand, walker.strict))
                got[gtype] += 1
                failures[gtype] = 0
                total += 1
                yield cand
                if limit is not None and total >= limit:
                    return
            else:
                failures[gtype] += 1
            if got[gtype] >= want[gtype]:
                active.remove(gtype)
            elif failures[gtype] >= MAX_EMPTY_SAMPLES:
                active.remove(gtype)
                dry.add(gtype)
                active = _hand_on(want, got, gtype, [t for t in types if want.get(t, 0) > 0 and t not in dry])


def usable(view: CorpusView, walker: Walker, cand: Candidate | None, skip: set[str], quotas: Quotas) -> bool:
    """A new candidate of at least min_hops (fork walkers build fixed sizes) that the caps and its structure allow."""
    if cand is None or len(cand.hops) < walker.min_hops or cand.id in skip:
        return False
    if not quotas.allows_chain(view, cand.node_ids, cand.bridges, template_of(cand, walker.strict)):
        return False
    try:
        build_structure(len(cand.hops), cand.structure)
    except StructureError:
        return False
    return True


def template_of(cand: Candidate, llm_writes: bool = False) -> str:
    """The fixed question template a candidate is asked with ("" when its question is its own). With
    an LLM (a strict walker) every question is written for its chain: no template, so no template
    cap. It had held every strict run of n=10 to 2 chains ending in a table cell (q17-q22), and most
    strict chains end in one; the cap on one table's share still holds."""
    return TABLE_TEMPLATE if cand.table_cell is not None and not llm_writes else ""


def path_keys(cand: Candidate) -> list[tuple]:
    """What two chains must not share: their bridge sequence, and their last hop with its answer
    (the same chain with only its first hop changed is one question asked twice)."""
    cell = cand.table_cell
    keys = [("end", cand.hops[-1].node_id, cell.key if cell else cand.answer_entity)]
    if cand.bridges:
        keys.append(("bridges", *cand.bridges))
    return keys


def distinct(walker: Walker, cand: Candidate, seen: set[tuple] | None, report) -> bool:
    """With `walker.strict` (an LLM will be paid for it): a path not drawn before this run that
    passes the construction pre-check (construction.py), its figures kept on the candidate; a
    candidate either faults is dropped and counted in report.prechecked by reason (once: a dropped
    candidate drawn again is counted as DRAWN_AGAIN). Offline, every
    candidate passes (dedup judges repeats; generate records the figures of the chains it keeps)."""
    keys = path_keys(cand) if getattr(walker, "strict", False) else []  # offline: dedup judges repeats
    if seen is not None and any(k in seen for k in keys):
        _count(report, "same bridges or same last hop as an earlier chain")
        return False
    if seen is not None and ("dropped", cand.id) in seen:
        _count(report, DRAWN_AGAIN)
        return False
    construction = getattr(walker, "construction", None)
    if construction is not None and walker.strict:
        figures = construction.check(cand)
        cand.meta["construction"] = figures.to_dict()
        if figures.reason:
            _count(report, figures.reason.split(": ", 1)[-1])
            if seen is not None:
                seen.add(("dropped", cand.id))
            return False
    if seen is not None:
        seen.update(keys)
    if getattr(walker, "strict", False) and getattr(walker, "memory", None) is not None:
        walker.memory.remember(cand)  # the walker looks elsewhere from now on (supply.py)
    return True


def _count(report, reason: str) -> None:
    counter = getattr(report, "prechecked", None)
    if counter is not None:
        counter[reason] += 1


def _hand_on(want: dict[str, int], got: Counter, dry: str, takers: list[str]) -> list[str]:
    """Share what the dry type still wanted among the takers (types still
    drawing, or done with their own share), in order; returns the types to draw."""
    left = want[dry] - got[dry]
    for i, gtype in enumerate(takers):
        want[gtype] += left // len(takers) + (i < left % len(takers))
    return [t for t in takers if got[t] < want[t]]
