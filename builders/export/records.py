"""One dataset record: a verified multi-hop chain as it leaves hopgraph.

Field names follow MC-Search where it has one (``graph_type``, ``subqa_chain``,
``subquestion``, ``supporting_fact_id``) so its evaluation code reads our files.
Every field is always present (``None`` or ``[]`` when unknown), which keeps
the JSONL, parquet and HF exports column-stable. The JSON Schema of the model
is published beside the data as ``record.schema.json``.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_VERSION = "1.2"  # 1.1: hops carry their keypoints; 1.2: figure_value on hops, a strict fork's comparison
SCHEMA_ID = "https://hopgraph.dev/schema/record-1.2.json"


class _Strict(BaseModel):
    # An unexpected key is a bug in the exporter (or a file from elsewhere).
    model_config = ConfigDict(extra="forbid")


class Evidence(_Strict):
    """Where a hop's answer comes from, resolved to a document and page.

    ``kind`` is the evidence node: ``chunk`` (text, ``text`` holds it), ``image``
    (``image_path`` relative to the dataset folder when the file was copied) or
    ``keypoint`` (an atomic fact; ``text`` holds it and ``chunk_id`` /
    ``image_id`` name the chunk or image it was extracted from).
    """

    kind: Literal["chunk", "image", "keypoint"] | None = Field(None, description="Evidence node type.")
    doc_id: str | None = Field(None, description="Document id (content hash).")
    title: str | None = Field(None, description="Document title.")
    path: str | None = Field(None, description="Source document path as ingested.")
    page: int | None = Field(None, description="1-based page of the evidence (first page for a chunk).")
    page_end: int | None = Field(None, description="Last page of a chunk spanning pages.")
    chunk_id: str | None = None
    image_id: str | None = None
    keypoint_id: str | None = None
    text: str | None = Field(None, description="Chunk text, or the keypoint's fact.")
    image_path: str | None = Field(None, description="Image file, relative to the dataset folder when copied.")
    caption: str | None = Field(None, description="Image caption from the document.")
    description: str | None = Field(None, description="Image description (VLM, caption or alt text).")


class FigureValue(_Strict):
    """The value a figure prints at one of its labels: a figure hop's answer or identifying fact."""

    label: str = Field(..., description="The printed label (a bar, a series, a node) as the figure prints it.")
    value: str = Field(..., description="The number printed at that label, as printed.")
    figure: str | None = Field(None, description="The figure's number as its caption gives it (\"Figure 3\").")


class TableCell(_Strict):
    """The one cell a table hop's answer is: find the row, then the column, in the table of `evidence`."""

    row_label: str = Field(..., description="Row label (first column) as written in the table.")
    column_label: str = Field(..., description="Column header as written in the table.")
    value: str = Field(..., description="The cell, as written (without markdown).")
    unit: str | None = Field(None, description="A currency symbol that stood in a column of its own.")


class HopKeypoint(_Strict):
    """A CHARGE keypoint of the hop's evidence that states its answer (builders.export.keypoints)."""

    id: str
    text: str


class SubQA(_Strict):
    index: int = Field(..., description="Hop index inside the chain; `structure` refers to it.")
    subquestion: str
    answer: str
    modality: Literal["text", "image"]
    supporting_fact_id: str | None = Field(None, description="Id of the evidence node (chunk, image or keypoint).")
    bridge_entity: str | None = Field(None, description="Name of the entity carried into the next hop.")
    bridge_entity_id: str | None = None
    necessary: bool | None = Field(None, description="Hop necessity (context utility) result; null if unchecked.")
    necessity_method: str | None = None
    evidence: Evidence
    table_cell: TableCell | None = Field(None, description="For a hop answered by one table cell: that cell.")
    figure_value: FigureValue | None = Field(None, description="For a figure hop answered or identified by a value "
                                             "the figure prints at a label: that label and value (not a table).")
    keypoints: list[HopKeypoint] = Field(default_factory=list, description="Keypoints of the evidence that state "
                                         "the hop's answer (CHARGE Correctness/Coverage are scored on them).")


class Verification(_Strict):
    faithful: bool | None = None
    standalone: bool | None = None
    requires_content: bool | None = None
    navigation: bool | None = None
    no_shortcut: bool | None = None
    hop_necessity: list[bool | None] = Field(default_factory=list, description="One entry per hop, in hop order.")
    score: float | None = Field(None, description="The verifier's overall score.")
    construction: str | None = Field(None, description="JSON: the pre-check's figures (siblings, rivals, BM25 "
                                     "ranks, context cosines) the chain was drawn with.")
    fork: str | None = Field(None, description="JSON, for a strict fork: the one thing it asks, computed from "
                             "the two printed values ({operation: difference|larger|earlier, answer, parts: [{hop, "
                             "subject, value}]}); the final answer was checked to give `answer`.")


class Generator(_Strict):
    llm: str | None = Field(None, description="Model that verbalized the chain, or 'offline'.")
    prompt_versions: dict[str, str] = Field(default_factory=dict, description="Prompt task -> version.")


class DatasetRecord(_Strict):
    id: str
    graph_type: str
    question: str
    answer: str
    subqa_chain: list[SubQA]
    hops: int
    bridge_entities: list[str] = Field(default_factory=list, description="Bridge entity names, in hop order.")
    bridge_entity_ids: list[str] = Field(default_factory=list, description="Bridge entity ids (normalized names).")
    structure: list[list[int]] = Field(default_factory=list, description="Edges [from_hop, to_hop] between hop indices.")
    domain: str | None = None
    persona: str | None = None
    verification: Verification
    generator: Generator
    topics: list[str] = Field(default_factory=list, description="Topic (Leiden community) ids of the evidence.")
    doc_ids: list[str] = Field(default_factory=list, description="Documents the chain draws on.")
    duplicates_merged: list[str] = Field(default_factory=list, description="Ids of chains marked duplicates of this one.")
    duplicate_of: str | None = Field(None, description="For an exported duplicate: the chain it duplicates.")
    status: Literal["accepted", "rejected", "duplicate"]
    reject_reason: str | None = None


# Columns that parquet stores natively; every other (list or object) field is a JSON string.
SCALAR_FIELDS: dict[str, str] = {
    "id": "string", "graph_type": "string", "question": "string", "answer": "string",
    "hops": "int64", "domain": "string", "persona": "string", "duplicate_of": "string",
    "status": "string", "reject_reason": "string",
}
JSON_FIELDS: tuple[str, ...] = tuple(f for f in DatasetRecord.model_fields if f not in SCALAR_FIELDS)


def record_json_schema() -> dict[str, Any]:
    """JSON Schema (draft 2020-12) of one dataset record."""
    schema = DatasetRecord.model_json_schema()
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "hopgraph dataset record",
        "description": (f"One verified multi-hop QA chain (hopgraph record schema {SCHEMA_VERSION}). "
                        "Field names follow MC-Search where it has one."),
        **{k: v for k, v in schema.items() if k not in ("title", "description")},
    }
