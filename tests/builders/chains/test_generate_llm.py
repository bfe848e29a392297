"""`hopgraph generate` through the LLM path, against the scripted server and the fake LLM.

A small corpus (the FAA handbook page and 40 HotpotQA Wikipedia paragraphs) is
ingested once, offline, into a template data dir; each test copies it (the
FalkorDB append-only log, caches and assets are plain files) so tests do not
see each other's chains.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from testing_support import CORPUS, PDF_DIR, ROOT, needs_corpus
from tests.fake_llm import FakeLLM, body_key, task_of
from tests.llm_server import ScriptedLLMServer
from kg.context import RunContext

pytestmark = [needs_corpus, pytest.mark.timeout(900)]

WIKI = CORPUS / "text" / "wiki_hotpotqa_train100"
N_WIKI = 100
GEN_MODEL = "fake-generator"
VER_MODEL = "fake-verifier"
CHAIN_TASKS = ("verbalize_chain", "verify_chain")


class Quiet:
    def print(self, *args, **kwargs):
        pass


def wiki_files() -> list[Path]:
    index = json.loads((WIKI / "_index.json").read_text(encoding="utf-8"))
    return [WIKI / e["file"] for e in index[:N_WIKI]]


def make_settings(data_dir: Path, base_url: str | None = None, n: int = 6):
    from kg.config import Settings

    s = Settings()
    s.store.data_dir = data_dir
    s.llm.base_url = base_url
    s.llm.generator_model = GEN_MODEL
    s.llm.verifier_model = VER_MODEL
    s.generate.n = n
    # These tests are about calls, caching and resuming: the answer-side rule would leave about one
    # chain of this corpus (tests/builders/chains/test_answer_side.py tests the rule itself).
    s.generate.min_answer_rivals = 0
    s.generate.bridge_by_number = False  # so is the number rule (test_answer_side.py): its facts are words
    return s


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    """A data dir with the small corpus ingested offline; the server is stopped afterwards."""
    from kg.pipeline import run_ingest
    from kg.store.falkor import FalkorStore

    data_dir = tmp_path_factory.mktemp("gen_llm_template") / ".hopgraph"
    settings = make_settings(data_dir)
    assert not settings.llm_configured
    store = FalkorStore(data_dir)
    store.ensure_schema()
    try:
        summary = run_ingest(RunContext.open(settings, store, console=Quiet()), [PDF_DIR / "manual_faa_amt_handbook_sample.pdf", *wiki_files()])
        assert summary.failed == 0 and summary.ingested == N_WIKI + 1, summary
    finally:
        store.close()
        store.server.stop()
    return data_dir


@pytest.fixture
def workdir(template, tmp_path) -> Path:
    """A fresh copy of the template: tmp_path/.hopgraph."""
    shutil.copytree(template, tmp_path / ".hopgraph")
    return tmp_path


@pytest.fixture
def open_store():
    opened = []

    def _open(data_dir: Path):
        from kg.store.falkor import FalkorStore

        store = FalkorStore(data_dir)
        store.ensure_schema()
        opened.append(store)
        return store

    yield _open
    for store in opened:
        store.close()
        store.server.stop()


def chains(store) -> list[dict]:
    return [r["chain"] for r in store.run("chains_for_export")]


def chain_requests(server) -> list:
    return [r for r in server.chat_requests if task_of(r.body) in CHAIN_TASKS]


def is_repair(body: dict) -> bool:
    """A repair_chain request (it opens like verbalize_chain; the fake tells them apart by its user text)."""
    from tests.fake_llm import user_text

    return "Reviewer's verdict:" in user_text(body)


def verify_hop_count(body: dict) -> int:
    from tests.fake_llm import user_text

    import re

    return int(re.search(r"Evidence \((\d+) items", user_text(body)).group(1))


# ---------------------------------------------------------------- in-process
def test_llm_generate_two_calls_per_chain(workdir, open_store):
    from builders.chains.generate import run_generate
    from kg.llm.prompts import load_prompt

    fake = FakeLLM()
    with ScriptedLLMServer(responder=fake) as server:
        # n within what the strict pre-check leaves on this corpus (about 4 distinct chains; a wiki
        # article's own subject is no bridge among rivals its title does not name)
        settings = make_settings(workdir / ".hopgraph", server.base_url, n=3)
        store = open_store(settings.store.data_dir)
        report = run_generate(RunContext.open(settings, store, console=Quiet()))
        reqs = chain_requests(server)

    got = chains(store)
    ok = [c for c in got if c["status"] == "accepted"]
    assert len(ok) == 3 and sum(report.accepted.values()) == 3, report
    versions = {t: load_prompt(t).version for t in CHAIN_TASKS}
    for c in ok:
        assert c["generator"] == GEN_MODEL
        assert json.loads(c["prompt_versions"]) == versions
        assert c["verifier"] == "llm" and c["question"].endswith("?")
        assert c["shrunk_from"] == 0
    tasks = Counter(task_of(r.body) for r in reqs)
    assert tasks["verbalize_chain"] >= len(ok) and tasks["verify_chain"] >= len(ok)
    # Nothing is shrunk (the fake verifier needs every hop), so each chain costs
    # one verbalize and one verify call, and no request is sent twice.
    assert tasks["verbalize_chain"] == tasks["verify_chain"], tasks
    # Spare chains sampled for the round are only paid for when one is not
    # accepted: every chain verbalized is in the graph, and no more are accepted than asked for.
    assert tasks["verbalize_chain"] == len(got)
    assert len({body_key(r.body) for r in reqs}) == len(reqs)
    assert {r.model for r in reqs if task_of(r.body) == "verbalize_chain"} == {GEN_MODEL}
    assert {r.model for r in reqs if task_of(r.body) == "verify_chain"} == {VER_MODEL}
    # Every call of generate is counted: the chains' and the domain named at generate time
    # (the template was ingested offline).
    assert report.llm["total"]["calls"] == len(server.chat_requests) == len(reqs) + 1
    assert fake.calls["domain_persona"] == 1
    from tests.fake_llm import user_text

    # One domain call named each document's reader (the first PROMPT_TITLES documents; the others
    # get the corpus's); each chain is written in its answer's document's.
    verbalized = [user_text(r.body) for r in reqs if task_of(r.body) == "verbalize_chain"]
    domains = {u.split("Domain: ")[1].split("\n")[0] for u in verbalized}
    assert not any(d.startswith("documents about") for d in domains), domains
    own = 0
    for u in verbalized:
        last_source = json.loads(u.split("Hops, in order:\n")[1].split("\n\nWrite")[0])[-1]["source"]
        domain = u.split("Domain: ")[1].split("\n")[0]
        own += domain == f"the subject of {last_source}"
        assert domain == f"the subject of {last_source}" or not domain.startswith("the subject of "), domain
    assert own >= 1
    assert {c["domain"] for c in ok} <= domains  # the Chain keeps the domain it was written for
    assert sum(fake.calls[t] for t in CHAIN_TASKS) == len(reqs)
    # Rejected chains (none expected from this verifier, but deterministic
    # checks may still fail one) carry their reason.
    for c in got:
        assert (c["status"] == "rejected") == bool(c["reject_reason"])

    # A re-run with the same n sends nothing.
    with ScriptedLLMServer(responder=FakeLLM()) as again:
        settings.llm.base_url = again.base_url
        report2 = run_generate(RunContext.open(settings, store, console=Quiet()))
        assert again.chat_requests == []
    assert report2.already == 3


def test_unneeded_hop_is_shrunk_or_rejected(workdir, open_store):
    from builders.chains.generate import run_generate

    def hop_1_of_three(n_hops, question, evidence):
        return {1} if n_hops == 3 else set()

    fake = FakeLLM(not_needed=hop_1_of_three)
    with ScriptedLLMServer(responder=fake) as server:
        settings = make_settings(workdir / ".hopgraph", server.base_url, n=4)
        settings.generate.types = ["text_chain"]
        settings.generate.min_hops, settings.generate.max_hops = 2, 3
        store = open_store(settings.store.data_dir)
        # The shrink mechanics, not the pre-check: strict walks find no 3-hop chain on this corpus.
        run_generate(RunContext.open(settings, store, console=Quiet()), strict=False)
        reqs = chain_requests(server)

    three = [r for r in reqs if task_of(r.body) == "verify_chain" and verify_hop_count(r.body) == 3]
    assert three, "no 3-hop chain was sampled; the test proves nothing"
    got = chains(store)
    assert not any(c["status"] == "accepted" and c["hops"] == 3 for c in got)
    shrunk = [c for c in got if c["status"] == "accepted" and c["shrunk_from"] == 3]
    rejected = [c for c in got if c["status"] == "rejected" and "not needed" in c["reject_reason"]]
    assert shrunk or rejected
    for c in shrunk:
        assert c["hops"] == 2
    # Each shrunk chain was verbalized and verified twice (original + shrunk).
    tasks = Counter(task_of(r.body) for r in reqs)
    assert tasks["verbalize_chain"] == tasks["verify_chain"]
    two_hop_verifies = tasks["verify_chain"] - len(three)
    assert two_hop_verifies >= len(shrunk)
    if shrunk:
        assert tasks["verbalize_chain"] > len([c for c in got if c["hops"] == 2 and c["shrunk_from"] == 0])


def test_unneeded_hop_with_no_room_to_shrink_is_rejected(workdir, open_store):
    from builders.chains.generate import run_generate

    fake = FakeLLM(not_needed=lambda n, q, e: {1} if n == 3 else set())
    with ScriptedLLMServer(responder=fake) as server:
        settings = make_settings(workdir / ".hopgraph", server.base_url, n=2)
        settings.generate.types = ["text_chain"]
        settings.generate.min_hops = settings.generate.max_hops = 3
        store = open_store(settings.store.data_dir)
        report = run_generate(RunContext.open(settings, store, console=Quiet()), strict=False)  # as above
        reqs = chain_requests(server)
    got = chains(store)
    assert got and all(c["status"] == "rejected" for c in got), report
    assert any("hop 1 not needed" in c["reject_reason"] for c in got)
    assert all("hop 1 not needed" in c["reject_reason"] or c["reject_reason"].startswith("navigation")
               for c in got)
    repairs = [r for r in reqs if is_repair(r.body)]
    writes = [r for r in reqs if task_of(r.body) == "verbalize_chain" and not is_repair(r.body)]
    # One verbalize and one repair per stored chain at most: nothing is
    # re-verbalized when a chain cannot shrink.
    assert len(writes) <= len(got) and len(repairs) <= len(got), "no re-verbalizing when nothing can shrink"
    gen = report.llm["stages"]["generate/generator"]
    assert gen["calls"] == len(writes) + len(repairs)


def hop_0_never_needed(workdir, open_store, fake, max_hops: int):
    """A text-chain run of n=2 against `fake`, whose verifier finds hop 0 never needed: the store, the
    run's report and every request the endpoint received."""
    from builders.chains.generate import run_generate

    with ScriptedLLMServer(responder=fake) as server:
        settings = make_settings(workdir / ".hopgraph", server.base_url, n=2)
        settings.generate.types = ["text_chain"]
        settings.generate.min_hops, settings.generate.max_hops = 2, max_hops
        store = open_store(settings.store.data_dir)
        report = run_generate(RunContext.open(settings, store, console=Quiet()))
        return store, report, list(server.chat_requests)


def test_hop_0_not_needed_is_repaired_then_shrunk(workdir, open_store):
    """The verifier says hop 0 is not needed every time: the writer gets its reasons once, the
    rewrite is verified again, and only then is the chain shrunk; every call is counted."""
    store, report, reqs = hop_0_never_needed(workdir, open_store, FakeLLM(not_needed={0}), max_hops=3)
    chain_reqs = [r for r in reqs if task_of(r.body) in CHAIN_TASKS]
    repairs = [r for r in chain_reqs if is_repair(r.body)]
    assert repairs, "no chain was verbalized; the test proves nothing"
    from tests.fake_llm import user_text

    for r in repairs:  # the verifier's verdict and reasons reach the writer
        text = user_text(r.body)
        assert "item 0 not needed" in text and "item 0 repeats what the other items say" in text
        assert '"question":' in text.split("Rejected draft:")[1]
    got = chains(store)
    assert got and not any(c["status"] == "accepted" for c in got)
    assert all("hop 0 not needed" in c["reject_reason"] for c in got if c["reject_reason"].startswith("hop"))
    tasks = Counter(task_of(r.body) for r in chain_reqs)
    # Per root chain: verbalize, verify, repair, verify; a 3-hop one is then shrunk (verbalize, verify).
    writes = tasks["verbalize_chain"] - len(repairs)
    assert tasks["verify_chain"] == writes + len(repairs)
    assert len(repairs) == len(got), "one repair per sampled chain, none for its shrunk form"
    assert writes >= len(got)
    assert report.llm["total"]["calls"] == len(reqs)
    assert report.verbalized == len(got) and report.repaired == 0


def test_no_repair_is_paid_for_when_the_verifier_says_the_evidence_gives_the_answer_away(workdir, open_store):
    """q20: the verifier found a table row a practitioner picks unaided; two repairs were written and
    rejected again. When the verdict says rewording cannot fix it, the chain goes on to shrinking
    (or rejection) without a repair call."""
    store, report, everything = hop_0_never_needed(workdir, open_store, FakeLLM(not_needed={0}, rewordable=False),
                                                   max_hops=2)
    reqs = [r for r in everything if task_of(r.body) in CHAIN_TASKS]
    got = chains(store)
    assert got and all("hop 0 not needed" in c["reject_reason"] for c in got)
    assert not [r for r in reqs if is_repair(r.body)]
    assert Counter(task_of(r.body) for r in reqs) == {"verbalize_chain": len(got), "verify_chain": len(got)}
    assert report.llm["total"]["calls"] == len(everything)


def test_a_repair_the_verifier_accepts_is_kept(workdir, open_store):
    from builders.chains.generate import run_generate

    fake = FakeLLM(not_needed=lambda n, q, e: set() if q.endswith("(revised)") else {0})
    with ScriptedLLMServer(responder=fake) as server:
        settings = make_settings(workdir / ".hopgraph", server.base_url, n=3)
        store = open_store(settings.store.data_dir)
        report = run_generate(RunContext.open(settings, store, console=Quiet()))
        reqs = list(server.chat_requests)
    ok = [c for c in chains(store) if c["status"] == "accepted"]
    assert ok and all(c["repaired"] and c["question"].endswith("(revised)") for c in ok)
    assert report.repaired == len(ok)
    assert all("repair_chain" in json.loads(c["prompt_versions"]) for c in ok)
    # Two calls for the draft, two for the repair, one probe of hop 0, one for the domain: no shrinking.
    calls = report.llm["total"]["calls"]
    assert calls == len(reqs) and calls <= 5 * report.verbalized + 1
    probes = [r for r in reqs if task_of(r.body) == "answer_from_evidence"]
    assert len(probes) == len(ok), "one probe per accepted repair: the hop its first verdict found unneeded"
    from tests.fake_llm import user_text

    for r in probes:  # the probe holds every item but hop 0's, and asks the rewritten question
        text = user_text(r.body)
        assert "[0]" not in text and "[1]" in text and "(revised)" in text
    for c in ok:  # the construction figures are on the Chain node
        figures = json.loads(c["construction"])
        assert {"siblings", "rivals", "last_rank", "reason"} <= set(figures) and figures["reason"] == ""


# ---------------------------------------------------------------- kill / restart
def _hopgraph(cwd: Path, env: dict, *args: str, **kw) -> subprocess.Popen:
    exe = Path(sys.executable).with_name("hopgraph")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "hopgraph.cli"]
    return subprocess.Popen([*cmd, *args], cwd=cwd, env=env, stdin=subprocess.DEVNULL, **kw)


def test_killed_run_resumes_without_repeating_calls(workdir, open_store):
    # The pre-check leaves about four chains on this corpus: few, slow calls, killed part-way.
    latency = 0.5
    concurrency = 1
    n = "3"
    fake = FakeLLM()
    with ScriptedLLMServer(responder=fake, latency=latency) as server:
        env = {k: v for k, v in os.environ.items() if not k.startswith("HOPGRAPH_")}
        env.update({"OPENAI_BASE_URL": server.base_url, "HOPGRAPH_LLM__CONCURRENCY": str(concurrency),
                    "HOPGRAPH_LLM__GENERATOR_MODEL": GEN_MODEL, "HOPGRAPH_LLM__VERIFIER_MODEL": VER_MODEL,
                    "HOPGRAPH_GENERATE__MIN_ANSWER_RIVALS": "0", "HOPGRAPH_GENERATE__BRIDGE_BY_NUMBER": "false",
                    "PYTHONPATH": str(ROOT)})
        env.pop("OPENAI_API_KEY", None)
        log1 = (workdir / "run1.log").open("wb")
        first = _hopgraph(workdir, env, "generate", "--n", n, stdout=log1, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 240
        # 3 chains take about 2 x 3 requests; kill it part-way through.
        while len(chain_requests(server)) < 4:
            assert first.poll() is None, "run 1 ended before it could be killed: " + (workdir / "run1.log").read_text()
            assert time.monotonic() < deadline, "run 1 sent too few requests"
            time.sleep(0.02)
        first.send_signal(signal.SIGKILL)
        killed_at = time.monotonic()
        first.wait(30)
        log1.close()
        time.sleep(latency + 0.5)  # in-flight requests finish (into a closed socket)
        run1 = list(server.chat_requests)
        assert all(task_of(r.body) in CHAIN_TASKS + ("domain_persona",) for r in run1)

        second = _hopgraph(workdir, env, "generate", "--n", n, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True)
        out, _ = second.communicate(timeout=600)
        assert second.returncode == 0, out
        run2 = server.chat_requests[len(run1):]

    store = open_store(workdir / ".hopgraph")
    got = chains(store)
    ids = [c["id"] for c in got]
    assert len(ids) == len(set(ids)), "no duplicate chain ids"
    assert sum(c["status"] == "accepted" for c in got) == int(n)

    keys1 = [body_key(r.body) for r in run1]
    keys2 = [body_key(r.body) for r in run2]
    assert len(set(keys1)) == len(keys1) and len(set(keys2)) == len(keys2), "no request repeated within a run"
    # A request answered well before the kill had its reply cached: run 2 must not send it again.
    answered = {k for k, r in zip(keys1, run1) if r.time + latency + 1.0 < killed_at}
    assert answered, "nothing was answered before the kill; the test proves nothing"
    assert not answered & set(keys2), "a successfully answered call was repeated after the restart"
    # Only requests in flight at the kill may be sent twice.
    repeated = set(keys1) & set(keys2)
    assert len(repeated) <= concurrency * 2


def test_a_dead_endpoint_writes_nothing_and_the_rerun_recovers(workdir, open_store):
    """Failed calls are not verdicts: no chain is stored as rejected because the
    endpoint was down, the run stops at once, and a later run does the work."""
    from builders.chains.generate import run_generate
    from tests.llm_server import server_error

    fake = FakeLLM()
    with ScriptedLLMServer(responder=lambda body: server_error(500)) as server:
        settings = make_settings(workdir / ".hopgraph", server.base_url, n=3)
        settings.llm.max_retries = 0
        store = open_store(settings.store.data_dir)
        report = run_generate(RunContext.open(settings, store, console=Quiet()))
        assert report.llm_unavailable
        assert chains(store) == []
        server.responder = fake
        again = run_generate(RunContext.open(settings, store, console=Quiet()))
    assert not again.llm_unavailable
    assert sum(c["status"] == "accepted" for c in chains(store)) == 3


def test_a_repair_answered_without_the_hop_it_reworded_is_rejected(workdir, open_store):
    """The verifier passes the rewrite, but a reader holding the other items still gives the
    answer without hop 0: the rewrite only reworded the clue, so the chain is not kept."""
    from builders.chains.generate import run_generate

    fake = FakeLLM(not_needed=lambda n, q, e: set() if q.endswith("(revised)") else {0}, probe_guesses=True)
    with ScriptedLLMServer(responder=fake) as server:
        settings = make_settings(workdir / ".hopgraph", server.base_url, n=2)
        settings.generate.types = ["text_chain"]
        settings.generate.min_hops = settings.generate.max_hops = 2
        store = open_store(settings.store.data_dir)
        report = run_generate(RunContext.open(settings, store, console=Quiet()))
        reqs = list(server.chat_requests)
    got = chains(store)
    probes = [r for r in reqs if task_of(r.body) == "answer_from_evidence"]
    assert got and probes, "no repair reached the probe; the test proves nothing"
    assert not any(c["status"] == "accepted" for c in got)
    probed = [c for c in got if "the probe answered it without the hop" in c["reject_reason"]]
    assert len(probed) == len(probes) and all(c["reject_reason"].startswith("hop 0 not needed") for c in probed)
    assert report.llm["total"]["calls"] == len(reqs)  # the probes are counted with every other call


def test_after_a_shortcut_verdict_a_repair_is_probed_without_each_hop(workdir, open_store):
    """A shortcut verdict says one item answers alone, not which: the rewrite is answered once
    without each hop, and kept only when every probe finds it unanswerable."""
    from builders.chains.generate import run_generate
    from tests.fake_llm import user_text

    fake = FakeLLM(single_item_answers=lambda q: not q.endswith("(revised)"))
    with ScriptedLLMServer(responder=fake) as server:
        settings = make_settings(workdir / ".hopgraph", server.base_url, n=2)
        settings.generate.types = ["text_chain"]
        settings.generate.min_hops = settings.generate.max_hops = 2
        store = open_store(settings.store.data_dir)
        run_generate(RunContext.open(settings, store, console=Quiet()))
        reqs = list(server.chat_requests)
    ok = [c for c in chains(store) if c["status"] == "accepted"]
    assert ok and all(c["repaired"] for c in ok)
    probes = [user_text(r.body) for r in reqs if task_of(r.body) == "answer_from_evidence"]
    assert len(probes) == 2 * len(ok)
    assert sum("[0]" not in t for t in probes) == sum("[1]" not in t for t in probes) == len(ok)
    for c in ok:  # what each probe answered is kept with the chain's construction figures
        assert json.loads(c["construction"])["repair_probe"] == {"0": "UNANSWERABLE", "1": "UNANSWERABLE"}


def test_a_failed_probe_call_keeps_nothing_and_is_retried_next_run(workdir, open_store):
    from builders.chains.generate import run_generate
    from tests.llm_server import status

    fake = FakeLLM(not_needed=lambda n, q, e: set() if q.endswith("(revised)") else {0})

    def responder(body):
        return status(400, "bad request") if task_of(body) == "answer_from_evidence" else fake(body)

    with ScriptedLLMServer(responder=responder) as server:
        settings = make_settings(workdir / ".hopgraph", server.base_url, n=2)
        settings.generate.types = ["text_chain"]
        settings.generate.min_hops = settings.generate.max_hops = 2
        store = open_store(settings.store.data_dir)
        report = run_generate(RunContext.open(settings, store, console=Quiet()))
        reqs = list(server.chat_requests)
    assert any(task_of(r.body) == "answer_from_evidence" for r in reqs), "no repair reached the probe"
    assert not any(c["status"] == "accepted" for c in chains(store)), "an unprobed repair was kept"
    assert any("probe call failed" in reason for reason in report.llm_failed), report.llm_failed
