"""Prompts live in files, one per task, so users can read and replace them.

File format (kg/prompts/<task>.md, or <task>.md in the user's prompts_dir,
which wins over the packaged file):

    Anything before the first marker is a comment for humans.
    ---system---
    The system message.
    ---user---
    The user message, with $name or ${name} placeholders.

Placeholders use string.Template syntax because prompts show JSON examples
full of braces, which str.format would choke on. Write a literal dollar as $$.
The version is the sha256 of the file text (first 12 hex): it goes into the
cache key and the dataset's generator metadata, so editing a prompt
invalidates exactly its cached replies.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from string import Template
from typing import Any

from kg.errors import HopgraphError

PACKAGED_PROMPTS = Path(__file__).resolve().parent.parent / "prompts"

_MARKER = re.compile(r"^---(system|user)---[ \t]*$", re.MULTILINE)


class PromptError(HopgraphError, ValueError):
    pass


@dataclass(frozen=True)
class Prompt:
    task: str
    system: str
    user_template: str
    version: str
    path: Path

    @property
    def variables(self) -> list[str]:
        """Placeholder names the user template needs."""
        return Template(self.user_template).get_identifiers()

    def render(self, images: list[str] | None = None, **variables: Any) -> list[dict[str, Any]]:
        """Chat messages for this prompt.

        Non-string values are JSON-encoded. `images` are URLs (usually
        data:image/png;base64,... URLs) appended to the user message as
        image_url content parts. A missing variable raises PromptError.
        """
        values = {k: v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, indent=2) for k, v in variables.items()}
        try:
            user = Template(self.user_template).substitute(values)
        except KeyError as exc:
            raise PromptError(f"prompt {self.task!r} ({self.path}) needs variable {exc.args[0]!r}") from None
        except ValueError as exc:  # a stray "$" in the file
            raise PromptError(f"prompt {self.task!r} ({self.path}): {exc}; write a literal $ as $$") from None
        messages: list[dict[str, Any]] = []
        if self.system:
            messages.append({"role": "system", "content": self.system})
        if images:
            parts: list[dict[str, Any]] = [{"type": "text", "text": user}]
            parts += [{"type": "image_url", "image_url": {"url": url}} for url in images]
            messages.append({"role": "user", "content": parts})
        else:
            messages.append({"role": "user", "content": user})
        return messages


def parse_prompt(task: str, text: str, path: Path) -> Prompt:
    """Split a prompt file into its system and user parts."""
    marks = list(_MARKER.finditer(text))
    sections: dict[str, str] = {}
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        sections[m.group(1)] = text[m.end() : end].strip()
    if "user" not in sections or not sections["user"]:
        raise PromptError(f"prompt {path}: missing a '---user---' section")
    version = hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]
    return Prompt(task, sections.get("system", ""), sections["user"], version, path)


def prompt_path(task: str, prompts_dir: Path | None = None) -> Path:
    """The file used for a task: the user's override if present, else the packaged one."""
    if prompts_dir is not None:
        candidate = Path(prompts_dir) / f"{task}.md"
        if candidate.is_file():
            return candidate
    packaged = PACKAGED_PROMPTS / f"{task}.md"
    if not packaged.is_file():
        raise PromptError(f"no prompt file for task {task!r} (looked in {prompts_dir or '-'} and {PACKAGED_PROMPTS})")
    return packaged


def load_prompt(task: str, prompts_dir: Path | None = None) -> Prompt:
    path = prompt_path(task, prompts_dir)
    return parse_prompt(task, path.read_text(encoding="utf-8"), path)


def packaged_tasks() -> list[str]:
    return sorted(p.stem for p in PACKAGED_PROMPTS.glob("*.md"))
