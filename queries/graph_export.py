"""The graph as a file for Gephi, Cytoscape or networkx (`hopgraph export-graph`).

`export_graph(store, path, chain_id=None)` writes either the whole stored graph
(corpus plus chains) or one chain's neighbourhood (the chain, its hops, their
evidence, the bridge entities, keypoint sources and the documents) as GraphML
(.graphml) or GEXF (.gexf), chosen by the file extension.

Nodes are keyed by their `id` (prefixed with the label in the rare case two
labels share an id); attributes are `label` (the node label) plus the node's
scalar properties. Lists are joined into one string ("; "), maps become JSON,
nulls are dropped and the `embedding` vector is never read. Edges carry
`label` (the relationship type, which Gephi shows) and their properties.
Property names that clash with attributes the formats reserve get a "prop_"
prefix (an Entity's spaCy `label` becomes `prop_label`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kg.errors import HopgraphError
from kg.store.base import GraphStore

from kg.store import sync

FORMATS = {".graphml": "GraphML", ".gexf": "GEXF"}
NODE_RESERVED = {"label", "id", "pid", "start", "end", "viz", "parents", "slices", "spells"}
EDGE_RESERVED = {"label", "id", "type", "weight", "start", "end", "key", "networkx_key", "slices", "spells"}
LIST_SEPARATOR = "; "


class GraphExportError(HopgraphError):
    """A graph export that cannot be written as asked."""


def export_graph(store: GraphStore, path: Path, chain_id: str | None = None) -> dict[str, int]:
    """Write the graph (or one chain's neighbourhood) to `path`; returns {"nodes", "edges"}."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise GraphExportError(f"cannot export the graph as {path.name!r}: use a .graphml or .gexf file name")
    graph = build_graph(store, chain_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    import networkx as nx

    _unify_types(graph)
    if suffix == ".graphml":
        nx.write_graphml(graph, str(path), infer_numeric_types=True)
    else:
        nx.write_gexf(graph, str(path))
    return {"nodes": graph.number_of_nodes(), "edges": graph.number_of_edges()}


def build_graph(store: GraphStore, chain_id: str | None = None):
    """The networkx MultiDiGraph that export_graph writes."""
    import networkx as nx

    graph = nx.MultiDiGraph(name=f"hopgraph chain {chain_id}" if chain_id else "hopgraph")
    if chain_id is None:
        nodes, edges = _whole_graph(store)
    else:
        nodes, edges = _chain_neighbourhood(store, chain_id)

    keys: dict[tuple[str, str], str] = {}
    owner: dict[str, str] = {}
    for label, node in nodes:
        key = node["id"] if owner.setdefault(node["id"], label) == label else f"{label}:{node['id']}"
        keys[(label, node["id"])] = key
        attrs = {"label": label}
        if key != node["id"]:
            attrs["node_id"] = node["id"]
        attrs.update(_attributes(node["props"], NODE_RESERVED, skip={"id"}))
        graph.add_node(key, **attrs)

    for e in edges:
        u = keys.get((e["source_label"], e["s"]))
        v = keys.get((e["target_label"], e["d"]))
        if u is None or v is None:  # an endpoint outside the exported node set
            continue
        attrs = {"label": e["type"]}
        attrs.update(_attributes(e["props"], EDGE_RESERVED))
        # A unique edge id (GEXF requires one); the multigraph key is the type.
        attrs["id"] = f"{u}-{e['type']}->{v}"
        graph.add_edge(u, v, key=e["type"], **attrs)
    return graph


def _whole_graph(store: GraphStore):
    present = set(store.counts()["nodes"])
    labels = [label for label in sync.KNOWN_LABELS if label in present]
    nodes = [(label, n) for label in labels for page in sync.iter_nodes(store, label) for n in page]
    edges = [e for label in labels for page in sync.iter_edges(store, label) for e in page]
    return nodes, edges


def _chain_neighbourhood(store: GraphStore, chain_id: str):
    members = store.run("explore/chain_neighbourhood", {"chain_id": chain_id})
    if not members:
        raise GraphExportError(f"no chain with id {chain_id}")
    ids_by_label: dict[str, list[str]] = {}
    for row in members:
        if row["label"] in sync.KNOWN_LABELS and row["id"] is not None:
            ids_by_label.setdefault(row["label"], [])
            if row["id"] not in ids_by_label[row["label"]]:
                ids_by_label[row["label"]].append(row["id"])
    nodes = [(label, n) for label, ids in ids_by_label.items() for n in sync.nodes_by_ids(store, label, ids)]
    wanted = {(label, i) for label, ids in ids_by_label.items() for i in ids}
    edges = [e for label, ids in ids_by_label.items() for e in sync.edges_by_ids(store, label, ids)
             if (e["target_label"], e["d"]) in wanted]
    return nodes, edges


def _unify_types(graph) -> None:
    """One type per attribute name (per nodes / edges), as both formats declare
    attribute types once: int+float -> float, anything else mixed -> str."""
    for items in (list(graph.nodes(data=True)), [(None, d) for *_, d in graph.edges(keys=True, data=True)]):
        kinds: dict[str, set[type]] = {}
        for _, data in items:
            for key, value in data.items():
                kinds.setdefault(key, set()).add(type(value))
        for key, types in kinds.items():
            if len(types) < 2:
                continue
            cast = float if types <= {int, float} else str
            for _, data in items:
                if key in data:
                    data[key] = cast(data[key])


def _attributes(props: dict[str, Any], reserved: set[str], skip: set[str] = frozenset()) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in props.items():
        if key in skip or key in sync.EXCLUDED_PROPERTIES:
            continue
        value = _scalar(value)
        if value is None:
            continue
        out[f"prop_{key}" if key in reserved else key] = value
    return out


def _scalar(value: Any) -> Any:
    """A value GraphML and GEXF can hold: str, int, float or bool."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, (list, tuple)):
        return LIST_SEPARATOR.join(_text(v) for v in value)
    if isinstance(value, dict):
        return json.dumps(value, sort_keys=True, default=str)
    return str(value)


def _text(value: Any) -> str:
    if isinstance(value, (dict, list, tuple)):
        return json.dumps(value, sort_keys=True, default=str)
    return str(value)
