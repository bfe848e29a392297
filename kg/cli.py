"""The `hopgraph` command line. Verbs mirror the pipeline stages.

Every verb loads hopgraph.toml (plus HOPGRAPH_* overrides), opens the store
lazily and turns HopgraphError into one line on stderr and exit code 1.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from kg.config import CONFIG_FILE, DEFAULT_TOML, Settings, load_settings
from evaluate.cli import app as eval_app
from kg.errors import HopgraphError

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Documents -> knowledge graph -> verified multi-hop reasoning datasets.")
db_app = typer.Typer(no_args_is_help=True, help="The embedded FalkorDB server.")
config_app = typer.Typer(no_args_is_help=True, help="Configuration.")
app.add_typer(db_app, name="db")
app.add_typer(config_app, name="config")
app.add_typer(eval_app, name="eval")

out = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)


class State:
    config_path: Path | None = None
    data_dir: Path | None = None
    backend: str | None = None
    _settings: Settings | None = None
    _store = None

    def settings(self) -> Settings:
        if self._settings is None:
            s = load_settings(self.config_path)
            if self.data_dir is not None:
                s.store.data_dir = self.data_dir
            if self.backend is not None:
                s.store.backend = self.backend  # type: ignore[assignment]
            self._settings = s
        return self._settings

    def store(self):
        if self._store is None:
            from kg.store import open_store

            self._store = open_store(self.settings())
            self._store.ensure_schema()
        return self._store


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


# ---------------------------------------------------------------- init/config
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
    for section, values in data.items():
        out.print(f"[{section}]", markup=False, highlight=False)
        for key, value in values.items():
            out.print(f"{key} = {json.dumps(value)}", highlight=False)


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
    rows = state.store().run_text(query, parameters)
    if as_json:
        out.print_json(data=rows)
        return
    print_rows(rows)


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


# ---------------------------------------------------------------- stats
@app.command()
def stats(as_json: bool = typer.Option(False, "--json", help="Machine-readable output for CI.")) -> None:
    """Node counts per label and relationship counts per type (and dataset figures)."""
    from builders.stats import dataset_stats

    store = state.store()
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


# ---------------------------------------------------------------- stages
def _llm_notice(settings: Settings) -> None:
    if not settings.llm_configured:
        err.print("No LLM configured: running offline (keypoints from sentences, descriptions from "
                  "captions, deterministic questions). Set OPENAI_BASE_URL and/or OPENAI_API_KEY to use one.",
                  highlight=False)


@app.command()
def ingest(
    paths: list[Path] = typer.Argument(..., help="Files or folders."),
    glob: Optional[str] = typer.Option(None, "--glob", help='Which files to take from folders, e.g. "*.pdf".'),
    keypoints: Optional[bool] = typer.Option(None, "--keypoints/--no-keypoints", help="Extract keypoints."),
    describe_images: Optional[bool] = typer.Option(None, "--describe-images/--no-describe-images"),
    max_calls: Optional[int] = typer.Option(None, "--max-calls", help="Stop cleanly after this many LLM calls."),
    budget_tokens: Optional[int] = typer.Option(None, "--budget-tokens"),
    no_cache: bool = typer.Option(False, "--no-cache", help="Bypass the LLM cache."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Estimate LLM calls and tokens; spend nothing."),
) -> None:
    """Read PDFs, markdown and text into the corpus graph."""
    from kg.pipeline import run_ingest

    s = state.settings()
    if glob:
        s.ingest.glob = glob
    _llm_notice(s)
    report = run_ingest(s, state.store(), paths, keypoints=keypoints, describe_images=describe_images,
                        max_calls=max_calls, budget_tokens=budget_tokens, no_cache=no_cache,
                        dry_run=dry_run, console=err)
    raise typer.Exit(1 if report.get("failed") or report.get("incomplete") else 0)


@app.command()
def generate(
    n: Optional[int] = typer.Option(None, "--n", help="Accepted chains wanted in total (a re-run tops up)."),
    types: Optional[str] = typer.Option(None, "--types", help="Comma-separated chain types."),
    max_hops: Optional[int] = typer.Option(None, "--max-hops"),
    seed: Optional[int] = typer.Option(None, "--seed"),
    max_calls: Optional[int] = typer.Option(None, "--max-calls"),
    budget_tokens: Optional[int] = typer.Option(None, "--budget-tokens"),
    no_cache: bool = typer.Option(False, "--no-cache"),
    dry_run: bool = typer.Option(False, "--dry-run"),
) -> None:
    """Walk the graph, verbalize and verify chains, write them back."""
    from builders.generate import run_generate

    s = state.settings()
    _apply_generate_options(s, n, types, max_hops, seed)
    _llm_notice(s)
    report = run_generate(s, state.store(), max_calls=max_calls, budget_tokens=budget_tokens,
                          no_cache=no_cache, dry_run=dry_run, console=err)
    raise typer.Exit(1 if report.get("llm_unavailable") else 0)


def _apply_generate_options(s: Settings, n, types, max_hops, seed) -> None:
    from kg.config import CHAIN_TYPES

    if n is not None:
        if n < 1:
            fail("--n must be at least 1")
        s.generate.n = n
    if types:
        wanted = [t.strip() for t in types.split(",") if t.strip()]
        unknown = [t for t in wanted if t not in CHAIN_TYPES]
        if unknown:
            fail(f"unknown chain type {unknown[0]!r}; choose from {', '.join(CHAIN_TYPES)}")
        s.generate.types = wanted
    if max_hops is not None:
        s.generate.max_hops = max_hops
    if seed is not None:
        s.generate.seed = seed


@app.command()
def dedup() -> None:
    """Group near-duplicate chains with Leiden and keep the best of each group."""
    from builders.dedup import run_dedup

    report = run_dedup(state.settings(), state.store())
    out.print(f"dedup: {report['chains']} accepted chains, {report['groups']} groups, "
              f"{report['duplicates']} marked duplicate")


@app.command()
def export(
    out_dir: Path = typer.Argument(..., help="Output folder."),
    formats: Optional[str] = typer.Option(None, "--format", help="Comma-separated: jsonl,parquet,hf"),
    include_duplicates: bool = typer.Option(False, "--include-duplicates"),
) -> None:
    """Write the dataset (JSONL, parquet, HF datasets), its JSON Schema and a dataset card."""
    from builders.export import run_export

    s = state.settings()
    if formats:
        s.export.formats = [f.strip() for f in formats.split(",")]  # type: ignore[assignment]
        bad = [f for f in s.export.formats if f not in ("jsonl", "parquet", "hf")]
        if bad:
            fail(f"unknown format {bad[0]!r}; choose from jsonl, parquet, hf")
    s.export.include_duplicates = include_duplicates or s.export.include_duplicates
    report = run_export(s, state.store(), out_dir)
    out.print(f"dataset: {report['records']} records -> {report['path']}")


@app.command()
def audit(
    as_json: bool = typer.Option(False, "--json"),
    explain: Optional[str] = typer.Option(None, "--explain", help="A chain id to explain."),
) -> None:
    """Cypher audits of hop necessity; exit 1 if an accepted chain violates one."""
    from builders.audit import explain_chain, run_audits

    store = state.store()
    if explain:
        info = explain_chain(store, explain)
        if info is None:
            fail(f"no chain with id {explain}")
        out.print_json(data=info)
        return
    results = run_audits(store)
    if as_json:
        out.print_json(data=results)
    else:
        print_rows([{"audit": r["audit"], "violations": r["violations"], "accepted": r["accepted_violations"],
                     "examples": ", ".join(r["examples"])} for r in results["audits"]], "audits")
    raise typer.Exit(1 if results["failed"] else 0)


@app.command()
def build(
    paths: list[Path] = typer.Argument(..., help="Input files or folders, then the output folder last."),
    n: Optional[int] = typer.Option(None, "--n"),
    types: Optional[str] = typer.Option(None, "--types"),
    max_hops: Optional[int] = typer.Option(None, "--max-hops"),
    formats: Optional[str] = typer.Option(None, "--format"),
    max_calls: Optional[int] = typer.Option(None, "--max-calls"),
    no_cache: bool = typer.Option(False, "--no-cache"),
) -> None:
    """ingest + generate + dedup + export in one resumable run."""
    from builders.dedup import run_dedup
    from builders.export import run_export
    from builders.generate import run_generate
    from kg.pipeline import run_ingest

    if len(paths) < 2:
        fail("build needs at least one input and an output folder: hopgraph build docs/ out/")
    inputs, out_dir = paths[:-1], paths[-1]
    s = state.settings()
    _apply_generate_options(s, n, types, max_hops, None)
    if formats:
        s.export.formats = [f.strip() for f in formats.split(",")]  # type: ignore[assignment]
    _llm_notice(s)
    store = state.store()
    report = run_ingest(s, store, inputs, max_calls=max_calls, no_cache=no_cache, console=err)
    generated = run_generate(s, store, max_calls=max_calls, no_cache=no_cache, console=err)
    if generated.get("llm_unavailable"):
        raise typer.Exit(1)  # exporting now would publish a partial dataset as if it were done
    deduped = run_dedup(s, store)
    out.print(f"dedup: {deduped['duplicates']} duplicates marked in {deduped['groups']} groups")
    exported = run_export(s, store, out_dir)
    out.print(f"dataset: {exported['records']} records -> {exported['path']}")
    if store.name == "falkordb":
        out.print(f"graph:   embedded FalkorDB in {s.store.data_dir.resolve()} "
                  f"(explore: hopgraph --data-dir {s.store.data_dir} audit --explain <chain id>, "
                  "or hopgraph sync --to neo4j and the queries in cypher/explore/)")
    else:
        out.print(f"graph:   Neo4j at {s.store.neo4j_uri} (open Neo4j Browser at http://localhost:7474)")
    raise typer.Exit(1 if report.get("failed") else 0)


@app.command()
def sync(to: str = typer.Option("neo4j", "--to", help="Target store (neo4j).")) -> None:
    """Copy the embedded graph into Neo4j, in batches, idempotently."""
    from builders.sync import run_sync

    if to != "neo4j":
        fail("only --to neo4j is supported")
    report = run_sync(state.settings(), state.store())
    out.print(f"synced {report['nodes']} nodes and {report['relationships']} relationships to Neo4j")


@app.command("export-graph")
def export_graph(
    path: Path = typer.Argument(..., help="out.graphml or out.gexf"),
    chain: Optional[str] = typer.Option(None, "--chain", help="Only this chain's neighbourhood."),
) -> None:
    """Write the corpus graph (or one chain's neighbourhood) as GraphML or GEXF."""
    from builders.graph_export import export_graph as do_export

    report = do_export(state.store(), path, chain)
    out.print(f"wrote {report['nodes']} nodes and {report['edges']} edges to {path}")


def main() -> None:
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    try:
        app(standalone_mode=True)
    except HopgraphError as exc:
        err.print("[red]error:[/red] " + escape(str(exc)), highlight=False)
        sys.exit(1)
    except OSError as exc:  # a user's path: exists as a file, not writable, disk full
        err.print("[red]error:[/red] " + escape(f"{exc.strerror or exc}: {exc.filename or ''}"), highlight=False)
        sys.exit(1)


if __name__ == "__main__":
    main()
