"""The decision for each loop of a module: report it, or record why not."""

from __future__ import annotations

from typing import Dict, List, Set, Tuple

from tflint_perf.analysis.api import arraymath as am
from tflint_perf.analysis.array_functions import ArrayFunctions
from tflint_perf.analysis.convolution import find_convolution
from tflint_perf.analysis.display import displays
from tflint_perf.analysis.elementwise import LoopFacts
from tflint_perf.analysis.functions import TfFunctions, loop_compiler
from tflint_perf.analysis.semantic import SemanticModel
from tflint_perf.analysis.testcode import is_test_module
from tflint_perf.analysis.trips import Trips
from tflint_perf.analysis.walks import Walk, walk_of
from tflint_perf.engine import cst
from tflint_perf.engine.reasons import Reason
from tflint_perf.engine.walk import descendants

from .advice import Message, for_segments, for_verdict, for_window
from .elements import OpKind, verdict
from .segments import segment_loop
from .windows import window_finding


class Detector:
    """TFP101's detectors over the loops of one module."""

    def __init__(self, rule) -> None:
        self.rule = rule
        self.ctx = rule.ctx

    def run(self, candidates: List[cst.CSTNode]) -> None:
        rule = self.rule
        if is_test_module(self.ctx):
            for node in candidates:
                rule.silent(node, Reason.TEST_CODE)
            return
        nests = self._convolution_loops(candidates)
        flagged: Dict[cst.CSTNode, Tuple[Message, List[cst.FunctionDef]]] = {}
        for node in candidates:
            if node in nests:
                rule.silent(node, Reason.OTHER_RULE, "a convolution or pooling nest: TFP102")
                continue
            if any(a in flagged for a in self.ctx.ancestors_of(node)):
                rule.silent(node, Reason.COVERED, "inside a loop reported already")
                continue
            found = self._decide(node)
            if found is not None:
                flagged[node] = found
        # A loop inside a helper that a flagged loop calls per row is part of that work.
        helpers: Set[cst.FunctionDef] = {h for _, called in flagged.values() for h in called}
        for node, (message, _) in flagged.items():
            if any(a in helpers for a in self.ctx.ancestors_of(node)):
                rule.silent(node, Reason.COVERED, "in a helper a reported loop calls per row")
                continue
            extra = {"whole_array": message.whole_array} if message.whole_array else None
            rule.report(node, message=message.headline, detail=message.detail, extra=extra)

    def _decide(self, node):
        """(message, helpers called per row) for a finding at ``node``, else None
        (the reason recorded)."""
        ctx, rule = self.ctx, self.rule
        segments = segment_loop(ctx, node)
        if segments is not None:
            return for_segments(ctx, node, segments), []
        func = ctx.shared(SemanticModel).function_of(node)
        if func is not None and ctx.shared(TfFunctions).is_wrapped_def(func):
            rule.silent(node, Reason.COMPILED, "in a tf.function: AutoGraph compiles the loop")
            return None
        defs = [a for a in ctx.ancestors_of(node) if isinstance(a, cst.FunctionDef)]
        compiler = next(filter(None, (loop_compiler(ctx, d) for d in defs)), None)
        if compiler is not None:  # the def around the loop, or one its helper is nested in
            rule.silent(node, Reason.COMPILED, f"`{compiler}` compiles the loop")
            return None
        if self._value_only_shown(node):
            rule.silent(node, Reason.DISPLAY_ONLY, "its value is only shown (a cell's output)")
            return None
        estimate = ctx.shared(Trips).of(node)
        if estimate.tiny:
            rule.silent(node, Reason.TINY_LOOP, estimate.why)
            return None
        walk = walk_of(ctx, node)
        if walk is None:
            rule.silent(node, Reason.NOT_DATA, "the loop walks no array or tensor")
            return None
        if _few_channels(walk):
            rule.silent(node, Reason.TINY_LOOP, "a loop over the channels of an image")
            return None
        facts = LoopFacts(ctx, walk)
        if facts.blocker is not None:
            rule.silent(node, facts.blocker.reason, facts.blocker.text)
            return None
        if not (walk.sized or facts.known_seed):
            rule.silent(node, Reason.NOT_DATA, "nothing shows the loop walks an array")
            return None
        if facts.windows:
            window = window_finding(facts)
            if window is None:
                rule.silent(node, Reason.NOT_WORK, "windows collected, not computed on")
                return None
            return for_window(facts, window), []
        found = verdict(facts)
        if found is None:
            rule.silent(node, Reason.NOT_WORK, "no math on the elements")
            return None
        if self._in_display_loop(node):
            rule.silent(node, Reason.DISPLAY_ONLY, "a few views drawn per iteration")
            return None
        helpers = []
        if found.op.kind is OpKind.HELPER and isinstance(found.op.node, cst.Call):
            helpers = ctx.shared(ArrayFunctions).targets(found.op.node)
        return for_verdict(facts, found), helpers

    def _value_only_shown(self, node) -> bool:
        """A comprehension that is a statement's whole value, alone or in a tuple or
        list (``batch, [vocab[w] for w in batch]``): a notebook shows it, a script drops it."""
        if not isinstance(node, (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)):
            return False
        for parent in self.ctx.ancestors_of(node):
            if isinstance(parent, cst.Expr):
                return True
            if not isinstance(parent, (cst.Tuple, cst.List, cst.Element)):
                return False
        return False

    def _in_display_loop(self, node) -> bool:
        """Whether the loop right around this one (same function) draws a plot or an
        image on each iteration: the work is a few views being shown."""
        for parent in self.ctx.ancestors_of(node):
            if isinstance(parent, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                return False
            if isinstance(parent, (cst.For, cst.While)):
                return any(
                    displays(self.ctx, n)
                    for n in descendants(parent.body, skip_scopes=True)
                    if isinstance(n, cst.Call)
                )
        return False

    def _convolution_loops(self, candidates) -> set:
        """Loops that are, contain or sit in a convolution/pooling nest (TFP102's)."""
        nests = [c for c in candidates if isinstance(c, cst.For) and find_convolution(self.ctx, c)]
        if not nests:
            return set()
        inside: Set[cst.CSTNode] = set(nests)
        for node in candidates:
            if any(a in inside for a in self.ctx.ancestors_of(node)):
                inside.add(node)
        for nest in nests:
            inside.update(a for a in self.ctx.ancestors_of(nest) if a in candidates)
        return inside


def _few_channels(walk: Walk) -> bool:
    """A loop over the channels of an image (named so): a handful of iterations."""
    spelled = f"{walk.var} {walk.tensor or ''}".lower()
    return any(name in spelled for name in am.CHANNEL_NAMES)
