"""`hopgraph llm ...`: the configured LLM endpoints."""

from __future__ import annotations

import json
from typing import Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

llm_app = typer.Typer(no_args_is_help=True, help="The configured LLM endpoints.")


def _mark(ok: bool | None) -> str:
    return {True: "[green]yes[/green]", False: "[red]no[/red]", None: "[dim]-[/dim]"}[ok]


def _table(reports: list) -> Table:
    table = Table(title="LLM endpoint capabilities", show_lines=False)
    table.add_column("check")
    for r in reports:
        table.add_column(escape(f"{r.model}\n({', '.join(r.roles)})"))
    names: list[str] = []
    for r in reports:
        names += [c.name for c in r.checks if c.name not in names]
    for name in names:
        cells = []
        for r in reports:
            check = next((c for c in r.checks if c.name == name), None)
            cells.append("" if check is None else f"{_mark(check.ok)} {escape(check.detail)}")
        table.add_row(name, *cells)
    table.add_row("[bold]runs will use[/bold]", *[
        escape(f"format {r.format_mode or '-'}, vision {'on' if r.vision else 'off'}, "
               f"{r.slots or '-'} in flight") if r.reachable else "[red]unreachable[/red]" for r in reports])
    return table


@llm_app.command("check")
def llm_check(
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
    role: Optional[list[str]] = typer.Option(None, "--role", help="Only the models of these roles "
                                             "(generator, verifier, vision, reader)."),
    no_throughput: bool = typer.Option(False, "--no-throughput", help="Skip the 1/2/4/8-in-flight measurement."),
) -> None:
    """Probe each configured role's model: formats, vision, latency, throughput.
    The result is remembered, so later runs start in the right mode."""
    from hopgraph.cli.common import fail, state
    from kg.llm.capabilities import CapabilityStore
    from kg.llm.probe import check_endpoint

    s = state.settings()
    if not s.llm_configured:
        fail("no LLM endpoint configured: set OPENAI_BASE_URL (local servers) or OPENAI_API_KEY")
    key = s.llm_api_key
    store = CapabilityStore.in_dir(s.store.data_dir)
    err = Console(stderr=True)
    with err.status(f"probing {s.llm_base_url or 'the default endpoint'} ..."):
        reports = check_endpoint(s.llm, s.llm_base_url, key.get_secret_value() if key else None, store,
                                 roles=role or None, throughput=not no_throughput)
    if not reports:
        fail(f"no configured model serves the roles {', '.join(role or [])}")
    if as_json:
        print(json.dumps([r.to_dict() for r in reports], indent=1))
    else:
        Console(soft_wrap=True).print(_table(reports))
        err.print(f"stored in {store.path}", highlight=False)
    if not all(r.reachable for r in reports):
        raise typer.Exit(1)
