"""``tflint-perf check --verify``: run each finding's code and its fix, compare, time.

Linter side (this process, never imports TensorFlow): ``plan`` decides what
to run, ``orchestrate`` starts worker processes and judges, ``session``
ties them together, ``report`` prints. Worker side (a fresh interpreter):
``worker``, ``equality``, ``device``, ``inputs.build``.
"""
