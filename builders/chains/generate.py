"""`hopgraph generate`: walk, verbalize, verify, write back. Resumable.

Chain ids are content hashes of (type, evidence ids, answer entity), and every
generated chain (accepted or rejected) is written back after each round. A
re-run samples the same seeded sequence, skips ids already in the graph and
tops up to N accepted chains; LLM calls whose results were not yet written
are served from the LLM cache, so a killed run repeats no paid call.
"""

from __future__ import annotations

import json
import math
import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

from rich.console import Console

from builders.chains.bridges import BridgeRules
from builders.chains.construction import ChainConstruction
from builders.chains.name_forms import ordinary_word
from builders.chains.figure_walk import FigureSteps, read_figures
from builders.chains.fork_walk import ForkSteps
from builders.chains.requests import verbalize_request
from builders.chains.rounds import Outcome, llm_round, offline_round
from builders.chains.statements import StatementIndex
from builders.chains.sampling import RoundDraw
from builders.chains.shortcuts import CorpusIndex, load_vectors
from builders.chains.table_pairs import TablePairWalk
from builders.chains.tables import TableIndex, name_table_rows
from builders.chains.values import name_prose_values
from builders.chains.verbs import spacy_verbs
from builders.chains.walkers import Candidate, Walker, infeasible_reason
from builders.chains.writeback import write_back
from kg.config import Settings
from kg.context import RunContext
from kg.enrich.domain import domain_at_generate
from kg.errors import HopgraphError
from kg.llm.client import LLMClient
from kg.runs import RunManifest
from kg.store.base import GraphStore
from queries.corpus_view import CorpusView, load_corpus_view

ROUND_MIN = 16
LONG_HOPS = 3
MIN_TRIES_BEFORE_GIVING_UP = 60  # verified candidates before three barren rounds end a run


@dataclass
class GenerateReport:
    accepted: Counter = field(default_factory=Counter)
    rejected: Counter = field(default_factory=Counter)  # (type, reason)
    hops: Counter = field(default_factory=Counter)
    infeasible: dict[str, str] = field(default_factory=dict)
    llm_failed: Counter = field(default_factory=Counter)  # reason -> chains left for the next run
    llm_unavailable: str = ""
    stopped: bool = False  # budget spent or endpoint unavailable, not the graph run dry
    candidates: int = 0
    prechecked: Counter = field(default_factory=Counter)  # reason -> candidates dropped before any LLM call
    verbalized: int = 0  # sampled candidates put into words and verified (a shrunk one counts once)
    repaired: int = 0  # accepted after the writer's one rewrite
    already: int = 0
    llm: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {
            "accepted_by_type": dict(self.accepted),
            "rejected_by_reason": {f"{t}: {r}": n for (t, r), n in self.rejected.items()},
            "hops_histogram": {str(k): v for k, v in sorted(self.hops.items())},
            "infeasible": self.infeasible,
            "llm_failed": dict(self.llm_failed),
            "llm_unavailable": self.llm_unavailable,
            "candidates": self.candidates,
            "precheck_dropped": dict(self.prechecked),
            "verbalized": self.verbalized,
            "accepted_after_repair": self.repaired,
            "accepted_before": self.already,
            "llm": self.llm,
        }


# ---------------------------------------------------------------- the stage
@dataclass
class GenerateRun:
    """What one `generate` run carries from round to round."""

    settings: Settings
    store: GraphStore
    view: CorpusView
    walker: Walker
    types: list[str]
    report: GenerateReport
    accepted_now: Counter
    need: int
    seq: int
    skip: set[str]
    client: LLMClient | None = None
    console: Console = field(default_factory=lambda: Console(stderr=True))
    used_docs: Counter = field(default_factory=Counter)
    used_topics: Counter = field(default_factory=Counter)
    # Chains of LONG_HOPS or more are sampled first, shorter ones (down to
    # min_hops) only once long ones run dry: short chains are found far more
    # easily, and taking them as they came made 2 hops the norm.
    prefer_long: bool = False
    manifest: RunManifest | None = None  # started with the run, so "seconds" is its length


def make_walker(view: CorpusView, settings: Settings, rng: random.Random, store: GraphStore | None = None,
                strict: bool = False) -> Walker:
    """The walker with the construction pre-check; `strict` (an LLM pays for each candidate) enforces it."""
    cfg = settings.generate
    roles = frozenset(cfg.evidence_roles)
    # Strict: what figures print makes them tables of labels and values; without vision, images
    # with nothing a text-only verifier can read are no evidence (figure_walk.py).
    figures = read_figures(view, roles, ordinary_word, bool(settings.llm.vision_model)) if strict else None
    tables = TableIndex(view, roles)  # one index: name_table_rows and the walker share it
    # Strict: tables read across too, LLM reports print their models as columns (table_pairs.py).
    columns = TableIndex(view, roles, across=True) if strict else None
    if strict:  # offline the demo's draws stay as they were
        for index in (tables, columns):  # before the bridge rules count where each entity is named
            name_table_rows(view, roles, ordinary_word, index)
            index.reindex()  # the row labels just made entities name their rows
        name_prose_values(view, roles)  # numbers in prose: answers of pairings, facts of forks
    rules = BridgeRules(view, tuple(cfg.evidence_roles), cfg.max_doc_share, cfg.max_df_share)
    # Strict: agent participles are verbs and list items sentences (verbs.py, statements.py); offline as before.
    verbs = spacy_verbs(settings.entities.spacy_model, agents=strict)
    statements = StatementIndex(view, rules, verbs, list_items=strict)
    walker = Walker(view, rng, cfg.min_hops, cfg.max_hops, cfg.near_duplicate_score, statements=statements,
                    table_share=cfg.table_share, tables=tables)
    index = CorpusIndex(view, load_vectors(store) if store is not None and strict else None)
    walker.construction = ChainConstruction(view, statements, index, tables, cfg.min_answer_rivals,
                                            figures=figures, bridge_by_number=cfg.bridge_by_number)
    walker.strict = strict
    if columns is not None:
        walker.table_pairs = TablePairWalk(walker, [tables, columns])
        walker.construction.columns = columns
    if figures is not None:
        walker.figures = FigureSteps(walker, figures)
    if strict:  # forks of two values of one kind, one computed answer (fork_walk.py)
        walker.forks = ForkSteps(walker, figures)
    return walker


def feasible_types(view: CorpusView, walker: Walker, wanted: list[str], report: GenerateReport,
                   console: Console) -> list[str]:
    types = []
    for gtype in wanted:
        reason = infeasible_reason(view, walker, gtype)
        if reason:
            report.infeasible[gtype] = reason
            console.print(f"generate: cannot make {gtype}: {reason}", highlight=False)
        else:
            types.append(gtype)
    if not types:
        raise HopgraphError("no requested chain type can be generated from this graph: "
                            + "; ".join(f"{t}: {r}" for t, r in report.infeasible.items()))
    return types


def run_generate(ctx: RunContext, strict: bool | None = None) -> GenerateReport:
    """Generate up to [generate] n accepted chains. `strict` (default: whenever an LLM is
    configured) enforces construction.py's pre-check before any call is paid for."""
    settings, store, console, dry_run = ctx.settings, ctx.store, ctx.console, ctx.dry_run
    manifest = ctx.manifest("generate")
    cfg = settings.generate
    existing = store.run("chain_ids")
    # N is the records the user gets: chains dedup marked duplicate (or the
    # lifecycle marked stale) do not count, so a re-run tops them up.
    accepted_now = Counter(r["graph_type"] for r in existing if r["status"] == "accepted")
    report = GenerateReport(already=sum(accepted_now.values()))
    need = cfg.n - report.already
    if need <= 0:
        console.print(f"generate: {report.already} distinct verified chains already (n={cfg.n}); nothing to do")
        return report
    view = load_corpus_view(store)
    if not view.chunk_ids:
        raise HopgraphError("the graph has no chunks: run `hopgraph ingest <docs>` first")
    strict = settings.llm_configured if strict is None else strict
    walker = make_walker(view, settings, random.Random(cfg.seed), store, strict=strict)
    types = feasible_types(view, walker, cfg.types, report, console)
    client = ctx.client  # kg.llm's open_client: None when no LLM is configured
    if client is not None and not dry_run:
        named = domain_at_generate(store, client, settings.llm.prompts_dir)
        if named:  # ingest ran offline: the writer gets a domain and persona worth writing from
            view.domain, view.persona, view.doc_personas = named["domain"], named["persona"], named["documents"]
    if dry_run and client is None:
        console.print("generate --dry-run: no LLM configured; the offline generator spends nothing")
        return report
    run = GenerateRun(settings, store, view, walker, types, report, accepted_now, need, len(existing),
                      {r["id"] for r in existing}, client, console, manifest=manifest)
    if run.client is not None and run.client.endpoint_down:  # the domain call found it dead
        report.llm_unavailable, report.stopped = run.client.down_message(), True
        console.print(f"generate: stopped: {report.llm_unavailable}")
        return finish(run, need)
    if cfg.min_hops < LONG_HOPS <= cfg.max_hops and not walker.strict:  # strict: see Walker.sample_length
        run.prefer_long, walker.min_hops = True, LONG_HOPS
    missing = generate_rounds(run, dry_run)
    return finish(run, missing)


def generate_rounds(run: GenerateRun, dry_run: bool) -> int:
    """Rounds until N chains are accepted or the graph runs dry; returns how many are missing."""
    from tqdm import tqdm

    from kg.errors import BudgetExhausted, LLMUnavailable

    cfg = run.settings.generate
    per_type_target = {t: math.ceil(cfg.n / len(run.types)) for t in run.types}
    draw = RoundDraw(run.view, run.walker, run.types, cfg.n, run.skip, run.report, run.used_docs, run.used_topics,
                     cfg.variety_share)
    bar = tqdm(total=run.need, desc="generate", unit="chain", disable=None)
    stalled, accepted_rounds, tried_rounds = 0, 0, 0
    try:
        while run.need > 0 and stalled < 3:
            want = {t: max(0, per_type_target[t] - run.accepted_now[t]) for t in run.types}
            if draw.open_all or not any(want.values()):  # types that cannot fill their share leave room to others
                want = {t: run.need for t in run.types}
            # Sample about what the observed acceptance rate says is needed, so
            # an LLM round does not verbalize chains that will be thrown away.
            rate = accepted_rounds / tried_rounds if tried_rounds >= ROUND_MIN else (0.8 if run.client else 0.5)
            batch_size = max(min(ROUND_MIN, run.need), math.ceil(run.need / max(rate, 0.1) * 1.1))
            total_want = sum(want.values())
            want = {t: max(1, math.ceil(w / total_want * batch_size)) if w else 0 for t, w in want.items()}
            drawn = draw.round(want, batch_size)
            if run.client is not None and not dry_run:  # the calls start while sampling goes on
                cands: list[Candidate] = []
                outcomes = llm_round(run.view, _recorded(drawn, cands), run.client, run.settings,
                                     run.walker.min_hops, needed=run.need,
                                     construction=run.walker.construction if run.walker.strict else None)
            else:
                cands = list(drawn)
                for cand in cands:  # offline the pre-check only measures: its figures go on the Chain
                    cand.meta.setdefault("construction", run.walker.construction.check(cand).to_dict())
                outcomes = offline_round(run.view, run.walker.statements, cands, run.walker.min_hops) \
                    if not dry_run else []
            if not cands:  # the caps are as open as they go
                if allow_short(run):  # long chains ran dry: shorter ones now
                    continue
                break
            if dry_run:
                estimate_dry_run(run, cands)
                return 0
            accepted = tally_round(run, outcomes, bar)
            tried_rounds += sum(o.status != "failed" for o in outcomes)
            accepted_rounds += accepted
            # Rounds that accept nothing only end the run once a fair number of
            # candidates has been tried (small rounds of a small n say little).
            if not accepted and tried_rounds >= MIN_TRIES_BEFORE_GIVING_UP:
                stalled += 1
                if stalled >= 3 and allow_short(run):
                    stalled = 0
            elif accepted:
                stalled = 0
            if run.client is not None and run.client.budget_exhausted:
                raise BudgetExhausted("LLM budget reached; chains generated so far are saved")
    except BudgetExhausted as exc:
        run.console.print(f"generate: stopped: {exc}")
        run.report.stopped = True
    except LLMUnavailable as exc:
        run.console.print(f"generate: stopped: {exc}")
        run.report.llm_unavailable, run.report.stopped = str(exc), True
    finally:
        bar.close()
    return run.need


def _recorded(items: Iterator[Candidate], into: list[Candidate]) -> Iterator[Candidate]:
    for item in items:
        into.append(item)
        yield item


def estimate_dry_run(run: GenerateRun, cands: list[Candidate]) -> None:
    """Send (to the dry-run client, which spends nothing) the exact verbalize requests of a real run."""
    run.client.run_many([verbalize_request(run.view, c, run.settings) for c in cands[:run.need]])
    acct = run.client.accounting.to_dict()
    extra = "; empirical necessity adds hops + 1 answer calls per chain" \
        if run.settings.verify.necessity == "empirical" else \
        "; a chain repaired adds a rewrite, its verification and a probe per hop found unneeded"
    run.console.print("generate --dry-run (verbalize estimate; verification adds about the same again"
                      f"{extra}): {json.dumps(acct['total'])}")
    run.report.llm = acct


def allow_short(run: GenerateRun) -> bool:
    """Long chains ran dry: sample down to min_hops from now on. False if that was already so."""
    if not run.prefer_long:
        return False
    run.prefer_long, run.walker.min_hops = False, run.settings.generate.min_hops
    return True


def tally_round(run: GenerateRun, outcomes: list[Outcome], bar) -> int:
    """Count, write back and return the number accepted; never more than asked for."""
    from kg.errors import LLMUnavailable

    kept, accepted = [], 0
    failed = [o for o in outcomes if o.status == "failed"]
    # Longer chains first, so they are the ones a full round keeps.
    for o in sorted(outcomes, key=lambda o: -len(o.draft.candidate.hops)):
        gtype = o.draft.candidate.graph_type
        if o.status == "failed":
            run.report.llm_failed[o.reason] += 1
            run.skip.discard(o.root_id)  # not written: a later run tries it again
            continue
        run.report.verbalized += bool(o.draft.question)
        if o.status == "accepted":
            if run.need <= 0:
                continue  # the rest waits for a later top-up
            run.report.repaired += o.repaired
            run.need -= 1
            accepted += 1
            run.accepted_now[gtype] += 1
            run.report.accepted[gtype] += 1
            run.report.hops[len(o.draft.candidate.hops)] += 1
            bar.update(1)
        else:
            run.report.rejected[(gtype, o.reason)] += 1
        kept.append(o)
    write_back(run.store, run.view, kept, run.seq)
    run.seq += len(kept)
    if run.client is not None and getattr(run.client, "endpoint_down", False):
        raise LLMUnavailable(run.client.down_message())  # chains of this round are saved
    if failed and len(failed) == len(outcomes):
        # Every call of the round failed: the endpoint is down or refusing, or
        # the model cannot write the format. Stop; nothing is lost, and a
        # re-run resumes from here.
        raise LLMUnavailable(round_failure_message(failed))
    return accepted


UNUSABLE_REPLY_ERRORS = ("invalid json", "schema violation", "unusable reply", "refusal")


def round_failure_message(failed: list[Outcome]) -> str:
    """Why a round in which every call failed stopped the run, in one line."""
    counts = Counter(o.reason.split(": ", 1)[-1] for o in failed)
    summary = ", ".join(f"{reason} x{n}" for reason, n in counts.most_common(3))
    if all(any(e in o.reason for e in UNUSABLE_REPLY_ERRORS) for o in failed):
        return (f"every reply of the last round was unusable ({summary}): the generator model does not "
                "follow the reply format; try a larger model (`hopgraph llm check` shows what the endpoint "
                "supports). Chains generated so far are saved.")
    return (f"every LLM call of the last round failed ({summary}); chains generated so far are saved, "
            "re-run when the endpoint answers")


def finish(run: GenerateRun, missing: int) -> GenerateReport:
    report, client = run.report, run.client
    if client is not None:
        report.llm = client.accounting.to_dict()
    _print_summary(run.console, report, missing)
    if client is not None:
        run.console.print(client.accounting.table(), highlight=False)
    manifest = run.manifest or RunManifest(run.settings.store.data_dir, "generate", config=run.settings)
    manifest.set("generate", report.to_dict())
    if report.llm:
        manifest.add_llm(report.llm)
    manifest.write()
    return report


def _print_summary(console: Console, report: GenerateReport, missing: int) -> None:
    total = sum(report.accepted.values())
    console.print(f"generate: {total} accepted this run ({report.already} before), "
                  f"{sum(report.rejected.values())} rejected, {report.candidates} candidates sampled",
                  highlight=False)
    for gtype, n in sorted(report.accepted.items()):
        console.print(f"  accepted {gtype}: {n}", highlight=False)
    for (gtype, reason), n in sorted(report.rejected.items()):
        console.print(f"  rejected {gtype}: {reason} x{n}", highlight=False)
    for reason, n in sorted(report.prechecked.items()):
        console.print(f"  dropped before any LLM call: {reason} x{n}", highlight=False)
    for reason, n in sorted(report.llm_failed.items()):
        console.print(f"  not written, retried next run: {reason} x{n}", highlight=False)
    if report.hops:
        console.print("  hops: " + ", ".join(f"{k} hops x{v}" for k, v in sorted(report.hops.items())),
                      highlight=False)
    if report.llm and total:
        t = report.llm.get("total", {})
        console.print(f"  LLM per accepted chain: {t.get('calls', 0) / total:.2f} calls, "
                      f"{(t.get('tokens_in', 0) + t.get('tokens_out', 0)) / total:.0f} tokens", highlight=False)
    if missing > 0:
        why = (f"the run stopped ({report.llm_unavailable or 'LLM budget reached'}); re-run to continue"
               if report.stopped else "the graph ran out of new candidates that pass verification")
        console.print(f"  {missing} fewer than asked: {why}", highlight=False)
