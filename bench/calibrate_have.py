"""Calibrate the offline context-utility (HAVE) check on HotpotQA gold chains.

For each of the 100 HotpotQA train questions in ../shared/corpus/qa, the gold
supporting paragraphs are the hops. We run the same entity-reachability test
the offline verifier uses (builders.chains.verify.answerable): the question's
entities are the start, each paragraph's spaCy entities are an evidence item,
and the answer is reachable when some item names it. A gold hop is judged
necessary when removing its paragraph makes the answer unreachable.

Prints how often gold hops are judged necessary (by question type), and how
often the full gold evidence is judged answerable at all (the check's recall
of the question itself).

    python bench/calibrate_have.py
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from builders.chains.verify import answerable  # noqa: E402
from kg.enrich.entities import EntityExtractor, normalize_entity  # noqa: E402

QA = ROOT.parent / "shared" / "corpus" / "qa" / "hotpotqa" / "hotpotqa_train100_hipporag.json"


def main() -> None:
    questions = json.loads(QA.read_text(encoding="utf-8"))
    extractor = EntityExtractor()
    stats = Counter()
    by_type = Counter()
    for q in questions:
        gold_titles = list(dict.fromkeys(t for t, _ in q["supporting_facts"]))
        paragraphs = {title: " ".join(sents) for title, sents in q["context"] if title in gold_titles}
        if len(paragraphs) < 2:
            continue
        answer_text = q["answer"].strip()
        if answer_text.lower() in ("yes", "no"):
            stats["yes_no_skipped"] += 1
            continue
        answer = "answer:" + normalize_entity(answer_text)
        texts = [q["question"]] + [f"{title}. {paragraphs[title]}" for title in gold_titles]
        mentions = extractor.extract_many(texts)
        seeds = {m.entity_id for m in mentions[0]}
        items = []
        for text, ms in zip(texts[1:], mentions[1:]):
            ents = {m.entity_id for m in ms}
            if answer_text.lower() in text.lower():
                ents.add(answer)
            items.append(ents)
        stats["questions"] += 1
        if not answerable(seeds, items, answer):
            stats["not_answerable_with_all_gold"] += 1
            continue
        stats["answerable"] += 1
        for i in range(len(items)):
            needed = not answerable(seeds, items[:i] + items[i + 1:], answer)
            stats["hops"] += 1
            stats["hops_needed"] += needed
            by_type[(q["type"], needed)] += 1
    hops, needed = stats["hops"], stats["hops_needed"]
    print(f"HotpotQA gold chains: {stats['questions']} questions with >= 2 gold paragraphs "
          f"({stats['yes_no_skipped']} yes/no questions skipped)")
    print(f"answerable with all gold paragraphs (offline check): {stats['answerable']}/{stats['questions']} "
          f"= {stats['answerable'] / max(1, stats['questions']):.0%}")
    print(f"gold hops judged necessary: {needed}/{hops} = {needed / max(1, hops):.0%}")
    for qtype in sorted({t for t, _ in by_type}):
        n_yes, n_no = by_type[(qtype, True)], by_type[(qtype, False)]
        print(f"  {qtype:<11} {n_yes}/{n_yes + n_no} = {n_yes / max(1, n_yes + n_no):.0%}")


if __name__ == "__main__":
    main()
