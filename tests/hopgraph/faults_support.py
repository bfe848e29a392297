"""What the fault tests share: the hopgraph command run as a user runs it, and
folders of real, distinct wiki paragraphs."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from testing_support import WIKI

HOPGRAPH = str(Path(sys.executable).parent / "hopgraph")
# The shared corpus beside the main checkout when the tests run from a worktree.
WIKI_DIR = WIKI if WIKI.is_dir() else Path("/work/shared/corpus/text/wiki_hotpotqa_train100")


def wiki_docs(folder: Path, n: int, start: int = 0) -> list[Path]:
    """Copies of n wiki paragraph files (by name, from `start`) into folder."""
    folder.mkdir(parents=True, exist_ok=True)
    copied = []
    for page in sorted(WIKI_DIR.glob("*.txt"))[start:start + n]:
        target = folder / page.name
        shutil.copyfile(page, target)
        copied.append(target)
    return copied


def hopgraph(args: list[str], cwd: Path, env: dict | None = None, timeout: float = 240,
             **kw) -> subprocess.CompletedProcess:
    full_env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "400", **(env or {})}
    return subprocess.run([HOPGRAPH, *args], cwd=cwd, capture_output=True, text=True, env=full_env,
                          timeout=timeout, **kw)


def start_hopgraph(args: list[str], cwd: Path, env: dict | None = None) -> subprocess.Popen:
    full_env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "400", **(env or {})}
    return subprocess.Popen([HOPGRAPH, *args], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=full_env)
