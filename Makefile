# Two entry points for a fresh machine with Python >= 3.11 and make:
#   make lab   set everything up, start the embedded service and JupyterLab on notebooks/
#   make test  set everything up and run the whole suite (unit, integration, notebooks, browser)

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
PYTEST_ARGS ?=

.PHONY: install lab serve test test-postgres test-peer test-fast bench stress clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 $(BIN)/python -m pip install --quiet -e ".[service,postgres,dev]"
	touch $(STAMP)

install: $(STAMP)

lab: $(STAMP)
	$(BIN)/chaplab lab

serve: $(STAMP)
	$(BIN)/chaplab serve

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports
	$(BIN)/pylint --disable=all --enable=duplicate-code --score=n src/chaplab
	$(BIN)/mypy --strict --follow-imports=silent --ignore-missing-imports src/chaplab tests/typecheck/every_method.py
	scripts/ensure-chromium
	$(BIN)/python -m pytest tests notebooks $(PYTEST_ARGS)

# The service's integration tests, the wire tests and the crash test on a throwaway PostgreSQL
# server (installed with apt-get when missing and run as root); a server that cannot start fails.
test-postgres: $(STAMP)
	scripts/postgres/with-postgres $(BIN)/python -m pytest tests/service tests/acceptance \
		tests/reliability/test_crash_restart.py $(PYTEST_ARGS)

# The tests of tests/peer against a real chap-core 2.5.1 on loopback: installed once into a cache
# outside the repository (needs Python 3.13 from pyenv or PATH), started for the run, stopped after.
# The tests run in a shuffled order (pytest-randomly), so none passes only because another ran
# before it; the run prints its seed, and `scripts/peer/test -p randomly --randomly-seed=N
# tests/peer` repeats that order.
# Every notebook runs against a fresh peer too (nbval, cells in order) but 06, which is about the
# embedded service's toolkit, with notebook 09's chapkit cells, which serve a model from the
# peer's Python 3.13 environment, and then in JupyterLab, where the reading gates measure their
# outputs as on our service (tests/browser/test_notebooks_read_well.py).
PEER_NOTEBOOKS := $(filter-out notebooks/06_%,$(wildcard notebooks/[0-9][0-9]_*.ipynb))
test-peer: $(STAMP)
	scripts/ensure-chromium
	CHAPLAB_TEST_PYTHON=$(BIN)/python scripts/peer/test -p randomly tests/peer $(PYTEST_ARGS)
	CHAPLAB_TEST_PYTHON=$(BIN)/python scripts/peer/test $(PEER_NOTEBOOKS) \
		tests/browser/test_notebooks_read_well.py --run-chapkit-cells $(PYTEST_ARGS)

bench: $(STAMP)
	$(BIN)/python -m benchmarks

stress: $(STAMP)
	CHAPLAB_STRESS=1 $(BIN)/python -m pytest tests/reliability --timeout=1800 $(PYTEST_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache build dist
