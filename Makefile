# `make demo` and `make test` work on a fresh machine with Python 3.9+ and PyPI.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test verify-demo docs bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed-demo: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[verify-test]'  # TensorFlow, for the --verify table
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev,verify-test]'  # tensorflow-cpu for tests/test_verify_tf.py
	touch $@

demo: $(VENV)/.installed-demo
	@echo "== tflint-perf check examples/  (exit status 1 means: findings shown)"
	-$(BIN)/tflint-perf check examples/
	@$(MAKE) --no-print-directory verify-demo

verify-demo: $(VENV)/.installed-demo
	@echo "== tflint-perf check examples/ --verify  (runs the examples and their fixes; see docs/verify.md)"
	-$(BIN)/tflint-perf check examples/ --verify --verify-report verify-report.html

test: $(VENV)/.installed-dev
	$(BIN)/python -m pytest -q

# The corpus: `python bench/fetch_corpus.py` (downloads four wheels) or BENCH_ARGS="--corpus PATH".
bench: $(VENV)/.installed-demo
	$(BIN)/python bench/run.py $(BENCH_ARGS)

docs: $(VENV)/.installed-demo
	$(BIN)/python -m tflint_perf.docs

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
