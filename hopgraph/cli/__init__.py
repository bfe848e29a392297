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
import signal
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


INTERRUPTED = ("interrupted: work finished before the stop is saved (a document counts once all of it is "
               "written, a chain once it is verified); re-run the same command to resume")


class Interrupted(BaseException):
    """Ctrl-C or SIGTERM. Not a KeyboardInterrupt: click would print "Aborted!" for that, and
    not an Exception: the pipeline's per-file `except Exception` must not swallow it."""


def _interrupt(signum, frame) -> None:
    raise Interrupted


def main() -> None:
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    signal.signal(signal.SIGINT, _interrupt)
    signal.signal(signal.SIGTERM, _interrupt)  # SIGTERM stops a run the way Ctrl-C does
    try:
        app(standalone_mode=True)
    except Interrupted:
        # Quiet from here: the workers ignore SIGINT and end with this process; the
        # store's exit hook stops the FalkorDB server this run started.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        err.print(INTERRUPTED, highlight=False)
        _quiet_exit(130)
    except HopgraphError as exc:
        err.print("[red]error:[/red] " + escape(str(exc)), highlight=False)
        sys.exit(1)
    except OSError as exc:  # a user's path: exists as a file, not writable, disk full
        err.print("[red]error:[/red] " + escape(f"{exc.strerror or exc}: {exc.filename or ''}"), highlight=False)
        sys.exit(1)


def _quiet_exit(code: int) -> None:
    """End now: the exit hooks run (the store closes and stops the FalkorDB
    server this run started), but threads still busy (a model loading, the
    LLM thread) are not waited for, as sys.exit would, and print nothing."""
    import atexit

    sys.stdout.flush()
    sys.stderr.flush()
    os.dup2(os.open(os.devnull, os.O_WRONLY), 2)
    atexit._run_exitfuncs()
    os._exit(code)


if __name__ == "__main__":
    main()
