"""A strict reader's objection the verifier's booleans miss: a chain turned into two questions.

Seen with a strong model judging strictly (2026-11-24, held-out PaperMage PDF): a rewrite asked
"Which system was the baseline ..., and in which section is that recipe's snippet found?" with
the answer "Grobid; the recipe's example code snippet is in §3.2". Both items were "needed",
but only because the question asks two things; nothing was looked up through a bridge.
"""

from builders.chains.candidate import Candidate, Hop
from builders.chains.verbalize import Draft, HopText
from builders.chains.verify import ChainVerdict, joins_hop_answers


def _draft(graph_type: str, hop_answers: list[str], answer: str) -> Draft:
    hops = [Hop(node_id=f"n{i}", label="Chunk", bridge="e" if i == 0 else "", bridge_kind="entity" if i == 0 else "")
            for i in range(len(hop_answers))]
    cand = Candidate(graph_type=graph_type, hops=hops, structure=[(0, 1), (1, 2)])
    texts = [HopText(sub_question=f"q{i}?", answer=a) for i, a in enumerate(hop_answers)]
    return Draft(candidate=cand, hops=texts, question="Which one?", answer=answer, generator="test")


def test_a_final_answer_that_states_an_earlier_hops_answer_is_a_compound_question():
    compound = _draft("text_chain", ["§3.2", "Grobid"], "Grobid; the recipe's example code snippet is in §3.2.")
    assert joins_hop_answers(compound)


def test_a_chain_whose_answer_is_its_last_hops_answer_passes():
    chain = _draft("text_chain", ["CoreRecipe", "Grobid"], "Grobid")
    assert not joins_hop_answers(chain)
    # an earlier answer that is part of the last hop's own answer is not a second question
    assert not joins_hop_answers(_draft("text_chain", ["LED", "LED-4096"], "LED-4096"))


def test_forks_combine_their_branches_by_design():
    fork = _draft("parallel_visual_textual_fork", ["a tooltip with the Answer Gist", "Paper Plain"],
                  "It shows a tooltip with the Answer Gist; participants favoured it in Paper Plain.")
    assert not joins_hop_answers(fork)


def test_a_compound_verdict_fails_with_its_own_reason():
    v = ChainVerdict(necessary=[True, True], single_answer=False)
    assert not v.passed
    assert v.first_failure().startswith("compound question")
