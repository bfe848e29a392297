"""Verbs that read the graph for a user: stats, audit, sync to Neo4j, GraphML/GEXF export."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from hopgraph.cli.common import app, fail, out, print_rows, state


@app.command()
def stats(as_json: bool = typer.Option(False, "--json", help="Machine-readable output for CI.")) -> None:
    """Node counts per label and relationship counts per type (and dataset figures)."""
    from builders.stats import dataset_stats

    store = state.existing_store()
    data = {"store": store.name, **store.counts()}
    data["dataset"] = dataset_stats(store)
    if as_json:
        out.print_json(data=data)
        return
    print_rows([{"label": k, "nodes": v} for k, v in sorted(data["nodes"].items())], "nodes")
    print_rows([{"type": k, "relationships": v} for k, v in sorted(data["relationships"].items())], "relationships")
    ds = data["dataset"]
    if ds.get("chains"):
        print_dataset_stats(ds)


def print_dataset_stats(ds: dict) -> None:
    flat = []
    for key, value in ds.items():
        flat.append({"figure": key, "value": value})
    print_rows(flat, "dataset")


@app.command()
def audit(
    as_json: bool = typer.Option(False, "--json"),
    explain: Optional[str] = typer.Option(None, "--explain", help="A chain id to explain."),
) -> None:
    """Cypher audits of hop necessity; exit 1 if an accepted chain violates one."""
    from queries.audit import explain_chain, run_audits

    store = state.existing_store()
    if explain:
        info = explain_chain(store, explain)
        if info is None:
            fail(f"no chain with id {explain}")
        out.print_json(data=info)
        return
    results = run_audits(store)
    if as_json:
        out.print_json(data=results.to_dict())
    else:
        print_rows([{"audit": r.audit, "violations": r.violations, "accepted": r.accepted_violations,
                     "examples": ", ".join(r.examples)} for r in results.audits], "audits")
    raise typer.Exit(1 if results.failed else 0)


@app.command()
def sync(to: str = typer.Option("neo4j", "--to", help="Target store (neo4j).")) -> None:
    """Copy the embedded graph into Neo4j, in batches, idempotently."""
    from kg.store.sync import run_sync

    if to != "neo4j":
        fail("only --to neo4j is supported")
    report = run_sync(state.settings(), state.existing_store())
    out.print(f"synced {report.nodes} nodes and {report.relationships} relationships to Neo4j")


@app.command("export-graph")
def export_graph(
    path: Path = typer.Argument(..., help="out.graphml or out.gexf"),
    chain: Optional[str] = typer.Option(None, "--chain", help="Only this chain's neighbourhood."),
) -> None:
    """Write the corpus graph (or one chain's neighbourhood) as GraphML or GEXF."""
    from queries.graph_export import export_graph as do_export

    report = do_export(state.existing_store(), path, chain)
    out.print(f"wrote {report['nodes']} nodes and {report['edges']} edges to {path}")
