"""Every Cypher text the project ships: Neo4j's grammar, our portable subset, and FalkorDB."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from kg.store import named_queries
from kg.store import falkor, neo4j_store

ROOT = Path(__file__).resolve().parents[3]
LINTER = ROOT / "node_modules" / "@neo4j-cypher" / "language-support"


def backend_texts() -> dict[str, str]:
    """Query text that lives in Python (backend DDL and vectors), filled with sample names."""
    fill = dict(label="Chunk", prop="embedding", dim=384, name="chunk")
    texts = {}
    for module in (falkor, neo4j_store):
        for attr, value in vars(module).items():
            if attr.isupper() and isinstance(value, str) and re.search(r"\b(MATCH|CALL|CREATE|UNWIND)\b", value):
                texts[f"{module.__name__}.{attr}"] = value.format(**fill)
    return texts


def shipped_texts() -> dict[str, str]:
    texts = {f"cypher/{q.source}:{name}": q.text for name, q in named_queries.all_queries().items()}
    texts.update(backend_texts())
    return texts


def test_there_is_cypher_to_check():
    texts = shipped_texts()
    assert any(k.startswith("cypher/corpus.cypher") for k in texts)
    assert any(k.startswith("kg.store.neo4j_store") for k in texts)


@pytest.mark.skipif(shutil.which("node") is None or not LINTER.is_dir(),
                    reason="node or @neo4j-cypher/language-support missing: run `make install-test`")
def test_every_cypher_text_passes_neo4j_grammar():
    items = [{"name": k, "text": v} for k, v in shipped_texts().items()]
    proc = subprocess.run(["node", str(ROOT / "tests" / "cypher_lint.mjs")], input=json.dumps(items),
                          capture_output=True, text=True, cwd=ROOT, timeout=120, check=True)
    results = json.loads(proc.stdout)
    bad = {r["name"]: [e for e in r["errors"] if _counts(r["name"], e)] for r in results}
    bad = {k: v for k, v in bad.items() if v}
    assert not bad, json.dumps(bad, indent=1)


def _counts(name: str, error: dict) -> bool:
    """FalkorDB-only statements (its DDL options, vecf32) are held to Neo4j's syntax,
    not to Neo4j's semantics: they never run on Neo4j."""
    if name.startswith("kg.store.falkor."):
        return error["message"].startswith(("Invalid input", "Unexpected end", "Mismatched input"))
    return True


def test_linter_catches_a_syntax_error():
    if shutil.which("node") is None or not LINTER.is_dir():
        pytest.skip("linter not installed")
    items = [{"name": "broken", "text": "MATCH (n RETURN n"}]
    proc = subprocess.run(["node", str(ROOT / "tests" / "cypher_lint.mjs")], input=json.dumps(items),
                          capture_output=True, text=True, cwd=ROOT, timeout=60, check=True)
    assert json.loads(proc.stdout)[0]["errors"]


# Constructs that one of the two stores does not run (measured, see DESIGN.md).
NOT_PORTABLE = {
    "EXISTS subquery": r"EXISTS\s*\{",
    "COUNT subquery": r"COUNT\s*\{",
    "CALL subquery": r"CALL\s*(\([^)]*\)\s*)?\{",
    "elementId": r"\belementId\s*\(",
    "regex match": r"=~",
    "shortestPath": r"shortestPath",
    "APOC": r"\bapoc\.",
    "GDS": r"\bgds\.",
    "rand()": r"\brand\s*\(",
}


@pytest.mark.parametrize("name,q", sorted(named_queries.all_queries().items()))
def test_named_queries_stay_in_the_portable_subset(name, q):
    for construct, pattern in NOT_PORTABLE.items():
        assert not re.search(pattern, q.text, re.IGNORECASE), f"{name} uses {construct}"


def test_every_named_query_runs_on_falkordb(falkor_store):
    """Each shipped query parses and executes on the embedded store (with empty inputs)."""
    for name, q in sorted(named_queries.all_queries().items()):
        params = {p: _sample(p) for p in set(re.findall(r"\$(\w+)", q.text))}
        falkor_store.run_text(q.text, params)


def _sample(param: str):
    if param == "rows":
        return []
    if param in ("ids", "chain_ids", "doc_ids"):
        return []
    if param in ("limit", "k", "min_len", "max_len"):
        return 5
    return "none"
