# Entry points: `make serve` installs and starts the server; `make test` installs and runs the quick
# tests (minutes); `make test-all` installs everything and runs every test (what CI runs).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# A CPU build of torch, installed before anything that depends on it: a plain
# `torch` requirement pulls a multi-gigabyte CUDA build on Linux. Elsewhere use e.g.
#   make serve TORCH="torch --index-url https://download.pytorch.org/whl/cpu"
TORCH ?= torch==2.13.0
PIP := $(BIN)/pip install --quiet --disable-pip-version-check

# memvault is installed as a package (not editable): reinstall only when its sources changed,
# so a second `make serve` reaches `initialize` in about a second instead of re-running pip.
SOURCES := pyproject.toml $(shell find server memory-files -type f -not -name '*.pyc' 2>/dev/null)
INSTALLED := $(VENV)/.installed
TEST_INSTALLED := $(VENV)/.installed-test
MODEL_READY := $(VENV)/.model-ready

.PHONY: serve install install-test test test-all bench browser screenshots

# stdout of `make serve` is the MCP channel: make's echo and pip's chatter go to stderr.
$(BIN)/python:
	@echo "$(PYTHON) -m venv $(VENV)" >&2
	@$(PYTHON) -m venv $(VENV) >&2

$(INSTALLED): $(BIN)/python $(SOURCES)
	@echo "installing memvault into $(VENV)" >&2
	@$(PIP) $(TORCH) >&2
	@$(PIP) . >&2
	@touch $@

install: $(INSTALLED)

# The one-time ONNX export of the model (seconds; nothing when already done), so the
# first start is instant. A failure is not fatal: the server then embeds with NumPy.
$(MODEL_READY): $(INSTALLED)
	@-$(BIN)/memvault model prepare >&2 && touch $@

serve: install $(MODEL_READY)
	@exec $(BIN)/memvault serve

$(TEST_INSTALLED): $(BIN)/python $(SOURCES)
	$(PIP) $(TORCH)
	$(PIP) ".[test]"
	@touch $@ $(INSTALLED)

install-test: $(TEST_INSTALLED)

# The web page's browser tests drive the system's Chromium (Debian's package) through Playwright;
# Playwright never downloads a browser of its own. Installed with apt-get when missing, which
# needs root (CI runs as root); elsewhere install `chromium` yourself, or the browser tests skip.
CHROMIUM ?= /usr/bin/chromium
browser:
	@if [ ! -x $(CHROMIUM) ]; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
			echo "installing chromium for the browser tests (apt-get)"; \
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null 2>&1 || \
			{ DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
			  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null; }; \
		else \
			echo "no $(CHROMIUM): the browser tests will be skipped (install chromium to run them)" >&2; \
		fi; \
	fi

# The quick loop: unit tests, the storage contract on SQLite and a few spawns of the real command,
# on the hash embedder. No PostgreSQL, no browser, nothing marked slow (crash, load, the benchmark
# scripts, 1 MB inputs, the real model); tests/conftest.py marks what it can tell by itself.
QUICK ?= not pg and not browser and not slow
test: install-test
	$(BIN)/python -m pytest -m "$(QUICK)"

# Everything, as CI runs it: also PostgreSQL (a throwaway embedded server), the browser tests
# (Chromium installed when missing), crash, load, the benchmark suite at CI size, the real model.
test-all: install-test browser
	$(BIN)/python -m pytest

# The README's screenshots of the web page, made by its browser tests.
screenshots: install-test browser
	MEMVAULT_SCREENSHOTS=docs/screenshots $(BIN)/python -m pytest -q tests/test_web_browser.py

# The whole suite at full size (the README's figures); `bench/run.py --quick` is the CI size.
bench: install-test
	$(BIN)/python bench/run.py
