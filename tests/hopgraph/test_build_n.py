"""`--n` is the number of records the user gets: generate counts accepted
chains that are not duplicates, and build tops up after dedup until n
distinct chains exist or the graph runs dry, and says which."""

from __future__ import annotations

import pytest

from testing_support import make_settings
from kg.pipeline import run_ingest
from kg.store.falkor import FalkorStore
from kg.context import RunContext
from tests.hopgraph.faults_support import WIKI_DIR, wiki_docs

pytestmark = [pytest.mark.timeout(900),
              pytest.mark.skipif(not WIKI_DIR.is_dir(), reason="shared wiki corpus not found")]


class Quiet:
    def print(self, *a, **k):
        pass


@pytest.fixture
def graph(tmp_path, monkeypatch, shared_embedding_cache):
    monkeypatch.chdir(tmp_path)
    wiki_docs(tmp_path / "docs", 60)
    settings = make_settings(tmp_path / ".hopgraph", shared_embedding_cache)
    settings.generate.types = ["text_chain"]
    store = FalkorStore(settings.store.data_dir, graph="test")
    store.ensure_schema()
    run_ingest(RunContext.open(settings, store, console=Quiet()), [tmp_path / "docs"])
    yield settings, store
    store.close()
    store.server.stop()


def test_duplicates_do_not_count_toward_n(graph):
    from builders.chains.generate import run_generate

    settings, store = graph
    settings.generate.n = 3
    first = run_generate(RunContext.open(settings, store, console=Quiet()))
    made = sum(first.accepted.values())
    assert made >= 2, "the graph gave too few chains to test with"
    store.run_text("MATCH (c:Chain {status: 'accepted'}) WITH c ORDER BY c.id LIMIT 1 SET c.status = 'duplicate'")
    again = run_generate(RunContext.open(settings, store, console=Quiet()))
    assert again.already == made - 1  # the duplicate is not a record


def test_build_tops_up_to_n_distinct_or_says_the_graph_ran_dry(graph, capsys):
    from hopgraph.cli.stages import generate_distinct

    settings, store = graph
    settings.generate.n = 4
    distinct = generate_distinct(RunContext(settings, store))
    said = capsys.readouterr()
    assert distinct == store.run("count_distinct_accepted")[0]["n"]
    if distinct >= 4:
        assert "4 distinct chains, as asked" in said.out or f"{distinct} distinct chains, as asked" in said.out
    else:
        assert f"{distinct} distinct chains of 4 asked: the graph ran dry" in said.out
    duplicates = store.run_text("MATCH (c:Chain {status: 'duplicate'}) RETURN count(c) AS n")[0]["n"]
    if duplicates and distinct >= 4:  # dedup took some: the top-up made them good
        assert "generating" in said.err


def test_one_round_of_only_duplicates_does_not_end_the_build(monkeypatch, capsys):
    """The demo stopped at 29 of 30: its last round's one new chain was a near-duplicate of an old
    one. A round like that is often chance; only two in a row say the graph ran dry."""
    import builders.chains.generate as generate
    import builders.dedup as dedup
    from types import SimpleNamespace

    from hopgraph.cli.stages import generate_distinct

    distinct_after = iter([2, 2, 3, 3, 3])  # distinct chains after each round's dedup

    class Store:
        def run(self, name):
            assert name == "count_distinct_accepted"
            return [{"n": current["n"]}]

    current = {"n": 0}

    def one_round(ctx):
        current["n"] = next(distinct_after)
        return SimpleNamespace(llm_unavailable=False, accepted={"text_chain": 1})

    monkeypatch.setattr(generate, "run_generate", one_round)
    monkeypatch.setattr(dedup, "run_dedup", lambda ctx: SimpleNamespace(duplicates=1, groups=1))
    ctx = SimpleNamespace(settings=SimpleNamespace(generate=SimpleNamespace(n=4)), store=Store())
    assert generate_distinct(ctx) == 3  # 2, then a duplicate-only round, then 3; two stalled rounds end it
    said = capsys.readouterr()
    assert "3 distinct chains of 4 asked: the graph ran dry" in said.out
