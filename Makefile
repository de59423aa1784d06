# One command to install and run the demo, one to install and run the tests.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: demo test install clean
.PHONY: test-fast lint format typecheck typecheck-all

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

install: $(STAMP)

## export masks for the shipped sample clip and print its F-measure against the ground truth
demo: $(STAMP)
	$(VENV)/bin/silkvision demo

## the whole test suite (Qt tests run offscreen)
test: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest -q

## the suite without its slow-marked tests and those that need ../shared/data (about a minute):
## the lane for development; `make test` runs everything
test-fast: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest -q -m "not slow and not shared"

# the linters and the type checker (the "lint" extra), on top of the development install
LINT_STAMP := $(VENV)/.lint-installed

$(LINT_STAMP): $(STAMP)
	$(PY) -m pip install --quiet -e ".[dev,lint]"
	touch $(LINT_STAMP)

## ruff's lint rules and formatting, checked without changing a file ([tool.ruff] in pyproject.toml)
lint: $(LINT_STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

## apply ruff's safe fixes and its formatting to the tree
format: $(LINT_STAMP)
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

## mypy on the packages that are type-clean ([tool.mypy] in pyproject.toml)
typecheck: $(LINT_STAMP)
	$(VENV)/bin/mypy

## mypy's error count for each package, those not yet clean included
typecheck-all: $(LINT_STAMP)
	$(VENV)/bin/mypy --config-file /dev/null --python-version 3.10 --ignore-missing-imports \
		--cache-dir .mypy_cache silkvision 2>/dev/null | grep ': error:' | cut -d/ -f2 | sed 's/[.:].*//' | sort | uniq -c || true

clean:
	rm -rf $(VENV) out
