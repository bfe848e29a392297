"""Errors a user can cause in `hopgraph eval`; the CLI prints each as one line."""

from kg.errors import HopgraphError


class DatasetError(HopgraphError):
    """A dataset or run file that is missing or cannot be read (names the file and line)."""


class EvidenceNotInGraph(HopgraphError):
    """No record of the dataset has its evidence in the corpus graph: nothing can be scored."""


class LLMRequired(HopgraphError):
    """A judged or reader-based evaluation was asked for with no LLM configured."""
