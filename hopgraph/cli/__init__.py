"""The `hopgraph` command line. Verbs mirror the pipeline stages; each verb's
module is one hop from the stage it runs:

    setup.py   init, config show, db start|status|stop|shell
    stages.py  ingest (kg.pipeline), generate (builders.chains), dedup
               (builders.dedup), export (builders.export), build (all four)
    graph.py   stats, audit, sync, export-graph (queries/, kg.store.sync)
    llm.py     llm check (kg.llm.probe)
    evaluate/cli.py  eval retrieval|answers|agent|dataset|import-hotpotqa (evaluate/)

Every verb loads hopgraph.toml (plus HOPGRAPH_* overrides), opens the store
lazily and turns HopgraphError into one line on stderr and exit code 1.
"""

from __future__ import annotations

import os
import sys

from rich.markup import escape

from evaluate.cli import app as eval_app
from hopgraph.cli import graph, setup, stages  # noqa: F401  (they register their verbs)
from hopgraph.cli.common import app, err
from hopgraph.cli.llm import llm_app
from kg.errors import HopgraphError

app.add_typer(eval_app, name="eval")
app.add_typer(llm_app, name="llm")

__all__ = ["app", "main"]


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
