"""What every verb shares: the lazily loaded settings and store, the consoles,
one-line failures and table printing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from kg.config import CONFIG_FILE, Settings, load_settings

if TYPE_CHECKING:  # the CLI starts fast: the store and the LLM client load with the first verb that needs them
    from kg.context import RunContext
    from kg.store.base import GraphStore

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Documents -> knowledge graph -> verified multi-hop reasoning datasets.")

out = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)


class State:
    config_path: Path | None = None
    data_dir: Path | None = None
    backend: str | None = None
    _settings: Settings | None = None
    _store: GraphStore | None = None
    _lock = None

    def settings(self) -> Settings:
        if self._settings is None:
            s = load_settings(self.config_path)
            if self.data_dir is not None:
                s.store.data_dir = self.data_dir
            if self.backend is not None:
                s.store.backend = self.backend  # type: ignore[assignment]
            self._settings = s
        return self._settings

    def writer(self, wait: bool = False) -> None:
        """Hold the data dir's writer lock until this process ends (kg.store.writer_lock)."""
        from kg.store.writer_lock import WriterLock

        if self._lock is None or not self._lock.held:
            self._lock = WriterLock(self.settings().store.data_dir)
            self._lock.acquire(wait, on_wait=lambda holder: err.print(
                f"waiting for the run writing to {self.settings().store.data_dir}: {holder}", highlight=False))

    def store(self) -> GraphStore:
        if self._store is None:
            from kg.store import open_store

            self._store = open_store(self.settings())
            self._store.ensure_schema()
        return self._store

    def existing_store(self) -> GraphStore:
        """The store of a verb that only reads it: an embedded data dir that does not exist is a
        one-line error (a wrong folder, -c or --data-dir), not a new empty graph and "(no rows)"."""
        s = self.settings()
        if s.store.backend == "falkordb" and not Path(s.store.data_dir).is_dir():
            fail(f"no graph in {s.store.data_dir}: nothing was ingested there "
                 "(run `hopgraph ingest`, or name the project with -c or --data-dir)")
        return self.store()

    def context(self, dry_run: bool = False, max_calls: int | None = None, budget_tokens: int | None = None,
                no_cache: bool = False) -> RunContext:
        """The command's run context: every stage it runs gets this one (one LLM client, one budget)."""
        from kg.context import RunContext

        return RunContext.open(self.settings(), self.store(), console=err, dry_run=dry_run, max_calls=max_calls,
                               budget_tokens=budget_tokens, no_cache=no_cache)


state = State()


@app.callback()
def _global(
    config: Optional[Path] = typer.Option(None, "--config", "-c", help=f"Config file (default ./{CONFIG_FILE})."),
    data_dir: Optional[Path] = typer.Option(None, "--data-dir", help="Where the embedded store, caches and runs live."),
    store: Optional[str] = typer.Option(None, "--store", help="falkordb (embedded) or neo4j."),
) -> None:
    state.config_path, state.data_dir, state.backend = config, data_dir, store
    state._settings, state._store = None, None
    if store not in (None, "falkordb", "neo4j"):
        raise typer.BadParameter("--store must be falkordb or neo4j")


def fail(message: str, code: int = 1) -> None:
    err.print("[red]error:[/red] " + escape(message), highlight=False)
    raise typer.Exit(code)


def print_rows(rows: list[dict], title: str | None = None) -> None:
    if not rows:
        out.print("(no rows)")
        return
    table = Table(title=title)
    for col in rows[0]:
        table.add_column(str(col))
    for row in rows:
        table.add_row(*[_cell(row.get(c)) for c in rows[0]])
    out.print(table)


def _cell(value: object) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return text if len(text) <= 120 else text[:117] + "..."


def llm_notice(settings: Settings) -> None:
    if not settings.llm_configured:
        err.print("No LLM configured: running offline (keypoints from sentences, descriptions from "
                  "captions, deterministic questions). Set OPENAI_BASE_URL and/or OPENAI_API_KEY to use one.",
                  highlight=False)
