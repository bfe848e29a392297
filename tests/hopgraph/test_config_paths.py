"""Configuration paths as a user meets them: a missing -c file is a one-line
error, relative paths in a config file mean "beside the file", and
`config show` prints TOML that reads back."""

from __future__ import annotations

import tomllib

from tests.hopgraph.faults_support import hopgraph


def test_missing_config_file_is_one_line(tmp_path):
    proc = hopgraph(["-c", "nosuch.toml", "config", "show"], tmp_path, timeout=60)
    assert proc.returncode == 1
    lines = [l for l in proc.stderr.splitlines() if l.strip()]
    assert len(lines) == 1 and "nosuch.toml" in lines[0] and "no such config file" in lines[0]
    assert "Traceback" not in proc.stderr


def test_relative_paths_resolve_against_the_config_folder(tmp_path):
    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    project.mkdir()
    elsewhere.mkdir()
    (project / "hopgraph.toml").write_text('[store]\ndata_dir = "graphdata"\n[llm]\nprompts_dir = "prompts"\n')
    proc = hopgraph(["-c", str(project / "hopgraph.toml"), "config", "show"], elsewhere, timeout=60)
    assert proc.returncode == 0, proc.stderr
    shown = tomllib.loads(proc.stdout)
    assert shown["store"]["data_dir"] == str(project / "graphdata")
    assert shown["llm"]["prompts_dir"] == str(project / "prompts")
    stats = hopgraph(["-c", "../project/hopgraph.toml", "stats", "--json"], elsewhere, timeout=120)
    # nothing ingested yet: the project's graph is named, and no empty graph appears anywhere
    assert stats.returncode == 1 and str(project / "graphdata") in stats.stderr, stats.stderr
    assert not (project / "graphdata").exists() and not (elsewhere / ".hopgraph").exists()


def test_a_reading_verb_where_no_graph_is_says_so_in_one_line(tmp_path):
    """`hopgraph stats` (or audit, export, db shell) in the wrong folder: an error
    naming the folder it looked in, not "(no rows)" and a new empty graph there."""
    for verb in (["stats"], ["audit"], ["db", "shell", "MATCH (n) RETURN count(n)"], ["export", "out"]):
        proc = hopgraph(verb, tmp_path, timeout=120)
        lines = [l for l in proc.stderr.splitlines() if l.strip()]
        assert proc.returncode == 1 and len(lines) == 1 and "no graph in" in lines[0], (verb, proc.stderr)
        assert "(no rows)" not in proc.stdout
        assert not (tmp_path / ".hopgraph").exists() and not (tmp_path / "out").exists(), verb


def test_unset_data_dir_is_beside_the_config_file(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    (project / "hopgraph.toml").write_text("[generate]\nn = 7\n")
    proc = hopgraph(["-c", "project/hopgraph.toml", "config", "show"], tmp_path, timeout=60)
    shown = tomllib.loads(proc.stdout)
    assert shown["store"]["data_dir"] == str(project / ".hopgraph") and shown["generate"]["n"] == 7


def test_config_show_is_valid_toml_with_every_section(tmp_path):
    proc = hopgraph(["config", "show"], tmp_path, timeout=60)
    assert proc.returncode == 0, proc.stderr
    shown = tomllib.loads(proc.stdout)
    assert {"store", "llm", "generate", "secrets"} <= set(shown)
    assert isinstance(shown["llm"]["max_tokens"], dict)  # a map becomes a sub-table
    assert "vision_model" not in shown["llm"]  # unset: a comment, not `null`
