"""Running the linter over files: discovery, configuration, the cache, the
process pool, notebooks, and reading/writing one file.

Imports ``tflint_perf.engine`` and the rule registry (``tflint_perf.rules``);
never the faces (CLI, reporters, flake8 adapter, baseline, git diff).
"""
