"""Quotas: how many chains may use one document, topic, bridge entity or evidence node."""

from __future__ import annotations

import math
from collections import Counter

from queries.corpus_view import CorpusView


class Quotas:
    """Caps how many chains may start in (or use) one document or topic.

    A document's share is proportional to its number of chunks, with slack
    (x1.5, at least 2) so small corpora are not starved. A chain weighs 1 in
    all, spread evenly over its hops: charging every document and topic a
    long chain touches a whole chain made the caps reject long chains first.
    """

    def __init__(self, view: CorpusView, target: int, used_docs: Counter | None = None,
                 used_topics: Counter | None = None, variety: "VarietyLimit | None" = None):
        chunks = [view.nodes[c] for c in view.chunk_ids]
        total = max(1, len(chunks))
        by_doc = Counter(n.doc_id for n in chunks)
        by_topic = Counter(n.topic for n in chunks if n.topic)
        self.doc_cap = {d: max(2, math.ceil(1.5 * target * c / total)) for d, c in by_doc.items()}
        self.topic_cap = {t: max(2, math.ceil(1.5 * target * c / total)) for t, c in by_topic.items()}
        self.docs = Counter(used_docs or {})
        self.topics = Counter(used_topics or {})
        # Variety: one bridge entity or one piece of evidence in a few chains
        # only, or a small corpus yields the same facts in every question.
        self.bridge_cap = max(10, math.ceil(0.3 * target))
        self.node_cap = max(10, math.ceil(0.3 * target))
        self.bridges: Counter = Counter()
        self.nodes: Counter = Counter()
        # Not relaxed with the other caps: it holds for the whole run (sampling.RoundDraw keeps it).
        self.variety = variety or VarietyLimit(target)

    def _shares(self, view: CorpusView, node_ids: list[str]) -> tuple[Counter, Counter]:
        weight = 1 / max(1, len(node_ids))
        docs: Counter = Counter()
        topics: Counter = Counter()
        for nid in node_ids:
            node = view.nodes[nid]
            docs[node.doc_id] += weight
            if node.topic:
                topics[node.topic] += weight
        return docs, topics

    def allows_chain(self, view: CorpusView, node_ids: list[str], bridges: list[str], template: str = "") -> bool:
        if any(self.bridges[b] >= self.bridge_cap for b in bridges if b):
            return False
        if not self.variety.allows(view, node_ids, template):
            return False
        return all(self.nodes[n] < self.node_cap for n in node_ids) and self.allows(view, node_ids)

    def take_chain(self, view: CorpusView, node_ids: list[str], bridges: list[str], template: str = "") -> None:
        self.variety.take(view, node_ids, template)
        self.bridges.update(b for b in set(bridges) if b)
        self.nodes.update(node_ids)
        self.take(view, node_ids)

    def allows(self, view: CorpusView, node_ids: list[str]) -> bool:
        docs, topics = self._shares(view, node_ids)
        if any(self.docs[d] + w > self.doc_cap.get(d, 2) + 1e-9 for d, w in docs.items()):
            return False
        return all(self.topics[t] + w <= self.topic_cap.get(t, 2) + 1e-9 for t, w in topics.items())

    def take(self, view: CorpusView, node_ids: list[str]) -> None:
        docs, topics = self._shares(view, node_ids)
        self.docs.update(docs)
        self.topics.update(topics)


TABLE_TEMPLATE = "table cell"  # "What is the <column> of <row> ...?": the one fixed question form


class VarietyLimit:
    """One table, or one question template, supplies at most `share` of a run's n chains.

    Counted on the chains drawn, which are never fewer than the chains kept, and
    against the n the user asked for: the caps the run relaxes when it comes
    short (Quotas) never open this one. Templates: a chain that ends in a table
    cell is asked with the table-cell template; other questions are built from
    their own evidence sentences, not from a fixed form.
    """

    def __init__(self, n: int, share: float = 0.2):
        self.cap = max(1, math.floor(share * n))
        self.tables: Counter = Counter()
        self.templates: Counter = Counter()

    @staticmethod
    def _tables(view: CorpusView, node_ids: list[str]) -> set[str]:
        return {n for n in node_ids if n in view.nodes and view.nodes[n].kind == "table"}

    def allows(self, view: CorpusView, node_ids: list[str], template: str = "") -> bool:
        if template and self.templates[template] >= self.cap:
            return False
        return all(self.tables[t] < self.cap for t in self._tables(view, node_ids))

    def take(self, view: CorpusView, node_ids: list[str], template: str = "") -> None:
        self.tables.update(self._tables(view, node_ids))
        if template:
            self.templates[template] += 1
