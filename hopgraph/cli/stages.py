"""The pipeline verbs: ingest, generate, dedup, export, and build (all four in one run).

Every verb builds one run context (kg.context.RunContext: settings, store,
the LLM client and its budget, the console) and hands it to its stage, which
returns a typed result. `build` runs BUILD_STAGES, the same stage functions
the single verbs run, on one context, so `--max-calls` and `--budget-tokens`
are one budget for the run.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Optional

import typer

from hopgraph.cli.common import app, err, fail, llm_notice, out, state
from kg.config import CHAIN_TYPES, EXPORT_FORMATS, Settings, override

if TYPE_CHECKING:
    from builders.export import ExportResult
    from kg.context import RunContext
    from kg.pipeline.dry_run import IngestEstimate
    from kg.pipeline.report import IngestSummary

# Options shared by several verbs, defined once so their help stays the same.
MAX_CALLS = typer.Option(None, "--max-calls", help="Stop cleanly after this many LLM calls (whole run).")
BUDGET_TOKENS = typer.Option(None, "--budget-tokens", help="Stop cleanly after this many LLM tokens (whole run).")
NO_CACHE = typer.Option(False, "--no-cache", help="Bypass the LLM cache (replies are still stored).")
N = typer.Option(None, "--n", help="Accepted chains wanted in total (a re-run tops up).")
TYPES = typer.Option(None, "--types", help=f"Comma-separated chain types: {', '.join(CHAIN_TYPES)}.")
MIN_HOPS = typer.Option(None, "--min-hops", help="Fewest hops a chain may have (2 or more).")
MAX_HOPS = typer.Option(None, "--max-hops", help="Most hops a chain may have.")
SEED = typer.Option(None, "--seed", help="Seed of the walks (same seed, same graph: same dataset).")
WAIT = typer.Option(False, "--wait", help="If another run is writing to the data dir, wait for it to end "
                                         "instead of stopping.")
FORMATS = typer.Option(None, "--format", help=f"Comma-separated export formats: {', '.join(EXPORT_FORMATS)}.")


@app.command()
def ingest(
    paths: list[Path] = typer.Argument(..., help="Files or folders."),
    glob: Optional[str] = typer.Option(None, "--glob", help='Which files to take from folders, e.g. "*.pdf".'),
    keypoints: Optional[bool] = typer.Option(None, "--keypoints/--no-keypoints", help="Extract keypoints."),
    describe_images: Optional[bool] = typer.Option(None, "--describe-images/--no-describe-images",
                                                   help="Describe figures with the vision model."),
    max_calls: Optional[int] = MAX_CALLS,
    budget_tokens: Optional[int] = BUDGET_TOKENS,
    no_cache: bool = NO_CACHE,
    dry_run: bool = typer.Option(False, "--dry-run", help="Estimate LLM calls and tokens; spend nothing."),
    executor: Optional[str] = typer.Option(None, "--executor",
                                           help='"local" or "ray" (per-document work as Ray tasks).'),
    ray_address: Optional[str] = typer.Option(None, "--ray-address",
                                              help='Ray cluster to join ("auto", "ray://head:10001"); '
                                                   "default: a local Ray instance."),
    profile: bool = typer.Option(False, "--profile", help="Print seconds and items per stage."),
    sync: bool = typer.Option(False, "--sync", help="Also remove documents under the given folders whose "
                                                   "files are gone (their chains are marked stale)."),
    wait: bool = WAIT,
) -> None:
    """Read PDFs, markdown and text into the corpus graph (a changed file replaces its old version)."""
    s = state.settings()
    override(s, "ingest", glob=glob or None, executor=executor or None, ray_address=ray_address or None)
    llm_notice(s)
    if not dry_run:
        state.writer(wait)
    ctx = state.context(dry_run, max_calls, budget_tokens, no_cache)
    summary = ingest_stage(ctx, paths, keypoints=keypoints, describe_images=describe_images, profile=profile,
                           sync=sync)
    raise typer.Exit(1 if summary.incomplete else 0)


@app.command()
def remove(paths: list[Path] = typer.Argument(..., help="Document paths (as ingested) or folders of them."),
           wait: bool = WAIT) -> None:
    """Remove documents from the graph; chains that quoted them are marked stale."""
    from kg.pipeline.lifecycle import run_remove

    state.writer(wait)
    result = run_remove(state.context(), paths)
    raise typer.Exit(1 if result.not_found else 0)


@app.command()
def generate(
    n: Optional[int] = N,
    types: Optional[str] = TYPES,
    min_hops: Optional[int] = MIN_HOPS,
    max_hops: Optional[int] = MAX_HOPS,
    seed: Optional[int] = SEED,
    max_calls: Optional[int] = MAX_CALLS,
    budget_tokens: Optional[int] = BUDGET_TOKENS,
    no_cache: bool = NO_CACHE,
    dry_run: bool = typer.Option(False, "--dry-run", help="Estimate the LLM cost of the next round; spend nothing."),
    wait: bool = WAIT,
) -> None:
    """Walk the graph, verbalize and verify chains, write them back."""
    from builders.chains.generate import run_generate

    s = state.settings()
    _apply_generate_options(s, n, types, min_hops, max_hops, seed)
    llm_notice(s)
    if not dry_run:
        state.writer(wait)
    report = run_generate(state.context(dry_run, max_calls, budget_tokens, no_cache))
    raise typer.Exit(1 if report.llm_unavailable else 0)


def _apply_generate_options(s: Settings, n: int | None, types: str | None, min_hops: int | None,
                            max_hops: int | None, seed: int | None) -> None:
    """The generate options on the settings, checked by the settings' own rules (kg.config)."""
    override(s, "generate", n=n, types=_csv(types), min_hops=min_hops, max_hops=max_hops, seed=seed)


def _apply_formats(s: Settings, formats: str | None) -> None:
    override(s, "export", formats=_csv(formats))


def _csv(text: str | None) -> list[str] | None:
    """A comma-separated option as a list; None when it is not given or empty."""
    items = [part.strip() for part in (text or "").split(",") if part.strip()]
    return items or None


@app.command()
def dedup(wait: bool = WAIT) -> None:
    """Group near-duplicate chains with Leiden and keep the best of each group."""
    state.writer(wait)
    dedup_stage(state.context())


def dedup_stage(ctx: RunContext) -> int:
    """Dedup, reported; returns the chains marked duplicate."""
    from builders.dedup import run_dedup

    result = run_dedup(ctx)
    out.print(f"dedup: {result.chains} accepted chains, {result.groups} groups, "
              f"{result.duplicates} marked duplicate")
    return result.duplicates


@app.command()
def export(
    out_dir: Path = typer.Argument(..., help="Output folder."),
    formats: Optional[str] = FORMATS,
    include_duplicates: bool = typer.Option(False, "--include-duplicates", help="Also export chains marked duplicate."),
) -> None:
    """Write the dataset (JSONL, parquet, HF datasets), its JSON Schema and a dataset card."""
    s = state.settings()
    _apply_formats(s, formats)
    s.export.include_duplicates = include_duplicates or s.export.include_duplicates
    state.existing_store()
    export_stage(state.context(), out_dir)


def ingest_stage(ctx: RunContext, inputs: list[Path], keypoints: bool | None = None,
                 describe_images: bool | None = None, profile: bool = False,
                 sync: bool = False) -> IngestSummary | IngestEstimate:
    """Ingest (it prints its own report)."""
    from kg.pipeline import run_ingest

    return run_ingest(ctx, inputs, keypoints=keypoints, describe_images=describe_images, profile=profile, sync=sync)


def export_stage(ctx: RunContext, out_dir: Path) -> ExportResult:
    """Export, reported."""
    from builders.export import run_export

    result = run_export(ctx, out_dir)
    out.print(f"dataset: {result.records} records -> {result.path}")
    return result


@app.command()
def build(
    paths: list[Path] = typer.Argument(..., help="Input files or folders, then the output folder last."),
    n: Optional[int] = N,
    types: Optional[str] = TYPES,
    min_hops: Optional[int] = MIN_HOPS,
    max_hops: Optional[int] = MAX_HOPS,
    seed: Optional[int] = SEED,
    formats: Optional[str] = FORMATS,
    max_calls: Optional[int] = MAX_CALLS,
    budget_tokens: Optional[int] = BUDGET_TOKENS,
    no_cache: bool = NO_CACHE,
    wait: bool = WAIT,
) -> None:
    """ingest + generate + dedup + export in one resumable run (one LLM budget for all of it)."""
    # The stage functions of the single verbs, on one context; generate_distinct is
    # generate and dedup, topped up until n distinct chains.
    if len(paths) < 2:
        fail("build needs at least one input and an output folder: hopgraph build docs/ out/")
    inputs, out_dir = paths[:-1], paths[-1]
    s = state.settings()
    _apply_generate_options(s, n, types, min_hops, max_hops, seed)
    _apply_formats(s, formats)
    llm_notice(s)
    state.writer(wait)
    ctx = state.context(max_calls=max_calls, budget_tokens=budget_tokens, no_cache=no_cache)
    ingested = ingest_stage(ctx, inputs)
    generate_distinct(ctx)
    export_stage(ctx, out_dir)
    _print_graph_location(ctx)
    raise typer.Exit(1 if ingested.failed or ingested.partial else 0)


MAX_TOP_UPS = 5  # generate + dedup rounds after the first
# Rounds in a row whose new chains dedup all took: one such round is often chance (a near-duplicate
# drawn by the seed: the demo stopped at 29 of 30); two say the graph has nothing new left.
STALLED_ROUNDS = 2


def generate_distinct(ctx: RunContext) -> int:
    """Generate, dedup, and top up until [generate] n distinct accepted chains
    (the records the dataset gets) exist, or generation accepts nothing new, or
    STALLED_ROUNDS rounds in a row add no distinct chain (the graph ran dry);
    says which. Returns the distinct chains."""
    from builders.chains.generate import run_generate
    from builders.dedup import run_dedup

    want = ctx.settings.generate.n
    distinct, stalled = 0, 0
    for _ in range(1 + MAX_TOP_UPS):
        generated = run_generate(ctx)
        if generated.llm_unavailable:
            raise typer.Exit(1)  # exporting now would publish a partial dataset as if it were done
        deduped = run_dedup(ctx)
        out.print(f"dedup: {deduped.duplicates} duplicates marked in {deduped.groups} groups")
        before, distinct = distinct, ctx.store.run("count_distinct_accepted")[0]["n"]
        added = sum(generated.accepted.values())
        stalled = stalled + 1 if distinct <= before else 0
        if distinct >= want or added == 0 or stalled >= STALLED_ROUNDS:
            break
        err.print(f"build: {distinct} distinct chains of {want} after dedup; generating {want - distinct} more",
                  highlight=False)
    if distinct >= want:
        out.print(f"build: {distinct} distinct chains, as asked (--n {want})")
    else:
        out.print(f"build: {distinct} distinct chains of {want} asked: the graph ran dry "
                  "(no new candidate passes verification and dedup)")
    return distinct


def _print_graph_location(ctx: RunContext) -> None:
    s, store = ctx.settings, ctx.store
    if store.name == "falkordb":
        out.print(f"graph:   embedded FalkorDB in {s.store.data_dir.resolve()} "
                  f"(explore: hopgraph --data-dir {s.store.data_dir} audit --explain <chain id>, "
                  "or hopgraph sync --to neo4j and the queries in cypher/explore/)")
    else:
        out.print(f"graph:   Neo4j at {s.store.neo4j_uri} (open Neo4j Browser at http://localhost:7474)")
