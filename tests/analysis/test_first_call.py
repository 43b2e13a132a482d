"""Work a function does on its first call only (``analysis/first_call.py``)."""

import pytest

from tests.analysis.snippets import context
from tflint_perf.analysis.first_call import FirstCall
from tflint_perf.engine import cst

GUARDS = {
    "a flag its block sets": ("if not self.ready:", "self.ready = True"),
    "None, then built": ("if self.op is None:", "self.op = 1"),
    "a key, then stored": ("if key not in self.cache:", "self.cache[key] = 1"),
}


def guarded(source: str, callee: str) -> bool:
    ctx = context(source)
    calls = [c for c in ctx.nodes(cst.Call) if ctx.code(c.func).endswith(callee)]
    return ctx.shared(FirstCall).guarded(calls[-1])


@pytest.mark.parametrize("test, sets", GUARDS.values(), ids=list(GUARDS))
def test_a_block_that_sets_what_its_test_finds_unset_runs_once(test, sets):
    source = f"""
        class Layer:
            def call(self, key):
                {test}
                    {sets}
                    build()
        """
    assert guarded(source, "build")


def test_a_method_called_on_self_sets_the_flag_for_its_caller():
    source = """
        class Layer:
            def _wire(self):
                self._finish()

            def _finish(self):
                self._wired = True

            def call(self, x):
                if not self._wired:
                    self._wire()
        """
    assert guarded(source, "_wire")
    assert not guarded(source.replace("self._wired = True", "self._other = True"), "_wire")


def test_a_guard_that_nothing_in_it_sets_runs_every_time():
    source = """
        def step(x):
            if not x:
                build()
        """
    assert not guarded(source, "build")
