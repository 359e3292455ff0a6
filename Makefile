# One command for each job a person runs here. `make test` is what CI runs.
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
PYTHON ?= $(shell command -v python3.11 || command -v python3)
export LITELLM_LOCAL_MODEL_COST_MAP := True
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: install test lint typecheck contracts pytest demo bench clean

install: $(STAMP)

# torch is installed first and on its own: the CPU build of 2.13.0 lies on this machine's disk,
# and a plain torch requirement pulled in by sentence-transformers would fetch a CUDA build.
$(STAMP): pyproject.toml constraints.txt
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check torch==2.13.0
	$(PY) -m pip install -q --disable-pip-version-check -c constraints.txt -e '.[semantic,dev,notebook]'
	@touch $(STAMP)

lint: $(STAMP)
	$(VENV)/bin/ruff check .

typecheck: $(STAMP)
	$(VENV)/bin/mypy

contracts: $(STAMP)
	$(VENV)/bin/lint-imports

# pytest exits 5 when it collected nothing: say so, and fail.
pytest: $(STAMP)
	@$(PY) -m pytest $(PYTEST_ARGS); rc=$$?; \
	  if [ $$rc -eq 5 ]; then echo "pytest collected no tests: failing" >&2; fi; exit $$rc

test: lint typecheck contracts pytest

demo: $(STAMP)
	$(VENV)/bin/rubricate demo

bench: $(STAMP)
	@for b in benchmarks/bench_*.py; do echo "== $$b"; $(PY) $$b || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
