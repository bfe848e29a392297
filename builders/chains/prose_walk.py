"""Text chains that end in prose with rivals: walked backwards from a last hop that states one
relation for several entities of a kind (strict runs, issue 21).

A strict verifier drops a last hop that names one candidate: by elimination it answers alone. The
honest prose last hop is the table's counterpart in running text: "The Tallinn laboratory operates
the Baltic Explorer, the Riga centre the Gulf Star and the Helsinki institute the Aurora", a list
of systems each with its author, a paragraph comparing methods. Such a chunk X holds a *pairing*:
entities of one kind (the bridge's: same_kind, construction.py) each tied to an answer of another
kind by a relation inside one sentence (statements.partners, from spaCy's tags), the bridge's answer
tied to no rival; the answer may be a number the chunk states (values.py). Without the earlier hop a reader cannot tell which entity the question means.

The walk starts at such a pairing and goes backwards by the table walk's rules (table_walk.py):
the hop before X names the bridge in a relation with its own incoming bridge (or, as the first
hop, in a usable sentence) and names neither the answer nor any rival, so the fact that identifies
the bridge is one the rivals do not share. construction.py then checks that fact's words.
"""

from __future__ import annotations

from dataclasses import dataclass

from builders.chains.candidate import Candidate, Hop
from builders.chains.table_walk import Entry, StepRules, TableWalk
from builders.chains.values import is_value, listed_rivals, value_ties

MIN_RIVALS = 2  # other entities of the bridge's kind with an answer of their own: the bridge is one of >= 3


@dataclass(frozen=True)
class Pairing:
    chunk: str  # the last hop
    bridge: str  # the entity it is entered by
    answer: str  # the entity tied to the bridge there (the chain's answer)
    rivals: tuple[str, ...]  # other entities of the bridge's kind, each tied to another answer of the answer's kind


def pairings(walker: StepRules, construction, chunk: str) -> list[Pairing]:
    """Every (bridge, answer) of `chunk` whose relation the chunk states for MIN_RIVALS other entities
    of the bridge's kind too, each with its own answer of the answer's kind (for a number: the other
    entities listed with numbers of its type and form, values.listed_rivals)."""
    view, specific = walker.view, walker.rules.specific
    ents = sorted(e for e in view.mentions.get(chunk, ()) if specific(e))
    listed = value_ties(walker.statements, chunk, ents)
    ties = {e: {a for a in walker.statements.partners(chunk, e) if (specific(a) or is_value(a))
                and not construction.same_kind(e, a)} | set(listed.get(e, {})) for e in ents}
    out = []
    for bridge in ents:
        if not ties[bridge] or not walker.bridgeable(bridge):
            continue
        kin = [o for o in ents if o != bridge and ties[o] and construction.same_kind(bridge, o)
               and not walker.names_overlap(o, {bridge})]
        for answer in sorted(ties[bridge]):
            if is_value(answer):
                rivals = tuple(o for o in listed_rivals(view, listed, bridge, answer)
                               if not walker.names_overlap(o, {bridge}) and answer not in ties[o])
            elif any(answer in ties[o] for o in kin) or not walker.rules.can_answer(answer):
                continue  # tied to a rival too: the bridge does not pick it
            else:
                rivals = tuple(o for o in kin if any(x != answer and construction.same_kind(answer, x)
                                                     and not walker.names_overlap(x, {answer}) for x in ties[o]))
            if len(rivals) >= MIN_RIVALS:
                out.append(Pairing(chunk, bridge, answer, rivals))
    return out


class ProseWalk:
    """Draws pairings from random chunks (found lazily, cached) and walks back from them."""

    TRIES = 6  # pairings tried for one sample

    def __init__(self, walker: StepRules, table_walk: TableWalk):
        self.walker = walker
        self.table_walk = table_walk  # its backward steps
        self._pool: list[str] | None = None  # chunks not yet found to hold no pairing
        self._found: dict[str, list[Pairing]] = {}

    def _pairings(self, chunk: str) -> list[Pairing]:
        found = self._found.get(chunk)
        if found is None:
            found = self._found[chunk] = pairings(self.walker, self.walker.construction, chunk)
        return found

    def draw(self) -> Pairing | None:
        """A pairing of a random chunk no kept chain ended in (chunks without one are dropped for good)."""
        w = self.walker
        if self._pool is None:
            self._pool = list(w.chunks)
        pool = self._pool
        while pool:
            i = w.rng.randrange(len(pool))
            options = self._pairings(pool[i]) if w.memory.fresh(pool[i]) else []
            if options:
                return w.rng.choice(options)
            pool[i] = pool[-1]
            pool.pop()
        return None

    def chain(self, length: int) -> Candidate | None:
        """A text chain of `length` hops ending in a pairing's chunk, answered by its answer."""
        w = self.walker
        for _ in range(self.TRIES):
            pairing = self.draw()
            if pairing is None:
                w.died("prose: no last hop states one relation for 3+ entities of a kind")
                return None
            keep_out = {pairing.answer, *pairing.rivals}
            last = Hop(pairing.chunk, "Chunk")
            found = self.table_walk.before([last], pairing.bridge, keep_out | {pairing.bridge}, opens=length == 2)
            hops = None
            if found is not None:
                entry = Entry(found[0], found[1], pairing.bridge)
                hops = self.table_walk.backwards(entry, length - 1, keep_out)
            if hops is None:
                w.died("prose: no earlier hop names the bridge without its rivals")
                continue
            structure = [(i, i + 1) for i in range(length)]
            return Candidate("text_chain", [*hops, last], structure, pairing.answer)
        return None
