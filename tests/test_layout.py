"""The layout rules of the README's architecture section, checked so they keep holding.

- every module in the product packages stays under 400 lines and every
  function under 80 (one job per file, functions a reader can hold in mind);
- layers only import downwards: kg (the corpus graph) never imports the
  dataset builders, the evaluation or the CLI; builders and queries never
  import the CLI or the evaluation; no stage imports the pipeline that
  sequences it; kg never imports queries (the named-query loader is
  kg.store.named_queries, below the store);
- no two modules import each other (a circle, even through a function-level
  import, means neither can be read or tested without the other).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("hopgraph", "kg", "builders", "queries", "evaluate")
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 80

# package prefix -> top-level packages it must not import
FORBIDDEN = {
    "kg": ("builders", "hopgraph", "evaluate", "queries"),
    "queries": ("builders", "hopgraph", "evaluate"),
    "builders": ("hopgraph", "evaluate"),
    "evaluate": ("hopgraph",),
}
# lower layers of kg must not reach back up to the orchestration
NOT_FROM_STAGES = ("kg.pipeline",)
STAGE_PACKAGES = ("kg/ingest", "kg/enrich", "kg/store", "kg/llm")


def _modules() -> list[Path]:
    out: list[Path] = []
    for pkg in PACKAGES:
        if (ROOT / pkg).is_dir():
            out.extend(sorted((ROOT / pkg).rglob("*.py")))
    return out


def _imports(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_modules_stay_small() -> None:
    too_big = []
    for path in _modules():
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_MODULE_LINES:
            too_big.append(f"{path.relative_to(ROOT)} ({lines} lines)")
    assert not too_big, "modules over 400 lines: " + ", ".join(too_big)


def test_functions_stay_short() -> None:
    too_long = []
    for path in _modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    too_long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({length} lines)")
    assert not too_long, "functions over 80 lines: " + ", ".join(too_long)


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_layers_import_only_downwards(layer: str) -> None:
    bad = []
    for path in sorted((ROOT / layer).rglob("*.py")) if (ROOT / layer).is_dir() else []:
        for name in _imports(ast.parse(path.read_text(encoding="utf-8"))):
            if name.split(".")[0] in FORBIDDEN[layer]:
                bad.append(f"{path.relative_to(ROOT)} imports {name}")
    assert not bad, "; ".join(bad)


def test_stages_do_not_import_the_pipeline() -> None:
    bad = []
    for folder in STAGE_PACKAGES:
        for path in sorted((ROOT / folder).rglob("*.py")):
            for name in _imports(ast.parse(path.read_text(encoding="utf-8"))):
                if name.startswith(NOT_FROM_STAGES):
                    bad.append(f"{path.relative_to(ROOT)} imports {name}")
    assert not bad, "; ".join(bad)


# Circles still open, each with the issue that closes it.
KNOWN_CIRCLES: set[tuple[str, str]] = set()


def _module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


def _resolved_imports(path: Path, tree: ast.AST, modules: set[str]) -> set[str]:
    """Absolute module names a module imports, relative imports resolved and
    `from package import module` counted as the module, not the package."""
    package = _module_name(path).rsplit(".", 1)[0] if path.name != "__init__.py" else _module_name(path)
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{parent}.{base}" if base else parent
            submodules = {f"{base}.{a.name}" for a in node.names} & modules
            names.update(submodules)
            if len(submodules) < len(node.names):
                names.add(base)
    return names


def test_no_two_modules_import_each_other() -> None:
    modules = {_module_name(path): path for path in _modules()}
    imports = {name: _resolved_imports(path, ast.parse(path.read_text(encoding="utf-8")), set(modules))
               for name, path in modules.items()}
    circles = sorted({tuple(sorted((a, b))) for a, names in imports.items() for b in names
                      if b != a and b in imports and a in imports[b]} - KNOWN_CIRCLES)
    assert not circles, "modules importing each other: " + ", ".join(f"{a} <-> {b}" for a, b in circles)


def test_every_public_error_is_a_hopgraph_error() -> None:
    """The CLI turns HopgraphError into one line on stderr; any other public
    exception class would reach a user as a traceback."""
    import importlib
    import inspect

    from kg.errors import HopgraphError

    strays = []
    for path in _modules():
        module = importlib.import_module(".".join(path.relative_to(ROOT).with_suffix("").parts)
                                         .removesuffix(".__init__"))
        for name, obj in vars(module).items():
            if (inspect.isclass(obj) and issubclass(obj, Exception) and obj.__module__ == module.__name__
                    and not name.startswith("_") and not issubclass(obj, HopgraphError)):
                strays.append(f"{module.__name__}.{name}")
    assert not strays, "exceptions that are not HopgraphError: " + ", ".join(strays)


def test_test_modules_have_unique_names() -> None:
    # tests/ has no __init__.py files: pytest imports each test module by its basename,
    # so two files of one name stop the whole run at collection.
    seen: dict[str, Path] = {}
    clashes = []
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        if path.name in seen:
            clashes.append(f"{seen[path.name].relative_to(ROOT)} and {path.relative_to(ROOT)}")
        seen.setdefault(path.name, path)
    assert not clashes, "test modules sharing a name: " + "; ".join(clashes)
