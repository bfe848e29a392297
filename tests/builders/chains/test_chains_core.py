"""The generation core on a small synthetic corpus (no ../shared): bridges,
statements, walkers, the offline verbalizer, offline verification, shrinking
and `generate` end to end in the real embedded FalkorDB store."""

from __future__ import annotations

import random
import re

import pytest

from tests.builders.chains.synthetic import FURNITURE, build_synthetic_corpus
from testing_support import make_settings
from kg.context import RunContext


class Quiet:
    def print(self, *args, **kwargs):
        pass


@pytest.fixture
def synthetic(falkor_store, tmp_path):
    build_synthetic_corpus(falkor_store)
    settings = make_settings(tmp_path / ".hopgraph")
    settings.generate.n = 3
    settings.generate.types = ["text_chain"]
    return settings, falkor_store


@pytest.fixture
def view(synthetic):
    from queries.corpus_view import load_corpus_view

    return load_corpus_view(synthetic[1])


# ---------------------------------------------------------------- bridges
@pytest.mark.parametrize("name,label", [
    ("Maria Kovacs", "PERSON"), ("Helsinki Marine Institute", "ORG"), ("Ki67 assay", "TERM"),
    ("Gulf of Riga", "LOC"), ("Stockholm", "GPE"), ("PyTorch", "PRODUCT"),
])
def test_specific_names_can_bridge(name, label):
    from builders.chains.bridges import specific_name

    assert specific_name(name, label)


@pytest.mark.parametrize("name,label", [
    ("USER", "ORG"), ("END", "ORG"), ("PROPOSALS", "GPE"), ("2019", "DATE"), ("22,439", "ORG"),
    ("https://example.org/x", "ORG"), ("jane@example.com", "PERSON"), ("[12]", "ORG"),
    ("abs/2401.04088", "ORG"), ("Financial Data", "ORG"), ("Operating Procedures chapter", "TERM"),
    ("DollarsinMillions)|Pharmaceutical|MedTech", "ORG"), ("**$**", "MONEY"), ("DSKJLSW7X2PROD", "ORG"),
    ("node", "TERM"), ("Speciﬁcally", "ORG"), ("Speciﬁcally", "PERSON"), ("Additionally", "GPE"),
    ("Sec", "ORG"), ("Eq.", "ORG"), ("Fig", "PRODUCT"),  # a document's pointers at its own parts (q16)
])
def test_generic_or_broken_names_cannot_bridge(name, label):
    from builders.chains.bridges import specific_name

    assert not specific_name(name, label)


def test_contents_references_and_tables_are_not_evidence(view):
    from builders.chains.bridges import BridgeRules

    rules = BridgeRules(view)
    assert not any(rules.evidence_ok(c) for c in FURNITURE)
    assert all(rules.evidence_ok(c) for c in ("c1", "c2", "c3", "c5"))


# ---------------------------------------------------------------- question words
@pytest.mark.parametrize("name,label,word", [
    ("Maria Kovacs", "PERSON", "who"), ("Optimizer", "PERSON", "what"), ("Product Identifier 2019", "PERSON", "what"),
    ("Stockholm", "GPE", "where"), ("PROPOSALS", "GPE", "what"), ("USER_ID", "GPE", "what"),
    ("March 2019", "DATE", "when"), ("twelve", "CARDINAL", "how many"), ("Aurora Research Vessel", "PRODUCT", "what"),
])
def test_question_word_follows_the_answer_type(name, label, word):
    from builders.chains.question_words import question_word

    assert question_word(name, label) == word


def test_ask_turns_a_blanked_statement_into_a_question():
    from builders.chains.verbalize import ask

    assert ask("___ founded the Helsinki Marine Institute.", "who") == "Who founded the Helsinki Marine Institute?"
    assert ask("The ___ mapped the Gulf of Riga", "what") == "What mapped the Gulf of Riga?"
    assert ask("The council has its seat in ___", "where") == "The council has its seat where?"
    assert ask("Kovacs founded ___ in 1998", "what") == "Kovacs founded what in 1998?"


# ---------------------------------------------------------------- walkers, verbalizer, verification
def _walker(view, seed=3, min_hops=3):
    from builders.chains.generate import make_walker
    from kg.config import Settings

    settings = Settings()
    settings.generate.min_hops = min_hops
    return make_walker(view, settings, random.Random(seed))


def test_walker_bridges_only_through_relations_in_body_text(view):
    walker = _walker(view)
    seen = 0
    for _ in range(40):
        cand = walker.sample("text_chain")
        if cand is None:
            continue
        seen += 1
        assert len(cand.hops) >= 3
        text_hops = cand.hops[:-1] if cand.table_cell else cand.hops  # a table only as one cell at the end
        assert not FURNITURE & {h.node_id for h in text_hops}
        assert "user" not in {h.bridge for h in cand.hops}
        for prev, hop in zip(text_hops, text_hops[1:]):
            assert walker.statements.relation(hop.node_id, prev.bridge, hop.bridge or cand.answer_entity)
    assert seen, "the synthetic corpus holds 3-hop chains; the walker found none"


def test_offline_verbalizer_asks_each_hop_from_its_own_evidence(view):
    from builders.chains.verbalize import OfflineVerbalizer
    from builders.chains.verify import offline_verify

    walker = _walker(view)
    verbalizer = OfflineVerbalizer(view, walker.statements)
    cand = next(c for c in (walker.sample("text_chain") for _ in range(40)) if c is not None)
    draft = verbalizer.verbalize(cand)
    assert not draft.error, draft.error
    for i, (hop, text) in enumerate(zip(cand.hops, draft.hops)):
        evidence = " ".join(view.nodes[hop.node_id].text.split()).lower()
        assert text.answer.lower() in evidence, (i, text.answer)
        if i:  # each sub-question names the previous hop's answer
            assert draft.hops[i - 1].answer.lower() in text.sub_question.lower()
    # The final question nests the hops: it names no bridge, only the first hop's clue.
    for hop in draft.hops[:-1]:
        assert hop.answer.lower() not in draft.question.lower()
    assert draft.answer == draft.hops[-1].answer and draft.answer.lower() not in draft.question.lower()
    assert "mention together" not in draft.question and "|" not in draft.question
    verdict = offline_verify(view, walker.statements, draft)
    assert verdict.passed, verdict.first_failure()
    assert all(verdict.necessary)


def test_a_hop_whose_target_the_question_names_is_not_needed(view):
    """A shortcut: when the question already names hop 0's answer, hop 0 is not needed."""
    from builders.chains.verbalize import OfflineVerbalizer
    from builders.chains.verify import offline_verify

    walker = _walker(view)
    cand = next(c for c in (walker.sample("text_chain") for _ in range(40)) if c is not None)
    draft = OfflineVerbalizer(view, walker.statements).verbalize(cand)
    leak = view.entity_name[cand.hops[0].bridge]
    draft.question = f"{draft.question} (Hint: A is {leak}.)"
    verdict = offline_verify(view, walker.statements, draft)
    assert not verdict.passed and verdict.necessary[0] is False


def test_one_shrink_rule_for_both_paths(view):
    from builders.chains.shrink import shrunk
    from builders.chains.verify import ChainVerdict

    walker = _walker(view)
    cand = next(c for c in (walker.sample("text_chain") for _ in range(40)) if c is not None and len(c.hops) == 3)
    verdict = ChainVerdict(necessary=[False, True, True])
    smaller = shrunk(view, cand, verdict, min_hops=2)
    assert smaller is not None and smaller.node_ids == cand.node_ids[1:]
    assert smaller.structure == [(0, 1), (1, 2)] and smaller.answer_entity == cand.answer_entity
    assert shrunk(view, cand, verdict, min_hops=3) is None  # no room under --min-hops 3
    assert shrunk(view, cand, ChainVerdict(necessary=[True, True, False]), min_hops=2) is None  # the answer hop
    assert shrunk(view, cand, ChainVerdict(necessary=[False, True, True], navigation=False), min_hops=2) is None


def test_shrink_keeps_the_chain_type():
    from builders.chains.chain_types import CHAIN_TYPE_TABLE, chain_type
    from kg.config import CHAIN_TYPES

    assert tuple(CHAIN_TYPE_TABLE) == CHAIN_TYPES
    assert chain_type("image_initiated_chain").holds(["Image", "Chunk"])
    assert not chain_type("image_initiated_chain").holds(["Chunk", "Chunk"])
    assert not chain_type("multi_image_fork").holds(["Image", "Chunk"])
    assert not chain_type("text_initiated_chain").holds(["Chunk", "Chunk"])


# ---------------------------------------------------------------- generate end to end
def test_generate_offline_on_the_synthetic_corpus(synthetic):
    from builders.chains.generate import run_generate
    from builders.stats import dataset_stats

    settings, store = synthetic
    report = run_generate(RunContext.open(settings, store, console=Quiet()))
    accepted = sum(report.accepted.values())
    assert accepted >= 2, report
    hist = {int(k): v for k, v in report.hops.items()}
    assert sum(k * v for k, v in hist.items()) / accepted >= 3.0, hist  # long chains come first
    chains = [r["chain"] for r in store.run("chains_for_export") if r["chain"]["status"] == "accepted"]
    for chain in chains:
        assert "___" not in chain["question"] and not re.search(r"\|\s*-|\*\*", chain["question"])
        text_evidence = chain["evidence_ids"][:-1] if chain["table_hops"] else chain["evidence_ids"]
        assert not set(text_evidence) & FURNITURE
    quality = dataset_stats(store, runs_dir=settings.store.data_dir / "runs")["quality"]
    assert quality["non_content_evidence_share"] == 0.0
    assert quality["answer_in_evidence_share"] == 1.0
    assert quality["question_word_agreement"] == 1.0
    assert quality["average_hops"] >= 3.0 and quality["share_3plus_hops"] >= 0.3
    assert quality["median_bridge_df"] >= 1.0
    # Resumable: a re-run with the same n adds nothing.
    again = run_generate(RunContext.open(settings, store, console=Quiet()))
    assert sum(again.accepted.values()) == 0


def _view_of(texts: list[str], entities: dict[str, tuple[str, str]]):
    """A corpus view of one document's chunks, each entity mentioned where its name is written."""
    from queries.corpus_view import CorpusView, EvidenceNode

    view = CorpusView()
    for i, text in enumerate(texts):
        view.nodes[f"c{i}"] = EvidenceNode(f"c{i}", "Chunk", "d1", text)
    for ent, (name, label) in entities.items():
        view.entity_name[ent], view.entity_label[ent] = name, label
        for i, text in enumerate(texts):
            if name in text:
                view.mentions[f"c{i}"].add(ent)
                view.mentioned_by[ent].add(f"c{i}")
    return view


def test_a_name_the_corpus_also_writes_as_a_common_noun_bridges_nothing():
    """A name the documents also use as an everyday noun ("transformer layers", "both rwy ends")
    names a kind of thing, not one thing: a question about it is answered by knowing the kind."""
    from builders.chains.bridges import BridgeRules

    view = _view_of([
        "RWY 18-36 is lit at night. No line of sight between rwy ends. Rwy 15 has a berm.",
        "The RWY keyword marks runway closures; both rwy ends are checked by the Tallinn Sea Laboratory.",
        "The Transformer uses attention. Stacked transformer layers and one transformer block follow.",
        "ZeRO shards optimizer states; zero padding and zero init are used. Jane Lee (jane.lee@example.org) wrote it; "
        "see lee@example.org and lee@example.com.",
        "The Tallinn Sea Laboratory runs the Baltic Explorer. The Transformer is trained on WMT.",
        "Meridian funds the Tallinn Sea Laboratory.",
    ], {"meridian": ("Meridian", "ORG"), "rwy": ("RWY", "ORG"), "transformer": ("Transformer", "PRODUCT"), "zero": ("ZeRO", "PRODUCT"),
        "lee": ("Lee", "PERSON"), "tsl": ("Tallinn Sea Laboratory", "ORG")})
    from queries.corpus_view import EvidenceNode

    view.nodes["refs"] = EvidenceNode("refs", "Chunk", "d1", "Kovacs, M. 2019. Ship logs with meridian data. "
                                      "In Proc. of meridian workshops on meridian lines.",
                                      role="references")  # a bibliography lower-cases titles: not counted
    rules = BridgeRules(view)
    assert not rules.can_bridge("rwy") and not rules.can_bridge("transformer")
    assert rules.can_bridge("zero"), "inner capitals: the lower-case word is another word"
    assert rules.can_bridge("lee"), "a person's name is written lower case in e-mail addresses"
    assert rules.can_bridge("tsl") and rules.can_bridge("meridian")
    assert rules.can_answer("transformer"), "only bridges are refused: a name may still be an answer"
