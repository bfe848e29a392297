# Two commands matter: `make demo` and `make test`. Both work on a fresh machine.
PY      ?= python3
VENV    := .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed
TSTAMP  := $(VENV)/.installed-test

.PHONY: demo test install install-test lint-cypher bench clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

# torch first, pinned: a CPU build of 2.13.0 lies on these machines' disk.
# Letting sentence-transformers pull torch would download a multi-GB CUDA build.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q -e '.[export]'
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

clean:
	rm -rf $(VENV) node_modules .hopgraph .hopgraph-demo out
