"""Writing the dataset files: JSONL, parquet, HF datasets; every file atomically."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from builders.export.records import JSON_FIELDS, SCALAR_FIELDS, SCHEMA_VERSION, DatasetRecord
from builders.export.names import PARQUET_META_KEY
from kg.atomic_write import sibling_tmp_path
from kg.errors import HopgraphError


def jsonl_bytes(records: Iterable[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode("utf-8")


def dumps_pretty(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, indent=2, sort_keys=False) + "\n"


def parquet_table(records: list[dict[str, Any]]):
    """Arrow table of the records: scalar fields native, list/object fields as JSON strings.

    JSON strings round-trip exactly through both pyarrow and pandas (structs come
    back from pandas as numpy arrays of dicts, and maps with varying keys get
    null-filled), so `json.loads` on those columns gives back the JSONL record.
    The schema metadata key b"hopgraph" lists the JSON columns.
    """
    pa = _require("pyarrow", "parquet")
    types = {"string": pa.string(), "int64": pa.int64()}
    fields = [pa.field(name, types[SCALAR_FIELDS[name]]) if name in SCALAR_FIELDS else pa.field(name, pa.string())
              for name in DatasetRecord.model_fields]
    meta = {"schema_version": SCHEMA_VERSION, "json_columns": list(JSON_FIELDS)}
    schema = pa.schema(fields, metadata={PARQUET_META_KEY: json.dumps(meta).encode()})
    columns = {}
    for name in DatasetRecord.model_fields:
        if name in SCALAR_FIELDS:
            columns[name] = [r[name] for r in records]
        else:
            columns[name] = [json.dumps(r[name], ensure_ascii=False) for r in records]
    return pa.Table.from_pydict(columns, schema=schema)


def write_parquet(records: list[dict[str, Any]], path: Path) -> Path:
    _require("pyarrow", "parquet")
    import pyarrow.parquet as pq

    tmp = sibling_tmp_path(path)
    try:
        pq.write_table(parquet_table(records), tmp)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


def read_parquet_records(path: Path) -> list[dict[str, Any]]:
    """Read dataset.parquet back into records identical to the JSONL lines."""
    _require("pyarrow", "parquet")
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    meta = json.loads((table.schema.metadata or {}).get(PARQUET_META_KEY, b"{}"))
    json_cols = set(meta.get("json_columns", JSON_FIELDS))
    rows = table.to_pylist()
    return [{k: (json.loads(v) if k in json_cols and v is not None else v) for k, v in row.items()} for row in rows]


def write_hf(records: list[dict[str, Any]], target: Path) -> Path:
    """datasets.Dataset.save_to_disk, nested fields native; saved aside then renamed into place.

    `generator.prompt_versions` becomes a struct over every task seen in the
    dataset (tasks a chain did not use come back as null).
    """
    datasets = _require("datasets", "hf")
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    old = None
    bars_were_off = datasets.are_progress_bars_disabled()
    datasets.disable_progress_bars()
    try:
        ds = datasets.Dataset.from_list(records) if records else datasets.Dataset.from_dict(
            {name: [] for name in DatasetRecord.model_fields})
        # One shard even when empty: datasets saves 0 rows as no shard, which load_from_disk cannot read.
        ds.save_to_disk(str(staging / "data"), num_shards=None if records else 1)
        if target.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old.", dir=target.parent))
            os.replace(target, old / "data")
        os.replace(staging / "data", target)
    finally:
        if not bars_were_off:
            datasets.enable_progress_bars()
        shutil.rmtree(staging, ignore_errors=True)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    return target


def _require(module: str, fmt: str):
    try:
        return __import__(module)
    except ImportError:
        raise HopgraphError(f"export format {fmt!r} needs {module}: pip install 'hopgraph[export]'") from None
