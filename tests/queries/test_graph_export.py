"""`hopgraph export-graph`: GraphML / GEXF files that networkx reads back."""

from __future__ import annotations

import networkx as nx
import pytest

from queries.graph_export import GraphExportError, build_graph, export_graph
from kg.errors import HopgraphError
from graph_fixtures import build_clean_graph

READERS = {".graphml": nx.read_graphml, ".gexf": nx.read_gexf}


@pytest.fixture
def graph(falkor_store):
    build_clean_graph(falkor_store)
    return falkor_store


@pytest.mark.parametrize("suffix", [".graphml", ".gexf"])
def test_whole_graph_round_trip(graph, tmp_path, suffix):
    path = tmp_path / f"out{suffix}"
    report = export_graph(graph, path, None)
    counts = graph.counts()
    assert report == {"nodes": sum(counts["nodes"].values()), "edges": sum(counts["relationships"].values())}

    back = READERS[suffix](path)
    assert back.number_of_nodes() == report["nodes"]
    assert back.number_of_edges() == report["edges"]
    labels = {}
    for _, data in back.nodes(data=True):
        labels[data["label"]] = labels.get(data["label"], 0) + 1
    assert labels == counts["nodes"]
    types = {}
    for *_, data in back.edges(data=True):
        types[data["label"]] = types.get(data["label"], 0) + 1
    assert types == counts["relationships"]

    chunk = back.nodes["c1"]
    assert chunk["label"] == "Chunk" and chunk["text"] == "Ada Lovelace worked with Charles Babbage."
    assert chunk["tokens"] == 6 and "embedding" not in chunk
    assert not any("embedding" in data for _, data in back.nodes(data=True))
    entity = back.nodes["babbage"]
    assert entity["label"] == "Entity" and entity["prop_label"] == "PERSON" and entity["aliases"] == "charles babbage"
    assert back.nodes["t1"]["keywords"] == "engine; babbage"  # lists joined into one string
    assert back.nodes["ch_text"]["question"] == "question of ch_text?"
    assert back.nodes["ch_text"]["faithful"] in (True, "true", "True")
    assert back.nodes["ch_text:0"]["necessary"] in (True, "true", "True")
    similar = [d for u, v, d in back.edges(data=True) if u == "c1" and v == "c2" and d["label"] == "SIMILAR_TO"]
    assert len(similar) == 1 and float(similar[0]["score"]) == 0.5
    refs = [d for u, v, d in back.edges(data=True) if d["label"] == "REFERENCES"]
    assert refs[0]["prop_label"] == "Figure 1"


@pytest.mark.parametrize("suffix", [".graphml", ".gexf"])
def test_one_chain_neighbourhood(graph, tmp_path, suffix):
    path = tmp_path / f"chain{suffix}"
    report = export_graph(graph, path, "ch_kp")
    back = READERS[suffix](path)
    # the chain, 2 hops, keypoint + chunk evidence, the bridge, the keypoint's source chunk, the document
    assert set(back.nodes) == {"ch_kp", "ch_kp:0", "ch_kp:1", "kp1", "c1", "ada", "c5", "d1"}
    assert report == {"nodes": 8, "edges": back.number_of_edges()}
    edges = {(u, v, d["label"]) for u, v, d in back.edges(data=True)}
    assert {("ch_kp", "ch_kp:0", "HAS_HOP"), ("ch_kp:0", "kp1", "USES"), ("ch_kp:0", "ada", "BRIDGES"),
            ("ch_kp:1", "c1", "USES"), ("c5", "kp1", "HAS_KEYPOINT"), ("kp1", "ada", "MENTIONS"),
            ("c1", "ada", "MENTIONS"), ("c1", "d1", "PART_OF"), ("c5", "d1", "PART_OF")} <= edges
    # nothing outside the neighbourhood: c1's NEXT to c2 and SIMILAR_TO c2 are dropped
    assert all(u in back and v in back for u, v, _ in edges)
    assert not any(t == "NEXT" and v == "c2" for u, v, t in edges)


def test_image_chain_neighbourhood_has_its_documents(graph, tmp_path):
    g = build_graph(graph, "ch_img")
    assert {n for n, d in g.nodes(data=True) if d["label"] == "Document"} == {"d2"}
    assert g.nodes["i1"]["path"] == "assets/i1.png"
    assert g.nodes["i1"]["bbox"] == "0.0; 0.0; 1.0; 1.0"


def test_unknown_chain(graph, tmp_path):
    with pytest.raises(GraphExportError, match="no chain"):
        export_graph(graph, tmp_path / "x.graphml", "nope")


@pytest.mark.parametrize("name", ["out.json", "out.csv", "out"])
def test_other_extensions_are_refused(graph, tmp_path, name):
    with pytest.raises(HopgraphError, match=r"\.graphml or \.gexf"):
        export_graph(graph, tmp_path / name, None)
    assert not (tmp_path / name).exists()


def test_empty_store(falkor_store, tmp_path):
    assert export_graph(falkor_store, tmp_path / "empty.graphml", None) == {"nodes": 0, "edges": 0}
    assert nx.read_graphml(tmp_path / "empty.graphml").number_of_nodes() == 0


def test_shared_ids_across_labels_stay_apart(graph, tmp_path):
    graph.write("upsert_topics", [{"id": "c1", "level": 1, "keywords": ["x"], "size": 1}])
    g = build_graph(graph)
    assert g.nodes["c1"]["label"] == "Chunk"
    assert g.nodes["Topic:c1"]["label"] == "Topic" and g.nodes["Topic:c1"]["node_id"] == "c1"
