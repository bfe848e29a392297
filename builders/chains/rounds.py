"""One round of generation: verbalize and verify a batch of candidates.

Offline: the deterministic verbalizer and checks. LLM: per chain one async
pipeline (verbalize, verify, and with [verify] necessity = "empirical" the
answer probes), so a chain's verification starts the moment its question is
written and the concurrency limit stays full. Both paths shrink a chain with
an unneeded hop once, by the same rule (shrink.py).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass

from builders.chains.necessity import EmpiricalNecessity, is_right, judge
from builders.chains.requests import answer_requests, repair_request, verbalize_request, verify_request
from builders.chains.shrink import shrunk
from builders.chains.statements import StatementIndex
from builders.chains.verbalize import Draft, HopText, OfflineVerbalizer
from builders.chains.verify import ChainVerdict, llm_verification, offline_verify
from builders.chains.walkers import Candidate
from kg.config import Settings
from queries.corpus_view import CorpusView


@dataclass
class Outcome:
    draft: Draft
    verdict: ChainVerdict | None
    status: str  # accepted | rejected | failed (an LLM call failed: not written, retried next run)
    reason: str = ""
    shrunk_from: int = 0
    root_id: str = ""  # id of the candidate as sampled (before any shrinking)
    empirical: EmpiricalNecessity | None = None
    repaired: bool = False  # accepted (or rejected) after the writer's one rewrite


# ---------------------------------------------------------------- offline
def offline_round(view: CorpusView, statements: StatementIndex, cands: list[Candidate],
                  min_hops: int) -> list[Outcome]:
    verbalizer = OfflineVerbalizer(view, statements)
    outcomes = []
    for cand in cands:
        outcome = _offline_one(view, statements, verbalizer, cand, min_hops, len(cand.hops))
        outcome.root_id = cand.id
        outcomes.append(outcome)
    return outcomes


def _offline_one(view, statements, verbalizer, cand: Candidate, min_hops: int, original: int) -> Outcome:
    draft = verbalizer.verbalize(cand)
    if draft.error:
        return Outcome(draft, None, "rejected", f"verbalize: {draft.error}")
    v = offline_verify(view, statements, draft)
    if v.passed:
        return Outcome(draft, v, "accepted", shrunk_from=original if original != len(cand.hops) else 0)
    smaller = shrunk(view, cand, v, min_hops)
    if smaller is not None:
        return _offline_one(view, statements, verbalizer, smaller, min_hops, original)
    return Outcome(draft, v, "rejected", v.first_failure())


# ---------------------------------------------------------------- LLM
def llm_round(view: CorpusView, cands: Iterable[Candidate], client, settings: Settings,
              min_hops: int, needed: int | None = None, construction=None) -> list[Outcome]:
    """Verbalize, verify (and probe) every candidate; a chain with one unneeded hop is shrunk once.

    `cands` may be a generator still sampling: it runs on a thread of its own
    and each candidate's calls start as soon as it is drawn, so the LLM's
    waiting overlaps the sampling (CPU work about as long as a round's calls
    at 0.5 s latency). With `needed`, only that many start at once; the
    candidates drawn beyond it are a reserve, one started for each chain that
    comes back not accepted, so a round that goes well pays for no spare
    chains. Which reserves start depends on the outcomes only, not on their
    timing, and the outcomes are returned in sampling order.

    With `construction` (construction.ChainConstruction, a strict run) a
    shrunk candidate is paid for only if it passes the same pre-check as a
    sampled one, and each written question's BM25 ranks are recorded.
    """

    async def call(req):
        return await client.complete_json(req.task, req.role, req.messages, req.schema, req.stage,
                                          req.prompt_version, req.temperature, req.max_tokens)

    async def one(cand: Candidate) -> Outcome:
        original = len(cand.hops)
        outcome = None
        for attempt in range(2):
            outcome = await _llm_attempt(view, cand, settings, call, construction)
            if outcome.status != "rejected" or outcome.verdict is None:
                break
            if attempt == 0 and repairable(outcome.verdict) and not client.budget_exhausted:
                outcome = await _repaired(view, outcome, settings, call, construction)
                if outcome.status != "rejected" or outcome.verdict is None:
                    break
            if outcome.verdict.passed:
                break
            smaller = shrunk(view, cand, outcome.verdict, min_hops) if attempt == 0 else None
            if smaller is None or client.budget_exhausted:
                break
            if construction is not None:
                figures = construction.check(smaller)
                smaller.meta["construction"] = figures.to_dict()
                if figures.reason:
                    break  # the shrunk chain would fail the pre-check: not worth two more calls
            cand = smaller
        if outcome.status == "accepted" and original != len(cand.hops):
            outcome.shrunk_from = original
        return outcome

    return client.run(lambda: _with_reserve(cands, one, needed))


async def _with_reserve(cands: Iterable[Candidate], one, needed: int | None) -> list[Outcome]:
    """one(candidate) for the first `needed` candidates drawn, and a reserve candidate for each not accepted."""
    started: list[tuple[int, Candidate, asyncio.Future]] = []
    reserve: list[tuple[int, Candidate]] = []
    settled: set[asyncio.Future] = set()  # tasks whose settle() ran (a reserve it starts is in `started`)
    owed = 0

    def start(index: int, cand: Candidate) -> None:
        task = asyncio.ensure_future(one(cand))
        task.add_done_callback(settle)
        started.append((index, cand, task))

    def settle(task: asyncio.Future) -> None:
        nonlocal owed
        settled.add(task)
        if task.cancelled() or task.exception() is not None or task.result().status != "accepted":
            owed += 1
            start_owed()

    def start_owed() -> None:
        nonlocal owed
        while owed and reserve:
            owed -= 1
            start(*reserve.pop(0))

    index = 0
    async for cand in _drawn_on_a_thread(cands):
        if needed is None or len(started) < needed:
            start(index, cand)
        else:
            reserve.append((index, cand))
            start_owed()
        index += 1
    # A task is done() before its done-callbacks run: wait until every settle() has run too, or a
    # reserve it starts would be left out (seen under load: a rejected chain's reserve never paid).
    while len(settled) < len(started):
        pending = [task for _, _, task in started if not task.done()]
        if pending:
            await asyncio.wait(pending)  # a chain that fails may start a reserve: wait again
        else:
            await asyncio.sleep(0)
    outcomes = []
    for _, cand, task in sorted(started, key=lambda item: item[0]):
        outcome = task.result()
        # The chain id is that of the sampled candidate, even when it was shrunk:
        # a re-run then skips it instead of paying for it again.
        outcome.root_id = cand.id
        outcomes.append(outcome)
    return outcomes


async def _drawn_on_a_thread(items: Iterable[Candidate]) -> AsyncIterator[Candidate]:
    """The items of a (slow, CPU-bound) iterable as they come, drawn on a worker
    thread so the event loop keeps serving the calls already started. An
    exception in the iterable is raised here, after the items before it."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue = asyncio.Queue()
    end = object()

    def draw() -> None:
        try:
            for item in items:
                loop.call_soon_threadsafe(queue.put_nowait, item)
        except BaseException as exc:  # handed to the loop, raised there
            loop.call_soon_threadsafe(queue.put_nowait, exc)
        finally:
            loop.call_soon_threadsafe(queue.put_nowait, end)

    worker = threading.Thread(target=draw, name="hopgraph-sample", daemon=True)
    worker.start()
    while (item := await queue.get()) is not end:
        if isinstance(item, BaseException):
            worker.join()
            raise item
        yield item
    worker.join()


async def _llm_attempt(view: CorpusView, cand: Candidate, settings: Settings, call, construction=None) -> Outcome:
    res = await call(verbalize_request(view, cand, settings))
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
    return await _verified(view, draft, settings, call, construction)


def repairable(verdict: ChainVerdict) -> bool:
    """A rejection the writer may fix by rewording: a hop not needed, or one item answering alone, where
    the verifier did not find the evidence itself giving the answer away (q20: two repairs of chains
    whose table row a practitioner picks unaided were paid for and rejected again)."""
    return (not all(verdict.necessary) or not verdict.no_shortcut) and verdict.faithful and verdict.rewordable


async def _repaired(view: CorpusView, outcome: Outcome, settings: Settings, call, construction=None) -> Outcome:
    """The writer rewrites once with the verifier's reasons; the rewrite is verified again."""
    draft = outcome.draft
    res = await call(repair_request(view, draft, outcome.verdict, settings))
    if not res.ok or len(res.value.hops) != len(draft.candidate.hops):
        return outcome  # the first verdict stands; shrinking comes next
    value = res.value
    rewrite = Draft(draft.candidate, [HopText(h.subquestion, h.answer) for h in value.hops], value.question,
                    value.answer, res.model or "llm",
                    {**draft.prompt_versions, "repair_chain": res.prompt_version})
    again = await _verified(view, rewrite, settings, call, construction)
    again.repaired = True
    if again.status == "accepted" and settings.verify.necessity != "empirical":
        again = await _probed(view, again, probed_hops(outcome.verdict), settings, call)
    return again


def probed_hops(first: ChainVerdict) -> list[int]:
    """The hops a repair must have made needed: those the first verdict found unneeded; after a
    shortcut verdict (one item answers alone, which one unsaid), every hop."""
    unneeded = [i for i, needed in enumerate(first.necessary) if not needed]
    return unneeded or list(range(len(first.necessary)))


async def _probed(view: CorpusView, outcome: Outcome, hops: list[int], settings: Settings, call) -> Outcome:
    """A verifier passed the writer's rewrite of a chain it had found a hop unneeded in: the
    rewrite is answered without each of those hops (answer_from_evidence, the empirical probe's
    prompt and rule: one definition of a needed hop), one call per hop.

    In strict runs the rewrites that passed had often only reworded the hop's clue ("the
    approach the paper proposes" still picks the paper's own row of the table), and the model
    called its pass of its own rewrite borderline. Answered right without a hop: rejected."""
    draft, verdict = outcome.draft, outcome.verdict
    replies = await asyncio.gather(*(call(r) for r in answer_requests(view, draft, settings, hops)))
    failed = next((r for r in replies if not r.ok), None)
    if failed is not None:
        return Outcome(draft, None, "failed", f"probe call failed: {failed.error}", repaired=True)
    draft.prompt_versions["answer_from_evidence"] = replies[0].prompt_version
    answers = {hop: reply.value.answer for hop, reply in zip(hops, replies)}
    figures = dict(draft.candidate.meta.get("construction") or {})
    figures["repair_probe"] = {str(hop): answer for hop, answer in answers.items()}  # kept on the Chain
    draft.candidate.meta["construction"] = figures
    for hop, answer in answers.items():
        if is_right(answer, draft.answer, settings.verify.answer_match):
            verdict.necessary[hop] = False
    if verdict.passed:
        return outcome
    return Outcome(draft, verdict, "rejected", f"{verdict.first_failure()}: the probe answered it without the hop",
                   repaired=True)


async def _verified(view: CorpusView, draft: Draft, settings: Settings, call, construction=None) -> Outcome:
    """Verify a written draft (and probe it, with empirical necessity)."""
    if construction is not None:  # the question as written: where does it lead a retriever?
        figures = dict(draft.candidate.meta.get("construction") or {})
        figures["question_ranks"] = construction.question_ranks(draft.candidate, draft.question)
        draft.candidate.meta["construction"] = figures
    verdict = await call(verify_request(view, draft, settings))
    if not verdict.ok:
        return Outcome(draft, None, "failed", f"verify call failed: {verdict.error}")
    draft.prompt_versions["verify_chain"] = verdict.prompt_version
    v = llm_verification(view, draft, verdict.value, settings.verify.answer_match)
    empirical = None
    if settings.verify.necessity == "empirical":
        replies = await asyncio.gather(*(call(r) for r in answer_requests(view, draft, settings)))
        failed = next((r for r in replies if not r.ok), None)
        if failed is not None:
            return Outcome(draft, None, "failed", f"answer call failed: {failed.error}")
        draft.prompt_versions["answer_from_evidence"] = replies[0].prompt_version
        answers = [r.value.answer for r in replies]
        empirical = judge(draft.answer, answers[0], answers[1:], settings.verify.answer_match)
        v.necessary = empirical.necessary
        v.method = "llm+empirical"
        if not empirical.right_with_all:
            v.reasons.append(f"verifier answered {answers[0]!r} with all evidence")
    status = "accepted" if v.passed else "rejected"
    return Outcome(draft, v, status, "" if v.passed else v.first_failure(), empirical=empirical)
