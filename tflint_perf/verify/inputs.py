"""Inputs for a flagged function that nothing in its module calls.

Planner side (no TensorFlow): decide, per parameter, the role it plays for
the rule that flagged the function and the array it gets (``specs``).
Worker side: ``build`` turns a spec into a tensor (seeded, float32).

Roles per rule live here; a rule module may also carry a data attribute
``verify_roles = {"role": "kind"}`` (read with getattr, never required).
Kinds: ``matrix`` (rows x 32, rows = size), ``image`` (side x side, side =
2*sqrt(size)), ``kernel`` (3 x 3), ``vector`` (size).
"""

from __future__ import annotations

import ast
import math
import re
from typing import Dict, List, Optional, Tuple

# role -> kind, per rule
ROLES: Dict[str, Dict[str, str]] = {
    "TFP101": {"iterated": "matrix"},
    "TFP102": {"image": "image", "kernel": "kernel"},
    "TFP103": {"iterated": "matrix"},
}

_KERNEL_NAME = re.compile(r"^(k|w|kern|kernel|kernels|filter|filters|weights?|mask|window)(_\w+)?$", re.I)


def shape_of(kind: str, size: int) -> List[int]:
    if kind == "matrix":
        return [size, 32]
    if kind == "image":
        side = max(8, 2 * int(math.isqrt(size)))
        return [side, side]
    if kind == "kernel":
        return [3, 3]
    if kind == "vector":
        return [size]
    raise ValueError(kind)


# Input roles this module can synthesise, and how the rules' own words for
# kinds map onto ours. A rule's ``verify_roles`` also holds other keys
# (``call_site``, ``measure``, ...): those say how to run it, not what to feed it.
INPUT_ROLES = {"iterated", "image", "kernel"}
KINDS = {"matrix", "image", "kernel", "vector"}
KIND_ALIASES = {"tensor": "matrix", "array": "matrix", "2-D": None, "2d": None}


def input_roles(rule_roles) -> Dict[str, str]:
    """The synthesisable roles a rule declares, with their kinds in this module's words."""
    out: Dict[str, str] = {}
    if not isinstance(rule_roles, dict):
        return out
    for role, kind in rule_roles.items():
        role, kind = str(role), str(kind)
        if role not in INPUT_ROLES:
            continue
        if kind in KINDS:
            out[role] = kind
        elif kind in KIND_ALIASES:
            # "2-D" names the rank; the role says which 2-D array it is
            out[role] = KIND_ALIASES[kind] or {"iterated": "matrix"}.get(role, role)
    return out


def _params(func: ast.FunctionDef) -> Tuple[List[str], List[str]]:
    """(parameters that need a value, parameters with defaults)."""
    args = func.args
    positional = list(args.posonlyargs) + list(args.args)
    with_default = {a.arg for a in positional[len(positional) - len(args.defaults):]} if args.defaults else set()
    with_default |= {a.arg for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None}
    needed = [a.arg for a in positional + list(args.kwonlyargs) if a.arg not in with_default]
    if needed and needed[0] in ("self", "cls"):
        needed = needed[1:]
    return needed, sorted(with_default)


def _iterated(func: ast.FunctionDef, line: int, end_line: int) -> set:
    """Parameters a loop at the finding iterates over or indexes."""
    names = set()
    for loop in ast.walk(func):
        if not isinstance(loop, (ast.For, ast.While)) or not (loop.lineno <= end_line and line <= loop.end_lineno):
            continue
        if isinstance(loop, ast.For):
            names |= {n.id for n in ast.walk(loop.iter) if isinstance(n, ast.Name)}
        for node in ast.walk(loop):
            if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
                names.add(node.value.id)
    return names


def plan_inputs(
    code: str, func: ast.FunctionDef, line: int, end_line: int, size: int, rule_roles: Optional[dict] = None
) -> Tuple[Optional[dict], str]:
    """({param: spec} for every parameter without a default, "") or (None, why not)."""
    roles = dict(ROLES.get(code, {}))
    roles.update(input_roles(rule_roles))
    needed, _ = _params(func)
    if func.args.vararg is not None and not needed:
        pass
    if not needed:
        return {}, ""
    if not roles:
        return None, f"{code} does not know what inputs `{func.name}` takes ({', '.join(needed)})"
    iterated = _iterated(func, line, end_line)
    specs: dict = {}
    for name in needed:
        if "kernel" in roles and _KERNEL_NAME.match(name):
            role = "kernel"
        elif "image" in roles and name in iterated:
            role = "image"
        elif "iterated" in roles and name in iterated:
            role = "iterated"
        else:
            return None, f"parameter `{name}` of `{func.name}` has no role {code} can synthesise"
        kind = roles[role]
        try:
            specs[name] = {"role": role, "kind": kind, "shape": shape_of(kind, size), "dtype": "float32"}
        except ValueError:
            return None, f"unknown input kind {kind!r} for role {role!r}"
    return specs, ""


def build(spec: dict, tf=None, seed: int = 0):
    """Worker side: the array for one spec (a tf tensor when TensorFlow is loaded)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    value = rng.standard_normal(spec["shape"]).astype(spec.get("dtype", "float32"))
    return tf.constant(value) if tf is not None else value
