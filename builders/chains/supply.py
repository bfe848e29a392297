"""Where the walker starts, and what a strict run has already drawn (supply and variety).

The strict pre-check (construction.py) keeps few of the paths a walker can
take. Drawing start chunks uniformly favours the longest document, and a
walker free to end where a kept chain ended finds that chain again and
again: sampling.distinct then drops it ("same bridges or same last hop as
an earlier chain"; 83 such draws for 5 verbalized candidates on nine PDFs).
So a strict walker draws a document first and then one of its chunks, never
enters a node that ended a kept chain (a chunk, an image, or a table once
TABLE_CHAINS of its rows answered chains), and
tries bridges that no kept chain used before the others. Offline the
draws stay as they were (chunk first, no memory), so a seed gives the
same demo.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from builders.chains.candidate import Candidate

TABLE_CHAINS = 2  # chains a strict run may end in one table, each through another row (bridge)


class WalkMemory:
    """Start chunks by document, and the last hops and bridges of the chains kept so far."""

    def __init__(self, doc_of: Callable[[str], str], chunks: list[str]):
        self.flat = list(chunks)  # offline: drawn uniformly, shrinking as chunks turn out to have no anchor
        self.by_doc: dict[str, list[str]] = {}
        for c in chunks:
            self.by_doc.setdefault(doc_of(c), []).append(c)
        self.docs = sorted(self.by_doc)
        self.ends: set[str] = set()
        self.bridges: Counter = Counter()
        self.table_uses: Counter = Counter()

    def start(self, rng, usable: Callable[[str], bool], by_document: bool) -> str | None:
        """A start chunk that `usable` accepts (the others are dropped for good)."""
        while True:
            pool = self._pool(rng, by_document)
            if pool is None:
                return None
            i = rng.randrange(len(pool))
            chunk = pool[i]
            if usable(chunk) and chunk not in self.ends:
                return chunk
            pool[i] = pool[-1]
            pool.pop()

    def _pool(self, rng, by_document: bool) -> list[str] | None:
        if not by_document:
            return self.flat or None
        while self.docs:
            doc = self.docs[rng.randrange(len(self.docs))]
            if self.by_doc[doc]:
                return self.by_doc[doc]
            self.docs.remove(doc)
        return None

    def remember(self, cand: Candidate) -> None:
        """A kept chain: its last hop is entered no more (a table: after TABLE_CHAINS rows, since its
        rows' cells are each their own honest answer), its bridges go last."""
        last = cand.hops[-1].node_id
        if cand.table_cell is not None:
            self.table_uses[last] += 1
            if self.table_uses[last] < TABLE_CHAINS:
                self.bridges.update(b for b in cand.bridges if b)
                return
        self.ends.add(last)
        self.bridges.update(b for b in cand.bridges if b)

    def fresh(self, node_id: str) -> bool:
        return node_id not in self.ends
