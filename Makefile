# `make demo` and `make test` work on a fresh machine with Python 3.9+ and PyPI.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test smoke lint rule verify-demo docs bench bench-verify bench-verify-real bench-ipython realworld clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# -qq: errors only. An editable install of this layout (rules/ installed as
# tflint_perf.rules) makes setuptools print an "Editable installation" box.
PIP_INSTALL := $(BIN)/python -m pip install -qq

$(VENV)/.installed-demo: pyproject.toml | $(BIN)/python
	$(PIP_INSTALL) -e '.[verify-test]'  # TensorFlow, for the --verify table
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(PIP_INSTALL) -e '.[dev,verify-test]'  # tensorflow-cpu for tests/test_verify_tf.py
	touch $@

# Exit status 1 means "findings shown": the demo goes on; 2 (an error) stops it.
DEMO_EXAMPLE := examples/gc_in_training_loop.py

demo: $(VENV)/.installed-demo
	@echo "== One finding as tflint-perf shows it: the code, the fix as a diff"
	@echo "\$$ tflint-perf check $(DEMO_EXAMPLE)"
	@$(BIN)/tflint-perf check --no-cache $(DEMO_EXAMPLE) || [ $$? -eq 1 ]
	@$(MAKE) --no-print-directory verify-demo

# --statistics: the table lists each finding once; the counts above it total them.
verify-demo: $(VENV)/.installed-demo
	@echo "== Every example and its fix, run, compared and timed (docs/verify.md)"
	@echo "\$$ tflint-perf check examples/ --verify --statistics --verify-report verify-report.html"
	@$(BIN)/tflint-perf check examples/ --verify --statistics --verify-report verify-report.html \
		|| [ $$? -eq 1 ]

# Offline: the tests marked `network` (they pip-install from PyPI) and `kernel`
# (a real Jupyter kernel) run in `make smoke`.
test: $(VENV)/.installed-dev
	$(BIN)/python -m pytest -q -m "not network and not kernel"

# Type-checked: the package and the rules.
MYPY_CLEAN := tflint_perf rules

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy $(MYPY_CLEAN)

# Real code at scale, fix safety, larger property and metamorphic test budgets,
# the network tests, and the IPython extension in a real Jupyter kernel. Not part
# of `make test`: it downloads four wheels (bench/smoke.py). The
# development corpus is linted too when SMOKE_DEV_CORPUS exists (else skipped).
SMOKE_DEV_CORPUS ?= $(CURDIR)/../corpus-dev
$(VENV)/.installed-smoke: pyproject.toml | $(BIN)/python
	$(PIP_INSTALL) -e '.[dev]'  # no TensorFlow: nothing here runs it
	touch $@

smoke: $(VENV)/.installed-smoke
	$(BIN)/python bench/smoke.py --dev-corpus "$(SMOKE_DEV_CORPUS)" $(SMOKE_ARGS)
	TFLINT_HYPOTHESIS=smoke $(BIN)/python -m pytest -q tests/test_properties.py tests/test_metamorphic.py
	$(BIN)/python -m pytest -q -m "network or kernel"

# The corpus: `python bench/fetch_corpus.py` (downloads four wheels) or BENCH_ARGS="--corpus PATH".
bench: $(VENV)/.installed-demo
	$(BIN)/python bench/run.py $(BENCH_ARGS)

# --verify's cases timed (speedups recorded in bench/results/verify.md, never asserted).
bench-verify: $(VENV)/.installed-demo
	$(BIN)/python bench/verify/run.py $(BENCH_ARGS)

# --verify on real code: the findings of bench/verify/real/manifest.tsv, copied from the
# development corpus (CORPUS: the output of ../shared/corpus/build.py), run in an environment
# of their own (bench/verify/real/requirements.txt, installed once; the scripts get no network).
bench-verify-real: $(VENV)/.installed-demo
	$(BIN)/python bench/verify/real/run.py --corpus $(CORPUS) $(BENCH_ARGS)

# Precision/recall per rule on hand-labelled real code; the corpus is built by
# ../shared/corpus/build.py (see bench/realworld/README.md). Not part of `make test`.
CORPUS ?= bench/corpus-dev
realworld: $(VENV)/.installed-demo
	$(BIN)/python bench/realworld/score.py --corpus $(CORPUS) --tool $(BIN)/tflint-perf $(REALWORLD_ARGS)

# What `%load_ext tflint_perf` adds to each cell, notebooks replayed as Run All
# (figures in docs/notebooks.md): NOTEBOOKS names notebooks or folders of them.
NOTEBOOKS ?= $(CORPUS)/src
bench-ipython: $(VENV)/.installed-dev
	$(BIN)/python bench/ipython_cells.py $(NOTEBOOKS) $(BENCH_ARGS)

docs: $(VENV)/.installed-demo
	$(BIN)/python -m tflint_perf.docs

# A new rule from the skeleton: make rule CODE=TFP305 NAME=gc-in-callback (CONTRIBUTING.md).
rule: $(VENV)/.installed-dev
	$(BIN)/python -m tflint_perf.scaffold "$(CODE)" "$(NAME)"

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache
