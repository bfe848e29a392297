"""A sampled chain before it is put into words: its hops, their bridges and its structure.

Walkers (walkers.py) build candidates; verbalizers, verification, shrinking
and write-back read them. A candidate that ends in a table hop carries the
chosen cell in `meta["table_cell"]` (tables.py), and its id differs per cell.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from builders.chains.tables import TableCell
from kg.ids import content_id


@dataclass
class Hop:
    node_id: str
    label: str  # Chunk or Image
    bridge: str = ""  # entity id carried into the next hop ("" for the last, or a link)
    bridge_kind: str = ""  # "entity", "link" or ""


@dataclass
class Candidate:
    graph_type: str
    hops: list[Hop]
    structure: list[tuple[int, int]]  # edges between hop indices; len(hops) is the final question
    answer_entity: str = ""  # entity the final answer names ("" when a table cell is the answer)
    meta: dict = field(default_factory=dict)

    @property
    def id(self) -> str:
        cell = TableCell.from_meta(self.meta)  # one candidate per cell of a table row
        return content_id(self.graph_type, *[h.node_id for h in self.hops], self.answer_entity,
                          *([cell.key] if cell else []))

    @property
    def table_cell(self) -> TableCell | None:
        return TableCell.from_meta(self.meta)

    @property
    def node_ids(self) -> list[str]:
        return [h.node_id for h in self.hops]

    @property
    def bridges(self) -> list[str]:
        return [h.bridge for h in self.hops if h.bridge_kind == "entity" and h.bridge]

    @property
    def named_by_value(self) -> bool:
        """Whether the bridge into the last hop is named by a table's or figure's value, not in words."""
        return bool(self.meta.get("table_fact") or self.meta.get("figure_fact"))
