"""An external system's results (`--run FILE`), scored like a baseline retriever.

One JSON object per line: {"id": record id, "hop": hop index (optional),
"ranked": [evidence ids, best first]}. A line without "hop" is the ranking for
the record's final question; a line with it, for that hop's sub-question.
Queries the file has no line for are scored as empty rankings (misses) and
counted in `missing`, so a partial run is visible, not silently averaged.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from evaluate.errors import DatasetError
from evaluate.retrievers import Query, Ranking


class RunLine(BaseModel):
    model_config = ConfigDict(extra="ignore")

    id: str
    hop: int | None = None
    ranked: list[str] = Field(default_factory=list)


def query_key(record_id: str, hop: int | None) -> str:
    """The key of a question query (record id) or a hop query (record id#hop)."""
    return record_id if hop is None else f"{record_id}#{hop}"


class RunFileRetriever:
    """Replays a run file; `missing` counts the queries it had no ranking for."""

    def __init__(self, path: Path) -> None:
        path = Path(path)
        self.name = f"run:{path.stem}"
        self.rankings: dict[str, Ranking] = {}
        self.missing = 0
        if not path.is_file():
            raise DatasetError(f"{path}: no such run file")
        with path.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                if not line.strip():
                    continue
                try:
                    row = RunLine.model_validate(json.loads(line))
                except (json.JSONDecodeError, ValidationError) as exc:
                    reason = str(exc).splitlines()[0]
                    raise DatasetError(f"{path}:{number}: not a run line ({reason})") from None
                self.rankings[query_key(row.id, row.hop)] = list(dict.fromkeys(row.ranked))
        if not self.rankings:
            raise DatasetError(f"{path}: no rankings")

    def search(self, queries: list[Query], k: int) -> list[Ranking]:
        out = []
        for q in queries:
            if q.key not in self.rankings:
                self.missing += 1
            out.append(self.rankings.get(q.key, [])[:k])
        return out
