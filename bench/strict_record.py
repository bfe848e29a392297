"""One line per request of a strict-model run, for bench/records/: what was asked and what came back.

    .venv/bin/python bench/strict_record.py QUEUE_DIR

QUEUE_DIR is the folder given to ../shared/strict_llm/server.py (queue/NNNN.json, replies/NNNN.txt).
Held-out documents are not ours to ship, so the record keeps the written questions, answers and
verdicts, not the evidence the requests quoted.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

# The first words of each system prompt in kg/prompts/, and the task they name.
TASKS = (("revising one", "repair"), ("write multi-hop questions", "write"), ("strict reviewer", "verify"),
         ("natural expert reader", "domain/persona"))


def task_of(system_prompt: str) -> str:
    first = system_prompt.splitlines()[0] if system_prompt else ""
    return next((name for words, name in TASKS if words in first), first[:60])


def chain_type(user_prompt: str) -> str:
    found = re.search(r"^Chain type: (\S+)", user_prompt, re.M)
    return found.group(1) if found else "?"


def describe(number: str, request: dict, reply: str) -> str:
    messages = request.get("messages", [])
    system = next((m["content"] for m in messages if m.get("role") == "system"), "")
    user = next((m["content"] for m in messages if m.get("role") == "user"), "")
    task = task_of(system if isinstance(system, str) else "")
    try:
        body = json.loads(reply)
    except ValueError:
        return f"- {number} {task}: (reply is not JSON) {reply[:200]!r}"
    if task == "domain/persona":
        return f"- {number} {task}: {body.get('domain', '')}"
    if task in ("write", "repair"):
        return f"- {number} {task} ({chain_type(user)}): Q: {body.get('question', '')} A: {body.get('answer', '')}"
    if task == "verify":
        items = ["NOT needed" if gone else "needed" for gone in body.get("answerable_without", [])]
        line = (f"- {number} verify: items {items}; one item alone: {body.get('single_item_answers')}; "
                f"standalone: {body.get('standalone')}; faithful: {body.get('faithful')}")
        return line + (f". Reasons: {body['reasons']}" if body.get("reasons") else "")
    return f"- {number} {task}: {reply[:200]!r}"


def main(queue_dir: str) -> None:
    root = Path(queue_dir)
    for request_file in sorted((root / "queue").glob("*.json")):
        reply_file = root / "replies" / f"{request_file.stem}.txt"
        reply = reply_file.read_text() if reply_file.exists() else ""
        print(describe(request_file.stem, json.loads(request_file.read_text()), reply) if reply
              else f"- {request_file.stem}: (no reply)")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    main(sys.argv[1])
