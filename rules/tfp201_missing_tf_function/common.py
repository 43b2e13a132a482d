"""What TFP201's detectors share: the model of the file, the compile fix, words."""

from __future__ import annotations

from typing import List, Optional

from tflint_perf.analysis.api.steps import EAGER_BASES, EAGER_SWITCHES
from tflint_perf.analysis.calls import CallGraph
from tflint_perf.analysis.reach import HotLoop, Reach
from tflint_perf.analysis.semantic import BindingKind, SemanticModel
from tflint_perf.analysis.steps import import_insertion_line, name_is_free, tf_function_spelling
from tflint_perf.analysis.summaries import Summaries
from tflint_perf.analysis.tracing import Tracing
from tflint_perf.analysis.values import Values
from tflint_perf.engine import cst
from tflint_perf.engine.headline import clip_code
from tflint_perf.engine.names import dotted
from tflint_perf.engine.rule import Edit, Fix

FASTER = "compiled, small steps run 3-12x faster"


class Facts:
    """The file's model as TFP201 reads it, built once per file."""

    def __init__(self, rule) -> None:
        ctx = rule.ctx
        self.rule = rule
        self.ctx = ctx
        self.sem: SemanticModel = ctx.shared(SemanticModel)
        self.values: Values = ctx.shared(Values)
        self.graph: CallGraph = ctx.shared(CallGraph)
        self.reach: Reach = ctx.shared(Reach)
        self.tracing: Tracing = ctx.shared(Tracing)
        self.summaries: Summaries = ctx.shared(Summaries)
        self._switches: Optional[List[cst.Call]] = None

    # -- where the step runs ---------------------------------------------------------
    def eager_switch(self, node: cst.CSTNode) -> Optional[cst.Call]:
        """``tf.config.run_functions_eagerly(True)`` before ``node``: everything runs
        eagerly anyway."""
        ctx = self.ctx
        if self._switches is None:
            self._switches = [
                c
                for c in ctx.nodes(cst.Call)
                if ctx.call_name(c) in EAGER_SWITCHES and not _is_false(c)
            ]
        if not self._switches:  # spares computing positions
            return None
        line = ctx.position(node).start.line
        return next((s for s in self._switches if ctx.position(s).start.line < line), None)

    def framework_method(self, func: cst.FunctionDef) -> bool:
        """A method nothing in the module calls, of a class with a base from
        outside the module (not a thread): the framework may compile it."""
        cls = self.sem.method_class(func)
        return cls is not None and not self.graph.callers(func) and self._external_base(cls)

    def _external_base(self, cls: cst.ClassDef) -> bool:
        for each in self.sem.class_and_bases(cls):
            for base in each.bases:
                local = [b for b in self.sem.lookup_name(base.value) if b.kind is BindingKind.CLASS]
                if local:
                    continue  # followed by class_and_bases
                name = self.ctx.qualname(base.value) or dotted(base.value) or "?"
                if name not in EAGER_BASES:
                    return True
        return False

    def loop_words(self, hot: HotLoop) -> str:
        """``the loop `for x in data` (line 12)``, and the calls leading to it."""
        ctx = self.ctx
        line = ctx.line_ref(ctx.position(hot.loop).start.line)
        if isinstance(hot.loop, (cst.For, cst.While)):
            loop = f"`{header(ctx, hot.loop)}` ({line})"
        else:
            loop = f"the comprehension at {line}"
        if not hot.calls:
            return f"It runs on every iteration of {loop}."
        chain = " <- ".join(
            f"`{dotted(c.func) or 'call'}()` ({ctx.line_ref(ctx.position(c).start.line)})"
            for c in hot.calls
        )
        return f"It is called through {chain}, in {loop}."

    # -- the compile fix ---------------------------------------------------------------
    def spelling(self) -> str:
        return tf_function_spelling(self.ctx) or "tf.function"

    def decorator(self):
        """(how to spell tf.function here, edits adding the import it needs)."""
        ctx = self.ctx
        spelling = tf_function_spelling(ctx)
        if spelling is not None:
            return spelling, []
        before = import_insertion_line(ctx)
        if before is None or not name_is_free(ctx, "tf"):
            return None, []
        return "tf.function", [ctx.insert_lines(before, "import tensorflow as tf")]

    def decorator_fix(self, func: cst.FunctionDef, safety: str) -> Optional[Fix]:
        ctx = self.ctx
        def_line = ctx.position(func.name).start.line
        text = ctx.line_text(def_line)
        stripped = text.lstrip()
        if not stripped.startswith("def "):
            return None
        spelling, edits = self.decorator()
        if spelling is None:
            return None
        indent = text[: len(text) - len(stripped)]
        edits.append(Edit(def_line, 0, def_line, 0, f"{indent}@{spelling}\n"))
        return Fix(tuple(edits), safety, "Compile the step with @tf.function")


def header(ctx, loop: cst.CSTNode, width: int = 60) -> str:
    if isinstance(loop, cst.For):
        text = f"for {ctx.code(loop.target).strip()} in {ctx.code(loop.iter).strip()}"
    elif isinstance(loop, cst.While):
        text = f"while {ctx.code(loop.test).strip()}"
    else:
        return "a comprehension"
    return clip_code(text, width)


def join(items: List[str], last_sep: str = " and ") -> str:
    items = list(dict.fromkeys(items))
    items = items[:4] + (["..."] if len(items) > 4 else [])
    if len(items) == 1:
        return items[0]
    if last_sep == " and ":
        return ", ".join(items[:-1]) + " and " + items[-1]
    return last_sep.join(items)


def _is_false(call: cst.Call) -> bool:
    return (
        bool(call.args)
        and isinstance(call.args[0].value, cst.Name)
        and call.args[0].value.value == "False"
    )
