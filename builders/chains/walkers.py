"""Walkers: sample candidate evidence chains of the five graph types.

A candidate is a list of hops (one evidence node each) plus the bridges that
join them and a reasoning structure (builders/structure.py). Rules every walker
keeps:

* consecutive hops share a bridge: an Entity both mention, or for image hops a
  REFERENCES / CAPTIONED_BY link (bridge kind "link");
* no node twice, and no two hops whose evidence is near-identical
  (SIMILAR_TO at or above `near_duplicate`);
* cross-document steps are preferred where they exist;
* quotas: a document or topic that already has its share is not started from;
* everything is driven by one seeded random.Random, so a seed gives a run.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from dataclasses import dataclass, field

from queries.corpus_view import CorpusView
from kg.ids import content_id


@dataclass
class Hop:
    node_id: str
    label: str  # Chunk or Image
    bridge: str = ""  # entity id carried into the next hop ("" for the last, or a link)
    bridge_kind: str = ""  # "entity", "link" or ""


@dataclass
class Candidate:
    graph_type: str
    hops: list[Hop]
    structure: list[tuple[int, int]]  # edges between hop indices; len(hops) is the final question
    answer_entity: str = ""  # entity the final answer names
    meta: dict = field(default_factory=dict)

    @property
    def id(self) -> str:
        return content_id(self.graph_type, *[h.node_id for h in self.hops], self.answer_entity)

    @property
    def node_ids(self) -> list[str]:
        return [h.node_id for h in self.hops]


class Quotas:
    """Caps how many chains may start in (or use) one document or topic.

    A document's share is proportional to its number of chunks, with slack
    (x1.5, at least 2) so small corpora are not starved.
    """

    def __init__(self, view: CorpusView, target: int, used_docs: Counter | None = None,
                 used_topics: Counter | None = None):
        chunks = [view.nodes[c] for c in view.chunk_ids]
        total = max(1, len(chunks))
        by_doc = Counter(n.doc_id for n in chunks)
        by_topic = Counter(n.topic for n in chunks if n.topic)
        self.doc_cap = {d: max(2, math.ceil(1.5 * target * c / total)) for d, c in by_doc.items()}
        self.topic_cap = {t: max(2, math.ceil(1.5 * target * c / total)) for t, c in by_topic.items()}
        self.docs = Counter(used_docs or {})
        self.topics = Counter(used_topics or {})

    def allows(self, view: CorpusView, node_ids: list[str]) -> bool:
        for nid in node_ids:
            node = view.nodes[nid]
            if self.docs[node.doc_id] >= self.doc_cap.get(node.doc_id, 2):
                return False
            if node.topic and self.topics[node.topic] >= self.topic_cap.get(node.topic, 2):
                return False
        return True

    def take(self, view: CorpusView, node_ids: list[str]) -> None:
        for doc in {view.nodes[n].doc_id for n in node_ids}:
            self.docs[doc] += 1
        for topic in {view.nodes[n].topic for n in node_ids if view.nodes[n].topic}:
            self.topics[topic] += 1


class Walker:
    def __init__(self, view: CorpusView, rng: random.Random, min_hops: int = 2, max_hops: int = 4,
                 near_duplicate: float = 0.92, max_entity_degree: int | None = None):
        self.view = view
        self.rng = rng
        self.min_hops = min_hops
        self.max_hops = max(min_hops, max_hops)
        self.near_duplicate = near_duplicate
        # Entities mentioned nearly everywhere ("system", the corpus' own name)
        # make weak bridges; skip the most frequent ones.
        n_nodes = max(1, len(view.nodes))
        self.max_entity_degree = max_entity_degree or max(8, n_nodes // 10)
        self.chunks = [c for c in view.chunk_ids if view.nodes[c].kind != "caption" and view.mentions.get(c)]
        self.images = [i for i in view.image_ids if view.mentions.get(i) or view.image_links.get(i)]
        # Nodes per (entity, label), built once: a step draws from these lists
        # instead of scanning every mention of an entity (17-44x faster on a
        # 20k-chunk graph, bench/walk.py).
        self._usable: dict[str, list[str]] = {}
        self._by_label: dict[tuple[str, str], list[str]] = {}
        for ent in sorted(view.mentioned_by):
            for n in sorted(view.mentioned_by[ent]):
                node = view.nodes.get(n)
                if node is not None and node.kind != "caption":
                    self._by_label.setdefault((ent, node.label), []).append(n)

    # ---- shared steps ---------------------------------------------------
    def sample_length(self) -> int:
        """2..max hops, weighted toward 3 and more (weights 1 : 2 : 2 : ...)."""
        lengths = list(range(self.min_hops, self.max_hops + 1))
        weights = [1 if n == 2 else 2 for n in lengths]
        return self.rng.choices(lengths, weights)[0]

    def usable_entities(self, node_id: str) -> list[str]:
        cached = self._usable.get(node_id)
        if cached is not None:
            return cached
        out = []
        for ent in self.view.mentions.get(node_id, ()):
            degree = len(self.view.mentioned_by.get(ent, ()))
            if 2 <= degree <= self.max_entity_degree:
                out.append(ent)
        out.sort()  # set order is not stable across runs; the seed must be
        self._usable[node_id] = out
        return out

    def compatible(self, node_id: str, visited: list[str]) -> bool:
        if node_id in visited:
            return False
        return all(self.view.similarity(node_id, v) < self.near_duplicate for v in visited)

    TRIES = 12

    def step(self, current: str, visited: list[str], want: str = "Chunk",
             avoid_entities: set[str] = frozenset()) -> tuple[str, str] | None:
        """Next node of label `want` sharing an entity with `current`: (entity, node).

        With probability 0.8 a uniform pick among compatible nodes of another
        document (when one exists), else among all compatible nodes. Found by
        rejection sampling from the per-entity lists; an exact scan only when
        a few draws all miss.
        """
        entities = [e for e in self.usable_entities(current) if e not in avoid_entities]
        self.rng.shuffle(entities)
        nodes = self.view.nodes
        doc = nodes[current].doc_id
        for ent in entities[:6]:
            pool = self._by_label.get((ent, want))
            if not pool:
                continue
            cross_wanted = self.rng.random() < 0.8
            for _ in range(self.TRIES):
                n = pool[self.rng.randrange(len(pool))]
                if (not cross_wanted or nodes[n].doc_id != doc) and self.compatible(n, visited):
                    return ent, n
            options = [n for n in pool if self.compatible(n, visited)]
            if not options:
                continue
            cross = [n for n in options if nodes[n].doc_id != doc]
            return ent, self.rng.choice(cross if cross and cross_wanted else options)
        return None

    def answer_entity(self, node_id: str, exclude: set[str]) -> str:
        """An entity of the last hop to be the final answer (not a bridge)."""
        options = sorted(e for e in self.view.mentions.get(node_id, ()) if e not in exclude)
        return self.rng.choice(options) if options else ""

    def linked_image(self, chunk_id: str, visited: list[str]) -> str | None:
        links = sorted(i for i in self.view.image_links.get(chunk_id, ())
                       if self.view.nodes.get(i) and self.view.nodes[i].label == "Image"
                       and self.compatible(i, visited))
        return self.rng.choice(links) if links else None

    def text_path(self, start: str, length: int, visited: list[str]) -> list[Hop] | None:
        hops = [Hop(start, self.view.nodes[start].label)]
        used_bridges: set[str] = set()
        while len(hops) < length:
            nxt = self.step(hops[-1].node_id, visited + [h.node_id for h in hops], "Chunk", used_bridges)
            if nxt is None:
                return None
            ent, node = nxt
            hops[-1].bridge, hops[-1].bridge_kind = ent, "entity"
            used_bridges.add(ent)
            hops.append(Hop(node, "Chunk"))
        return hops

    # ---- the five graph types ---------------------------------------------
    def text_chain(self) -> Candidate | None:
        if not self.chunks:
            return None
        hops = self.text_path(self.rng.choice(self.chunks), self.sample_length(), [])
        return self._serial("text_chain", hops)

    def image_initiated_chain(self) -> Candidate | None:
        if not self.images:
            return None
        image = self.rng.choice(self.images)
        length = self.sample_length()
        nxt = self.step(image, [image], "Chunk")
        if nxt is not None:
            first = Hop(image, "Image", nxt[0], "entity")
            start = nxt[1]
        else:
            linked = sorted(c for c in self.view.image_links.get(image, ())
                            if self.view.nodes.get(c) and self.view.nodes[c].kind != "caption")
            if not linked:
                return None
            first, start = Hop(image, "Image", "", "link"), self.rng.choice(linked)
        rest = self.text_path(start, length - 1, [image])
        if rest is None:
            return None
        return self._serial("image_initiated_chain", [first, *rest])

    def text_initiated_chain(self) -> Candidate | None:
        if not self.chunks or not self.images:
            return None
        length = self.sample_length()
        hops = self.text_path(self.rng.choice(self.chunks), length - 1, [])
        if hops is None:
            return None
        last = hops[-1].node_id
        visited = [h.node_id for h in hops]
        nxt = self.step(last, visited, "Image", {h.bridge for h in hops})
        if nxt is not None:
            hops[-1].bridge, hops[-1].bridge_kind = nxt[0], "entity"
            hops.append(Hop(nxt[1], "Image"))
        else:
            image = self.linked_image(last, visited)
            if image is None:
                return None
            hops[-1].bridge, hops[-1].bridge_kind = "", "link"
            hops.append(Hop(image, "Image"))
        return self._serial("text_initiated_chain", hops)

    def parallel_visual_textual_fork(self) -> Candidate | None:
        """An image branch and a text branch about one shared entity."""
        if not self.images or not self.chunks:
            return None
        image = self.rng.choice(self.images)
        nxt = self.step(image, [image], "Chunk")
        if nxt is None:
            return None
        ent, chunk = nxt
        hops = [Hop(image, "Image", ent, "entity"), Hop(chunk, "Chunk", ent, "entity")]
        structure = [(0, 2), (1, 2)]
        answer = self.answer_entity(chunk, {ent} | self.view.mentions.get(image, set()))
        if not answer:
            return None
        return Candidate("parallel_visual_textual_fork", hops, structure, answer)

    def multi_image_fork(self) -> Candidate | None:
        """Two images sharing an entity (compared or combined), plus a text hop."""
        if len(self.images) < 2:
            return None
        first = self.rng.choice(self.images)
        nxt = self.step(first, [first], "Image")
        if nxt is None:
            return None
        ent, second = nxt
        text = self.step(second, [first, second], "Chunk")
        if text is None:
            return None
        text_ent, chunk = text
        hops = [Hop(first, "Image", ent, "entity"), Hop(second, "Image", text_ent, "entity"),
                Hop(chunk, "Chunk")]
        answer = self.answer_entity(chunk, {ent, text_ent})
        if not answer:
            return None
        return Candidate("multi_image_fork", hops, [(0, 3), (1, 3), (2, 3)], answer,
                         {"shared_entity": ent})

    def _serial(self, graph_type: str, hops: list[Hop] | None) -> Candidate | None:
        if not hops or len(hops) < self.min_hops:
            return None
        exclude = {h.bridge for h in hops if h.bridge}
        earlier = set().union(*(self.view.mentions.get(h.node_id, set()) for h in hops[:-1]))
        answer = self.answer_entity(hops[-1].node_id, exclude | earlier)
        if not answer:
            answer = self.answer_entity(hops[-1].node_id, exclude)
        if not answer:
            return None
        structure = [(i, i + 1) for i in range(len(hops))]
        return Candidate(graph_type, hops, structure, answer)

    def sample(self, graph_type: str) -> Candidate | None:
        return getattr(self, graph_type)()


def infeasible_reason(view: CorpusView, walker: Walker, graph_type: str) -> str | None:
    """Why a chain type cannot come out of this graph, in one sentence (None if it can)."""
    if not walker.chunks:
        return "no text chunk mentions an entity shared with another chunk"
    needs_images = {"image_initiated_chain": 1, "text_initiated_chain": 1,
                    "parallel_visual_textual_fork": 1, "multi_image_fork": 2}
    need = needs_images.get(graph_type, 0)
    if need and len(walker.images) < need:
        found = len(view.image_ids)
        if found < need:
            return f"needs {need} image(s) and the corpus has {found} (kept after filtering)"
        return f"needs {need} image(s) linked to text by a caption, reference or entity; none is"
    return None
