"""What a value is: a tensor, a NumPy array, a dataset, a Keras model ...

``Values(ctx)`` (one per file: ``ctx.shared(Values)``) answers ``kind(expr)``
from the API table and the semantic model, following the value through
assignments, aliases (``t = p[i]``), tuple unpacking (``(x, y), _ =
mnist.load_data()``), loop targets (a row of an array, a batch of a
dataset), ``with`` targets, attributes set in any method (``self.model =
build()``), subscripts, container elements (``xs.append(t)``), the returns of
the module's (and the tree's) functions and the instances of its classes.

Precision over recall: a name with bindings of different kinds is UNKNOWN.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Set

from tflint_perf.analysis import api
from tflint_perf.analysis.api import Kind
from tflint_perf.analysis.api.keras import LAYER_BASES, MODEL_BASES
from tflint_perf.analysis.api.others import RECORD_FIELDS
from tflint_perf.analysis.api.tables import SAME_KIND
from tflint_perf.analysis.api.tensorflow import TYPE_ANNOTATIONS, WHERE
from tflint_perf.analysis.calls import CallGraph
from tflint_perf.analysis.functions import decorator_call
from tflint_perf.analysis.scopes import declared_type
from tflint_perf.analysis.semantic import Binding, BindingKind, SemanticModel
from tflint_perf.engine import cst

# What iterating a value of this kind gives.
_ELEMENTS = {
    Kind.ARRAY: Kind.ARRAY,  # rows (or numbers, for a 1-D array)
    Kind.TENSOR: Kind.TENSOR,
    Kind.DATASET: Kind.TENSOR,  # elements or batches (tuples of tensors too)
    Kind.ITERATOR: Kind.TENSOR,
    Kind.VARIABLE: Kind.TENSOR,
}
_ARRAYS = (Kind.TENSOR, Kind.ARRAY, Kind.VARIABLE)
_DEPTH = 12
_ALIASES = 5  # names for one class or object followed (a = b; c = a)
_PENDING = object()


class Values:
    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.sem: SemanticModel = ctx.shared(SemanticModel)
        self._kinds: Dict[cst.CSTNode, object] = {}
        self._classes: Dict[cst.ClassDef, Kind] = {}
        self._returns: Optional[Dict[cst.FunctionDef, List[cst.Return]]] = None
        self._pending: Set[tuple] = set()  # parameters whose callers are being read
        self._constructing: Set[cst.CSTNode] = set()  # objects whose sources are being read
        self._made: Dict[cst.CSTNode, Optional[List[cst.CSTNode]]] = {}  # constructed_by's

    # -- the question ----------------------------------------------------------
    def kind(self, expr: Optional[cst.CSTNode], depth: int = 0) -> Kind:
        """What ``expr`` evaluates to, as far as the source shows."""
        if expr is None or depth > _DEPTH:
            return Kind.UNKNOWN
        known = self._kinds.get(expr)
        if known is _PENDING:
            return Kind.UNKNOWN  # a cycle (x = f(x)): no evidence from itself
        if isinstance(known, Kind):
            return known
        self._kinds[expr] = _PENDING
        found = self._kind(expr, depth + 1)
        self._kinds[expr] = found
        return found

    def is_array(self, expr) -> bool:
        """A tensor, NumPy array or variable."""
        return self.kind(expr) in _ARRAYS

    def _kind(self, expr: cst.CSTNode, depth: int) -> Kind:
        if isinstance(expr, (cst.Integer, cst.Float, cst.Imaginary)):
            return Kind.SCALAR
        if isinstance(expr, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
            return Kind.STRING
        if isinstance(expr, (cst.List, cst.Tuple, cst.ListComp, cst.GeneratorExp, cst.Set)):
            return Kind.LIST
        if isinstance(expr, (cst.Dict, cst.DictComp)):
            return Kind.DICT
        if isinstance(expr, cst.Name):
            if expr.value in ("True", "False"):
                return Kind.SCALAR
            if expr.value == "None":
                return Kind.NONE
            return self.of_bindings(self.sem.origins(expr), depth)
        if isinstance(expr, cst.Attribute):
            return self._attribute(expr, depth)
        if isinstance(expr, cst.Call):
            return self._call(expr, depth)
        if isinstance(expr, cst.Subscript):
            return self._subscript(expr, depth)
        if isinstance(expr, cst.BinaryOperation):
            return _combine(self.kind(expr.left, depth), self.kind(expr.right, depth))
        if isinstance(expr, cst.UnaryOperation):
            inner = self.kind(expr.expression, depth)
            return Kind.SCALAR if isinstance(expr.operator, cst.Not) else inner
        if isinstance(expr, cst.IfExp):
            body, other = self.kind(expr.body, depth), self.kind(expr.orelse, depth)
            return body if body == other else Kind.UNKNOWN
        if isinstance(expr, cst.Comparison):
            sides = [self.kind(expr.left, depth)] + [
                self.kind(c.comparator, depth) for c in expr.comparisons
            ]
            return next((k for k in sides if k in _ARRAYS), Kind.SCALAR)
        return Kind.UNKNOWN

    # -- names -----------------------------------------------------------------
    def of_bindings(self, bindings: List[Binding], depth: int = 0) -> Kind:
        kinds: Set[Kind] = set()
        for binding in bindings:
            if binding.kind in (BindingKind.MUTATION, BindingKind.AUGMENTED, BindingKind.DELETION):
                continue  # the object changes, not what it is
            kinds.add(self.binding_kind(binding, depth))
        if len(kinds) == 1:
            return kinds.pop()
        kinds.discard(Kind.NONE)  # ``x = None`` first, the real value later
        return kinds.pop() if len(kinds) == 1 else Kind.UNKNOWN

    def binding_kind(self, binding: Binding, depth: int = 0) -> Kind:
        kind = binding.kind
        if binding.plain:
            return self.kind(binding.value, depth)
        if kind is BindingKind.ASSIGNMENT and binding.source is not None:
            return self._unpacked(binding.source, binding.path, depth)
        if kind is BindingKind.LOOP_TARGET and binding.source is not None:
            return self._iterated(binding.source, binding.path, depth)
        if kind is BindingKind.WITH_TARGET:
            return self.kind(binding.value, depth)
        if kind is BindingKind.PARAMETER:
            return self._parameter(binding, depth)
        if kind is BindingKind.FUNCTION and isinstance(binding.statement, cst.FunctionDef):
            return Kind.TF_FUNCTION if self.is_compiled(binding.statement) else Kind.UNKNOWN
        if kind is BindingKind.IMPORT:
            facts = self.project_facts(binding.qualname)
            if facts is not None and facts.get("kind") == "value":
                return Kind(facts["value_kind"])
        return Kind.UNKNOWN

    def is_compiled(self, func: cst.FunctionDef) -> bool:
        """Decorated with ``tf.function``."""
        return decorator_call(self.ctx, func) is not None

    # -- the other modules of the tree -------------------------------------------
    def project_facts(self, qualname: Optional[str]) -> Optional[dict]:
        """The facts of a name another module of the tree exports (None: the API
        table knows it, it is not of the tree, or this run lints one file)."""
        project = self.ctx.project
        if project is None or not qualname or api.call(qualname) is not None:
            return None
        return project.symbol(qualname)

    def _parameter(self, binding: Binding, depth: int) -> Kind:
        annotation = declared_type(binding)
        if annotation is not None:
            found = TYPE_ANNOTATIONS.get(self.ctx.qualname(annotation) or "")
            if found is not None:
                return found
        func = binding.scope.function
        if func is None:
            return Kind.UNKNOWN
        graph = self._graph()
        passed = [graph.argument(call, func, binding.name) for call in graph.callers(func)]
        if not passed or any(arg is None for arg in passed):
            return Kind.UNKNOWN
        kinds = {self.kind(arg, depth) for arg in passed}
        return kinds.pop() if len(kinds) == 1 else Kind.UNKNOWN

    def _unpacked(self, source, path: tuple, depth: int) -> Kind:
        """The kind of element ``path`` of ``source`` (``a, b = source``)."""
        if isinstance(source, cst.Call):
            facts = self.call_facts(source, depth)
            if facts is not None and facts.returns_tuple:
                if facts.nested:  # ((x, y), (x, y)) = load_data(): arrays two levels down
                    return Kind.ARRAY if len(path) == 2 else Kind.LIST
                return _element_of_tuple(facts.returns, len(path))
            if _is_builtin(source, "zip", "enumerate"):
                return self._iterated(source, path[1:], depth) if len(path) > 1 else Kind.UNKNOWN
            if len(path) == 1:
                return self._returned_item(source, path[0], depth)
        return Kind.UNKNOWN

    def call_facts(self, call: cst.Call, depth: int = 0) -> Optional[api.Api]:
        """The API table's facts of a function, or of a method of a known kind."""
        if self.ctx.call_name(call) is not None:
            return api.call(self.ctx.call_name(call))
        if isinstance(call.func, cst.Attribute):
            return api.method(self.kind(call.func.value, depth + 1), call.func.attr.value)
        return None

    def _returned_item(self, call: cst.Call, index: int, depth: int) -> Kind:
        """Item ``index`` of the tuple every ``return`` of a module function spells
        out (``return words, train_x``), or a tree function's exported ``items``."""
        items = (self._graph().external(call) or {}).get("items") or ()
        if index < len(items):
            return Kind(items[index])
        kinds = set()
        for func in self._graph().resolve(call):
            for ret in self.returns(func):
                items = ret.value
                if not isinstance(items, (cst.Tuple, cst.List)) or any(
                    isinstance(e, cst.StarredElement) for e in items.elements
                ):
                    return Kind.UNKNOWN
                if index >= len(items.elements):
                    return Kind.UNKNOWN
                kinds.add(self.kind(items.elements[index].value, depth + 1))
        return kinds.pop() if len(kinds) == 1 else Kind.UNKNOWN

    def _iterated(self, iterable, path: tuple, depth: int) -> Kind:
        """The kind of what ``for target in iterable`` binds at ``path``."""
        if isinstance(iterable, cst.Call):
            if _is_builtin(iterable, "range"):
                return Kind.SCALAR
            if _is_builtin(iterable, "enumerate") and iterable.args:
                if not path:
                    return Kind.LIST
                if path[0] == 0:
                    return Kind.SCALAR
                return self._iterated(iterable.args[0].value, path[1:], depth)
            if _is_builtin(iterable, "zip"):
                if not path:
                    return Kind.LIST
                if path[0] < len(iterable.args):
                    return self._iterated(iterable.args[path[0]].value, path[1:], depth)
                return Kind.UNKNOWN
            if _is_builtin(iterable, "reversed", "sorted", "list", "tqdm", "iter"):
                if iterable.args:
                    return self._iterated(iterable.args[0].value, path, depth)
        whole = self.kind(iterable, depth)
        element = _ELEMENTS.get(whole)
        if element is not None:
            return element
        if whole is Kind.LIST and not path:
            return self.element_kind(iterable, depth)
        return Kind.UNKNOWN

    def element_kind(self, container, depth: int = 0) -> Kind:
        """The kind of the elements of a list: its literal items, the element of a
        comprehension, or what is appended to the list name."""
        if isinstance(container, (cst.List, cst.Tuple)):
            kinds = {self.kind(e.value, depth) for e in container.elements}
            return kinds.pop() if len(kinds) == 1 else Kind.UNKNOWN
        if isinstance(container, (cst.ListComp, cst.GeneratorExp)):
            return self.kind(container.elt, depth)
        if isinstance(container, cst.Attribute) and container.attr.value == "layers":
            if self.kind(container.value, depth) is Kind.KERAS_MODEL:
                return Kind.LAYER
        if isinstance(container, cst.Call):  # ``tf.trainable_variables()``: variables
            facts = api.call(self.ctx.call_name(container))
            return facts.elements if facts is not None else Kind.UNKNOWN
        if isinstance(container, (cst.Name, cst.Attribute)):
            kinds = set()
            for binding in self.sem.lookup_name(container):
                if binding.plain and isinstance(binding.value, (cst.List, cst.Tuple)):
                    if binding.value.elements:
                        kinds.add(self.element_kind(binding.value, depth + 1))
                elif binding.kind is BindingKind.MUTATION and isinstance(binding.value, cst.Call):
                    if binding.value.args:
                        kinds.add(self.kind(binding.value.args[0].value, depth + 1))
                elif binding.plain:
                    kinds.add(self.element_kind(binding.value, depth + 1))
            return kinds.pop() if len(kinds) == 1 else Kind.UNKNOWN
        return Kind.UNKNOWN

    # -- attributes, calls, subscripts ------------------------------------------------
    def _attribute(self, expr: cst.Attribute, depth: int) -> Kind:
        found = self.sem.origins(expr)
        if found:
            return self.of_bindings(found + self._set_from_outside(expr), depth)
        qualname = self.ctx.qualname(expr)
        if qualname is not None:
            facts = api.call(qualname)
            return Kind.UNKNOWN if facts is None else _constant_kind(facts)
        attr = expr.attr.value
        inner = self.kind(expr.value, depth)
        if attr == "T" and inner in _ARRAYS:
            return inner
        if attr == "layers" and inner is Kind.KERAS_MODEL:
            return Kind.LIST
        if inner is Kind.ARRAY_RECORD:
            return RECORD_FIELDS.get(attr, Kind.ARRAY)
        if attr in ("output", "input") and inner in (Kind.KERAS_MODEL, Kind.LAYER):
            return Kind.TENSOR
        owner = self.instance_class(expr.value)
        if owner is not None:
            attrs = []
            for cls in self.sem.class_and_bases(owner):
                attrs += self.sem.class_attributes.get(cls, {}).get(attr, [])
            return self.of_bindings(attrs, depth)
        held = (self.external_class(expr.value) or {}).get("attributes") or {}
        return Kind(held[attr]) if attr in held else Kind.UNKNOWN

    def _call(self, call: cst.Call, depth: int) -> Kind:
        func = call.func
        qualname = self.ctx.call_name(call)
        if qualname is not None:
            if qualname == WHERE:
                return Kind.ARRAY if len(call.args) == 3 else Kind.LIST
            exported = self.project_facts(qualname)
            if exported is not None:
                field = "value_kind" if exported.get("kind") == "class" else "returns"
                return Kind(exported.get(field, Kind.UNKNOWN.value))
            return api.returns(qualname)
        if isinstance(func, cst.Attribute):
            name = func.attr.value
            if name == "numpy":
                return Kind.ARRAY
            receiver = self.kind(func.value, depth)
            facts = api.method(receiver, name)
            if facts is not None:
                return receiver if name in SAME_KIND else facts.returns
            method = self._graph().external(call)
            if method is not None:
                return Kind(method.get("returns", Kind.UNKNOWN.value))
        if isinstance(func, cst.Name) and not self.sem.lookup_name(func):
            return api.returns(func.value)  # a builtin: ``list(xs)``, ``dict(pairs)``
        called = self.kind(func, depth)
        if called in (Kind.KERAS_MODEL, Kind.LAYER):
            return Kind.TENSOR
        cls = self.class_called(call)
        if cls is not None:
            return self.class_kind(cls)
        kinds = set()
        for target in self._graph().resolve(call):
            kinds |= {self.kind(r.value, depth) for r in self.returns(target)}
        return kinds.pop() if len(kinds) == 1 else Kind.UNKNOWN

    def returns(self, func: cst.FunctionDef) -> List[cst.Return]:
        """The ``return value`` statements of ``func`` (not of functions inside it)."""
        if self._returns is None:
            self._returns = {}
            for node in self.ctx.nodes(cst.Return):
                owner = self.sem.function_of(node)
                if owner is not None and node.value is not None:
                    self._returns.setdefault(owner, []).append(node)
        return self._returns.get(func, [])

    def _graph(self):
        return self.ctx.shared(CallGraph)

    def _subscript(self, expr: cst.Subscript, depth: int) -> Kind:
        base = self.kind(expr.value, depth)
        if base in _ARRAYS:
            return Kind.TENSOR if base is Kind.VARIABLE else base
        if base in (Kind.LIST, Kind.ITERATOR):
            return self.element_kind(expr.value, depth)
        if base is Kind.ARRAY_STORE:
            return Kind.ARRAY
        return Kind.UNKNOWN

    # -- classes and instances ----------------------------------------------------
    def class_called(self, call: cst.Call) -> Optional[cst.ClassDef]:
        """The class of this module that ``call`` instantiates (also through an
        alias of the class: ``Cls = Agent``; ``Cls()``)."""
        return self._class_named(call.func, 0)

    def _class_named(self, expr: cst.BaseExpression, depth: int) -> Optional[cst.ClassDef]:
        if not isinstance(expr, cst.Name) or depth > _ALIASES:
            return None
        for binding in self.sem.lookup_name(expr):
            if isinstance(binding.statement, cst.ClassDef):
                return binding.statement
            if binding.plain and isinstance(binding.value, cst.Name):
                found = self._class_named(binding.value, depth + 1)
                if found is not None:
                    return found
        return None

    def derives_from(self, cls: cst.ClassDef, bases: frozenset) -> bool:
        """Whether ``cls`` (or a base class of the module) names one of ``bases``."""
        return any(
            self.ctx.qualname(b.value) in bases
            for each in self.sem.class_and_bases(cls)
            for b in each.bases
        )

    def class_kind(self, cls: cst.ClassDef) -> Kind:
        """KERAS_MODEL for a ``keras.Model`` subclass (through module bases), LAYER for
        a ``Layer`` subclass, else UNKNOWN."""
        known = self._classes.get(cls)
        if known is None:
            known = self._classes[cls] = Kind.UNKNOWN  # cycles
            for each in self.sem.class_and_bases(cls):
                quals = {self.ctx.qualname(b.value) for b in each.bases}
                if quals & MODEL_BASES:
                    known = Kind.KERAS_MODEL
                    break
                if quals & LAYER_BASES:
                    known = Kind.LAYER
                    break
            self._classes[cls] = known
        return known

    def instance_class(self, expr: cst.CSTNode) -> Optional[cst.ClassDef]:
        """The class of this module an object is an instance of: ``self`` in a
        method, or the one class every constructor call it comes from builds."""
        classes = self.instance_classes(expr)
        return classes[0] if len(classes) == 1 else None

    def instance_classes(self, expr: cst.CSTNode) -> List[cst.ClassDef]:
        """The classes of this module an object may be an instance of, when every
        constructor call it comes from builds one (``run(agent)`` called with an
        ``Agent()`` and a ``RandomAgent()``); empty when a source is unknown."""
        made = self.constructed_by(expr)
        if made is None:
            return []
        classes = {self.class_called(c) if isinstance(c, cst.Call) else c for c in made}
        found = [c for c in classes if isinstance(c, cst.ClassDef)]
        if len(found) < len(classes):
            return []
        return sorted(found, key=lambda c: self.ctx.span(c)[0])

    def external_class(self, expr: cst.CSTNode) -> Optional[dict]:
        """The exported facts of the class, of another module of the tree, an
        object is an instance of (``self.net = QNetwork(...)``)."""
        if self.ctx.project is None:
            return None
        made = self.constructed_by(expr)
        if made is None and isinstance(expr, cst.Name):
            found = self.sem.lookup_name(expr)
            declared = declared_type(found[0]) if len(found) == 1 else None
            facts = self.project_facts(self.ctx.qualname(declared)) if declared else None
            return facts if facts is not None and facts.get("kind") == "class" else None
        if not made or not all(isinstance(c, cst.Call) for c in made):
            return None
        names = {self.ctx.call_name(c) for c in made if isinstance(c, cst.Call)}
        facts = self.project_facts(names.pop()) if len(names) == 1 else None
        return facts if facts is not None and facts.get("kind") == "class" else None

    def constructed_by(self, expr: cst.CSTNode, depth: int = 0) -> Optional[List[cst.CSTNode]]:
        """The calls an object comes from (``C(...)``), through aliases,
        attributes set in any method, and parameters every caller passes such
        an object (``A2CAgent(model)`` then ``self.model = model``); for
        ``self`` in a method, its class. None when some source is unknown."""
        if isinstance(expr, cst.Call):
            return [expr]
        if isinstance(expr, cst.IfExp) and depth <= 6:  # A() if c else B(): either
            body = self.constructed_by(expr.body, depth + 1)
            orelse = self.constructed_by(expr.orelse, depth + 1)
            return body + orelse if body is not None and orelse is not None else None
        if depth > 6 or not isinstance(expr, (cst.Name, cst.Attribute)):
            return None
        if expr in self._constructing:
            return None  # ``self.w = self.w.copy()``: a value made from itself
        # Asked afresh (no object or parameter being read), the answer depends on
        # ``expr`` alone, unless it read the index of direct callers while that
        # was being built (``CallGraph.partial_reads``): kept, as analyses ask
        # it of the same receivers again and again.
        fresh = not self._constructing and not self._pending
        if fresh and expr in self._made:
            made = self._made[expr]
            return list(made) if made is not None else None
        graph = self._graph()
        partial = graph.partial_reads
        self._constructing.add(expr)
        try:
            found = self._constructed_by(expr, depth)
        finally:
            self._constructing.discard(expr)
        if fresh and graph.partial_reads == partial:
            self._made[expr] = list(found) if found is not None else None
        return found

    def settled(self) -> bool:
        """No object or parameter is being read and the index of direct callers
        is complete or not begun: what ``constructed_by`` answers now depends
        on its question alone."""
        return not self._constructing and not self._pending and not self._graph().indexing

    def _constructed_by(self, expr: cst.BaseExpression, depth: int) -> Optional[List[cst.CSTNode]]:
        out: List[cst.CSTNode] = []
        for binding in self.sem.lookup_name(expr) or self._attribute_bindings(expr):
            if binding.kind in (BindingKind.MUTATION, BindingKind.AUGMENTED):
                continue
            if binding.kind is BindingKind.PARAMETER:
                found = self._parameter_sources(binding, depth)
            elif binding.plain and isinstance(binding.value, cst.Call):
                made = self._made_by_function(binding.value, None, depth)
                found = made if made is not None else [binding.value]
            elif binding.plain and isinstance(binding.value, (cst.Name, cst.Attribute, cst.IfExp)):
                found = self.constructed_by(binding.value, depth + 1)
            elif isinstance(binding.source, cst.Call) and len(binding.path) == 1:
                found = self._made_by_function(binding.source, binding.path[0], depth)
            else:
                found = None
            if found is None:
                return None
            out += found
        return out or None

    def _made_by_function(
        self, call: cst.Call, item: Optional[int], depth: int
    ) -> Optional[List[cst.CSTNode]]:
        """What a call of a module function (not a class) returns is made by (item
        ``item`` of the tuple each ``return`` spells out: ``agent, train = setup(env)``);
        None when the call is no such function or a return is unknown."""
        funcs = self._graph().resolve(call)
        if not funcs or self.class_called(call) is not None:
            return None
        out: List[cst.CSTNode] = []
        for func in funcs:
            for ret in self.returns(func):
                value = ret.value
                if item is not None:
                    if not isinstance(value, (cst.Tuple, cst.List)) or item >= len(value.elements):
                        return None
                    value = value.elements[item].value
                found = self.constructed_by(value, depth + 1) if value is not None else None
                if found is None:
                    return None
                out += found
        return out or None

    def _parameter_sources(self, binding: Binding, depth: int) -> Optional[List[cst.CSTNode]]:
        func = binding.scope.function
        if func is None:
            return None
        cls = self.sem.method_class(func)
        params = [*func.params.posonly_params, *func.params.params]
        if cls is not None and params and params[0] is binding.statement:
            return [cls]  # self
        key = (func, binding.name)
        if key in self._pending:
            return None
        self._pending.add(key)
        try:
            graph = self._graph()
            passed = [graph.argument(c, func, binding.name) for c in graph.direct_callers(func)]
            if not passed or any(a is None for a in passed):
                return None
            out: List[cst.CSTNode] = []
            for arg in passed:
                found = self.constructed_by(arg, depth + 1)
                if found is None:
                    return None
                out += found
            return out
        finally:
            self._pending.discard(key)

    def _set_from_outside(self, expr: cst.Attribute) -> List[Binding]:
        """``self.model`` where code outside the class sets it on an instance
        (``agent = Agent(); agent.model = build()``): those values too (an
        ``__init__`` that leaves ``self.model = None`` says nothing of the model)."""
        sets = self.sem.object_attributes.get(expr.attr.value)
        if not sets or self.sem.method_class(self.sem.function_of(expr)) is None:
            return []
        owner = self.instance_class(expr.value)
        if owner is None:
            return []
        out: List[Binding] = []
        for binding in sets:
            target = binding.node
            if not isinstance(target, cst.Attribute):
                continue
            made = self.instance_class(target.value)
            if made is not None and owner in self.sem.class_and_bases(made):
                out.append(binding)
        return out

    def _attribute_bindings(self, expr) -> List[Binding]:
        if not isinstance(expr, cst.Attribute):
            return []
        owner = self.instance_class(expr.value)
        if owner is None:
            return []
        out: List[Binding] = []
        for cls in self.sem.class_and_bases(owner):
            out += self.sem.class_attributes.get(cls, {}).get(expr.attr.value, [])
        return out


def _combine(left: Kind, right: Kind) -> Kind:
    if Kind.TENSOR in (left, right) or Kind.VARIABLE in (left, right):
        return Kind.TENSOR
    if Kind.ARRAY in (left, right):
        return Kind.ARRAY
    if left is right and left in (Kind.SCALAR, Kind.STRING, Kind.LIST):
        return left
    return Kind.UNKNOWN


def _element_of_tuple(kind: Kind, depth: int) -> Kind:
    if depth == 1:
        return Kind.ARRAY if kind is Kind.LIST else kind
    return Kind.UNKNOWN


def _constant_kind(facts: api.Api) -> Kind:
    """A module attribute read without a call (``tf.float32``, ``np.pi``)."""
    return Kind.SCALAR if facts.returns is Kind.SCALAR else Kind.UNKNOWN


def _is_builtin(call: cst.Call, *names: str) -> bool:
    return isinstance(call.func, cst.Name) and call.func.value in names
