"""Which files an ingest run takes, and the one-line report of a file that cannot be ingested."""

from __future__ import annotations

import os

from kg.models import IngestError
from kg.pipeline.files import collect_files, failure_report, portable_path
from testing_support import make_settings


def tree(root):
    (root / "docs" / "sub").mkdir(parents=True)
    (root / "docs" / ".git").mkdir()
    for name in ("a.md", "b.TXT", "sub/c.pdf", "notes.docx", "Makefile", "figure.png", ".hidden.md", ".git/d.md"):
        (root / "docs" / name).write_text("x")
    (root / "single.markdown").write_text("x")
    (root / "single.csv").write_text("x")
    return root


def test_a_folder_gives_its_readable_files_and_one_problem_per_other_file(tmp_path):
    root = tree(tmp_path)
    files, problems = collect_files([root / "docs"], "**/*")
    assert [f.relative_to(root / "docs").as_posix() for f in files] == ["a.md", "b.TXT", "sub/c.pdf"]
    # images beside the documents are their assets, not problems; hidden files and folders are skipped
    assert sorted((os.path.basename(p.path), p.status, p.reason) for p in problems) == [
        ("Makefile", "failed", "unsupported extension (none)"), ("notes.docx", "failed", "unsupported extension .docx")]


def test_named_files_missing_paths_and_repeats(tmp_path):
    root = tree(tmp_path)
    files, problems = collect_files([root / "single.markdown", root / "single.csv", root / "gone.md",
                                     root / "docs", root / "docs" / "a.md", root / "docs" / "sub" / ".." / "a.md"],
                                    "*.md")
    assert [f.name for f in files] == ["single.markdown", "a.md"]  # the same file named three ways: once
    assert [(os.path.basename(p.path), p.reason) for p in problems] == [
        ("single.csv", "unsupported extension .csv"), ("gone.md", "no such file or directory")]


def test_the_glob_narrows_a_folder(tmp_path):
    root = tree(tmp_path)
    files, problems = collect_files([root / "docs"], "*.md")
    assert [f.name for f in files] == ["a.md"] and problems == []


def test_a_reader_error_is_the_reason_and_a_bug_is_logged_with_its_traceback(tmp_path):
    settings = make_settings(tmp_path / ".hopgraph")
    report = failure_report(settings, tmp_path / "scan.pdf", IngestError("no text layer (scanned PDF?)"))
    assert (report.status, report.reason) == ("failed", "no text layer (scanned PDF?)")
    assert not (tmp_path / ".hopgraph" / "runs" / "errors.log").exists()
    try:
        {}["missing"]
    except KeyError as exc:
        report = failure_report(settings, tmp_path / "odd.pdf", exc)
    assert report.reason == "unexpected error: KeyError: 'missing'"
    log = (tmp_path / ".hopgraph" / "runs" / "errors.log").read_text()
    assert log.startswith(f"--- {tmp_path / 'odd.pdf'}\n") and "Traceback" in log and "KeyError" in log


def test_paths_are_stored_relative_to_the_working_directory_when_under_it(tmp_path, monkeypatch):
    (tmp_path / "docs").mkdir()
    monkeypatch.chdir(tmp_path)
    assert portable_path(tmp_path / "docs" / "a.md") == "docs/a.md"
    elsewhere = tmp_path.parent / "elsewhere.md"
    assert portable_path(elsewhere) == str(elsewhere)
