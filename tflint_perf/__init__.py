"""tflint-perf: a linter for TensorFlow performance traps.

Layers, lowest first (a layer imports only those before it):

- ``engine/``: rule base, file context, walk, names, linter, noqa, fixes;
- ``analysis/``: the questions rules ask about TensorFlow code;
- ``tflint_perf.rules`` (the top-level ``rules/`` folder): one module per rule;
- ``run/``: files, configuration, cache, parallel runs, notebooks;
- the faces: ``cli``, ``reporters``, ``flake8_plugin``, ``baseline``,
  ``gitdiff``, ``docs``;
- ``verify/``: running findings and their fixes to time them.
"""

__version__ = "0.1.0"
