"""`export --format ragas,deepeval`: the files, and (test tier) loading them with the real libraries.

The libraries live in their own venvs (heavy, and RAGAS pins langchain):
.venv-ragas (RAGAS 0.4.3, the recipe of ../shared/ragas_bench, built by
`python bench/vs_ragas.py --setup-only`) and .venv-deepeval; `make interop-venvs`
creates both. A test whose venv is absent is skipped and says which command creates it.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from builders.export import run_export
from kg.context import RunContext
from tests.builders.export.test_export import IMAGE_ID, TEXT_ID, _settings, plant_graph, tiny_png

ROOT = Path(__file__).resolve().parents[3]
RAGAS_PYTHON = ROOT / ".venv-ragas" / "bin" / "python"
RAGAS_READY = ROOT / ".venv-ragas" / ".installed-ragas-0.4.3"  # bench/vs_ragas.py writes it when done
DEEPEVAL_PYTHON = ROOT / ".venv-deepeval" / "bin" / "python"
DEEPEVAL_READY = ROOT / ".venv-deepeval" / ".installed"  # the Makefile writes it when done


@pytest.fixture
def exported(falkor_store, tmp_path):
    plant_graph(falkor_store, tiny_png(tmp_path / "fig.png"))
    out = tmp_path / "out"
    report = run_export(RunContext(_settings(tmp_path, ("jsonl", "ragas", "deepeval")), falkor_store), out)
    assert report.warnings == []
    return out


def test_ragas_and_deepeval_files_hold_question_reference_and_gold_contexts(exported):
    records = [json.loads(line) for line in (exported / "dataset.jsonl").read_text().splitlines()]
    samples = [json.loads(line) for line in (exported / "ragas.jsonl").read_text().splitlines()]
    goldens = json.loads((exported / "deepeval_goldens.json").read_text())
    assert [s["user_input"] for s in samples] == [g["input"] for g in goldens] == [r["question"] for r in records]
    text = samples[0]
    assert text["reference"] == records[0]["answer"]
    assert text["reference_contexts"] == ["Marie Curie discovered radium in 1898.",
                                          "Radium glows faintly blue in the dark.",
                                          "The Sorbonne awarded Marie Curie a doctorate."]
    assert samples[1]["reference_contexts"][0] == "A glowing vial of radium."  # the image hop: its description
    assert [g["additional_metadata"]["id"] for g in goldens] == [TEXT_ID, IMAGE_ID]
    assert goldens[1]["context"] == samples[1]["reference_contexts"]
    card = (exported / "README.md").read_text()
    assert "ragas.jsonl" in card and "deepeval_goldens.json" in card


def _run(python: Path, code: str, *args: str) -> str:
    proc = subprocess.run([str(python), "-c", code, *args], capture_output=True, text=True, timeout=600,
                          env={"RAGAS_DO_NOT_TRACK": "true", "DEEPEVAL_TELEMETRY_OPT_OUT": "YES",
                               "HOME": str(Path.home()), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


@pytest.mark.skipif(not RAGAS_READY.exists(), reason="no .venv-ragas: run `make interop-venvs` "
                    "(or `python bench/vs_ragas.py --setup-only`) to load the export with RAGAS")
def test_ragas_loads_the_samples(exported):
    code = ("import json, sys\n"
            "from ragas import EvaluationDataset\n"
            "from ragas.dataset_schema import SingleTurnSample\n"
            "ds = EvaluationDataset.from_jsonl(sys.argv[1])\n"
            "assert all(isinstance(s, SingleTurnSample) for s in ds.samples)\n"
            "print(json.dumps([[s.user_input, s.reference, s.reference_contexts] for s in ds.samples]))")
    loaded = json.loads(_run(RAGAS_PYTHON, code, str(exported / "ragas.jsonl")))
    assert len(loaded) == 2 and loaded[0][0] == "Question of z-text?" and len(loaded[0][2]) == 3


@pytest.mark.skipif(not DEEPEVAL_READY.exists(), reason="no .venv-deepeval: run `make interop-venvs` "
                    "to load the export with DeepEval")
def test_deepeval_loads_the_goldens(exported):
    code = ("import json, sys\n"
            "from deepeval.dataset import EvaluationDataset, Golden\n"
            "ds = EvaluationDataset()\n"
            "ds.add_goldens_from_json_file(sys.argv[1], input_key_name='input', "
            "expected_output_key_name='expected_output', context_key_name='context')\n"
            "assert all(isinstance(g, Golden) for g in ds.goldens)\n"
            "print(json.dumps([[g.input, g.expected_output, g.context] for g in ds.goldens]))")
    loaded = json.loads(_run(DEEPEVAL_PYTHON, code, str(exported / "deepeval_goldens.json")))
    assert len(loaded) == 2 and loaded[1][1] == "answer of b-image" and loaded[1][2][0] == "A glowing vial of radium."
