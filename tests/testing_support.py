"""Names tests import directly (a module, not conftest: several conftest.py files
exist, and `from conftest import` would pick whichever was loaded first)."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"
PDF_DIR = CORPUS / "pdf"
WIKI = CORPUS / "text" / "wiki_hotpotqa_train100"

needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"shared corpus not found at {CORPUS}")


def make_settings(data_dir: Path, cache_dir: Path | None = None, **sections):
    """Settings for a test: defaults plus the given section overrides."""
    from kg.config import Settings

    settings = Settings()
    settings.store.data_dir = data_dir
    settings.store.graph = "test"
    settings.embeddings.cache_dir = cache_dir
    for section, values in sections.items():
        for key, value in values.items():
            setattr(getattr(settings, section), key, value)
    return settings


def wiki_folder(tmp_path: Path, n: int) -> Path:
    """A folder holding copies of the first n HotpotQA paragraph files (by name)."""
    import shutil

    folder = tmp_path / "docs"
    folder.mkdir()
    for page in sorted(WIKI.glob("*.txt"))[:n]:
        shutil.copy(page, folder / page.name)
    return folder
