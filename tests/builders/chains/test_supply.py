"""Where a walker starts and what a strict run remembers (builders/chains/supply.py)."""

from __future__ import annotations

import random
from collections import Counter

from builders.chains.candidate import Candidate, Hop
from builders.chains.supply import WalkMemory

CHUNKS = [f"big{i}" for i in range(90)] + [f"small{i}" for i in range(10)]


def doc_of(chunk: str) -> str:
    return "big" if chunk.startswith("big") else "small"


def test_a_strict_walker_starts_in_every_document_alike_however_long():
    rng = random.Random(3)
    by_doc = WalkMemory(doc_of, CHUNKS)
    flat = WalkMemory(doc_of, CHUNKS)
    strict = Counter(doc_of(by_doc.start(rng, lambda c: True, by_document=True)) for _ in range(2000))
    offline = Counter(doc_of(flat.start(rng, lambda c: True, by_document=False)) for _ in range(2000))
    assert 0.4 < strict["small"] / 2000 < 0.6
    assert offline["small"] / 2000 < 0.2  # offline draws stay chunk-uniform (a seed gives the same demo)


def test_chunks_without_an_anchor_are_dropped_and_an_empty_corpus_ends():
    memory = WalkMemory(doc_of, CHUNKS)
    rng = random.Random(1)
    assert memory.start(rng, lambda c: c == "small3", by_document=True) == "small3"
    assert memory.start(rng, lambda c: False, by_document=True) is None
    assert memory.start(rng, lambda c: True, by_document=True) is None  # every chunk was found unusable


def test_a_kept_chains_last_hop_is_entered_no_more_and_its_bridges_go_last():
    memory = WalkMemory(doc_of, CHUNKS)
    cand = Candidate("text_chain", [Hop("big1", "Chunk", "e1", "entity"), Hop("small2", "Chunk")],
                     [(0, 1), (1, 2)], "a")
    memory.remember(cand)
    assert not memory.fresh("small2") and memory.fresh("big1")
    assert memory.bridges["e1"] == 1
    rng = random.Random(2)
    starts = {memory.start(rng, lambda c: c.startswith("small"), by_document=True) for _ in range(50)}
    assert "small2" not in starts


def test_a_table_ends_two_chains_through_different_rows_then_no_more():
    from builders.chains.tables import TableCell

    memory = WalkMemory(doc_of, CHUNKS)

    def cell_chain(bridge: str, row: int) -> Candidate:
        cell = TableCell("table1", bridge, "Accuracy", "71.4", "", row, 1)
        return Candidate("text_chain", [Hop("big1", "Chunk", bridge, "entity"), Hop("table1", "Chunk")],
                         [(0, 1), (1, 2)], "", {"table_cell": cell.to_meta()})

    memory.remember(cell_chain("row-a", 0))
    assert memory.fresh("table1") and memory.bridges["row-a"] == 1
    memory.remember(cell_chain("row-b", 1))
    assert not memory.fresh("table1")
