"""Which TensorFlow a module is written for: TF1 (graph) style or TF2.

- ``TfStyle.tf1``: the module uses TF1 APIs (``tf.compat.v1``,
  ``tf.Session``, ``tf.placeholder``, ``tf.contrib``, disabling eager
  execution, the dataset method ``make_one_shot_iterator()``). Fixes then
  spell names that TF1 releases have too (``tf.data.experimental.AUTOTUNE``,
  not ``tf.data.AUTOTUNE``).
- ``TfStyle.graph_mode``: the module's ops build a graph instead of running
  eagerly (eager execution disabled, or APIs that exist only in TF1 or only
  in graph mode). Creating tensors there does not start the runtime.

Read from qualified names, once per file (``ctx.shared(TfStyle)``).
"""

from __future__ import annotations

from tflint_perf.engine import cst
from tflint_perf.engine.names import dotted

# Attribute names worth resolving (a cheap filter before name resolution).
_MARKERS = frozenset(
    {
        "v1",
        "contrib",
        "Session",
        "InteractiveSession",
        "placeholder",
        "disable_eager_execution",
        "disable_v2_behavior",
        "enable_eager_execution",
    }
)
# Dataset methods that TF 2 removed (it keeps the functions under compat.v1).
TF1_DATASET_METHODS = frozenset({"make_one_shot_iterator", "make_initializable_iterator"})
GRAPH_MODE_SWITCHES = frozenset(
    {"tensorflow.disable_eager_execution", "tensorflow.disable_v2_behavior"}
)
# Exist only in graph mode (placeholders) or only in TF 1.x (spelled without compat.v1).
_GRAPH_ONLY = frozenset({"tensorflow.placeholder", "tensorflow.placeholder_with_default"})
_TF1_ONLY_RAW = ("tensorflow.Session", "tensorflow.InteractiveSession", "tensorflow.contrib")
_TF1_PREFIXES = ("tensorflow.compat.v1", "tensorflow.contrib")


class TfStyle:
    def __init__(self, ctx) -> None:
        self.tf1 = False
        self.graph_mode = False
        eager_on = False
        for target in ctx.imports.aliases.values():
            if target.startswith(_TF1_PREFIXES):
                self.tf1 = True
        for node in ctx.nodes(cst.Attribute):
            if node.attr.value in TF1_DATASET_METHODS:
                self.tf1 = True  # `ds.make_one_shot_iterator()`: a method only TF1 datasets have
                continue
            if node.attr.value not in _MARKERS:
                continue
            raw = _raw_name(ctx, node)
            if raw is None or not raw.startswith("tensorflow"):
                continue
            qual = ctx.qualname(node)
            if raw.startswith(_TF1_PREFIXES) or raw.startswith(_TF1_ONLY_RAW):
                self.tf1 = True
            if qual in GRAPH_MODE_SWITCHES or qual in _GRAPH_ONLY or raw.startswith(_TF1_ONLY_RAW):
                self.tf1 = self.graph_mode = True
            if qual == "tensorflow.enable_eager_execution":
                eager_on = True
        if eager_on:
            self.graph_mode = False  # TF1 with eager execution turned on


def _raw_name(ctx, expr: cst.BaseExpression):
    """The imported name ``expr`` spells, without canonical rewriting."""
    name = dotted(expr)
    if name is None:
        return None
    head, _, rest = name.partition(".")
    target = ctx.imports.aliases.get(head)
    if target is None:
        return None
    return f"{target}.{rest}" if rest else target
