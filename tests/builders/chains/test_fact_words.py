"""The words a bridge may be described by and those a question must avoid (builders/chains/fact_words.py)."""

from __future__ import annotations

from builders.chains.fact_words import fact_words, title_stems, word_stems
from tests.builders.chains.test_construction import view  # noqa: F401


def test_a_fact_splits_into_its_own_words_and_words_a_later_hop_holds():
    later = word_stems("The vessel logged 41.2 survey days in the gulf.")
    own, avoid = fact_words("Maria Kovacs founded the institute after coastal fieldwork; its vessel logged 41.2 days",
                            later, ["Helsinki Marine Institute", "Tallinn Sea Laboratory"])
    assert {"coastal", "fieldwork"} <= set(own)
    assert {"vessel", "41.2"} <= set(avoid)
    assert "tallinn" in avoid  # a rival's name tells the candidates apart


def test_words_of_the_sources_title_are_neither_a_description_nor_banned():
    own, avoid = fact_words("The DeepSeek report trains with reinforcement learning", word_stems("DeepSeek R1 table"),
                            ["GRPO"], titles=title_stems(["DeepSeek-R1: Incentivizing Reasoning Capability"]))
    assert "deepseek" not in own + avoid
    assert "reinforcement" in own


def test_a_rivals_name_the_sources_title_holds_is_not_banned():
    """q33: the report's own model was one of the bridge's rivals; its name, banned as a word telling the
    rivals apart, left the writer no way to say which report the question asks about."""
    candidates = ["Qwen3-235B-A22B", "Hunyuan-TurboS", "DeepSeek-V3"]
    _own, avoid = fact_words("The model scores 87.9 on MMLU", set(), candidates,
                             titles=title_stems(["Hunyuan-TurboS: Advancing Large Language Models"]))
    assert "hunyuan-turbos" not in avoid and "hunyuan" not in avoid
    _own, avoid = fact_words("The model scores 87.9 on MMLU", set(), candidates)
    assert "hunyuan-turbos" in avoid  # without that title, the name still tells the rivals apart


def test_a_compound_whose_part_is_banned_is_no_description_and_a_titles_run_of_parts_is_no_ban():
    """q35: the writer was told to describe a bridge by "omni-instruct" and never to use "omni"; and
    "longcat-flash", a run of the report's own name "LongCat-Flash-Omni", was banned."""
    own, avoid = fact_words("The omni-instruct variant scores 85.5 on VoiceBench", word_stems("a table"),
                            ["Qwen3-Omni", "Kimi-Audio"])
    assert "omni-instruct" not in own and "omni-instruct" in avoid
    own, _avoid = fact_words("The open-source variant scores 85.5", word_stems("open weights table"),
                             ["Qwen3-Omni", "Kimi-Audio"])
    assert "open-source" in own  # a part a later hop holds is no name's part
    assert "longcat-flash" in title_stems(["LongCat-Flash-Omni Technical Report"])
    assert "flash-omni" in title_stems(["LongCat-Flash-Omni Technical Report"])


def test_a_title_word_that_is_the_bridges_name_keeps_every_rule(view):
    """A paper titled after its own model, whose table lists that model as the bridge's row: naming the
    source would name the bridge, so the title's words are no exemption there (review of session 9)."""
    from tests.builders.chains.test_construction import HMI, construction, serial

    view.doc_title["d1"] = "Helsinki Marine Institute: annual report"
    cand = serial(("c1", HMI), ("c8", ""), answer="aurora research vessel")
    titles = construction(view)._title_words(cand)
    assert "helsinki" not in titles and "annual" in titles


def test_a_title_names_the_thing_its_first_word_names():
    from builders.chains.fact_words import title_names

    titles = {"KIMI K1.5: SCALING REINFORCEMENT LEARNING WITH LLMS"}
    assert title_names("Kimi k1.5 long-CoT", titles)
    assert title_names("DeepSeek-R1-32B", {"DeepSeek-R1: Incentivizing Reasoning Capability in LLMs"})
    assert not title_names("OpenAI o1", titles) and not title_names("QwQ-32B Preview", titles)
    assert not title_names("Scaling laws", titles) and not title_names("Learning rate", titles)  # everyday words
    assert not title_names("", titles) and not title_names("a b", {"A b"})  # too short to name anything
    spelled = {"Beyond Examples: High-level Automated Reasoning Paradigm in In-Context Learning via MCTS"}
    assert title_names("HiAR-ICL", spelled) and not title_names("CoT+SC", spelled)  # capitals spelled out


def test_a_word_that_is_part_of_the_bridges_name_describes_nothing():
    """q13: "describe_bridge_with" offered "code-qwen" for CODE-QWEN-CHAT; the question then spelled the
    bridge out. A fact word inside a candidate's name goes to the words to avoid."""
    from builders.chains.fact_words import fact_words

    own, avoid = fact_words("We implemented continued pretraining on code data for CODE-QWEN and then applied "
                            "supervised finetuning to create", set(), ["CODE-QWEN-CHAT", "GPT-4"])
    assert "code-qwen" in avoid and "code-qwen" not in own and "finetuning" in own


def test_a_word_of_the_answer_describes_nothing():
    """q14: "layer" was offered to describe the "Normalization" row whose answer is LayerNorm; the question
    then pointed straight at the answer. construction.py passes the answer's text."""
    from builders.chains.fact_words import fact_words

    own, avoid = fact_words("Skywork-13B replaces the conventional layer normalization with the RMSNorm of "
                            "Zhang and Sennrich", set(), ["Normalization", "Activation"], answer="LayerNorm")
    assert "layer" in avoid and "layer" not in own and "rmsnorm" in own


def test_words_every_rival_of_a_prose_last_hop_shares_are_no_way_to_find_the_bridge():
    """q18: the last hop gives each system's precision and recall, so "precision" picks none of them out;
    the words only the bridge's sentence has ("joint", "encoding") still do."""
    from builders.chains.fact_words import picking_words

    last = ("For English-German, WDict produces few OOVs (26.5% recall), but with high precision (60.6%). "
            "The character bigram model C2-50k achieves a relatively low precision of 29.1%. "
            "In contrast, the joint encoding of BPE-J90k improves both precision (38.6%) and recall (29.8%).")
    picking = picking_words(last, ["BPE-J90k"], ["WDict", "C2-50k"])
    assert {"joint", "encoding", "38.6"} <= picking
    assert not {"precision", "recall"} & picking
    assert picking_words(last, ["BPE-J90k"], []) is None  # no rivals: every word of the hop may find it
    own, avoid = fact_words("On English-Russian, BPE-J90k improves precision to 21.9% and uses a joint vocabulary",
                            picking, ["BPE-J90k", "WDict", "C2-50k"])
    assert "precision" in own and "joint" in avoid


def test_a_number_a_later_hop_writes_with_more_digits_is_to_be_avoided():
    """q22: the abstract's "an average of 74.5% and 81.6%" described BERTbase, and the table of the
    next hop has "SimCSE-BERTbase ... 74.54": the writer used 74.5 and the table alone answered."""
    later = word_stems("| SimCSE-BERTbase | 66.68 | 74.54 | | SimCSE-RoBERTa | 81.57 |")
    own, shared = fact_words("our unsupervised and supervised models achieve an average of 74.5% and 81.6% "
                             "Spearman's correlation, 7.9 points above", later, ["BERTbase"])
    assert "74.5" in shared and "81.6" in shared
    assert "7.9" in own  # no later hop writes it


def test_a_number_inside_a_name_or_a_reference_is_no_value_of_the_fact():
    """q58: "The official implementation of DSv3 uses BF16" gave "16", and "As §5.2 explained, Step-3
    can benefit ... other than H20" gave "5.2": both passed for numbers the hop prints for its bridge
    (`[generate] bridge_by_number`), and neither says anything a reader could identify it by."""
    from builders.chains.arithmetic import printed_result

    for fact in ("The official implementation uses BF16 for attention on H800 and Qwen2.5-72B",
                 "As §5.2 explained, it benefits significantly, see Table 6 and Section 3.1"):
        own, shared = fact_words(fact, set(), ["DSv3", "Kimi K2"])
        assert not any(printed_result(w) for w in own + shared), (fact, own)
    own, _ = fact_words("it is still much higher than the 2,324 TGS with DeepEP, a -3.2 change", set(), ["DSv3"])
    assert {"2,324", "3.2"} <= set(own)  # values stay values
    assert "800" not in word_stems("FP8 on H800") and "41.6" in word_stems("41.6% (Table 2)")


def test_a_fact_that_says_what_the_bridge_is_is_a_definition():
    """q26: "CMMLU, a Chinese multi-subject multiple-choice task" and "AGIEval includes both English and
    Chinese subsets" identify their bridges by what they are; a practitioner maps that to the name in the
    next hop's table. What a bridge did or had done to it is no definition."""
    from builders.chains.fact_words import defines

    assert defines("As for Chinese benchmarks, except for CMMLU, a Chinese multi-subject multiple-choice task, "
                   "DeepSeek-V3-Base also shows better performance.", ["CMMLU"])
    assert defines("Note that AGIEval includes both English and Chinese subsets.", ["AGIEval"])
    assert defines("MMLU-Pro [Wang et al., 2024], a robustly re-evaluated version of MMLU.", ["MMLU-Pro"])
    assert not defines("For non-reasoning data we utilize DeepSeek-V2.5 to generate responses.", ["DeepSeek-V2.5"])
    assert not defines("Qwen3-32B outperforms our previous model, QwQ-32B, in most benchmarks.", ["QwQ-32B"])
    assert not defines("The Helsinki Marine Institute operates the Baltic research vessel.", ["Helsinki Marine Institute"])
    # q33, q39: a release's note defines a balance-sheet line; an accountant names it from the definition
    assert defines("Unearned revenue represents amounts that have been invoiced in advance of revenue "
                   "recognition and is recognized as transfer of control occurs.", ["Unearned revenue"])
    assert defines("Remaining performance obligation is defined as all future revenue under contract.",
                   ["Remaining performance obligation"])
    assert not defines("Unearned revenue rose 12% to $15.1 billion.", ["Unearned revenue"])


def test_a_title_taken_from_a_file_name_names_its_subject():
    """q26: the DeepSeek-V3 report's title was its file name, "llm_deepseek_v3_techreport_p1-30": told
    the source, a reader picks DeepSeek-V2.5 among Claude, GPT-4o and Llama as the in-house model."""
    from builders.chains.fact_words import title_names

    assert title_names("DeepSeek-V2.5", {"llm_deepseek_v3_techreport_p1-30"})
    assert not title_names("Claude-3.5-Sonnet", {"llm_deepseek_v3_techreport_p1-30"})


def test_a_comparison_that_points_at_its_columns_extreme_is_found():
    from builders.chains.fact_words import compares, extreme

    assert compares("On knowledge tasks such as GPQA, the smaller model lags behind due to its size.")
    assert compares("The method outperforms all baselines on both datasets.")
    assert compares("We assess reasoning through MMLU-Pro and the challenging HLE benchmark.")  # q52: lowest row
    assert not compares("The model reaches a recall of 89.53 on MSRA.")
    assert not compares("Qwen3-32B Top-1 Acc 81.2")  # a column header, not a ranking (review)
    assert extreme("71.5", ["83.3", "77.0", "81.4", "80.1"]) and extreme("98.7", ["95.2", "87.3"])
    assert not extreme("80.1", ["83.3", "77.0", "81.4"])  # in between: the comparison picks no bar
    assert not extreme("71.5", ["83.3"]) and not extreme("n/a", ["1", "2"])  # too few rivals; no number


def test_a_fact_that_writes_out_the_bridges_short_name_says_what_it_is():
    """q47: "the model the authors, for simplicity, refer to by an abbreviation of Stack-LSTM" is the
    "S-LSTM" row of the next table whatever else the hop says: the hop writes the name out."""
    from builders.chains.fact_words import spells_out

    assert spells_out("for simplicity, we refer to this model as the Stack-LSTM", ["S-LSTM"])
    assert not spells_out("the Stack-LSTM of Dyer et al. (2015)", ["LSTM-CRF"])  # another name
    assert not spells_out("GPT-4 scores 86.4 on MMLU", ["GPT-4"])  # the name itself, not written out
    assert not spells_out("a Bi-LSTM layer", ["BiLSTM"])  # one part: no initials to read


def test_a_citations_authors_and_year_are_no_description_of_the_bridge():
    """q52: "the model by Zeng et al. 2015" and "the benchmark of Phan et al., 2025" name the cited
    work, and so the bridge, to any practitioner: the strict reviewer took both hops for unneeded."""
    own, avoid = fact_words("We enforce the constraint on the objective function of PCNNs+MIL (Zeng et al. 2015), "
                            "trained with ADADELTA (Zeiler 2012).", set(), ["PCNNs+MIL", "APCNNs"])
    assert {"constraint", "objective"} <= set(own)
    assert {"zeng", "2015", "zeiler", "2012"} <= set(avoid) and not {"zeng", "2015", "zeiler"} & set(own)
    own, _ = fact_words("In 2015 the survey covered Smith Island and the Gulf.", set(), ["Smith Island"])
    assert "2015" in own  # a year that is no citation's is a fact
