"""Is the input of an inference call one sample?

Either the source makes a batch of one (``x[None]``, ``np.expand_dims(x,
0)``, ``s.reshape(1, -1)``, ``[image]`` for a helper that batches a list:
``analysis/samples.py``), or the caller takes the first row of the output
(``predict(x)[0]``, ``np.argmax(predict(x))``, ``r = predict(x)`` then
``r[0]``), which only makes sense for one sample.
"""

from __future__ import annotations

from typing import Optional

from tflint_perf.analysis.api import Kind, keras
from tflint_perf.analysis.samples import batch_of_one, built_with_rows
from tflint_perf.analysis.semantic import BindingKind, SemanticModel
from tflint_perf.analysis.values import Values
from tflint_perf.engine import cst
from tflint_perf.engine.nodes import assigned_name
from tflint_perf.engine.walk import descendants

# Element-wise steps a prediction may pass through before it is reduced to one.
_FLATTENING = frozenset({"ravel", "flatten", "squeeze"})


def one_sample(
    ctx, sem, data, call: cst.Call, region: cst.CSTNode, varies: bool = True
) -> Optional[cst.CSTNode]:
    """The expression showing that ``data`` is one sample, else None. Keeping
    the first row of the output counts only for an input that changes per
    iteration and that the source does not build with several rows."""

    def value(name):
        return _value_entering(ctx, sem, name, region)

    made = batch_of_one(ctx, data, value)
    if made is not None:
        return made
    if _one_text(ctx, data):
        return data
    if (
        varies
        and isinstance(data, (cst.Name, cst.Attribute))
        and not built_with_rows(ctx, data, sem.value_of)
        and first_of_result(ctx, call, region)
        and not several_outputs(ctx, call)
    ):
        return data
    return None


def _one_text(ctx, data) -> bool:
    """``[text]``: a list of one string is one row for a text model (a list of one
    array would be a model's list of inputs, each its own batch)."""
    if not (isinstance(data, cst.List) and len(data.elements) == 1):
        return False
    item = data.elements[0]
    return not isinstance(item, cst.StarredElement) and (
        ctx.shared(Values).kind(item.value) is Kind.STRING
    )


def several_outputs(ctx, call: cst.Call) -> bool:
    """The model called was built with a list of outputs (``Model(x, [a, b])``):
    ``[0]`` of its result is its first output, not the first row."""
    func = call.func
    model = func.value if isinstance(func, cst.Attribute) else func
    made = ctx.shared(Values).constructed_by(model)  # through aliases and attributes
    return bool(made) and all(_built_with_outputs(ctx, c) for c in made)


def _built_with_outputs(ctx, built) -> bool:
    if not isinstance(built, cst.Call) or ctx.call_name(built) not in keras.FUNCTIONAL:
        return False
    outputs = [a.value for a in built.args if a.keyword is None][1:2]
    outputs += [a.value for a in built.args if a.keyword and a.keyword.value == "outputs"]
    return any(_several(ctx, o) for o in outputs)


def _several(ctx, outputs) -> bool:
    """A literal list of several outputs, or a list the code fills with them
    (``heads = []`` ... ``heads.append(decode(fm))``)."""
    if isinstance(outputs, (cst.List, cst.Tuple)):
        return len(outputs.elements) > 1
    sem = ctx.shared(SemanticModel)
    filled = False
    for _ in range(4):  # through aliases (``outs = heads``)
        if not isinstance(outputs, cst.Name):
            return False
        found = sem.lookup_name(outputs)  # the appends reaching it included
        filled = filled or any(b.kind is BindingKind.MUTATION for b in found)
        made = [b for b in found if b.plain]
        if len(made) != 1:
            return False
        filled = filled or bool(sem.changed_unseen(made[0]))  # appended by a helper
        outputs = made[0].value
        if isinstance(outputs, cst.List):
            return filled
    return False


def _value_entering(ctx, sem, name, region: cst.CSTNode):
    """The value ``name`` holds where it is read; in a loop that rebinds it
    (``h`` fed back from the prediction), the value it enters the loop with."""
    found = sem.origins(name)  # through in-place changes (``x[0] = i`` keeps the shape)
    if len(found) == 1:
        return found[0].value if found[0].plain else None
    outside = [b for b in found if not ctx.contains(region, b.statement)]
    if len(outside) == 1 and outside[0].plain:
        return outside[0].value
    return None


def one_item(ctx, sem, arg) -> Optional[cst.CSTNode]:
    """What makes a helper's argument one sample: ``[image]`` (a list of one item
    for a helper that batches a list) or a batch of one."""
    value = arg
    for _ in range(3):
        if not isinstance(value, cst.Name):
            break
        value = sem.value_of(value)
    if isinstance(value, cst.List) and len(value.elements) == 1:
        if not isinstance(value.elements[0], cst.StarredElement):
            return value
    return batch_of_one(ctx, arg, sem.value_of)


def first_of_result(ctx, call: cst.Call, region: cst.CSTNode) -> bool:
    """The caller keeps only the first row of the output, on the call or on the
    name it is assigned to (in ``region``)."""
    if reduced_to_one(ctx, call):
        return True
    parent = ctx.parent(call)
    while isinstance(parent, cst.Attribute) and parent.attr.value in _FLATTENING:
        parent = ctx.parent(ctx.parent(parent))  # r = predict(x).ravel()
    result = assigned_name(parent)
    if result is None:
        return False
    reads = [
        node
        for node in descendants(region, skip_scopes=True)
        if isinstance(node, cst.Name)
        and node.value == result
        and node is not parent.targets[0].target
    ]
    if any(_item_past_the_first(ctx, node) for node in reads):
        return False  # ``r[0]`` and ``r[1]``: a model's outputs, not the rows of one sample
    return any(reduced_to_one(ctx, node) for node in reads)


def _item_past_the_first(ctx, node: cst.CSTNode) -> bool:
    """``node[1]``, ``node[2]``...: an item one sample's output has not got."""
    parent = ctx.parent(node)
    if not (isinstance(parent, cst.Subscript) and parent.value is node and parent.slice):
        return False
    index = parent.slice[0].slice
    return (
        isinstance(index, cst.Index)
        and isinstance(index.value, cst.Integer)
        and index.value.evaluated_value > 0
    )


def reduced_to_one(ctx, node: cst.CSTNode) -> bool:
    """``node`` (a prediction) is indexed ``[0]``, given whole to ``np.argmax``, or
    used as the probabilities of ``np.random.choice``, directly or through
    element-wise arithmetic, ``abs`` or ``.ravel()``."""
    for _ in range(4):
        parent = ctx.parent(node)
        if isinstance(parent, cst.Subscript) and parent.value is node:
            return _index_zero(parent)
        if isinstance(parent, cst.Arg):
            outer = ctx.parent(parent)
            qual = ctx.call_name(outer) or ""
            if qual == "numpy.argmax" and len(outer.args) == 1:
                return True
            if qual == "numpy.random.choice" and parent.keyword is not None:
                return parent.keyword.value == "p"
            if not (isinstance(outer, cst.Call) and qual in ("", "numpy.abs") and _is_abs(outer)):
                return False
            node = outer
        elif isinstance(parent, (cst.BinaryOperation, cst.UnaryOperation)):
            node = parent
        elif isinstance(parent, cst.Attribute) and parent.attr.value in _FLATTENING:
            outer = ctx.parent(parent)
            if not (isinstance(outer, cst.Call) and outer.func is parent):
                return False
            node = outer
        else:
            return False
    return False


def _is_abs(call: cst.Call) -> bool:
    func = call.func
    last = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", "")
    return len(call.args) == 1 and last == "abs"


def _index_zero(sub: cst.Subscript) -> bool:
    index = sub.slice[0].slice
    return (
        isinstance(index, cst.Index)
        and isinstance(index.value, cst.Integer)
        and index.value.value == "0"
    )
