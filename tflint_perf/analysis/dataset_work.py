"""Does a ``tf.data`` step do real work per element?

Asked by TFP401 (a final ``prefetch`` overlaps input preparation with the
training step, which pays only when preparing an element costs something)
and TFP402 (``num_parallel_calls`` pays only for real per-element work).
Real work is read from the API table (``api/tfdata.py``): reading record
files, decoding and parsing, image and audio processing, string processing
and tokenisers, Python code per element (``tf.py_function``), and Keras
preprocessing layers or models called per element (augmentation, resizing,
lookups; not a rescaling or a normalisation, which are arithmetic). A cast,
a scalar multiply or repacking a dict is not, and neither is anything the
linter cannot read.

The function of ``ds.map(f)`` is read through the semantic model: a lambda,
``functools.partial(f, ...)``, the def a name holds where ``map`` is called,
a method through ``self``, and the module functions its body calls (through
the call graph).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional

from tflint_perf.analysis import api
from tflint_perf.analysis.api import Effect, Kind, tfdata
from tflint_perf.analysis.calls import CallGraph
from tflint_perf.analysis.semantic import BindingKind, SemanticModel
from tflint_perf.analysis.values import Values
from tflint_perf.engine import cst
from tflint_perf.engine.names import dotted
from tflint_perf.engine.walk import descendants

_MAX_DEPTH = 4


@dataclass(frozen=True)
class Work:
    """What a mapped function does to each element."""

    what: Optional[str] = None  # "`tf.io.read_file`": the first real work found; None: none
    unsafe: bool = False  # Python side effects, stateful random numbers, variable updates
    returns_dataset: bool = False  # builds a nested dataset (window/flat_map), no element work
    python: bool = False  # runs Python per element (py_function): holds the GIL
    text: bool = False  # tokenises text: string kernels loop over a batch on one thread


NOTHING = Work()  # also: not readable here, so nothing known


def short_name(name: str) -> str:
    if name.startswith("tensorflow."):
        return "tf." + name[len("tensorflow.") :]
    return name


def is_real_work(name: str) -> bool:
    return (name not in tfdata.CHEAP_WORK and name.startswith(tfdata.WORK_PREFIXES)) or (
        name in tfdata.FILE_READERS
    )


def unsafe_call(name: str) -> bool:
    """Python code, or a stateful random draw: order-dependent when run in parallel."""
    return (
        name in tfdata.PYTHON_CALLS
        or name in tfdata.STATEFUL_CALLS
        or (name.startswith(tfdata.RANDOM_PREFIXES) and "stateless_" not in name)
    )


class ElementWork:
    """What the functions given to ``map``/``interleave``/``flat_map`` do (one per file)."""

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.sem: SemanticModel = ctx.shared(SemanticModel)
        self.values: Values = ctx.shared(Values)
        self.graph: CallGraph = ctx.shared(CallGraph)

    def of_function(self, func: cst.BaseExpression) -> Work:
        """What ``func`` (the argument of ``ds.map(func)``) does per element."""
        return self._work(func, set(), 0)

    def bodies(self, func: cst.BaseExpression, depth: int = 0) -> List[cst.CSTNode]:
        """The code ``func`` names as a function: a lambda's expression, the def a
        name or ``self.name`` holds (also through ``f = g``, and a function a
        module function returns: ``train_fn, eval_fn = make_fns()``),
        ``functools.partial``'s function, or one the callers pass for a parameter
        (``ds.map(parser)`` in ``def build(parser, ...)``)."""
        if depth > _MAX_DEPTH:
            return []
        if isinstance(func, cst.Lambda):
            return [func.body]
        if isinstance(func, cst.Call):
            if self.ctx.call_name(func) == "functools.partial" and func.args:
                return self.bodies(func.args[0].value, depth + 1)
            return []
        out: List[cst.CSTNode] = []
        for binding in self.sem.lookup_name(func) if isinstance(func, cst.Name) else []:
            if binding.kind is BindingKind.FUNCTION:
                out.append(binding.statement)
            elif binding.plain and isinstance(binding.value, (cst.Name, cst.Attribute)):
                out += self.bodies(binding.value, depth + 1)  # fn = parse
            elif binding.plain and isinstance(binding.value, cst.Call):
                out += self._returned_functions(binding.value, None, depth)
            elif binding.kind is BindingKind.ASSIGNMENT and isinstance(binding.source, cst.Call):
                if len(binding.path) == 1:
                    out += self._returned_functions(binding.source, binding.path[0], depth)
        if isinstance(func, cst.Attribute):
            cls = self.values.instance_class(func.value)
            method = self.graph.method(cls, func.attr.value) if cls is not None else None
            if method is not None:
                out.append(method)
        if not out and isinstance(func, cst.Name):
            out += self.graph.refers_to(func)  # a function the callers pass: map(parser)
        return out

    def _returned_functions(self, call: cst.Call, index: Optional[int], depth: int):
        """The functions a module function returns (item ``index`` of ``return f, g``)."""
        out: List[cst.CSTNode] = []
        for target in self.graph.resolve(call):
            for ret in self.values.returns(target):
                value = ret.value
                if index is not None:
                    if not isinstance(value, cst.Tuple) or index >= len(value.elements):
                        continue
                    value = value.elements[index].value
                if isinstance(value, (cst.Name, cst.Attribute, cst.Lambda)):
                    out += self.bodies(value, depth + 1)
        return out

    def _work(self, func, seen: set, depth: int) -> Work:
        qual = self.ctx.qualname(func)
        if qual in tfdata.FILE_READERS:
            return Work(f"`{qual.rsplit('.', 1)[-1]}` file reads", returns_dataset=True)
        if qual is not None and is_real_work(qual):  # ds.map(tf.io.read_file)
            return Work(f"`{short_name(qual)}`", unsafe_call(qual), python=_python(qual))
        keras = self.keras_work(func)  # ds.map(vectorize_layer), ds.map(augment)
        if keras is not None:
            return keras
        bodies = self.bodies(func)
        if not bodies or depth > _MAX_DEPTH:
            return NOTHING
        results = [self._body_work(body, seen, depth) for body in bodies]
        first = results[0]
        if any((r.what is None) != (first.what is None) for r in results):
            return NOTHING  # definitions disagree: not sure which runs
        return Work(
            first.what,
            any(r.unsafe for r in results),
            any(r.returns_dataset for r in results),
            all(r.python for r in results),
            all(r.text for r in results),
        )

    def _body_work(self, body: cst.CSTNode, seen: set, depth: int) -> Work:
        if id(body) in seen:
            return NOTHING
        seen.add(id(body))
        found: List[Work] = []  # real work, each shown and flagged as Python or not
        unsafe = False
        for node in [body, *descendants(body)]:
            if not isinstance(node, cst.Call):
                continue
            name = self.ctx.call_name(node)
            if name is not None:
                unsafe = unsafe or unsafe_call(name)
                if is_real_work(name):
                    found.append(Work(f"`{short_name(name)}`", python=_python(name)))
                continue
            func = node.func
            if isinstance(func, cst.Attribute) and func.attr.value in tfdata.ASSIGN_METHODS:
                unsafe = True
            keras = self.keras_work(func)
            if keras is not None:
                found.append(keras)
                continue
            inner = self._work(func, seen, depth + 1) if self.bodies(func) else NOTHING
            if inner.what is None and depth < _MAX_DEPTH:
                for target in self.graph.resolve(node):  # self.helper(x), obj.method(x)
                    more = self._body_work(target, seen, depth + 1)
                    unsafe = unsafe or more.unsafe
                    if more.what is not None:
                        inner = more
                        break
            unsafe = unsafe or inner.unsafe
            if inner.what is not None:
                found.append(inner)
        nested = self._returns_dataset(body)
        if not found:
            return Work(None, unsafe, nested)
        # the heaviest kind, for the message (every work in `found` names what it does)
        shown = min(found, key=lambda w: _rank(w.what or ""))
        return Work(
            shown.what,
            unsafe or any(w.unsafe for w in found),
            nested,
            python=all(w.python for w in found),
            text=any(w.text for w in found),
        )

    # -- Keras objects called per element --------------------------------------------
    def keras_work(self, func: cst.BaseExpression) -> Optional[Work]:
        """A tokenizer, a Keras preprocessing layer or a Keras model called per
        element (``vectorize(text)``, ``augment(image)``, ``tokenizer.tokenize(s)``);
        None for other callables, and for layers that are arithmetic (``Rescaling``)."""
        if isinstance(func, cst.Attribute) and func.attr.value == "tokenize":
            func = func.value
        name = dotted(func)
        if name is None:
            return None
        made = self._constructors(func)
        tokenizer = next((q for q in made if _tokenizer(q)), None)
        if tokenizer is not None:
            return Work(f"`{name}` ({_class_name(tokenizer)})", text=True)
        kind = self.values.kind(func)
        if kind is Kind.LAYER:
            layers = [q for q in made if q not in tfdata.CHEAP_LAYERS]
            if made and not layers:
                return None
            shown = f" ({_class_name(layers[0])})" if layers else " (a Keras layer)"
            return Work(f"`{name}`{shown}")
        if kind is Kind.KERAS_MODEL:
            if self._cheap_model(func):
                return None
            return Work(f"`{name}` (a Keras model)")
        return None

    def _constructors(self, func: cst.BaseExpression, depth: int = 0) -> List[str]:
        """Qualified names of the calls that build the object ``func`` holds (also in a
        module function that returns it: ``vectorizer = fit_vectorizer(texts)``)."""
        out: List[str] = []
        for binding in self.sem.lookup_name(func) if depth <= _MAX_DEPTH else []:
            if not (binding.plain and isinstance(binding.value, cst.Call)):
                continue
            qual = self.ctx.call_name(binding.value)
            if qual is not None:
                out.append(qual)
                continue
            for target in self.graph.resolve(binding.value):
                for ret in self.values.returns(target):
                    if isinstance(ret.value, (cst.Name, cst.Attribute)):
                        out += self._constructors(ret.value, depth + 1)
        return out

    def _cheap_model(self, func: cst.BaseExpression) -> bool:
        """``keras.Sequential([Rescaling(...)])``: a model of arithmetic layers only."""
        for binding in self.sem.lookup_name(func):
            value = binding.value if binding.plain else None
            if not isinstance(value, cst.Call) or not value.args:
                return False
            layers = value.args[0].value
            if not isinstance(layers, (cst.List, cst.Tuple)) or not layers.elements:
                return False
            for element in layers.elements:
                item = element.value
                if not isinstance(item, cst.Call):
                    return False
                if self.ctx.call_name(item) not in tfdata.CHEAP_LAYERS:
                    return False
        return bool(self.sem.lookup_name(func))

    # -- nested datasets -----------------------------------------------------------------
    def _returns_dataset(self, body: cst.CSTNode) -> bool:
        """The function returns a dataset (``ds.window(...)``, ``Dataset.zip(...)``)."""
        if isinstance(body, cst.FunctionDef):
            values: List[cst.CSTNode] = [r.value for r in self.values.returns(body) if r.value]
        else:
            values = [body]  # a lambda's expression
        return any(self._is_dataset_expr(value) for value in values)

    def _is_dataset_expr(self, expr: cst.CSTNode) -> bool:
        if not isinstance(expr, cst.Call):
            return False
        qual = self.ctx.call_name(expr) or ""
        if qual in tfdata.SOURCES or api.returns(qual) is Kind.DATASET:
            return True  # Dataset.zip(...), TFRecordDataset(...)
        func = expr.func
        return (
            qual == ""
            and isinstance(func, cst.Attribute)
            and func.attr.value in tfdata.NESTED_DATASET_METHODS
            and self._is_chain_on_dataset(func.value)
        )

    def _is_chain_on_dataset(self, expr: cst.BaseExpression) -> bool:
        """``ds_.unbatch().window(...)``: a method chain that includes ``window``/``unbatch``
        or starts at a dataset constructor (a bare ``x.batch(n)`` may be anything)."""
        while isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
            if expr.func.attr.value in tfdata.NESTING_METHODS:
                return True
            if self._is_dataset_expr(expr):
                return True
            expr = expr.func.value
        return False


def _python(name: str) -> bool:
    return bool(api.effects(name) & Effect.PYTHON) or name in tfdata.PYTHON_CALLS


def _tokenizer(qual: str) -> bool:
    """TextVectorization, KerasNLP / KerasHub / TF Text tokenizers, and a model's
    tokenizer from a preset (``keras_hub.models.BertTokenizer.from_preset``)."""
    if qual in tfdata.TOKENIZER_CLASSES or qual.startswith(tfdata.TOKENIZER_PREFIXES):
        return True
    if qual.startswith(tfdata.TOKENIZER_MODEL_PREFIXES):
        return any(part.endswith("Tokenizer") for part in qual.split(".")[2:])
    return False


def _class_name(qual: str) -> str:
    """``TextVectorization``, ``RandomFlip``; ``Tokenizer`` for ``...Tokenizer.from_preset``."""
    parts = qual.split(".")
    return next(
        (p for p in reversed(parts) if p.endswith(("Tokenizer", "Vectorization"))), parts[-1]
    )


def _rank(shown: str) -> int:
    """Which work a message names first: reads, then decoding, Python, images, text."""
    for rank, marks in enumerate(tfdata.WORK_RANKS):
        if any(mark in shown for mark in marks):
            return rank
    return len(tfdata.WORK_RANKS)
