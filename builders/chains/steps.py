"""One step of a walk and its lookahead (the forward walkers' shared rules, walkers.py).

A step enters the next evidence node through a bridge that stands in a
relation with the incoming one; the lookahead keeps a walk out of dead ends;
a strict walker (an LLM pays per candidate, construction.py) also keeps only
nodes no kept chain ended in and, on a serial step, nodes that name rivals of
the bridge. Every way a strict step fails is counted in `deaths` (by chain
type and reason), so bench/supply.py can say where strict walks die.
"""

from __future__ import annotations

import random
from collections import Counter

from builders.chains.bridges import BridgeRules
from builders.chains.statements import StatementIndex
from builders.chains.supply import WalkMemory
from queries.corpus_view import CorpusView

# Why a step found no node, from the first filter to the last: a step that tried several
# bridges is counted under the furthest stage any of them reached.
STEP_DEATHS = ("step: no bridge in a relation with the incoming one",
               "step: no node to enter through the bridge",
               "step: lookahead found a dead end behind every node",
               "step: every node left ended a kept chain",
               "step: no node names a rival of the bridge (strict serial step)")


class Stepper:
    """The walker's step rules; Walker (walkers.py) supplies the corpus, the draws and the caches."""

    view: CorpusView
    rng: random.Random
    statements: StatementIndex
    rules: BridgeRules
    memory: WalkMemory
    strict: bool
    construction: object | None
    near_duplicate: float
    max_entity_degree: int
    deaths: Counter
    gtype: str  # the chain type being sampled (deaths are counted per type)
    _usable: dict[str, bool]
    _stem_cache: dict[str, frozenset[str]]
    _by_label: dict[tuple[str, str], list[str]]

    def died(self, reason: str) -> None:
        """Count one failed walk (or step) of the type being sampled, by reason."""
        self.deaths[(self.gtype, reason)] += 1

    def _stems(self, ent: str) -> frozenset[str]:
        stems = self._stem_cache.get(ent)
        if stems is None:
            words = self.view.entity_name.get(ent, ent).lower().replace("-", " ").split()
            stems = frozenset(w[:-1] if w.endswith("s") and len(w) > 3 else w for w in words)
            self._stem_cache[ent] = stems
        return stems

    def names_overlap(self, ent: str, others: set[str]) -> bool:
        """One name holds the other ("AOA sensors" in "AOA sensor failures", "COARSE" in "COARSE
        annotations"): a hop asking for one while the question names the other gives itself away."""
        mine = self._stems(ent) if ent else frozenset()
        if not mine:
            return False
        return any(o and o != ent and (mine <= self._stems(o) or self._stems(o) <= mine) for o in others)

    def bridgeable(self, ent: str) -> bool:
        ok = self._usable.get(ent)
        if ok is None:
            degree = len(self.view.mentioned_by.get(ent, ()))
            ok = 2 <= degree <= self.max_entity_degree and self.rules.can_bridge(ent)
            self._usable[ent] = ok
        return ok

    def outgoing(self, node_id: str, incoming: str) -> list[str]:
        """Entities this hop can ask for: in a relation with `incoming`, or anchors of a first hop."""
        if incoming:
            return self.statements.partners(node_id, incoming)
        return self.statements.anchors(node_id)

    def compatible(self, node_id: str, visited: list[str]) -> bool:
        if node_id in visited:
            return False
        return all(self.view.similarity(node_id, v) < self.near_duplicate for v in visited)

    TRIES = 12

    def step(self, current: str, incoming: str, visited: list[str], want: str = "Chunk",
             avoid_entities: set[str] = frozenset(), onward: str = "",
             earlier: set[str] | None = None, serial: bool = False) -> tuple[str, str] | None:
        """Next node of label `want`, entered through a bridge of `current`: (entity, node).

        The entered node must itself name the bridge in a usable sentence. With
        probability 0.8 another document is preferred (when one qualifies).

        `earlier` (the entities the hops before `current` mention) asks for a
        clean step: the bridge is new at `current`, and the entered node names
        none of the chain's other bridges. A bridge an earlier hop already
        names, or a later hop that names an earlier bridge, lets a reader skip
        the hops in between: verification rejected most long chains for that.

        `serial` on a strict walker: the entered node must name rivals of the
        bridge (construction.py), or it would answer without the hop before.
        """
        entities = [e for e in self.outgoing(current, incoming)
                    if e not in avoid_entities and e != incoming and self.bridgeable(e)
                    and not self.names_overlap(e, set(avoid_entities) | {incoming})]
        if serial and self.strict and self.construction is not None and incoming:
            # The next bridge of the incoming one's kind would be counted as its rival (see answer_entity).
            entities = [e for e in entities if not self.construction.same_kind(incoming, e)]
        self.rng.shuffle(entities)
        if earlier is not None:
            # Clean bridges first; the others stay possible (verification judges them
            # sentence by sentence, which is finer than these chunk-level rules).
            entities.sort(key=lambda e: e in earlier)
        if self.strict:  # bridges no kept chain used come first (supply.py)
            entities.sort(key=lambda e: self.memory.bridges[e])
        doc = self.view.nodes[current].doc_id
        stage = 1 if entities else 0  # how far the best bridge got (STEP_DEATHS)
        for ent in entities[:6]:
            pool = self._by_label.get((ent, want))
            if not pool:
                continue
            cross_wanted = self.rng.random() < 0.8
            options, clean, entered = [], [], False
            for n in self._draw(pool):
                if not self._enterable(n, ent, doc, visited):
                    continue
                entered = True
                # The clean lookahead is the stricter one: a node that passes it passes the plain one.
                if earlier is not None and ent not in earlier and self._clean_entry(n, ent, avoid_entities) \
                        and self._leads_on(n, ent, avoid_entities, visited, onward, earlier):
                    clean.append(n)
                elif self._leads_on(n, ent, avoid_entities, visited, onward):
                    options.append(n)
            stage = max(stage, 2 if entered else 1, 3 if clean or options else 0)
            options = [n for n in clean or options if not self.strict or self.memory.fresh(n)]
            if serial and self.strict and self.construction is not None:
                stage = max(stage, 4 if options else 0)
                options = [n for n in options if self.construction.rivals_of(n, ent, avoid_entities)]
            if not options:
                continue
            cross = [n for n in options if self.view.nodes[n].doc_id != doc]
            return ent, self.rng.choice(cross if cross and cross_wanted else options)
        self.died(STEP_DEATHS[stage])
        return None

    def _draw(self, pool: list[str]) -> list[str]:
        return list(pool) if len(pool) <= self.TRIES else [pool[self.rng.randrange(len(pool))] for _ in range(self.TRIES)]

    def chunks_entered_by(self, entity: str) -> list[str]:
        """Up to TRIES chunks that mention `entity`, drawn from the seed (a backward step's options)."""
        return self._draw(self._by_label.get((entity, "Chunk"), []))

    def _enterable(self, node_id: str, ent: str, from_doc: str, visited: list[str]) -> bool:
        if not self.compatible(node_id, visited):
            return False
        if self.view.nodes[node_id].doc_id != from_doc and not self.rules.cross_document_ok(ent):
            return False
        return bool(self.statements.partners(node_id, ent))

    def _clean_entry(self, node_id: str, ent: str, bridges: set[str]) -> bool:
        """The entered node names no bridge of the chain but the one it is entered by."""
        return not (self.view.mentions.get(node_id, set()) & (set(bridges) - {ent}))

    def _leads_on(self, node_id: str, ent: str, avoid: set[str], visited: list[str], onward: str,
                  earlier: set[str] | None = None) -> bool:
        """Lookahead, so a walk does not enter a dead end.

        onward "bridge": some bridge of `node_id` (in a relation with `ent`)
        reaches a further node that could be entered; "answer": the node has
        an answer for the final hop; "": no requirement. With `earlier` (a
        clean walk) the lookahead keeps the clean-step rules of step(): the
        answer or next bridge is named by no hop before `node_id`.
        """
        before = None if earlier is None else earlier | set().union(
            *(self.view.mentions.get(v, set()) for v in visited))
        if onward == "answer":
            return any(e not in avoid and e != ent and self.rules.can_answer(e)
                       and not self.names_overlap(e, set(avoid) | {ent})
                       and (before is None or e not in before)
                       for e in self.statements.partners(node_id, ent))
        if onward != "bridge":
            return True
        doc = self.view.nodes[node_id].doc_id
        seen = [*visited, node_id]
        bridges = set(avoid) | {ent}
        for e in self.statements.partners(node_id, ent):
            if e in avoid or e == ent or not self.bridgeable(e) or (before is not None and e in before) \
                    or self.names_overlap(e, set(avoid) | {ent}):
                continue
            pool = self._by_label.get((e, "Chunk"), [])
            if any(n not in seen and self._enterable(n, e, doc, seen)
                   and (before is None or self._clean_entry(n, e, bridges)) for n in self._draw(pool)):
                return True
        return False

