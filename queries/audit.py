"""Cypher audits of stored chains (`hopgraph audit`).

Each file in cypher/audits/ is one query that re-checks, from the graph alone,
a property the generator claims for its chains (bridges that really join
hops, no shortcut, no redundant or unnecessary hop, the shape its graph_type
promises, evidence that exists, dedup bookkeeping). Every audit returns rows
{chain_id, status, reason}, one per offending chain (an audit made of UNION
parts may return one row per part).

`run_audits` summarises them; an audit "fails" the run when an accepted
chain violates it, since accepted chains are what the dataset ships.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from kg.store import named_queries
from kg.store.base import GraphStore

MAX_EXAMPLES = 5
SNIPPET_CHARS = 240


def audit_names() -> list[str]:
    """Audit names (file stems of cypher/audits/*.cypher), sorted."""
    return [name.split("/", 1)[1] for name in named_queries.names("audits")]


def audit_rows(store: GraphStore) -> dict[str, list[dict[str, Any]]]:
    """Every audit's raw rows, keyed by audit name."""
    return {name: store.run(f"audits/{name}") for name in audit_names()}


@dataclass(frozen=True)
class AuditResult:
    """One audit over the whole graph: how many chains violate it, how many of them accepted."""

    audit: str
    description: str
    violations: int
    accepted_violations: int
    examples: list[str]  # chain ids, accepted ones first


@dataclass(frozen=True)
class AuditReport:
    audits: list[AuditResult]

    @property
    def failed(self) -> bool:
        """An accepted chain violates an audit: the dataset would ship it."""
        return any(a.accepted_violations for a in self.audits)

    def to_dict(self) -> dict[str, Any]:
        return {"audits": [asdict(a) for a in self.audits], "failed": self.failed}


def summarise(name: str, rows: list[dict[str, Any]]) -> AuditResult:
    by_chain: dict[Any, dict[str, Any]] = {}
    for row in rows:
        by_chain.setdefault(row.get("chain_id"), row)
    accepted = sorted(str(c) for c, r in by_chain.items() if r.get("status") == "accepted")
    others = sorted(str(c) for c, r in by_chain.items() if r.get("status") != "accepted")
    return AuditResult(audit=name, description=named_queries.get(f"audits/{name}").description,
                       violations=len(by_chain), accepted_violations=len(accepted),
                       # accepted chains first: they are the ones that fail the run
                       examples=(accepted + others)[:MAX_EXAMPLES])


def run_audits(store: GraphStore) -> AuditReport:
    """Run every audit; the report fails when any accepted chain violates any audit."""
    return AuditReport([summarise(name, rows) for name, rows in audit_rows(store).items()])


def chain_violations(store: GraphStore, chain_id: str) -> list[dict[str, str]]:
    """The audits one chain fails, with the reason each gives."""
    out = []
    for name, rows in audit_rows(store).items():
        reasons = [str(r.get("reason")) for r in rows if r.get("chain_id") == chain_id]
        if reasons:
            out.append({"audit": name, "reason": "; ".join(dict.fromkeys(reasons))})
    return out


def explain_chain(store: GraphStore, chain_id: str) -> dict[str, Any] | None:
    """One chain, its hops in order with their evidence and bridges, and the audits it fails.

    None when there is no chain with that id.
    """
    rows = store.run("explore/chain_hops", {"chain_id": chain_id})
    if not rows:
        return None
    chain = {k: v for k, v in dict(rows[0]["chain"]).items() if k != "embedding"}
    hops: dict[str, dict[str, Any]] = {}
    for r in rows:
        if r.get("hop") is None:
            continue
        hop_props = dict(r["hop"])
        hop = hops.setdefault(hop_props["id"], {
            "index": hop_props.get("index"),
            "id": hop_props["id"],
            "sub_question": hop_props.get("sub_question"),
            "answer": hop_props.get("answer"),
            "modality": hop_props.get("modality"),
            "evidence_id": hop_props.get("evidence_id"),
            "necessary": hop_props.get("necessary"),
            "necessity_checked": hop_props.get("necessity_checked"),
            "evidence": [],
            "bridges": [],
        })
        if r.get("evidence_id") is not None and all(e["id"] != r["evidence_id"] for e in hop["evidence"]):
            hop["evidence"].append(_evidence(r))
        if r.get("bridge_id") is not None and all(b["id"] != r["bridge_id"] for b in hop["bridges"]):
            hop["bridges"].append({"id": r["bridge_id"], "name": r.get("bridge_name")})
    ordered = sorted(hops.values(), key=lambda h: (h["index"] is None, h["index"] if h["index"] is not None else 0, h["id"]))
    bridges: list[dict[str, Any]] = []
    for hop in ordered:
        for b in hop["bridges"]:
            if all(x["id"] != b["id"] for x in bridges):
                bridges.append({**b, "from_hop": hop["index"]})
    return {
        "chain": chain,
        "duplicate_of": list(rows[0].get("duplicate_of") or []),
        "hops": ordered,
        "bridges": bridges,
        "audits_failed": chain_violations(store, chain_id),
    }


def _evidence(r: dict[str, Any]) -> dict[str, Any]:
    label = r.get("evidence_label")
    ev: dict[str, Any] = {"id": r["evidence_id"], "label": label,
                          "doc_id": r.get("doc_id"), "doc_path": r.get("doc_path"), "page": r.get("page")}
    if label == "Image":
        ev["image_path"] = r.get("image_path")
        caption = r.get("caption") or r.get("caption_text") or r.get("description")
        ev["snippet"] = _snippet(caption)
    else:
        ev["snippet"] = _snippet(r.get("text"))
    return ev


def _snippet(text: Any) -> str | None:
    if text is None:
        return None
    text = " ".join(str(text).split())
    return text if len(text) <= SNIPPET_CHARS else text[:SNIPPET_CHARS - 3] + "..."
