"""What the `hopgraph eval` verbs share: the Typer app they register on, the error
console, the option help texts, the settings and store of the root command, the
scored records and a progress bar. Its own module so that evaluate.cli and
evaluate.system_cli both import it and not each other."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.progress import Progress

app = typer.Typer(no_args_is_help=True, help="Score retrievers and RAG systems on a dataset (metrics.json, report.md).")
err = Console(stderr=True, soft_wrap=True)

DATASET_HELP = "Dataset JSONL: hopgraph records or MC-Search-shaped records (see eval import-hotpotqa)."
OUT_HELP = "Output folder for metrics.json, results.jsonl and report.md (shared by the eval verbs)."


def settings_and_store(ctx: typer.Context) -> tuple[Any, Any]:
    """Settings and store from the root command's --config / --data-dir / --store.

    Read from the click context rather than the root module's state object, so
    this works however the root CLI is launched or wherever it lives.
    """
    from kg.config import load_settings
    from kg.store import open_store

    params = ctx.find_root().params
    settings = load_settings(params.get("config"))
    if params.get("data_dir") is not None:
        settings.store.data_dir = params["data_dir"]
    if params.get("store") is not None:
        settings.store.backend = params["store"]
    store = open_store(settings)
    store.ensure_schema()
    return settings, store


def load_scored(dataset: Path, store: Any):
    """Records, the corpus, and the resolution of their evidence; fails if nothing can be scored."""
    from evaluate.corpus import load_corpus, resolve
    from evaluate.errors import EvidenceNotInGraph
    from evaluate.records import load_records

    records = load_records(dataset)
    corpus = load_corpus(store)
    resolution = resolve(records, corpus)
    if not resolution.scored:
        example = resolution.unresolved[0]["missing"][0]
        raise EvidenceNotInGraph(f"{dataset}: none of the {len(records)} records has its evidence in the graph "
                                 f"({len(corpus)} evidence units; e.g. {example!r} is missing): ingest the "
                                 "documents the dataset was built from into this --data-dir")
    if resolution.unresolved:
        err.print(f"{dataset}: {len(resolution.unresolved)} of {len(records)} records have evidence that is not "
                  "in the graph and are not scored (listed in metrics.json under dataset.unresolved)",
                  highlight=False, markup=False)
    return records, corpus, resolution


def llm_progress(total: int, label: str):
    """A rich progress bar and the callback that advances it."""
    progress = Progress(console=err, transient=True)
    task = progress.add_task(label, total=total)
    return progress, lambda: progress.advance(task)
