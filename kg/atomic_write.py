"""Files written whole or not at all: the bytes go to a uniquely named hidden file
beside the target, reach the disk (fsync), then replace the target in one
rename. A killed run leaves the old file or the new one, never half of one;
two runs writing the same file never share a temporary name."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def sibling_tmp_path(path: Path) -> Path:
    """A new, empty, uniquely named hidden file in path's folder (".<name>.<random>.tmp")."""
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    return Path(name)


def atomic_write_bytes(path: Path, data: bytes) -> None:
    path = Path(path)
    tmp = sibling_tmp_path(path)
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)  # mkstemp makes 0600; these are files for people to read
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))
