# Two entry points: `make serve` installs and starts the server, `make test` installs and runs the tests.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# A CPU build of torch, installed before anything that depends on it: a plain
# `torch` requirement pulls a multi-gigabyte CUDA build on Linux. Elsewhere use e.g.
#   make serve TORCH="torch --index-url https://download.pytorch.org/whl/cpu"
TORCH ?= torch==2.13.0

.PHONY: serve install install-test test bench

# stdout of `make serve` is the MCP channel: make's echo and pip's chatter go to stderr.
$(BIN)/python:
	@echo "$(PYTHON) -m venv $(VENV)" >&2
	@$(PYTHON) -m venv $(VENV) >&2

install: $(BIN)/python
	@echo "installing memvault into $(VENV)" >&2
	@$(BIN)/pip install --quiet --disable-pip-version-check $(TORCH) >&2
	@$(BIN)/pip install --quiet --disable-pip-version-check . >&2

serve: install
	@exec $(BIN)/memvault serve

install-test: $(BIN)/python
	$(BIN)/pip install --quiet --disable-pip-version-check $(TORCH)
	$(BIN)/pip install --quiet --disable-pip-version-check ".[test]"

test: install-test
	$(BIN)/python -m pytest

bench: install-test
	$(BIN)/python bench/startup.py --quick
	$(BIN)/python bench/retrieval.py --quick
	$(BIN)/python bench/load.py --quick
	$(BIN)/python bench/scale.py --quick
	$(BIN)/python bench/secrets_fp.py
