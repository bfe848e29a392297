"""Empirical hop necessity (MC-Search's HAVE): the verifier answers the final
question with all evidence and with each hop's evidence removed; a hop is
needed when the answer is right with all of it and wrong without that hop.
Driven through the real LLM client against the scripted server."""

from __future__ import annotations

import json
import re

import pytest

from builders.chains.necessity import judge
from kg.text import token_f1
from kg.context import RunContext
from tests.builders.chains.synthetic import build_synthetic_corpus
from testing_support import make_settings
from tests.fake_llm import system_text, user_text
from tests.llm_server import ScriptedLLMServer, ok


class Quiet:
    def print(self, *args, **kwargs):
        pass


def test_answers_are_judged_by_token_f1():
    assert token_f1("the Helsinki Marine Institute", "Helsinki Marine Institute") == 1.0
    assert token_f1("UNANSWERABLE", "Helsinki Marine Institute") == 0.0
    verdict = judge("Gulf of Riga", "the Gulf of Riga", ["UNANSWERABLE", "Gulf of Riga", "Riga"])  # "Riga" alone: F1 0.5
    assert verdict.right_with_all and verdict.necessary == [True, False, True]
    # Wrong with all evidence: no hop can be shown to be needed.
    assert judge("Gulf of Riga", "Baltic Sea", ["UNANSWERABLE"] * 3).necessary == [False] * 3


class Verifier:
    """Writes one question per chain; answers it only while evidence item [0] is given."""

    def __init__(self):
        self.answers: dict[str, str] = {}
        self.probes: list[str] = []

    def __call__(self, body):
        system, user = system_text(body), user_text(body)
        if "You write multi-hop questions" in system:
            hops = json.loads(user[user.index("["):user.rindex("]") + 1])
            answer = hops[-1]["target_answer"]
            question = f"Which thing follows from chain {len(self.answers)} in {len(hops)} steps?"
            self.answers[question] = answer
            subs = [f"What comes after {prev['bridge_to_next']}?" for prev in [{"bridge_to_next": "the start"}, *hops]]
            return ok({"hops": [{"subquestion": subs[i], "answer": h["bridge_to_next"] or answer}
                                for i, h in enumerate(hops)], "question": question, "answer": answer})
        if "strict reviewer" in system:
            n = int(re.search(r"Evidence \((\d+) items", user).group(1))
            return ok({"answerable_without": [False] * n, "single_item_answers": False, "faithful": True,
                       "standalone": True, "closed_book_answerable": False, "reasons": ""})
        if "strictly from the evidence" in system:
            self.probes.append(user)
            question = re.search(r"Question: (.*)", user).group(1).strip()
            return ok({"answer": self.answers[question] if "[0]" in user else "UNANSWERABLE"})
        raise AssertionError(f"unexpected request: {system[:80]}")


@pytest.mark.timeout(300)
def test_empirical_necessity_is_recorded_on_the_hops(falkor_store, tmp_path):
    from builders.chains.generate import run_generate

    build_synthetic_corpus(falkor_store)
    verifier = Verifier()
    with ScriptedLLMServer(responder=verifier) as server:
        settings = make_settings(tmp_path / ".hopgraph")
        settings.llm.base_url = server.base_url
        settings.generate.n = 1
        settings.generate.types = ["text_chain"]
        settings.verify.necessity = "empirical"
        settings.generate.bridge_by_number = False  # the synthetic corpus's facts are words; the rule: test_answer_side.py
        run_generate(RunContext.open(settings, falkor_store, console=Quiet()))
    rows = falkor_store.run("hops_for_export")
    assert rows and verifier.probes
    by_chain: dict[str, list[dict]] = {}
    for r in rows:
        by_chain.setdefault(r["chain_id"], []).append(r["hop"])
    for hops in by_chain.values():
        hops.sort(key=lambda h: h["index"])
        assert {h["necessity_method"] for h in hops} == {"empirical"}
        # Without hop 0's evidence the verifier cannot answer: hop 0 is needed;
        # without any other hop it still can: those hops are not.
        assert hops[0]["necessary"] is True and hops[0]["answer_without"] == "UNANSWERABLE", [(h["index"], h["necessary"], h.get("answer_without"), h.get("right_without")) for h in hops]
        assert all(h["necessary"] is False and h["right_without"] is True for h in hops[1:])
    chains = [r["chain"] for r in falkor_store.run("chains_for_export")]
    assert all(c["status"] == "rejected" and "hop 1 not needed" in c["reject_reason"] for c in chains), [(c["status"], c["reject_reason"], c["hops"], c["shrunk_from"]) for c in chains]
    assert all(c["right_with_all_evidence"] is True for c in chains)
    # one probe with all evidence plus one per hop, for every chain tried
    assert len(verifier.probes) == sum(len(h) + 1 for h in by_chain.values())
