"""`hopgraph generate`: walk, verbalize, verify, write back. Resumable.

Chain ids are content hashes of (type, evidence ids, answer entity), and every
generated chain (accepted or rejected) is written back after each round. A
re-run samples the same seeded sequence, skips ids already in the graph and
tops up to N accepted chains; LLM calls whose results were not yet written
are served from the LLM cache, so a killed run repeats no paid call.
"""

from __future__ import annotations

import asyncio
import json
import math
import random
from collections import Counter
from dataclasses import dataclass, field

from queries.corpus_view import CorpusView, load_corpus_view
from builders.chains.structure import StructureError, build_structure, shrink
from builders.chains.verbalize import Draft, HopText, OfflineVerbalizer, hops_payload
from builders.chains.verify import Verification, evidence_payload, llm_verification, offline_verify
from builders.chains.walkers import Candidate, Hop, Quotas, Walker, infeasible_reason
from kg.config import Settings
from kg.errors import HopgraphError

ROUND_MIN = 16
MIN_TRIES_BEFORE_GIVING_UP = 60  # verified candidates before three barren rounds end a run
MAX_EMPTY_SAMPLES = 400  # consecutive failed samples of one type before it is declared exhausted


@dataclass
class Outcome:
    draft: Draft
    verification: Verification | None
    status: str  # accepted | rejected | failed (an LLM call failed: not written, retried next run)
    reason: str = ""
    shrunk_from: int = 0
    root_id: str = ""  # id of the candidate as sampled (before any shrinking)


@dataclass
class GenerateReport:
    accepted: Counter = field(default_factory=Counter)
    rejected: Counter = field(default_factory=Counter)  # (type, reason)
    hops: Counter = field(default_factory=Counter)
    infeasible: dict[str, str] = field(default_factory=dict)
    llm_failed: Counter = field(default_factory=Counter)  # reason -> chains left for the next run
    llm_unavailable: str = ""
    candidates: int = 0
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
            "accepted_before": self.already,
            "llm": self.llm,
        }


# ---------------------------------------------------------------- sampling
def sample_candidates(view: CorpusView, walker: Walker, types: list[str], want: dict[str, int],
                      skip: set[str], quotas: Quotas, report: GenerateReport) -> list[Candidate]:
    """Up to want[type] new candidates per type, round-robin, respecting quotas."""
    out: list[Candidate] = []
    failures = Counter()
    got = Counter()
    active = [t for t in types if want.get(t, 0) > 0]
    while active:
        for gtype in list(active):
            cand = walker.sample(gtype)
            report.candidates += cand is not None
            ok = False
            if cand is not None and len(cand.hops) < walker.min_hops:
                cand = None  # fork walkers build fixed-size chains; min_hops must still hold
            if cand is not None and cand.id not in skip and quotas.allows(view, cand.node_ids):
                try:
                    build_structure(len(cand.hops), cand.structure)
                    ok = True
                except StructureError:
                    ok = False
            if ok:
                skip.add(cand.id)
                quotas.take(view, cand.node_ids)
                out.append(cand)
                got[gtype] += 1
                failures[gtype] = 0
            else:
                failures[gtype] += 1
            if got[gtype] >= want[gtype] or failures[gtype] >= MAX_EMPTY_SAMPLES:
                active.remove(gtype)
    return out


# ---------------------------------------------------------------- offline path
def offline_round(view: CorpusView, cands: list[Candidate], min_hops: int) -> list[Outcome]:
    verbalizer = OfflineVerbalizer(view)
    outcomes = []
    for cand in cands:
        outcome = _offline_one(view, verbalizer, cand, min_hops, len(cand.hops))
        outcome.root_id = cand.id
        outcomes.append(outcome)
    return outcomes


def _offline_one(view, verbalizer, cand: Candidate, min_hops: int, original: int) -> Outcome:
    draft = verbalizer.verbalize(cand)
    if draft.error:
        return Outcome(draft, None, "rejected", f"verbalize: {draft.error}")
    v = offline_verify(view, draft)
    if v.passed:
        return Outcome(draft, v, "accepted", shrunk_from=original if original != len(cand.hops) else 0)
    unneeded = [i for i, need in enumerate(v.necessary) if not need]
    if v.navigation and v.no_shortcut and unneeded and len(cand.hops) - 1 >= min_hops:
        smaller = shrink_candidate(view, cand, unneeded[0])
        if smaller is not None:
            return _offline_one(view, verbalizer, smaller, min_hops, original)
    return Outcome(draft, v, "rejected", v.first_failure())


def shrink_candidate(view: CorpusView, cand: Candidate, drop: int) -> Candidate | None:
    """The chain without hop `drop`, if its neighbours can still be bridged."""
    hops = [Hop(h.node_id, h.label, h.bridge, h.bridge_kind) for h in cand.hops]
    if drop == len(hops) - 1:
        return None  # the last hop holds the answer
    if drop > 0 and not cand.graph_type.endswith("fork"):
        before, after = hops[drop - 1], hops[drop + 1]
        shared = sorted(view.mentions.get(before.node_id, set()) & view.mentions.get(after.node_id, set())
                        - {cand.answer_entity})
        if not shared:
            return None
        before.bridge, before.bridge_kind = shared[0], "entity"
    del hops[drop]
    if cand.graph_type == "image_initiated_chain" and hops[0].label != "Image":
        return None
    if cand.graph_type == "multi_image_fork" and sum(h.label == "Image" for h in hops) < 2:
        return None
    if cand.graph_type == "parallel_visual_textual_fork" and {h.label for h in hops} != {"Image", "Chunk"}:
        return None
    structure = shrink(cand.structure, len(cand.hops), drop)
    try:
        build_structure(len(hops), structure)
    except StructureError:
        return None
    return Candidate(cand.graph_type, hops, structure, cand.answer_entity, dict(cand.meta))


# ---------------------------------------------------------------- LLM path
def llm_round(view: CorpusView, cands: list[Candidate], client, settings: Settings,
              min_hops: int) -> list[Outcome]:
    """Per chain: verbalize, then verify (hop necessity included), as one async
    pipeline per chain so a chain's verification starts the moment its
    question is written and the concurrency limit is always full.

    A chain with one unneeded hop is shrunk, re-verbalized and re-verified once.
    """
    from kg.llm.client import LLMRequest

    prompts_dir = settings.llm.prompts_dir
    domain = view.domain or "the documents"
    persona = view.persona or "a careful expert reader"

    async def call(req: LLMRequest):
        return await client.complete_json(req.task, req.role, req.messages, req.schema, req.stage,
                                          req.prompt_version, req.temperature, req.max_tokens)

    async def one(cand: Candidate) -> Outcome:
        original = len(cand.hops)
        for attempt in range(2):
            res = await call(LLMRequest.for_task(
                "verbalize_chain", "generator", "generate", prompts_dir=prompts_dir,
                images=_image_urls(view, cand, settings), domain=domain, persona=persona,
                graph_type=cand.graph_type, hops=hops_payload(view, cand)))
            if not res.ok:  # the call failed, not the chain: leave it for the next run
                return Outcome(Draft(cand, [], "", "", res.model or "llm", error=res.error), None, "failed",
                               f"verbalize call failed: {res.error}")
            if len(res.value.hops) != len(cand.hops):
                reason = "verbalizer returned a different number of hops"
                return Outcome(Draft(cand, [], "", "", res.model or "llm", error=reason), None, "rejected",
                               f"verbalize: {reason}")
            value = res.value
            draft = Draft(cand, [HopText(h.subquestion, h.answer) for h in value.hops], value.question,
                          value.answer, res.model or "llm", {"verbalize_chain": res.prompt_version})
            verdict = await call(LLMRequest.for_task(
                "verify_chain", "verifier", "verify", prompts_dir=prompts_dir, question=draft.question,
                answer=draft.answer, evidence=evidence_payload(view, draft), n_hops=len(cand.hops)))
            if not verdict.ok:
                return Outcome(draft, None, "failed", f"verify call failed: {verdict.error}")
            draft.prompt_versions["verify_chain"] = verdict.prompt_version
            v = llm_verification(view, draft, verdict.value)
            if v.passed:
                return Outcome(draft, v, "accepted", shrunk_from=original if original != len(cand.hops) else 0)
            unneeded = [i for i, need in enumerate(v.necessary) if not need]
            smaller = None
            if attempt == 0 and unneeded and v.navigation and v.no_shortcut and len(cand.hops) - 1 >= min_hops:
                smaller = shrink_candidate(view, cand, unneeded[0])
            if smaller is None or client.budget_exhausted:
                return Outcome(draft, v, "rejected", v.first_failure())
            cand = smaller
        return Outcome(draft, v, "rejected", v.first_failure())

    async def everything() -> list[Outcome]:
        return list(await asyncio.gather(*(one(c) for c in cands)))

    outcomes = client.run(everything)
    # The chain id is that of the sampled candidate, even when it was shrunk:
    # a re-run then skips it instead of paying for it again.
    for cand, outcome in zip(cands, outcomes):
        outcome.root_id = cand.id
    return outcomes


def _image_urls(view: CorpusView, cand: Candidate, settings: Settings) -> list[str] | None:
    """Image hops go to the model as pictures when a vision model is configured."""
    if not settings.llm.vision_model:
        return None
    from kg.enrich.describe import image_data_url

    urls = [image_data_url(view.nodes[h.node_id].path) for h in cand.hops
            if h.label == "Image" and view.nodes[h.node_id].path]
    return [u for u in urls if u] or None


# ---------------------------------------------------------------- write-back
def chain_rows(view: CorpusView, outcome: Outcome, seq: int) -> dict[str, list[dict]]:
    draft, v, cand = outcome.draft, outcome.verification, outcome.draft.candidate
    chain_id = outcome.root_id or cand.id
    necessary = v.necessary if v else [False] * len(cand.hops)
    # dict.fromkeys: a fork's branches bridge the same entity; list it once.
    bridges = list(dict.fromkeys(h.bridge for h in cand.hops if h.bridge_kind == "entity" and h.bridge))
    chain = {
        "id": chain_id, "seq": seq, "graph_type": cand.graph_type,
        "question": draft.question, "answer": draft.answer,
        "status": outcome.status, "reject_reason": outcome.reason,
        "generator": draft.generator, "prompt_versions": json.dumps(draft.prompt_versions, sort_keys=True),
        "hops": len(cand.hops), "evidence_ids": cand.node_ids,
        "doc_ids": sorted({view.nodes[n].doc_id for n in cand.node_ids}),
        "topic_ids": sorted({view.nodes[n].topic for n in cand.node_ids if view.nodes[n].topic}),
        "bridge_entities": bridges,
        "bridge_names": [view.entity_name.get(b, b) for b in bridges],
        "answer_entities": [cand.answer_entity] if cand.answer_entity else [],
        "domain": view.domain, "persona": view.persona,
        "structure": json.dumps([list(e) for e in cand.structure]),
        "navigation": bool(v and v.navigation), "no_shortcut": bool(v and v.no_shortcut),
        "faithful": bool(v and v.faithful), "standalone": bool(v and v.standalone),
        "requires_content": bool(v and v.requires_content),
        "score": v.score if v else 0.0, "verifier": v.method if v else "",
        "shrunk_from": outcome.shrunk_from,
    }
    hops, has_hop, uses, bridges_rows = [], [], {"Chunk": [], "Image": [], "Keypoint": []}, []
    for i, hop in enumerate(cand.hops):
        text = draft.hops[i] if i < len(draft.hops) else HopText("", "")
        hop_id = f"{chain_id}:{i}"
        hops.append({
            "id": hop_id, "chain_id": chain_id, "index": i,
            "sub_question": text.sub_question, "answer": text.answer,
            "modality": "image" if hop.label == "Image" else "text",
            "evidence_id": hop.node_id, "evidence_label": hop.label,
            "bridge_id": hop.bridge if hop.bridge_kind == "entity" else "",
            "bridge_kind": hop.bridge_kind,
            "necessary": bool(necessary[i]) if i < len(necessary) else False,
            "necessity_checked": v is not None,
            "necessity_method": v.method if v else "",
        })
        has_hop.append({"s": chain_id, "d": hop_id, "index": i})
        uses[hop.label].append({"s": hop_id, "d": hop.node_id})
        for kp in view.keypoints.get(hop.node_id, []):
            if text.statement and kp.text == text.statement:
                uses["Keypoint"].append({"s": hop_id, "d": kp.id})
        if hop.bridge_kind == "entity" and hop.bridge:
            bridges_rows.append({"s": hop_id, "d": hop.bridge})
    return {"chain": [chain], "hops": hops, "has_hop": has_hop, "uses_chunk": uses["Chunk"],
            "uses_image": uses["Image"], "uses_keypoint": uses["Keypoint"], "bridges": bridges_rows}


def write_back(store, view: CorpusView, outcomes: list[Outcome], seq_start: int) -> None:
    batch: dict[str, list[dict]] = {}
    for i, outcome in enumerate(outcomes):
        for key, rows in chain_rows(view, outcome, seq_start + i).items():
            batch.setdefault(key, []).extend(rows)
    if not batch:
        return
    store.write("upsert_chains", batch["chain"])
    store.write("upsert_hops", batch["hops"])
    store.write("chain_has_hop", batch["has_hop"], key=None)
    store.write("hop_uses_chunk", batch["uses_chunk"], key=None)
    store.write("hop_uses_image", batch["uses_image"], key=None)
    store.write("hop_uses_keypoint", batch["uses_keypoint"], key=None)
    store.write("hop_bridges", batch["bridges"], key=None)


# ---------------------------------------------------------------- the stage
def run_generate(settings: Settings, store, max_calls=None, budget_tokens=None, no_cache=False,
                 dry_run=False, console=None, client=None) -> dict:
    from rich.console import Console
    from tqdm import tqdm

    from kg.errors import BudgetExhausted, LLMUnavailable
    from kg.runs import RunManifest

    console = console or Console(stderr=True)
    cfg = settings.generate
    existing = store.run("chain_ids")
    skip = {r["id"] for r in existing}
    # Chains that dedup later marked duplicate still count: they passed
    # verification, and topping them up again would make every re-run of
    # `build` generate more (N is verified chains generated, before dedup).
    accepted_now = Counter(r["graph_type"] for r in existing if r["status"] in ("accepted", "duplicate"))
    report = GenerateReport(already=sum(accepted_now.values()))
    need = cfg.n - report.already
    if need <= 0:
        console.print(f"generate: {report.already} verified chains already (n={cfg.n}); nothing to do")
        return report.to_dict()

    view = load_corpus_view(store)
    if not view.chunk_ids:
        raise HopgraphError("the graph has no chunks: run `hopgraph ingest <docs>` first")
    rng = random.Random(cfg.seed)
    walker = Walker(view, rng, cfg.min_hops, cfg.max_hops, cfg.near_duplicate_score)
    types = []
    for gtype in cfg.types:
        reason = infeasible_reason(view, walker, gtype)
        if reason:
            report.infeasible[gtype] = reason
            console.print(f"generate: cannot make {gtype}: {reason}", highlight=False)
        else:
            types.append(gtype)
    if not types:
        raise HopgraphError("no requested chain type can be generated from this graph: "
                            + "; ".join(f"{t}: {r}" for t, r in report.infeasible.items()))

    used_docs, used_topics = Counter(), Counter()
    quotas = Quotas(view, cfg.n, used_docs, used_topics)
    use_llm = settings.llm_configured or dry_run
    if use_llm and client is None:
        from kg.llm.client import LLMClient

        client = LLMClient.from_settings(settings, no_cache=no_cache, max_calls=max_calls,
                                         budget_tokens=budget_tokens, dry_run=dry_run)
    if dry_run and not settings.llm_configured:
        console.print("generate --dry-run: no LLM configured; the offline generator spends nothing")
        return report.to_dict()

    seq = len(existing)
    per_type_target = {t: math.ceil(cfg.n / len(types)) for t in types}
    bar = tqdm(total=need, desc="generate", unit="chain", disable=None)
    stalled = 0
    open_all = False  # set once a type could not fill its share: the others may take it
    accepted_rounds = tried_rounds = 0  # for the acceptance rate that sizes the next round
    try:
        while need > 0 and stalled < 3:
            want = {t: max(0, per_type_target[t] - accepted_now[t]) for t in types}
            if open_all or not any(want.values()):  # types that cannot fill their share leave room to others
                want = {t: need for t in types}
            # Sample about what the observed acceptance rate says is needed, so
            # an LLM round does not verbalize chains that will be thrown away.
            rate = accepted_rounds / tried_rounds if tried_rounds >= ROUND_MIN else (0.8 if use_llm else 0.5)
            batch_size = max(min(ROUND_MIN, need), math.ceil(need / max(rate, 0.1) * 1.1))
            total_want = sum(want.values())
            want = {t: max(1, math.ceil(w / total_want * batch_size)) if w else 0 for t, w in want.items()}
            cands = sample_candidates(view, walker, types, want, skip, quotas, report)
            if not cands:
                if not open_all:
                    open_all = True
                    continue
                stalled += 1
                quotas = Quotas(view, cfg.n * (2 + stalled), used_docs, used_topics)  # relax the caps
                continue
            if dry_run:
                from kg.llm.client import LLMRequest

                reqs = [LLMRequest.for_task("verbalize_chain", "generator", "generate",
                                            prompts_dir=settings.llm.prompts_dir, domain=view.domain,
                                            persona=view.persona, graph_type=c.graph_type,
                                            hops=hops_payload(view, c)) for c in cands[:need]]
                client.run_many(reqs)
                acct = client.accounting.to_dict()
                console.print("generate --dry-run (verbalize estimate; verification adds about the same "
                              f"again): {json.dumps(acct['total'])}")
                report.llm = acct
                return report.to_dict()
            outcomes = (llm_round(view, cands, client, settings, cfg.min_hops) if use_llm
                        else offline_round(view, cands, cfg.min_hops))
            # Never accept more than asked for; the rest waits for a later top-up.
            kept = []
            failed = [o for o in outcomes if o.status == "failed"]
            for o in outcomes:
                if o.status == "failed":
                    report.llm_failed[o.reason] += 1
                    skip.discard(o.root_id)  # not written: a later run tries it again
                    continue
                if o.status == "accepted":
                    if need <= 0:
                        continue
                    need -= 1
                    accepted_now[o.draft.candidate.graph_type] += 1
                    report.accepted[o.draft.candidate.graph_type] += 1
                    report.hops[len(o.draft.candidate.hops)] += 1
                    bar.update(1)
                else:
                    report.rejected[(o.draft.candidate.graph_type, o.reason)] += 1
                kept.append(o)
            write_back(store, view, kept, seq)
            seq += len(kept)
            if client is not None and getattr(client, "endpoint_down", False):
                raise LLMUnavailable(client.down_message())  # chains of this round are saved
            if failed and len(failed) == len(outcomes):
                # Every call of the round failed: the endpoint is down or refusing.
                # Stop; nothing is lost, and a re-run resumes from here.
                raise LLMUnavailable(f"every LLM call of the last round failed ({failed[0].reason}); "
                                      "chains generated so far are saved, re-run when the endpoint answers")
            tried_rounds += len(outcomes) - len(failed)
            accepted_rounds += sum(o.status == "accepted" for o in outcomes)
            # Rounds that accept nothing only end the run once a fair number of
            # candidates has been tried (small rounds of a small n say little).
            if not any(o.status == "accepted" for o in outcomes) and tried_rounds >= MIN_TRIES_BEFORE_GIVING_UP:
                stalled += 1
            elif any(o.status == "accepted" for o in outcomes):
                stalled = 0
            if client is not None and client.budget_exhausted:
                raise BudgetExhausted("LLM budget reached; chains generated so far are saved")
    except BudgetExhausted as exc:
        console.print(f"generate: stopped: {exc}")
    except LLMUnavailable as exc:
        console.print(f"generate: stopped: {exc}")
        report.llm_unavailable = str(exc)
    finally:
        bar.close()
    if client is not None:
        report.llm = client.accounting.to_dict()
    _print_summary(console, report, need)
    if client is not None:
        console.print(client.accounting.table(), highlight=False)
    manifest = RunManifest(settings.store.data_dir, "generate")
    manifest.set("generate", report.to_dict())
    if report.llm:
        manifest.add_llm(report.llm)
    manifest.write()
    return report.to_dict()


def _print_summary(console, report: GenerateReport, missing: int) -> None:
    total = sum(report.accepted.values())
    console.print(f"generate: {total} accepted this run ({report.already} before), "
                  f"{sum(report.rejected.values())} rejected, {report.candidates} candidates sampled",
                  highlight=False)
    for gtype, n in sorted(report.accepted.items()):
        console.print(f"  accepted {gtype}: {n}", highlight=False)
    for (gtype, reason), n in sorted(report.rejected.items()):
        console.print(f"  rejected {gtype}: {reason} x{n}", highlight=False)
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
        console.print(f"  {missing} fewer than asked: the graph ran out of new candidates that pass verification",
                      highlight=False)
