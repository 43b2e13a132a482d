"""tflint-perf: a linter for TensorFlow performance traps.

Layers, lowest first (a layer imports only those before it):

- ``engine/``: rule base, file context, walk, names, linter, noqa, fixes;
- ``analysis/``: the questions rules ask about TensorFlow code;
- ``tflint_perf.rules`` (the top-level ``rules/`` folder): one module per rule;
- ``run/``: files, configuration, cache, parallel runs, notebooks;
- the faces: ``cli``, ``reporters``, ``flake8_plugin``, ``baseline``,
  ``gitdiff``, ``docs``, ``ipython`` (with ``kernel``);
- ``verify/``: running findings and their fixes to time them.
"""

__version__ = "0.1.0"


def load_ipython_extension(shell) -> None:
    """``%load_ext tflint_perf``: lint each cell as it runs (docs/notebooks.md).

    Imported here, not above, so that ``import tflint_perf`` stays cheap.
    """
    from tflint_perf.ipython import load_ipython_extension as load

    load(shell)


def unload_ipython_extension(shell) -> None:
    from tflint_perf.ipython import unload_ipython_extension as unload

    unload(shell)
