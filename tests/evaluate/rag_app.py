"""A small RAG app for `hopgraph eval system` tests: BM25 over a folder's paragraphs, then a reader LLM.

Two ways to run it, the two ways a user's system is reached:

    with RagApp(docs_dir, reader_url) as app:      # an OpenAI-compatible chat endpoint on 127.0.0.1
        app.base_url                                # POST {base_url}/chat/completions
    python rag_app.py DOCS READER_URL QUESTION_FILE # one question, JSON on stdout (the --cmd contract)

The reply carries the answer as the message content and the passages it read
in a top-level "contexts" list, plus a one-step "steps" trace. The reader is
any OpenAI-compatible endpoint (in tests, tests/llm_server.py's scripted server).
"""

from __future__ import annotations

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

TOP_K = 3
READER_SYSTEM = "You are the reader of a small RAG app. Answer the question from the passages, in a few words."


def paragraphs(folder: Path) -> list[str]:
    out = []
    for path in sorted(Path(folder).glob("*.txt")):
        out += [" ".join(p.split()) for p in path.read_text(encoding="utf-8").split("\n\n") if len(p.split()) > 3]
    return out


class Rag:
    def __init__(self, folder: Path, reader_url: str) -> None:
        import bm25s

        self.bm25s = bm25s
        self.passages = paragraphs(folder)
        self.index = bm25s.BM25()
        self.index.index(bm25s.tokenize(self.passages, stopwords="en", show_progress=False), show_progress=False)
        self.reader_url = reader_url.rstrip("/") + "/chat/completions"

    def answer(self, question: str) -> dict[str, Any]:
        import httpx

        tokens = self.bm25s.tokenize([question], stopwords="en", show_progress=False)
        rows, _ = self.index.retrieve(tokens, k=min(TOP_K, len(self.passages)), show_progress=False, n_threads=1)
        contexts = [self.passages[int(i)] for i in rows[0]]
        prompt = "\n".join(f"[{n}] {p}" for n, p in enumerate(contexts, 1)) + f"\n\nQuestion: {question}"
        reply = httpx.post(self.reader_url, timeout=60, json={"model": "app-reader", "messages": [
            {"role": "system", "content": READER_SYSTEM}, {"role": "user", "content": prompt}]}).json()
        answer = reply["choices"][0]["message"]["content"]
        return {"answer": answer, "contexts": [{"text": c} for c in contexts],
                "steps": [{"question": question, "contexts": [{"text": c} for c in contexts]}]}


class RagApp:
    """The app served as an OpenAI-compatible endpoint on a free port of 127.0.0.1."""

    def __init__(self, folder: Path, reader_url: str) -> None:
        self.rag = Rag(folder, reader_url)
        self.questions: list[str] = []
        app = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                question = body["messages"][-1]["content"]
                app.questions.append(question)
                result = app.rag.answer(question)
                data = json.dumps({"id": "rag", "object": "chat.completion", "model": body.get("model"),
                                   "choices": [{"index": 0, "finish_reason": "stop", "message": {
                                       "role": "assistant", "content": result["answer"]}}],
                                   "contexts": result["contexts"], "steps": result["steps"]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> RagApp:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


if __name__ == "__main__":
    docs, reader, question_file = sys.argv[1:4]
    question = json.loads(Path(question_file).read_text(encoding="utf-8"))["question"]
    print(json.dumps(Rag(Path(docs), reader).answer(question)))
