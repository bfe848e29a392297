"""The HotpotQA importer: supporting paragraphs become hops that resolve to ingested documents."""

from __future__ import annotations

import json

import pytest

from evaluate.corpus import load_corpus, resolve
from evaluate.errors import DatasetError
from evaluate.hotpotqa import import_hotpotqa
from evaluate.records import load_records
from testing_support import CORPUS, needs_corpus

QUESTION = {"_id": "h1", "type": "bridge", "level": "easy", "question": "Which valley holds the works?",
            "answer": "Quellin", "supporting_facts": [["Zorbat Works", 0], ["Quellin Valley", 1], ["Zorbat Works", 2]],
            "context": [["Zorbat Works", ["A. ", "B."]], ["Quellin Valley", ["C."]], ["Noise", ["D."]]]}


def test_supporting_paragraphs_become_hops_in_first_mention_order(tmp_path):
    source = tmp_path / "hp.json"
    source.write_text(json.dumps([QUESTION]))
    assert import_hotpotqa(source, tmp_path / "out.jsonl", tmp_path / "corpus") == 1
    record = json.loads((tmp_path / "out.jsonl").read_text())
    assert [h["evidence"]["title"] for h in record["subqa_chain"]] == ["Zorbat Works", "Quellin Valley"]
    assert record["subqa_chain"][0]["evidence"]["text"] == "A. B."
    assert record["subqa_chain"][1]["evidence"]["path"].endswith("corpus/Quellin_Valley.txt")
    assert record["graph_type"] == "hotpotqa_bridge"


def test_imported_records_resolve_to_the_chunks_of_ingested_documents(tmp_path, eval_store):
    source = tmp_path / "hp.json"
    source.write_text(json.dumps([QUESTION, {**QUESTION, "_id": "h2", "supporting_facts": [["Absent Title", 0]]}]))
    import_hotpotqa(source, tmp_path / "out.jsonl")
    resolution = resolve(load_records(tmp_path / "out.jsonl"), load_corpus(eval_store))
    assert [r.id for r in resolution.scored] == ["h1"]
    assert resolution.unresolved[0]["id"] == "h2"


def test_not_hotpotqa_is_an_error_naming_the_file(tmp_path):
    source = tmp_path / "x.json"
    source.write_text(json.dumps([{"question": "q"}]))
    with pytest.raises(DatasetError, match="x.json: question 0 is not HotpotQA-shaped"):
        import_hotpotqa(source, tmp_path / "out.jsonl")


@needs_corpus
def test_the_shared_hotpotqa_sample_imports_with_files_from_the_index(tmp_path):
    wiki = CORPUS / "text" / "wiki_hotpotqa_train100"
    count = import_hotpotqa(CORPUS / "qa" / "hotpotqa" / "hotpotqa_train100_hipporag.json", tmp_path / "h.jsonl", wiki)
    records = load_records(tmp_path / "h.jsonl")
    assert count == 100 and all(len(r.hops) == 2 for r in records)
    paths = {e.path for r in records for h in r.hops for e in h.evidence}
    assert sum(1 for p in paths if (wiki / p.rsplit("/", 1)[-1]).is_file()) / len(paths) > 0.95
