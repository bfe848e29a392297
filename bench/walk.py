"""Walker throughput on a synthetic corpus view of realistic shape.

20,000 chunks in 200 documents (2.5 % captions, some tables), 5,000 entities
mentioned with a Zipf-like distribution (each chunk mentions 3-8 of them, half
from its document's own vocabulary, half corpus-wide), 500 images with
mentions, caption and reference links, SIMILAR_TO edges (k=8, mostly within a
document, a few near-duplicates) and 40 topics. Times Walker.sample for each
of the five graph types and prints candidate chains per second
(target >= 1,000/s) and the share of samples that came back None.

    .venv/bin/python bench/walk.py [--samples 5000] [--profile TYPE]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import random
import resource
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from queries.corpus_view import CorpusView, EvidenceNode  # noqa: E402
from builders.chains.walkers import Walker  # noqa: E402

TYPES = ["text_chain", "image_initiated_chain", "text_initiated_chain",
         "parallel_visual_textual_fork", "multi_image_fork"]
TARGET = 1000.0  # candidate chains per second


def build_view(n_docs: int = 200, n_chunks: int = 20_000, n_entities: int = 5_000, n_images: int = 500,
               zipf_s: float = 1.0, k_similar: int = 8, n_topics: int = 40, seed: int = 0) -> CorpusView:
    rng = np.random.default_rng(seed)
    view = CorpusView()
    ents = [f"e{i:05d}" for i in range(n_entities)]
    labels = ["TERM", "ORG", "PERSON", "PRODUCT", "GPE", "LAW"]
    for i, e in enumerate(ents):
        view.entity_name[e] = f"entity {i}"
        view.entity_label[e] = labels[i % len(labels)]
        view.entity_aliases[e] = []
    weights = 1.0 / np.arange(1, n_entities + 1) ** zipf_s
    weights /= weights.sum()
    per_doc = n_chunks // n_docs
    doc_topics = rng.integers(0, n_topics, n_docs)

    def mention(node: str, entities) -> None:
        for e in entities:
            view.mentions[node].add(e)
            view.mentioned_by[e].add(node)

    def draw(vocab: np.ndarray, vocab_w: np.ndarray, k: int) -> set[str]:
        local = rng.choice(vocab, size=(k + 1) // 2, p=vocab_w)
        glob = rng.choice(n_entities, size=k // 2, p=weights)
        return {ents[j] for j in np.concatenate([local, glob])}

    chunks_by_doc: list[list[str]] = []
    vocab_by_doc = []
    for d in range(n_docs):
        doc = f"d{d:03d}"
        view.doc_title[doc] = f"Document {d}"
        vocab = rng.choice(n_entities, size=80, replace=False, p=weights)  # the doc's own terms
        vocab_w = 1.0 / np.arange(1, 81)
        vocab_w /= vocab_w.sum()
        vocab_by_doc.append((vocab, vocab_w))
        ids = []
        for j in range(per_doc):
            cid = f"c{d:03d}_{j:03d}"
            kind = "table" if rng.random() < 0.03 else "text"
            topic = doc_topics[d] if rng.random() < 0.8 else rng.integers(0, n_topics)
            view.nodes[cid] = EvidenceNode(cid, "Chunk", doc, f"text of {cid}", kind, j // 5 + 1,
                                           topic=f"t{topic}")
            mention(cid, draw(vocab, vocab_w, int(rng.integers(3, 9))))
            ids.append(cid)
        chunks_by_doc.append(ids)

    # Images: each gets a caption chunk (an existing chunk of its doc turned into a caption),
    # 0-2 referencing chunks and 2-5 mentions of its own.
    for i in range(n_images):
        d = i % n_docs
        doc = f"d{d:03d}"
        iid = f"i{i:04d}"
        ids = chunks_by_doc[d]
        cap = ids[int(rng.integers(0, len(ids)))]
        while view.nodes[cap].kind == "caption":
            cap = ids[int(rng.integers(0, len(ids)))]
        view.nodes[cap].kind = "caption"
        view.nodes[iid] = EvidenceNode(iid, "Image", doc, f"figure {i}", "image", view.nodes[cap].page,
                                       f"assets/{iid}.png", f"Figure {i}", topic=view.nodes[cap].topic)
        vocab, vocab_w = vocab_by_doc[d]
        mention(iid, draw(vocab, vocab_w, int(rng.integers(2, 6))))
        for c in [cap, *(ids[int(j)] for j in rng.integers(0, len(ids), int(rng.integers(0, 3))))]:
            view.image_links[iid].add(c)
            view.image_links[c].add(iid)
        for e in view.mentions[cap]:  # as load_corpus_view does: images inherit caption mentions
            mention(iid, [e])

    # SIMILAR_TO: k per chunk, 75 % within the document; a few near-duplicates (>= 0.92).
    all_chunks = [c for ids in chunks_by_doc for c in ids]
    for d, ids in enumerate(chunks_by_doc):
        for c in ids:
            for _ in range(k_similar):
                other = (ids[int(rng.integers(0, len(ids)))] if rng.random() < 0.75
                         else all_chunks[int(rng.integers(0, len(all_chunks)))])
                if other == c:
                    continue
                score = float(min(0.99, rng.uniform(0.5, 0.9) + (0.08 if rng.random() < 0.03 else 0.0)))
                view.similar[c][other] = score
                view.similar[other][c] = score
    images = [n for n in view.nodes if n.startswith("i")]
    for iid in images:
        for c in list(view.image_links[iid])[:1]:
            score = float(rng.uniform(0.5, 0.8))
            view.similar[iid][c] = score
            view.similar[c][iid] = score
    view.domain, view.persona = "synthetic", "analyst"
    return view


def describe(view: CorpusView, walker: Walker) -> str:
    degrees = np.array([len(v) for v in view.mentioned_by.values()])
    n_mentions = sum(len(v) for v in view.mentions.values())
    n_sim = sum(len(v) for v in view.similar.values()) // 2
    return (f"view: {len(view.chunk_ids)} chunks, {len(view.image_ids)} images, {len(view.doc_title)} docs, "
            f"{len(view.entity_name)} entities ({len(degrees)} mentioned; degree max {degrees.max()}, "
            f"median {int(np.median(degrees))}, {int((degrees > walker.max_entity_degree).sum())} over the "
            f"bridge cap {walker.max_entity_degree}), {n_mentions} mentions, {n_sim} SIMILAR_TO, "
            f"walker: {len(walker.chunks)} start chunks, {len(walker.images)} start images")


def time_type(view: CorpusView, gtype: str, samples: int, seed: int, walker_cls=Walker) -> tuple:
    walker = walker_cls(view, random.Random(seed))
    nones, hops = 0, 0
    t0, c0 = time.perf_counter(), time.process_time()
    for _ in range(samples):
        cand = walker.sample(gtype)
        if cand is None:
            nones += 1
        else:
            hops += len(cand.hops)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return wall, cpu, nones, hops


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--profile", choices=TYPES, help="cProfile this type (samples/5 calls) and print the top")
    args = parser.parse_args()

    t0, c0 = time.perf_counter(), time.process_time()
    view = build_view()
    print(f"built synthetic view in {time.perf_counter() - t0:.1f} s wall / {time.process_time() - c0:.1f} s cpu")
    walker = Walker(view, random.Random(args.seed))
    print(describe(view, walker))

    if args.profile:
        w = Walker(view, random.Random(args.seed))
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(max(1, args.samples // 5)):
            w.sample(args.profile)
        prof.disable()
        out = io.StringIO()
        pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(14)
        print(out.getvalue())
        return

    print(f"{'graph type':<30}{'samples':>8}{'wall s':>8}{'cpu s':>8}{'chains/s':>10}{'cpu-chains/s':>13}"
          f"{'None':>7}{'hops':>6}")
    rates = []
    for gtype in TYPES:
        wall, cpu, nones, hops = time_type(view, gtype, args.samples, args.seed)
        rate = args.samples / wall
        rates.append(rate)
        ok = args.samples - nones
        print(f"{gtype:<30}{args.samples:8d}{wall:8.2f}{cpu:8.2f}{rate:10.0f}{args.samples / cpu:13.0f}"
              f"{nones / args.samples:7.1%}{(hops / ok if ok else 0):6.2f}")
    worst = min(rates)
    print(f"slowest type {worst:.0f} samples/s (target >= {TARGET:.0f}/s: {'OK' if worst >= TARGET else 'MISSED'}); "
          f"samples include None results; peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
