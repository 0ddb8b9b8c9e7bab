# The two commands of the README: `make demo` (set up + run the local stack's demo) and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp

.PHONY: setup test lint types unit bench demo local clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

lint: $(STAMP)
	$(VENV)/bin/ruff check layers functions tests scripts

types: $(STAMP)
	$(VENV)/bin/mypy

test: lint types
	$(VENV)/bin/pytest

bench: $(STAMP)
	$(PY) scripts/bench.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
