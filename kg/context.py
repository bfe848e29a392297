"""One command's run context: what every stage of the run shares.

The CLI builds one per command (hopgraph.cli.common.State.context) and hands
it to each stage it runs: the settings as the user gave them, the open store,
the run's one LLM client (None offline) and so its one budget, the console
the stages report on, and whether the run only estimates (dry run). `build`
passes the same context through ingest, generate, dedup and export, so
`--max-calls` is one budget for all of them. Each stage records its own run
manifest (`manifest(stage)`), started when the stage starts.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.console import Console

from kg.config import Settings
from kg.llm.client import LLMClient, open_client
from kg.runs import RunManifest
from kg.store.base import GraphStore


def _stderr() -> Console:
    return Console(stderr=True)


@dataclass
class RunContext:
    settings: Settings
    store: GraphStore
    client: LLMClient | None = None  # the run's one client and budget; None: offline
    console: Console = field(default_factory=_stderr)  # progress and reports (stderr: stdout is for results)
    dry_run: bool = False  # estimate the LLM cost; write and spend nothing

    @classmethod
    def open(cls, settings: Settings, store: GraphStore, console: Console | None = None, dry_run: bool = False,
             max_calls: int | None = None, budget_tokens: int | None = None,
             no_cache: bool = False) -> RunContext:
        """A context with the run's LLM client opened by kg.llm's rule (none when no LLM is configured)."""
        client = open_client(settings, max_calls=max_calls, budget_tokens=budget_tokens, no_cache=no_cache,
                             dry_run=dry_run)
        return cls(settings, store, client, console or _stderr(), dry_run)

    def manifest(self, stage: str) -> RunManifest:
        """The stage's run manifest, started now: its "seconds" are the stage's."""
        return RunManifest(self.settings.store.data_dir, stage, config=self.settings)
