"""Is this test code? Performance advice rarely matters there.

Tests run reference loops on tiny inputs, once; rules that judge how code
scales stay silent in them.
"""

from __future__ import annotations

from tflint_perf.engine import cst

_TEST_FILE_PREFIXES = ("test_", "conftest")
_TEST_FILE_SUFFIXES = ("_test.py", "_tests.py", "_test.ipynb")
_TEST_DIRS = frozenset({"test", "tests", "testing"})
_TEST_FRAMEWORKS = ("pytest", "unittest", "absl", "hypothesis", "nose")


def is_test_file(path: str) -> bool:
    """``test_*.py``, ``*_test.py`` or ``conftest.py``."""
    base = path.replace("\\", "/").rsplit("/", 1)[-1]
    return base.startswith(_TEST_FILE_PREFIXES) or base.endswith(_TEST_FILE_SUFFIXES)


def is_test_module(ctx) -> bool:
    """A test file by name, or a module under a tests folder that uses a test
    framework or defines ``test*`` functions (a training script kept in
    ``test/`` is not test code)."""
    if is_test_file(ctx.path):
        return True
    if not _TEST_DIRS & set(ctx.path.replace("\\", "/").split("/")[:-1]):
        return False
    return ctx.imports.imports_any(*_TEST_FRAMEWORKS) or any(
        f.name.value.startswith("test") for f in ctx.nodes(cst.FunctionDef)
    )


# Test case classes of the test frameworks, by qualified name prefix.
_TEST_CASE_BASES = ("unittest.", "absl.testing.", "tensorflow.test.", "pytest.")


def in_test_code(ctx, node: cst.CSTNode) -> bool:
    """A test module, or a method of a test framework's test case class.

    The name of a function is no evidence (``def test(self, episodes)`` is
    often an evaluation rollout): only the file's path and its use of a
    test framework are. Needs complete parents (call it from ``finish()``).
    """
    if is_test_module(ctx):
        return True
    for parent in ctx.ancestors_of(node):
        if isinstance(parent, cst.ClassDef):
            for base in parent.bases:
                if (ctx.qualname(base.value) or "").startswith(_TEST_CASE_BASES):
                    return True
    return False
