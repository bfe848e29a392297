"""The CLI as a user meets it: one-line errors, init, config, db verbs, stats."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HOPGRAPH = str(Path(sys.executable).parent / "hopgraph")


def run(args, cwd, env=None, timeout=120):
    full_env = {**os.environ, **(env or {})}
    return subprocess.run([HOPGRAPH, *args], cwd=cwd, capture_output=True, text=True, env=full_env,
                          timeout=timeout)


def assert_one_line_error(proc, *needles):
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr
    lines = [l for l in proc.stderr.strip().splitlines() if l.strip()]
    assert len(lines) == 1, proc.stderr
    for needle in needles:
        assert needle in lines[0]


def test_init_writes_a_config_that_loads(tmp_path):
    proc = run(["init"], tmp_path)
    assert proc.returncode == 0
    text = (tmp_path / "hopgraph.toml").read_text()
    assert "[store]" in text and "# " in text
    show = run(["config", "show", "--json"], tmp_path)
    assert show.returncode == 0
    assert json.loads(show.stdout)["store"]["backend"] == "falkordb"
    again = run(["init"], tmp_path)
    assert_one_line_error(again, "already exists")


def test_malformed_toml_is_one_line(tmp_path):
    (tmp_path / "hopgraph.toml").write_text("[store\nbackend = ")
    assert_one_line_error(run(["stats"], tmp_path), "hopgraph.toml", "not valid TOML")


def test_unknown_key_names_the_key(tmp_path):
    (tmp_path / "hopgraph.toml").write_text("[similarity]\nkk = 3\n")
    assert_one_line_error(run(["config", "show"], tmp_path), "similarity.kk", "unknown key")


def test_bad_value_names_the_key(tmp_path):
    (tmp_path / "hopgraph.toml").write_text('[store]\nbackend = "mysql"\n')
    assert_one_line_error(run(["config", "show"], tmp_path), "store.backend")


def test_bad_generate_options_name_the_key_before_any_work(tmp_path):
    # checked by the settings model, as the same keys in hopgraph.toml are
    assert_one_line_error(run(["generate", "--types", "text_chan"], tmp_path),
                          "generate.types: unknown chain type 'text_chan'; choose from text_chain")
    assert_one_line_error(run(["generate", "--min-hops", "4", "--max-hops", "2"], tmp_path),
                          "generate: min_hops (4) is above max_hops (2)")
    assert_one_line_error(run(["ingest", "x", "--executor", "dask"], tmp_path), "ingest.executor")


def test_environment_overrides_the_file_and_secrets_are_masked(tmp_path):
    (tmp_path / "hopgraph.toml").write_text("[similarity]\nk = 3\n")
    proc = run(["config", "show", "--json"], tmp_path,
               env={"HOPGRAPH_SIMILARITY__K": "11", "NEO4J_PASSWORD": "hunter2secret"})
    data = json.loads(proc.stdout)
    assert data["similarity"]["k"] == 11
    assert "hunter2secret" not in proc.stdout
    assert data["secrets"]["NEO4J_PASSWORD"] == "****"


def test_secret_in_dotenv_is_read_but_never_shown(tmp_path):
    (tmp_path / ".env").write_text("OPENAI_API_KEY=sk-test-123456\n")
    proc = run(["config", "show", "--json"], tmp_path)
    assert json.loads(proc.stdout)["secrets"]["OPENAI_API_KEY"] == "****"
    assert "sk-test-123456" not in proc.stdout


def test_unreachable_neo4j_is_one_line(tmp_path):
    proc = run(["--store", "neo4j", "stats"], tmp_path,
               env={"NEO4J_PASSWORD": "x", "HOPGRAPH_STORE__NEO4J_URI": "bolt://127.0.0.1:1"})
    assert_one_line_error(proc, "unreachable")


def test_missing_neo4j_password_is_one_line(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "NEO4J_PASSWORD"}
    proc = subprocess.run([HOPGRAPH, "--store", "neo4j", "stats"], cwd=tmp_path, capture_output=True,
                          text=True, env=env, timeout=60)
    assert_one_line_error(proc, "NEO4J_PASSWORD")


@pytest.mark.skipif(not os.environ.get("NEO4J_URI"), reason="NEO4J_URI not set: no Neo4j server to test against")
def test_wrong_neo4j_password_is_one_line(tmp_path):
    proc = run(["--store", "neo4j", "stats"], tmp_path,
               env={"NEO4J_PASSWORD": "definitely-wrong", "HOPGRAPH_STORE__NEO4J_URI": os.environ["NEO4J_URI"]})
    assert_one_line_error(proc, "wrong password")


def test_db_start_shell_status_stop(tmp_path):
    assert run(["db", "start"], tmp_path).returncode == 0
    try:
        status = run(["db", "status"], tmp_path)
        assert status.returncode == 0 and "running: True" in status.stdout
        shell = run(["db", "shell", "UNWIND [1, 2] AS x RETURN x, x * 10 AS y"], tmp_path)
        assert shell.returncode == 0
        assert "20" in shell.stdout
        js = run(["db", "shell", "--json", "UNWIND [1, 2] AS x RETURN x"], tmp_path)
        assert json.loads(js.stdout) == [{"x": 1}, {"x": 2}]
        bad = run(["db", "shell", "MATCH (n RETURN n"], tmp_path)
        assert_one_line_error(bad, "rejected")
    finally:
        assert run(["db", "stop"], tmp_path).returncode == 0
    assert run(["db", "status"], tmp_path).returncode == 3


def test_stats_counts_per_label_and_type(tmp_path):
    from kg.store.falkor import FalkorStore

    store = FalkorStore(tmp_path / ".hopgraph")
    store.write("upsert_documents", [{"id": "d", "path": "x"}])
    store.write("upsert_chunks", [{"id": "c", "doc_id": "d"}])
    store.write("chunk_part_of", [{"s": "c", "d": "d"}], key=None)
    store.server.keep_path.touch()  # keep it up for the CLI process
    store.close()
    try:
        proc = run(["stats", "--json"], tmp_path)
        assert proc.returncode == 0, proc.stderr
        data = json.loads(proc.stdout)
        assert data["nodes"] == {"Chunk": 1, "Document": 1}
        assert data["relationships"] == {"PART_OF": 1}
    finally:
        store.server.stop()
