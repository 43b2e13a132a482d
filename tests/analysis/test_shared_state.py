"""Functions run once per iteration of a caller's loop, fed through shared state."""

import pytest

from tests.analysis.snippets import context
from tflint_perf.analysis.shared_state import loop_runs
from tflint_perf.engine import cst

AGENT = """
import numpy as np

class Agent:
    def __init__(self, model):
        self.model = model
        self.state = np.zeros(4)

    def observe(self, observation):
        self.state = observation

    def act(self):
        return self.model.predict(self.state[None])

    def run(self, env):
        for step in range(1000):
            {body}
"""


def runs(body):
    ctx = context(AGENT.format(body=body))
    call = next(
        c
        for c in ctx.nodes(cst.Call)
        if getattr(c.func, "attr", None) is not None and c.func.attr.value == "predict"
    )
    return list(loop_runs(ctx, call, call.args[0].value))


@pytest.mark.parametrize(
    "body, varies, fed_back",
    [
        # the loop hands what act() chose to observe(): each step's input comes from the last
        ("self.observe(env.step(self.act()))", True, ("self.state",)),
        # observe() changes the state from something else: it varies, fed by nothing
        ("self.act(); self.observe(env.reset())", True, ()),
        # nothing in the loop changes what act() reads
        ("self.act(); env.step(0)", False, ()),
    ],
)
def test_a_method_shares_the_attributes_of_its_object_with_the_loop_calling_it(
    body, varies, fed_back
):
    found = runs(body)
    assert [(r.varies, r.fed_back) for r in found] == [(varies, fed_back)]
