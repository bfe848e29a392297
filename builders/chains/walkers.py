"""Walkers: sample candidate evidence chains of the five graph types.

A candidate is a list of hops (one evidence node each) plus the bridges that
join them and a reasoning structure (builders/chains/structure.py). Rules every walker
keeps:

* consecutive hops share a bridge: a specific Entity (bridges.py) that stands
  in a relation with the previous bridge inside one sentence of the hop
  (statements.py), so the hop can be asked about from its own evidence;
* evidence is body text (or an image), never contents or references; a
  table only as the last hop of a text chain, answered by one cell whose
  row label is the incoming bridge (tables.py, table_walk.py), with
  probability `table_share` when such a chain exists;
* no node twice, no two hops with near-identical evidence (SIMILAR_TO >= `near_duplicate`);
* cross-document steps are preferred; a document or topic that has its share is not started from;
* everything is driven by one seeded random.Random, so a seed gives a run.
"""

from __future__ import annotations

import random
from collections import Counter

from builders.chains.bridges import BridgeRules
from builders.chains.candidate import Candidate, Hop
from builders.chains.chain_types import chain_type
from builders.chains.prose_walk import ProseWalk
from builders.chains.statements import StatementIndex
from builders.chains.steps import Stepper
from builders.chains.supply import WalkMemory
from builders.chains.table_pairs import TablePairWalk
from builders.chains.table_walk import TableWalk
from builders.chains.tables import TableIndex
from queries.corpus_view import CorpusView


class Walker(Stepper):
    """Samples candidates whose every hop can be put into words from its own evidence.

    A bridge is chosen only among entities that stand in a relation (one
    sentence, a verb between them) with the entity the walk came in on, pass
    the bridge rules (builders/chains/bridges.py), and lead to a node that
    may serve as evidence.
    """

    def __init__(self, view: CorpusView, rng: random.Random, min_hops: int = 2, max_hops: int = 4,
                 near_duplicate: float = 0.92, max_entity_degree: int | None = None,
                 statements: StatementIndex | None = None, table_share: float = 0.3,
                 tables: TableIndex | None = None):
        self.view = view
        self.rng = rng
        self.min_hops = min_hops
        self.max_hops = max(min_hops, max_hops)
        self.near_duplicate = near_duplicate
        self.statements = statements or StatementIndex(view, BridgeRules(view))
        self.rules = self.statements.rules
        # Entities mentioned nearly everywhere make weak bridges; skip the most frequent ones.
        n_nodes = max(1, len(view.nodes))
        self.max_entity_degree = max_entity_degree or max(8, n_nodes // 10)
        self.table_share = table_share
        self.table_walk = TableWalk(self, tables or TableIndex(view, self.rules.evidence_roles))
        self.prose_walk = ProseWalk(self, self.table_walk)
        self.table_pairs = TablePairWalk(self, [self.table_walk.tables])  # strict runs only (text_chain)
        # construction.py's pre-check (make_walker), enforced when `strict` (an LLM pays per candidate).
        self.construction = None
        self.strict = False
        self.forks = None  # a strict run's forks of values of one kind (fork_walk.py, set by make_walker)
        self.chunks = [c for c in view.chunk_ids if view.mentions.get(c) and self.rules.evidence_ok(c)]
        self.memory = WalkMemory(lambda c: view.nodes[c].doc_id, self.chunks)  # starts; a strict run's ends
        self.images = [i for i in view.image_ids if view.mentions.get(i) or view.image_links.get(i)]
        self._usable: dict[str, bool] = {}
        self.deaths: Counter = Counter()  # (chain type, reason) -> failed walks and steps (steps.py)
        self.gtype = ""
        self._stem_cache: dict[str, frozenset[str]] = {}
        # Nodes per (entity, label), built once: a step draws from these lists
        # instead of scanning every mention of an entity (bench/walk.py).
        self._by_label: dict[tuple[str, str], list[str]] = {}
        evidence = set(self.chunks) | set(self.images)
        for ent in sorted(view.mentioned_by):
            for n in sorted(view.mentioned_by[ent]):
                node = view.nodes.get(n)
                if node is not None and n in evidence:
                    self._by_label.setdefault((ent, node.label), []).append(n)

    # ---- shared steps ---------------------------------------------------
    def sample_length(self) -> int:
        """min..max hops, weighted toward 3 and more (weights 1 : 8 : 8 : ...): longer walks
        fail more often, so they must be tried more often for the accepted average to reach 3."""
        lengths = list(range(self.min_hops, self.max_hops + 1))
        # Strict (construction.py): every hop needs rivals of its bridge, rare on long walks; even draw.
        weights = [1 if n == 2 or self.strict else 8 for n in lengths]
        return self.rng.choices(lengths, weights)[0]

    def answer_entity(self, node_id: str, incoming: str, exclude: set[str], bridges: set[str] = frozenset(),
                      serial: bool = False) -> str:
        """An entity of the last hop, in a relation with `incoming`, to be the final answer."""
        options = [e for e in self.outgoing(node_id, incoming)
                   if e not in exclude and e != incoming and self.rules.can_answer(e)
                   and not self.names_overlap(e, set(bridges) | {incoming})]
        if serial and self.strict and self.construction is not None and incoming:
            # An answer of the bridge's own kind is no rival: "FINE annotations score higher than
            # COARSE annotations" names the other one whichever the question means.
            options = [e for e in options if not self.construction.same_kind(incoming, e)]
            # An answer with rivals of its kind here first: the only candidate answers alone (construction.py).
            rich = [e for e in options if self.construction.answer_rivals(node_id, e, set(bridges), incoming)]
            options = rich or options
        return self.rng.choice(options) if options else ""

    def linked_image(self, chunk_id: str, visited: list[str]) -> str | None:
        links = sorted(i for i in self.view.image_links.get(chunk_id, ())
                       if self.view.nodes.get(i) and self.view.nodes[i].label == "Image"
                       and self.compatible(i, visited))
        return self.rng.choice(links) if links else None

    def start_chunk(self) -> str | None:
        """A random chunk with an entity a first hop can ask for (strict: a random document's)."""
        return self.memory.start(self.rng, lambda c: any(self.bridgeable(e) for e in self.outgoing(c, "")),
                                 by_document=self.strict)

    def text_path(self, start: str, length: int, visited: list[str], incoming: str = "") -> list[Hop] | None:
        """A serial walk of `length` chunks from `start`, each step clean (see step())."""
        hops = [Hop(start, self.view.nodes[start].label)]
        used_bridges: set[str] = {incoming} if incoming else set()
        while len(hops) < length:
            earlier = set().union(*(self.view.mentions.get(n, set()) for n in visited),
                                  *(self.view.mentions.get(h.node_id, set()) for h in hops[:-1]))
            nxt = self.step(hops[-1].node_id, incoming, visited + [h.node_id for h in hops], "Chunk",
                            used_bridges, onward="bridge" if len(hops) + 1 < length else "answer",
                            earlier=earlier, serial=True)
            if nxt is None:
                return None
            ent, node = nxt
            hops[-1].bridge, hops[-1].bridge_kind = ent, "entity"
            used_bridges.add(ent)
            incoming = ent
            hops.append(Hop(node, "Chunk"))
        return hops

    # ---- the five graph types ---------------------------------------------
    STARTS = 8  # start nodes tried for one sampled length before the sample fails

    def text_chain(self) -> Candidate | None:
        if not self.chunks:
            return None
        length = self.sample_length()
        if self.strict and self.construction is not None:
            # Strict: walked back from a last hop with rivals first, a table row or a prose pairing
            # (prose_walk.py); forward walks rarely reach one.
            ends = [self.table_walk.chain] if self.table_walk.possible(length) else []
            ends.append(self.prose_walk.chain)
            if self.table_pairs.possible(length):
                ends.append(self.table_pairs.chain)
            self.rng.shuffle(ends)
            for end in ends:
                cand = end(length)
                if cand is not None:
                    return cand
        elif self.table_walk.possible(length) and self.rng.random() < self.table_share:
            cand = self.table_walk.chain(length)
            if cand is not None:
                return cand
        for _ in range(self.STARTS):
            start = self.start_chunk()
            if start is None:
                return None
            cand = self._serial("text_chain", self.text_path(start, length, []))
            if cand is not None:
                return cand
        return None

    def image_initiated_chain(self) -> Candidate | None:
        if not self.images:
            return None
        length = self.sample_length()
        for _ in range(self.STARTS):
            cand = self._image_then_text(length)
            if cand is not None:
                return cand
        return None

    def _image_then_text(self, length: int) -> Candidate | None:
        image = self.rng.choice(self.images)
        nxt = self.step(image, "", [image], "Chunk", serial=True)
        if nxt is None:
            return None
        rest = self.text_path(nxt[1], length - 1, [image], incoming=nxt[0])
        if rest is None:
            return None
        return self._serial("image_initiated_chain", [Hop(image, "Image", nxt[0], "entity"), *rest])

    def text_initiated_chain(self) -> Candidate | None:
        if not self.chunks or not self.images:
            return None
        length = self.sample_length()
        for _ in range(self.STARTS):
            cand = self._text_then_image(length)
            if cand is not None:
                return cand
        return None

    def _text_then_image(self, length: int) -> Candidate | None:
        start = self.start_chunk()
        hops = self.text_path(start, length - 1, []) if start else None
        if hops is None:
            return None
        incoming = hops[-2].bridge if len(hops) > 1 else ""
        nxt = self.step(hops[-1].node_id, incoming, [h.node_id for h in hops], "Image",
                        {h.bridge for h in hops}, serial=True)
        if nxt is None:
            return None
        hops[-1].bridge, hops[-1].bridge_kind = nxt[0], "entity"
        hops.append(Hop(nxt[1], "Image"))
        return self._serial("text_initiated_chain", hops)

    def parallel_visual_textual_fork(self) -> Candidate | None:
        """An image branch and a text branch about one shared entity (strict: fork_walk.py's values of
        one kind; a fork of facts of two kinds is two questions joined by "and", never drawn)."""
        if not self.images or not self.chunks:
            return None
        if self.strict:
            return self.forks.parallel() if self.forks is not None else None
        image = self.rng.choice(self.images)
        nxt = self.step(image, "", [image], "Chunk")
        if nxt is None:
            return None
        ent, chunk = nxt
        hops = [Hop(image, "Image", ent, "entity"), Hop(chunk, "Chunk", ent, "entity")]
        answer = self.answer_entity(chunk, ent, {ent} | self.view.mentions.get(image, set()))
        if not answer:
            return None
        return Candidate("parallel_visual_textual_fork", hops, [(0, 2), (1, 2)], answer)

    def multi_image_fork(self) -> Candidate | None:
        """Two images sharing an entity (compared or combined), plus a text hop (strict: fork_walk.py)."""
        if len(self.images) < 2:
            return None
        if self.strict:
            return self.forks.multi_image() if self.forks is not None else None
        first = self.rng.choice(self.images)
        nxt = self.step(first, "", [first], "Image")
        if nxt is None:
            return None
        ent, second = nxt
        text = self.step(second, ent, [first, second], "Chunk", {ent})
        if text is None:
            return None
        text_ent, chunk = text
        hops = [Hop(first, "Image", ent, "entity"), Hop(second, "Image", text_ent, "entity"),
                Hop(chunk, "Chunk")]
        answer = self.answer_entity(chunk, text_ent, {ent, text_ent}, {ent, text_ent})
        if not answer:
            return None
        return Candidate("multi_image_fork", hops, [(0, 3), (1, 3), (2, 3)], answer,
                         {"shared_entity": ent})

    def _serial(self, graph_type: str, hops: list[Hop] | None) -> Candidate | None:
        if not hops or len(hops) < self.min_hops:
            return None
        exclude = {h.bridge for h in hops if h.bridge}
        earlier = set().union(*(self.view.mentions.get(h.node_id, set()) for h in hops[:-1]))
        incoming = hops[-2].bridge
        answer = self.answer_entity(hops[-1].node_id, incoming, exclude | earlier, exclude, serial=True)
        if not answer and not self.strict:  # named earlier too: verification decides whether that is a shortcut
            answer = self.answer_entity(hops[-1].node_id, incoming, exclude, exclude)
        if not answer:
            self.died("last hop: no answer in a relation with the bridge (strict: none of another kind)")
            return None
        structure = [(i, i + 1) for i in range(len(hops))]
        return Candidate(graph_type, hops, structure, answer)

    def sample(self, graph_type: str) -> Candidate | None:
        self.gtype = graph_type
        figures = getattr(self, "figures", None)  # a strict run's figure chains first (figure_walk.py)
        return (figures.sample(graph_type) if figures else None) or getattr(self, graph_type)()


def infeasible_reason(view: CorpusView, walker: Walker, graph_type: str) -> str | None:
    """Why a chain type cannot come out of this graph, in one sentence (None if it can)."""
    if not walker.chunks:
        return "no text chunk mentions an entity shared with another chunk"
    need = chain_type(graph_type).min_images
    if need and len(walker.images) < need:
        if (found := len(view.image_ids)) < need:
            return f"needs {need} image(s) and the corpus has {found} (kept after filtering)"
        why = " (without a vision model: a description, 12+ word caption or printed labels)" * walker.strict
        return f"needs {need} image(s) linked to text by a caption, reference or entity; none is{why}"
    return None
