"""LLM client throughput and overhead against the scripted server.

    .venv/bin/python bench/llm.py [--calls 200] [--concurrency 16] [--latency 0.5]

1. Throughput: `calls` requests, server latency `latency`, client concurrency
   `concurrency`; ideal is concurrency / latency calls per second (32/s with
   the defaults). Target: >= 85% of ideal.
The server runs in its own process so that its CPU time does not compete
with the client's for the GIL (a real endpoint is elsewhere too); pass
--in-process to share one process.
2. Overhead: the same client with zero server latency and concurrency 1, so
   wall time per call is the client's own cost (SDK, JSON, validation, cache
   write) plus a localhost round trip. Target: <= 5 ms per call.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from kg.config import LLMConfig  # noqa: E402
from kg.llm import Keypoints, LLMClient, LLMRequest  # noqa: E402
from llm_server import ScriptedLLMServer, ok  # noqa: E402

REPLY = {"keypoints": ["The Eiffel Tower is 330 metres tall.", "The Eiffel Tower opened in 1889."]}


def requests(n: int, tag: str) -> list[LLMRequest]:
    return [
        LLMRequest("keypoints", "generator", [{"role": "system", "content": "Extract facts."},
                                              {"role": "user", "content": f"{tag} passage {i}: " + "text " * 200}],
                   Keypoints, "bench", "v1")
        for i in range(n)
    ]


SERVER_CHILD = """
import json, sys
sys.path.insert(0, sys.argv[1])
from llm_server import ScriptedLLMServer, ok
reply = json.loads(sys.argv[2])
with ScriptedLLMServer(responder=lambda body: ok(reply)) as server:
    print(server.base_url, flush=True)
    for line in sys.stdin:  # each line: a new latency in seconds
        server.latency = float(line)
        print("ok", flush=True)
"""


class RemoteServer:
    """ScriptedLLMServer in a child process; `latency` is forwarded to it."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", SERVER_CHILD, str(ROOT / "tests"), json.dumps(REPLY)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )
        assert self.proc.stdout is not None and self.proc.stdin is not None
        self.base_url = self.proc.stdout.readline().strip()

    @property
    def latency(self) -> float:
        raise AttributeError("write-only")

    @latency.setter
    def latency(self, value: float) -> None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(f"{value}\n")
        self.proc.stdin.flush()
        self.proc.stdout.readline()

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(10)


@contextmanager
def serve(in_process: bool):
    if in_process:
        with ScriptedLLMServer(responder=lambda body: ok(REPLY)) as server:
            yield server
    else:
        server = RemoteServer()
        try:
            yield server
        finally:
            server.close()


def run(server: ScriptedLLMServer | RemoteServer, n: int, concurrency: int, cache_dir: Path, tag: str) -> float:
    client = LLMClient(LLMConfig(concurrency=concurrency, timeout=30), base_url=server.base_url,
                       cache_path=cache_dir / f"{tag}.sqlite")
    t0 = time.perf_counter()
    results = client.run_many(requests(n, tag))
    wall = time.perf_counter() - t0
    client.close()
    assert all(r.ok for r in results), [r.error for r in results if not r.ok][:3]
    return wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--latency", type=float, default=0.5)
    ap.add_argument("--overhead-calls", type=int, default=300)
    ap.add_argument("--in-process", action="store_true", help="run the server in this process")
    args = ap.parse_args()

    with serve(args.in_process) as server, tempfile.TemporaryDirectory() as tmp:
        cache_dir = Path(tmp)
        run(server, 5, 1, cache_dir, "warmup")

        server.latency = args.latency
        wall = run(server, args.calls, args.concurrency, cache_dir, "throughput")
        ideal = args.concurrency / args.latency
        rate = args.calls / wall
        print(f"throughput: {args.calls} calls, latency {args.latency * 1000:.0f} ms, concurrency {args.concurrency}: "
              f"{wall:.2f} s, {rate:.1f} calls/s vs ideal {ideal:.1f} ({100 * rate / ideal:.1f}%, target >= 85%)")
        waves = -(-args.calls // args.concurrency)
        print(f"  client overhead per call (wall minus latency waves): "
              f"{1000 * (wall - waves * args.latency) / args.calls:.2f} ms")

        server.latency = 0.0
        wall = run(server, args.overhead_calls, 1, cache_dir, "overhead")
        print(f"overhead: {args.overhead_calls} sequential calls, zero server latency: "
              f"{1000 * wall / args.overhead_calls:.2f} ms per call incl. localhost round trip (target <= 5 ms)")

        t0 = time.perf_counter()
        client = LLMClient(LLMConfig(concurrency=1), base_url=server.base_url, cache_path=cache_dir / "overhead.sqlite")
        results = client.run_many(requests(args.overhead_calls, "overhead"))
        wall = time.perf_counter() - t0
        assert all(r.cached for r in results)
        print(f"cache hits: {args.overhead_calls} in {wall:.2f} s, {1000 * wall / args.overhead_calls:.2f} ms per hit")


if __name__ == "__main__":
    main()
