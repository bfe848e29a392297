"""A small synthetic corpus for the generation core: no ../shared needed.

Three documents whose sentences chain through specific entities across
documents (Maria Kovacs -> Helsinki Marine Institute -> Aurora Research
Vessel -> Gulf of Riga -> Nordic Ocean Council -> Stockholm), plus page
furniture that must never become evidence: a contents chunk with dot
leaders, a bibliography chunk with role "references", and a table chunk.
Mentions are written by exact name match, as ingest would for these names.

Tables are never text hops (FURNITURE), but a text chain may end in one
cell: "gulfs" has a row "Gulf of Riga", the bridge of c3, so c2 -> c3 ->
gulfs is a 3-hop chain ending in a cell (grid stored as Chunk.cells, as
ingest does, with bold and a currency column of its own); "tab" names the
vessel, and its one cell ("Helsinki Marine Institute") may end only chains
whose earlier hops do not say it; "species" names no entity of any chain.
"""

from __future__ import annotations

import re

from kg.ingest.tables import table_grid

DOCUMENTS = [("d1", "Baltic field notes"), ("d2", "Vessels of the north"), ("d3", "Seas and councils")]

ENTITIES = [
    ("maria kovacs", "Maria Kovacs", "PERSON"),
    ("helsinki marine institute", "Helsinki Marine Institute", "ORG"),
    ("aurora research vessel", "Aurora Research Vessel", "PRODUCT"),
    ("gulf of riga", "Gulf of Riga", "LOC"),
    ("nordic ocean council", "Nordic Ocean Council", "ORG"),
    ("stockholm", "Stockholm", "GPE"),
    ("karl lindqvist", "Karl Lindqvist", "PERSON"),
    ("user", "USER", "ORG"),  # a common word in capitals: never a bridge
]

# (id, doc, index, text, kind, role)
CHUNKS = [
    ("c1", "d1", 0, "Maria Kovacs founded the Helsinki Marine Institute after years of coastal fieldwork.", "text", "body"),
    ("c2", "d1", 1, "The Helsinki Marine Institute operates the Aurora Research Vessel from a harbour near the old town.",
     "text", "body"),
    ("c3", "d2", 0, "The Aurora Research Vessel mapped the Gulf of Riga during a long winter campaign.", "text", "body"),
    ("c4", "d2", 1, "Karl Lindqvist captained the Aurora Research Vessel for a decade before he retired.", "text", "body"),
    ("c5", "d3", 0, "The Gulf of Riga is monitored by the Nordic Ocean Council every spring and autumn.", "text", "body"),
    ("c6", "d3", 1, "The Nordic Ocean Council has its seat in Stockholm and meets twice a year.", "text", "body"),
    ("toc", "d3", 2, "Contents\nHelsinki Marine Institute .......... 4\nNordic Ocean Council .......... 7\n"
     "Aurora Research Vessel .......... 9", "text", None),
    ("refs", "d3", 3, "[1] Kovacs M (2001) The Helsinki Marine Institute annual report. [2] Lindqvist K (2004) "
     "The Aurora Research Vessel logbooks. [3] USER (2019) Gulf of Riga survey data.", "text", "references"),
    ("tab", "d2", 2, "| Vessel | Operator |\n|---|---|\n| Aurora Research Vessel | Helsinki Marine Institute |",
     "table", "body"),
    ("gulfs", "d3", 4, "Table 2: Gulfs of the eastern Baltic. Survey figures of 2019.\n\n"
     "| Gulf | Area (km2) | Max depth (m) | Survey budget | |\n|---|---|---|---|---|\n"
     "| Gulf of Riga | **18,100** | 60 | $ | 22,439 |\n| Gulf of Bothnia | 117,000 | 295 | $ | 8,050 |\n"
     "| Gulf of Finland | 30,000 | 123 | $ | 5,120 |",
     "table", "body"),
    ("species", "d1", 2, "Table 1: Fish counted.\n\n| Species | Count |\n|---|---|\n| Baltic herring | 1,200 |\n"
     "| Grey seal | 300 |", "table", "body"),
]

FURNITURE = {"toc", "refs", "tab"}
TABLES = {"tab", "gulfs", "species"}
GRIDS = {"gulfs", "species"}  # chunks stored with a cells grid, as ingest stores tables, and no MENTIONS


def build_synthetic_corpus(store) -> None:
    store.write("upsert_documents", [{"id": d, "path": f"docs/{d}.txt", "title": t, "pages": 1, "sha256": d}
                                     for d, t in DOCUMENTS])
    rows = []
    for cid, doc, idx, text, kind, role in CHUNKS:
        row = {"id": cid, "doc_id": doc, "index": idx, "text": text, "kind": kind, "page_start": 1, "page_end": 1,
               "tokens": len(text.split())}
        if role:
            row["role"] = role
        if cid in GRIDS:
            row["cells"] = table_grid(text).to_json()
        rows.append(row)
    store.write("upsert_chunks", rows)
    store.write("upsert_entities", [{"id": e, "name": n, "label": lab, "aliases": []} for e, n, lab in ENTITIES])
    store.write("chunk_part_of", [{"s": c[0], "d": c[1]} for c in CHUNKS], key=None)
    mentions = []
    for cid, _doc, _idx, text, _kind, _role in CHUNKS:
        if cid in GRIDS:
            continue  # as on the shared PDFs, entity extraction found nothing in these tables' rows
        for eid, name, _label in ENTITIES:
            count = len(re.findall(r"(?<!\w)" + re.escape(name) + r"(?!\w)", text))
            if count:
                mentions.append({"s": cid, "d": eid, "count": count})
    store.write("chunk_mentions", mentions, key=None)
