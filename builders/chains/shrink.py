"""The one shrink rule: a chain with an unneeded hop loses that hop, if what is left still holds.

Both generation paths (offline and LLM) call `shrunk`; the structure edges
are recomputed by structure.shrink and the chain-type table decides whether
the smaller chain is still of its type.
"""

from __future__ import annotations

from builders.chains.chain_types import chain_type
from builders.chains.structure import StructureError, build_structure, shrink
from builders.chains.walkers import Candidate, Hop
from queries.corpus_view import CorpusView


def shrunk(view: CorpusView, cand: Candidate, verdict, min_hops: int) -> Candidate | None:
    """The candidate without its first unneeded hop, or None when it may not or cannot shrink.

    A chain shrinks only when navigation holds, there is no shortcut and it
    keeps at least `min_hops` hops.
    """
    unneeded = [i for i, need in enumerate(verdict.necessary) if not need]
    if not unneeded or not verdict.navigation or not verdict.no_shortcut or len(cand.hops) - 1 < min_hops:
        return None
    return drop_hop(view, cand, unneeded[0])


def drop_hop(view: CorpusView, cand: Candidate, drop: int) -> Candidate | None:
    """The chain without hop `drop`, if its neighbours can still be bridged."""
    hops = [Hop(h.node_id, h.label, h.bridge, h.bridge_kind) for h in cand.hops]
    if drop == len(hops) - 1:
        return None  # the last hop holds the answer
    if cand.table_cell is not None and drop == len(hops) - 2:
        return None  # its bridge is the table row the cell is read from: no other entity can stand in
    kind = chain_type(cand.graph_type)
    if drop > 0 and kind.serial:
        before, after = hops[drop - 1], hops[drop + 1]
        shared = sorted(view.mentions.get(before.node_id, set()) & view.mentions.get(after.node_id, set())
                        - {cand.answer_entity})
        if not shared:
            return None
        before.bridge, before.bridge_kind = shared[0], "entity"
    del hops[drop]
    if not kind.holds([h.label for h in hops]):
        return None
    structure = shrink(cand.structure, len(cand.hops), drop)
    try:
        build_structure(len(hops), structure)
    except StructureError:
        return None
    return Candidate(cand.graph_type, hops, structure, cand.answer_entity, dict(cand.meta))
