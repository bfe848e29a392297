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


FORK = {"operation": "larger", "answer": "PRIMERA",
        "parts": [{"hop": 0, "subject": "PEGASUS", "value": "44.7"}, {"hop": 1, "subject": "PRIMERA", "value": "46.1"}]}


def _fork_verdict(answer: str, fork: dict) -> ChainVerdict:
    """The LLM verdict of a strict fork whose verifier saw nothing wrong, with the deterministic checks."""
    from types import SimpleNamespace

    from builders.chains.verify import llm_verification
    from queries.corpus_view import CorpusView

    draft = _draft("parallel_visual_textual_fork", ["44.7", "46.1"], answer)
    draft.candidate.meta["fork"] = fork
    reply = SimpleNamespace(answerable_without=[False, False], single_item_answers=False, faithful=True,
                            standalone=True, closed_book_answerable=False, reasons="")
    return llm_verification(CorpusView(), draft, reply)


def test_a_strict_forks_written_answer_must_give_the_computed_comparison():
    assert _fork_verdict("PRIMERA", FORK).passed
    for wrong in ("PEGASUS", "PRIMERA and PEGASUS", "46.1"):  # the loser, both, or a value instead of the winner
        v = _fork_verdict(wrong, FORK)
        assert not v.faithful and not v.passed
        assert "does not give the computed larger 'PRIMERA'" in v.reasons[-1]
    diff = {"operation": "difference", "answer": "4.6",
            "parts": [{"hop": 0, "subject": "A", "value": "71.4"}, {"hop": 1, "subject": "A", "value": "66.8"}]}
    assert _fork_verdict("4.6 points", diff).passed and _fork_verdict("\u22124.6", diff).passed
    assert not _fork_verdict("71.4", diff).passed and not _fork_verdict("4.5", diff).passed
    pct = {**diff, "answer": "33 percentage points"}
    assert _fork_verdict("33 percentage points", pct).passed and not _fork_verdict("54%", pct).passed


def _serial_verdict(guesses: list[str], answer: str = "72.6", graph_type: str = "text_chain") -> ChainVerdict:
    """The LLM verdict of a chain whose verifier said every item is needed, with its guesses."""
    from types import SimpleNamespace

    from builders.chains.verify import llm_verification
    from queries.corpus_view import CorpusView

    draft = _draft(graph_type, ["BiLSTM", answer], answer)
    draft.hops[1] = HopText(sub_question="What MNLI-mm score does the BiLSTM get?", answer=answer)
    reply = SimpleNamespace(guess_without=guesses, answerable_without=[False, False], single_item_answers=False,
                            faithful=True, standalone=True, closed_book_answerable=False, reasons="")
    return llm_verification(CorpusView(), draft, reply)


def test_a_hop_is_not_needed_when_the_verifier_guesses_the_answer_without_it():
    # q24: "the baseline with just 1 layer" among Transformer rows; the verifier said "needed"
    # but, asked what it would answer with item 0 covered, gives the BiLSTM's cell.
    v = _serial_verdict(["72.6", ""])
    assert v.necessary == [False, True] and not v.passed
    assert v.first_failure().startswith("hop 0 not needed")
    assert "still guessed '72.6'" in v.reasons[0]


def test_a_wrong_or_empty_guess_leaves_the_hop_needed():
    assert _serial_verdict(["71.8", ""]).passed  # another row's value
    assert _serial_verdict(["", ""]).passed
    assert _serial_verdict(["unanswerable", "unanswerable"]).passed
    assert _serial_verdict([]).passed  # a cached reply from before the field existed


def test_a_forks_guess_without_one_branch_is_a_coin_toss_and_is_ignored():
    v = _serial_verdict(["PRIMERA", ""], answer="PRIMERA", graph_type="parallel_visual_textual_fork")
    assert v.necessary == [True, True]


def test_a_guess_written_as_a_number_or_null_is_read_not_refused():
    """A model in JSON mode writes a table answer unquoted ("guess_without": [72.6, null]): one such item
    must not fail the whole verdict."""
    from kg.llm.structured import ChainVerification

    reply = ChainVerification.model_validate({"guess_without": [72.6, None], "answerable_without": [False, False],
                                              "single_item_answers": False, "faithful": True, "standalone": True,
                                              "closed_book_answerable": False})
    assert reply.guess_without == ["72.6", ""]
