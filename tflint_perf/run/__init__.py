"""Running the linter over files: discovery, configuration, the cache, the
process pool, the project index (what the modules of a tree tell each
other), notebooks, and reading/writing one file.

Imports ``tflint_perf.engine``, ``tflint_perf.analysis`` (a module's exports)
and the rule registry (``tflint_perf.rules``); never the faces (CLI,
reporters, flake8 adapter, baseline, git diff).
"""
