"""Verbs that set a project up: init, config show, and the embedded database server."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from hopgraph.cli.common import app, fail, out, print_rows, state
from kg.config import CONFIG_FILE
from kg.config_template import DEFAULT_TOML

db_app = typer.Typer(no_args_is_help=True, help="The embedded FalkorDB server.")
config_app = typer.Typer(no_args_is_help=True, help="Configuration.")
app.add_typer(db_app, name="db")
app.add_typer(config_app, name="config")


@app.command()
def init(force: bool = typer.Option(False, "--force", help="Overwrite an existing file.")) -> None:
    """Write a commented hopgraph.toml with the defaults."""
    path = state.config_path or Path(CONFIG_FILE)
    if path.exists() and not force:
        fail(f"{path} already exists (use --force to overwrite)")
    path.write_text(DEFAULT_TOML, encoding="utf-8")
    out.print(f"wrote {path}")


@config_app.command("show")
def config_show(as_json: bool = typer.Option(False, "--json")) -> None:
    """The effective configuration (file + environment), secrets masked."""
    s = state.settings()
    data = json.loads(s.model_dump_json())
    data["secrets"] = s.secrets_summary()
    if as_json:
        out.print_json(data=data)
        return
    out.print(toml_text(data), markup=False, highlight=False, end="")


def toml_text(data: dict) -> str:
    """Settings as TOML that tomllib reads back: unset keys as comments, maps as sub-tables."""
    lines: list[str] = []

    def table(name: str, values: dict) -> None:
        lines.append(f"[{name}]")
        nested = []
        for key, value in values.items():
            if value is None:
                lines.append(f"# {key} = (unset)")
            elif isinstance(value, dict):
                nested.append((f"{name}.{key}", value))
            else:
                lines.append(f"{key} = {json.dumps(value)}")  # JSON strings, numbers, lists are TOML too
        lines.append("")
        for sub, sub_values in nested:
            table(sub, sub_values)

    for section, values in data.items():
        table(section, values)
    return "\n".join(lines)


# ---------------------------------------------------------------- db
def _server():
    from kg.store.falkor import EmbeddedServer

    s = state.settings()
    if s.store.backend != "falkordb":
        fail("`hopgraph db` manages the embedded FalkorDB server; the configured store is neo4j")
    return EmbeddedServer(s.store.data_dir)


@db_app.command("start")
def db_start() -> None:
    """Start the embedded server and keep it running after hopgraph exits."""
    server = _server()
    started = server.ensure_running()
    server.keep_path.touch()
    st = server.status()
    out.print(f"FalkorDB {'started' if started else 'already running'} (pid {st['pid']}, socket {st['socket']})")


@db_app.command("status")
def db_status() -> None:
    """Is the embedded server running, and where."""
    st = _server().status()
    for key, value in st.items():
        out.print(f"{key}: {value}", highlight=False)
    raise typer.Exit(0 if st["running"] else 3)


@db_app.command("stop")
def db_stop() -> None:
    """Stop the embedded server (its data stays on disk)."""
    stopped = _server().stop()
    out.print("FalkorDB stopped" if stopped else "FalkorDB was not running")


@db_app.command("shell")
def db_shell(query: str = typer.Argument(..., help="Cypher to run"),
             params: str = typer.Option("{}", "--params", help="Parameters as JSON"),
             as_json: bool = typer.Option(False, "--json")) -> None:
    """Run one Cypher query and print the rows as a table."""
    try:
        parameters = json.loads(params)
    except json.JSONDecodeError as exc:
        fail(f"--params is not JSON: {exc}")
    rows = state.existing_store().run_text(query, parameters)
    if as_json:
        out.print_json(data=rows)
        return
    print_rows(rows)
