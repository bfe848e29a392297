"""Dataset statistics (filled in by the dedup/coverage stage)."""

from __future__ import annotations


def dataset_stats(store) -> dict:
    return {}
