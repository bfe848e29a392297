"""A chain's reasoning structure as a small directed graph (networkx).

Nodes 0..n-1 are hops; node n is the final question. Serial chains are a path
0 -> 1 -> ... -> n; forks have branches that join at n. Exported in each record
as `structure` so evaluators see which hops are parallel.
"""

from __future__ import annotations

import networkx as nx

from kg.errors import HopgraphError


class StructureError(HopgraphError, ValueError):
    pass


def build_structure(n_hops: int, edges: list[tuple[int, int]]) -> nx.DiGraph:
    graph = nx.DiGraph()
    graph.add_nodes_from(range(n_hops + 1))
    graph.add_edges_from(edges)
    validate(graph, n_hops)
    return graph


def validate(graph: nx.DiGraph, n_hops: int) -> None:
    """Acyclic, connected, one final node (the question), every hop reaches it."""
    final = n_hops
    if set(graph.nodes) != set(range(n_hops + 1)):
        raise StructureError("structure nodes must be the hops 0..n-1 and the final node n")
    if not nx.is_directed_acyclic_graph(graph):
        raise StructureError("structure has a cycle")
    if not nx.is_weakly_connected(graph):
        raise StructureError("structure is not connected")
    sinks = [v for v in graph.nodes if graph.out_degree(v) == 0]
    if sinks != [final]:
        raise StructureError(f"structure must end in one final node; ends in {sinks}")
    unreachable = [h for h in range(n_hops) if not nx.has_path(graph, h, final)]
    if unreachable:
        raise StructureError(f"hops {unreachable} do not reach the final question")


def is_serial(graph: nx.DiGraph, n_hops: int) -> bool:
    return all(graph.has_edge(i, i + 1) for i in range(n_hops)) and graph.number_of_edges() == n_hops


def shrink(edges: list[tuple[int, int]], n_hops: int, drop: int) -> list[tuple[int, int]]:
    """Edges after removing hop `drop`: its predecessors connect to its successors."""
    preds = [a for a, b in edges if b == drop]
    succs = [b for a, b in edges if a == drop]
    kept = [(a, b) for a, b in edges if drop not in (a, b)]
    kept += [(p, s) for p in preds for s in succs]

    def renum(i: int) -> int:
        return i - 1 if i > drop else i

    return sorted({(renum(a), renum(b)) for a, b in kept})
