"""Seconds and items per ingest stage: the --profile table and the manifest figures."""

from __future__ import annotations

import sys
import threading

from kg.pipeline.timings import StageTimes, TimedStore


def test_stages_add_up_across_threads_and_list_in_pipeline_order():
    times = StageTimes()

    def work():
        for _ in range(20000):
            times.add("embed", 0.25, 2)

    threads = [threading.Thread(target=work) for _ in range(4)]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads switch often: an unlocked read-add-write would lose updates
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    times.add("custom step", 1.0)
    times.add("parse", 0.5, 3)
    times.add_items("parse", 2)
    figures = times.to_dict()
    assert list(figures) == ["parse", "embed", "custom step"]  # known stages first, in order; others after
    assert figures["embed"] == {"seconds": 20000.0, "items": 160000}
    assert figures["parse"] == {"seconds": 0.5, "items": 5}


def test_a_stage_block_records_even_when_it_raises():
    times = StageTimes()
    try:
        with times.stage("chunk", items=7):
            raise ValueError("bad file")
    except ValueError:
        pass
    assert times.to_dict()["chunk"]["items"] == 7 and times.seconds["chunk"] >= 0


def test_figures_from_a_worker_merge_in():
    times = StageTimes()
    times.add("llm", 2.0, 4)
    worker = StageTimes()
    worker.add("llm", 1.0, 1)
    worker.add("knn", 0.25, 10)
    times.merge(worker.to_dict())
    assert times.to_dict() == {"llm": {"seconds": 3.0, "items": 5}, "knn": {"seconds": 0.25, "items": 10}}


def test_the_profile_table_reads_per_stage_rates_and_the_wall_time():
    times = StageTimes()
    times.add("embed", 2.0, 50)
    times.add("topics", 0.5)
    lines = times.table(wall=3.25).splitlines()
    assert lines[0].split() == ["stage", "seconds", "items", "items/s"]
    assert lines[1].split() == ["embed", "2.00", "50", "25.0"]
    assert lines[2].split() == ["topics", "0.50", "0", "0.0"]  # no items: no rate
    assert lines[3].startswith("wall") and "3.25" in lines[3] and "overlap" in lines[3]
    assert len(StageTimes().table().splitlines()) == 1


def test_a_timed_store_counts_written_rows_and_passes_everything_else_through(falkor_store):
    times = StageTimes()
    timed = TimedStore(falkor_store, times)
    timed.write("upsert_documents", [{"id": f"d{i}", "path": f"d{i}.md", "title": "t", "pages": 1} for i in range(3)])
    timed.write("upsert_chunks", [{"id": "c1", "doc_id": "d0", "index": 0, "text": "x", "kind": "text"}])
    timed.write("chunk_part_of", [{"s": "c1", "d": "d0"}], key=None)
    assert timed.counts() == falkor_store.counts()  # reads go to the store untimed
    assert falkor_store.run_text("MATCH (c:Chunk)-[:PART_OF]->(d:Document) RETURN d.id AS d") == [{"d": "d0"}]
    assert list(times.to_dict()) == ["store writes"] and times.to_dict()["store writes"]["items"] == 5
