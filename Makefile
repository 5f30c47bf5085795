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

# The one-time ONNX export of the model (seconds; nothing when already done), so the
# first start is instant. A failure is not fatal: the server then embeds with NumPy.
serve: install
	@-$(BIN)/memvault model prepare >&2
	@exec $(BIN)/memvault serve

install-test: $(BIN)/python
	$(BIN)/pip install --quiet --disable-pip-version-check $(TORCH)
	$(BIN)/pip install --quiet --disable-pip-version-check ".[test]"

test: install-test
	$(BIN)/python -m pytest

# The whole suite at full size (the README's figures); `bench/run.py --quick` is the CI size.
bench: install-test
	$(BIN)/python bench/run.py
