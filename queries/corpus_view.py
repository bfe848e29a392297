"""An in-memory projection of the corpus graph for sampling chains.

The walkers need neighbourhood lookups millions of times; a round trip to the
store per step would cost ~0.3 ms, a dict lookup ~0.1 µs. So the graph is read
once (one named query per node and edge kind) into plain adjacency maps.
python-igraph was measured for this too: its neighbours() call from Python is
slower than a dict of sets for the short, random walks we take (see README).
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field


@dataclass
class EvidenceNode:
    id: str
    label: str  # "Chunk" or "Image"
    doc_id: str
    text: str  # chunk text, or the image description / caption
    kind: str = "text"  # chunk kind (text, table, caption) or "image"
    page: int | None = None
    path: str = ""  # image file
    caption: str = ""
    topic: str = ""
    role: str = "body"  # section role from ingest (body, contents, references, ...); missing: body
    cells: str = ""  # table chunks: the grid JSON of kg.ingest.tables (builders/chains/tables.py reads it)
    description_source: str = ""  # images: "vlm" when a vision model described it, else caption/alt
    visible_text: str = ""  # images: text printed inside the figure, one line a line (kg/ingest/pdf/figures.py)
    visible_lines: str = ""  # images: those lines with their boxes, JSON [[text, x0, y0, x1, y1], ...]
    bar_values: str = ""  # images: a bar chart's bars, JSON [[series, group, value, unit], ...] (bar_charts.py)
    table_cells: str = ""  # images: a pictured table's cells, JSON [[row, column, value], ...] (raster_tables.py)


@dataclass
class Keypoint:
    id: str
    source_id: str
    text: str
    modality: str
    entities: list[str]


@dataclass
class CorpusView:
    nodes: dict[str, EvidenceNode] = field(default_factory=dict)
    entity_name: dict[str, str] = field(default_factory=dict)
    entity_label: dict[str, str] = field(default_factory=dict)
    entity_aliases: dict[str, list[str]] = field(default_factory=dict)
    mentions: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))  # node -> entities
    mentioned_by: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))  # entity -> nodes
    keypoints: dict[str, list[Keypoint]] = field(default_factory=lambda: defaultdict(list))  # node -> kps
    similar: dict[str, dict[str, float]] = field(default_factory=lambda: defaultdict(dict))
    image_links: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))  # chunk <-> image
    doc_title: dict[str, str] = field(default_factory=dict)
    domain: str = ""
    persona: str = ""
    doc_personas: dict[str, dict[str, str]] = field(default_factory=dict)  # doc id -> {domain, persona}

    @property
    def chunk_ids(self) -> list[str]:
        return [n.id for n in self.nodes.values() if n.label == "Chunk"]

    @property
    def image_ids(self) -> list[str]:
        return [n.id for n in self.nodes.values() if n.label == "Image"]

    def similarity(self, a: str, b: str) -> float:
        return self.similar.get(a, {}).get(b, 0.0)



def load_corpus_view(store) -> CorpusView:
    view = CorpusView()
    for r in store.run("walk_documents"):
        view.doc_title[r["id"]] = r["title"] or r["path"] or r["id"]
    for r in store.run("walk_chunks"):
        view.nodes[r["id"]] = EvidenceNode(r["id"], "Chunk", r["doc_id"] or "", r["text"] or "",
                                           r["kind"] or "text", r["page"], role=r.get("role") or "body",
                                           cells=r.get("cells") or "")
    for r in store.run("walk_images"):
        text = r["description"] or r["caption"] or ""
        view.nodes[r["id"]] = EvidenceNode(r["id"], "Image", r["doc_id"] or "", text, "image", r["page"],
                                           r["path"] or "", r["caption"] or "",
                                           description_source=r.get("description_source") or "",
                                           visible_text=r.get("visible_text") or "",
                                           visible_lines=r.get("visible_lines") or "",
                                           bar_values=r.get("bar_values") or "",
                                           table_cells=r.get("table_cells") or "")
    for r in store.run("walk_entities"):
        view.entity_name[r["id"]] = r["name"] or r["id"]
        view.entity_label[r["id"]] = r["label"] or ""
        view.entity_aliases[r["id"]] = list(r["aliases"] or [])
    for query in ("walk_chunk_mentions", "walk_image_mentions"):
        for r in store.run(query):
            view.mentions[r["node"]].add(r["entity"])
            view.mentioned_by[r["entity"]].add(r["node"])
    for r in store.run("walk_keypoints"):
        kp = Keypoint(r["id"], r["source_id"], r["text"] or "", r["modality"] or "text",
                      [e for e in (r["entities"] or []) if e])
        view.keypoints[r["source_id"]].append(kp)
    for r in store.run("walk_similar"):
        view.similar[r["s"]][r["d"]] = float(r["score"])
        view.similar[r["d"]][r["s"]] = float(r["score"])
    for query, a, b in (("walk_references", "chunk", "image"), ("walk_captions", "image", "chunk")):
        for r in store.run(query):
            view.image_links[r[a]].add(r[b])
            view.image_links[r[b]].add(r[a])
    for r in store.run("walk_topics"):
        if r["chunk"] in view.nodes:
            view.nodes[r["chunk"]].topic = r["topic"]
    # An image's topic is its caption's or referring chunk's.
    for node in view.nodes.values():
        if node.label == "Image" and not node.topic:
            topics = [view.nodes[c].topic for c in view.image_links.get(node.id, ()) if c in view.nodes]
            node.topic = next((t for t in topics if t), "")
    # Images are also reachable through what their caption chunk mentions.
    for node in list(view.nodes.values()):
        if node.label == "Image":
            for chunk in view.image_links.get(node.id, ()):
                if view.nodes.get(chunk) and view.nodes[chunk].kind == "caption":
                    for ent in view.mentions.get(chunk, ()):
                        view.mentions[node.id].add(ent)
                        view.mentioned_by[ent].add(node.id)
    meta = store.run("corpus_meta")
    if meta:
        view.domain = meta[0]["domain"] or ""
        view.persona = meta[0]["persona"] or ""
        view.doc_personas = json.loads(meta[0].get("document_personas") or "{}")
    return view
