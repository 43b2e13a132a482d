"""Is this test code? Performance advice rarely matters there.

Tests run reference loops on tiny inputs, once; rules that judge how code
scales stay silent in them.
"""

from __future__ import annotations

from tflint_perf.engine import cst

_TEST_FILE_PREFIXES = ("test_", "conftest")
_TEST_FILE_SUFFIXES = ("_test.py", "_tests.py", "_test.ipynb")
_TEST_DIRS = frozenset({"test", "tests", "testing"})


def is_test_file(path: str) -> bool:
    """``test_*.py``, ``*_test.py``, ``conftest.py``, or a file under a tests folder."""
    parts = path.replace("\\", "/").split("/")
    base = parts[-1]
    return (
        base.startswith(_TEST_FILE_PREFIXES)
        or base.endswith(_TEST_FILE_SUFFIXES)
        or bool(_TEST_DIRS & set(parts[:-1]))
    )


def in_test_code(ctx, node: cst.CSTNode) -> bool:
    """A test file, a ``test*`` function, or a ``*TestCase`` class.

    Needs complete parents (call it from ``finish()``).
    """
    if is_test_file(ctx.path):
        return True
    for parent in ctx.ancestors_of(node):
        if isinstance(parent, cst.FunctionDef) and parent.name.value.startswith("test"):
            return True
        if isinstance(parent, cst.ClassDef):
            for base_arg in parent.bases:
                name = base_arg.value
                text = (
                    name.attr.value
                    if isinstance(name, cst.Attribute)
                    else getattr(name, "value", "")
                )
                if isinstance(text, str) and text.endswith("TestCase"):
                    return True
    return False
