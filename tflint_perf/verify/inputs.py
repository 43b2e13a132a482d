"""Inputs for a flagged function that nothing in its module calls.

Planner side (no TensorFlow): decide, per parameter, the role it plays for
the rule that flagged the function (the rule's ``verification.inputs``),
the array it gets, and whether that is a NumPy array or a tensor, from how
the function's body uses the parameter (``spec``). Worker side: ``build``
turns a spec into the value (seeded).

Kinds (``InputKind``): ``rows`` (size x 32), ``image`` (side x side, side =
2*sqrt(size)), ``kernel`` (3 x 3), ``vector`` (size).
"""

from __future__ import annotations

import ast
import math
import re
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from tflint_perf.engine.verification import Input, InputKind
from tflint_perf.verify.source import last_line

NUMPY, TENSOR = "numpy", "tensor"
# The module roots whose calls say how a parameter is used.
_ROOTS = {"numpy": NUMPY, "tensorflow": TENSOR, "keras": TENSOR}
# NumPy's default dtype is float64 (np.zeros accumulates in it); TensorFlow's is float32.
DTYPES = {NUMPY: "float64", TENSOR: "float32"}


def shape_of(kind: InputKind, size: int) -> List[int]:
    if kind is InputKind.ROWS:
        return [size, 32]
    if kind is InputKind.IMAGE:
        side = max(8, 2 * int(math.isqrt(size)))
        return [side, side]
    if kind is InputKind.KERNEL:
        return [3, 3]
    if kind is InputKind.VECTOR:
        return [size]
    if kind is InputKind.SCALAR:
        return []
    raise ValueError(kind)


def parameters(func: ast.FunctionDef) -> Tuple[List[str], List[str]]:
    """(parameters that need a value, parameters with defaults)."""
    args = func.args
    positional = list(args.posonlyargs) + list(args.args)
    with_default = (
        {a.arg for a in positional[len(positional) - len(args.defaults) :]}
        if args.defaults
        else set()
    )
    with_default |= {a.arg for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None}
    needed = [a.arg for a in positional + list(args.kwonlyargs) if a.arg not in with_default]
    if needed and needed[0] in ("self", "cls"):
        needed = needed[1:]
    return needed, sorted(with_default)


def _loops_at(func: ast.AST, line: int, end_line: int) -> Iterable[ast.AST]:
    kinds = (ast.For, ast.While, ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)
    for node in ast.walk(func):
        if isinstance(node, kinds) and node.lineno <= end_line and line <= last_line(node):
            yield node


def _iterated(func: ast.FunctionDef, line: int, end_line: int) -> set:
    """Parameters a loop (or comprehension) at the finding iterates over or indexes."""
    names = set()
    for loop in _loops_at(func, line, end_line):
        iters = [loop.iter] if isinstance(loop, ast.For) else []
        iters += [g.iter for g in getattr(loop, "generators", [])]
        for it in iters:
            names |= {n.id for n in ast.walk(it) if isinstance(n, ast.Name)}
        for node in ast.walk(loop):
            if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
                names.add(node.value.id)
    return names


def module_aliases(tree: Optional[ast.Module]) -> Dict[str, str]:
    """Local name -> NUMPY or TENSOR, for the module's imports of numpy, tensorflow, keras."""
    aliases: Dict[str, str] = {}
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Import):
            for alias in node.names:
                root = alias.name.split(".")[0]
                if root in _ROOTS:
                    aliases[alias.asname or root] = _ROOTS[root]
        elif isinstance(node, ast.ImportFrom) and node.module:
            root = node.module.split(".")[0]
            if root in _ROOTS:
                for alias in node.names:
                    aliases[alias.asname or alias.name] = _ROOTS[root]
    return aliases


def _call_root(call: ast.Call) -> str:
    node = call.func
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else ""


def array_kind(func: ast.FunctionDef, name: str, aliases: Dict[str, str]) -> str:
    """NUMPY or TENSOR: what the body does with ``name`` (np/tf calls it flows into), else the body's library."""
    votes = {NUMPY: 0, TENSOR: 0}
    body_votes = {NUMPY: 0, TENSOR: 0}
    for node in ast.walk(func):
        if not isinstance(node, ast.Call):
            continue
        library = aliases.get(_call_root(node))
        if library is None:
            continue
        body_votes[library] += 1
        arguments = list(node.args) + [k.value for k in node.keywords]
        if any(isinstance(n, ast.Name) and n.id == name for a in arguments for n in ast.walk(a)):
            votes[library] += 1
    for tally in (votes, body_votes):
        if tally[NUMPY] != tally[TENSOR]:
            return NUMPY if tally[NUMPY] > tally[TENSOR] else TENSOR
    return TENSOR if TENSOR in aliases.values() else NUMPY


def scalar_only(func: ast.FunctionDef, name: str) -> bool:
    """Whether every use of ``name`` in the body is as an operand of arithmetic or a comparison."""
    parents = {child: node for node in ast.walk(func) for child in ast.iter_child_nodes(node)}
    uses = [n for n in ast.walk(func) if isinstance(n, ast.Name) and n.id == name]
    if not uses:
        return False
    for node in uses:
        parent = parents.get(node)
        if not isinstance(parent, (ast.BinOp, ast.UnaryOp, ast.Compare, ast.AugAssign)):
            return False
        if isinstance(parent, ast.AugAssign) and parent.target is node:
            return False
    return True


def _role_of(
    name: str, roles: Sequence[Input], iterated: set, taken: set, func: ast.FunctionDef
) -> Optional[Input]:
    for role in roles:
        if role.role in taken and role.kind is not InputKind.SCALAR:
            continue
        if role.names:
            if re.fullmatch(role.names, name):
                return role
        elif role.kind is InputKind.SCALAR:
            if name not in iterated and scalar_only(func, name):
                return role
        elif name in iterated:
            return role
    return None


def plan_inputs(
    code: str,
    func: ast.FunctionDef,
    line: int,
    end_line: int,
    size: int,
    roles: Sequence[Input] = (),
    tree: Optional[ast.Module] = None,
) -> Tuple[Optional[dict], str]:
    """({param: spec} for every parameter without a default, "") or (None, why not)."""
    needed, _ = parameters(func)
    if not needed:
        return {}, ""
    if not roles:
        return None, f"{code} does not know what inputs `{func.name}` takes ({', '.join(needed)})"
    iterated = _iterated(func, line, end_line)
    aliases = module_aliases(tree)
    specs: dict = {}
    taken: set = set()
    # named roles first: "kernel" must not be taken for the iterated image
    ordered = sorted(
        needed, key=lambda n: not any(r.names and re.fullmatch(r.names, n) for r in roles)
    )
    for name in ordered:
        role = _role_of(name, roles, iterated, taken, func)
        if role is None:
            return None, f"parameter `{name}` of `{func.name}` has no role {code} can synthesise"
        taken.add(role.role)
        if role.kind is InputKind.SCALAR:
            specs[name] = {
                "role": role.role,
                "kind": role.kind.value,
                "shape": [],
                "array": "float",
                "dtype": "float64",
            }
            continue
        array = array_kind(func, name, aliases)
        specs[name] = {
            "role": role.role,
            "kind": role.kind.value,
            "shape": shape_of(role.kind, size),
            "array": array,
            "dtype": DTYPES[array],
        }
    return {name: specs[name] for name in needed}, ""


def describe(specs: dict) -> str:
    """``image: numpy float64 32x32, kernel: ...`` for the verdict's ``where``."""
    return ", ".join(
        f"{p}: a float"
        if s.get("kind") == "scalar"
        else f"{p}: {s['array']} {s['dtype']} {'x'.join(map(str, s['shape']))}"
        for p, s in specs.items()
    )


def build(spec: dict, tf=None, seed: int = 0):
    """Worker side: the value for one spec (a tensor when the body uses it as one)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    if spec.get("kind") == "scalar":
        return float(rng.uniform(0.5, 1.5))
    value = rng.standard_normal(spec["shape"]).astype(spec.get("dtype", "float32"))
    if spec.get("array") == TENSOR and tf is not None:
        return tf.constant(value)
    return value
