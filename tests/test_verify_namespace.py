"""Module-level findings run from a copy of the module's namespace: which names are copied."""

import ast

import numpy as np

from tflint_perf.verify.module import copy_namespace, reachable_names

MODULE = """\
import numpy as np
train = np.zeros(1000)
labels = np.zeros(10)
scores = []

def score(i):
    scores.append(i)

count = 0
for i in range(len(labels)):
    count += labels[i] > 0
"""


class _Worker:
    np = np


def _reachable(source, first_region_line):
    tree = ast.parse(source)
    region = [s for s in tree.body if s.lineno >= first_region_line]
    return reachable_names((tree,), (region,))


def test_only_what_the_measured_code_or_a_function_of_the_module_names_is_copied():
    reachable = _reachable(MODULE, 9)
    assert {"labels", "count", "scores"} <= reachable and "train" not in reachable
    base = {"train": np.zeros(1000), "labels": np.zeros(10), "scores": [1], "count": 0}
    local = copy_namespace(_Worker(), base, reachable)
    assert local["train"] is base["train"]  # never written by the measured code: not copied
    assert local["labels"] is not base["labels"] and local["scores"] is not base["scores"]
    assert local["scores"] == [1]


def test_names_reached_without_being_spelled_copy_everything():
    assert _reachable(MODULE + "total = sum(globals()['labels'])\n", 9) is None
    assert _reachable(MODULE + "import sys\nsys.modules['__main__'].train[0] = 1\n", 9) is None
    base = {"train": np.zeros(3)}
    assert copy_namespace(_Worker(), base, None)["train"] is not base["train"]


def test_a_lambda_bound_before_the_measured_code_counts_as_a_function_of_the_module():
    source = "import numpy as np\ntrain = np.zeros(3)\nbump = lambda: train.fill(1)\nbump()\n"
    assert "train" in _reachable(source, 4)
