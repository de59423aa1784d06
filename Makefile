# One command to install and run the demo, one to install and run the tests.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: demo test install clean

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

clean:
	rm -rf $(VENV) out
