"""Materialise and compare what the flagged code produced (worker side).

Materialising (tensor -> numpy, dataset -> its elements, Keras model -> its
weights) is part of the timed run: it is also what synchronises a GPU
before the clock is read.
"""

from __future__ import annotations

import math

import numpy as np

SKIP = object()  # a value that is not compared (a function, a module, ...)
MAX_ELEMENTS = 100_000
# A dataset is measured and compared by its first elements (batches): enough for a
# pipeline's steady throughput, and the same elements in both variants.
DATASET_ELEMENTS = 512


class Materialiser:
    def __init__(self, tf=None) -> None:
        self.tf = tf

    def __call__(self, value, depth: int = 0):
        tf = self.tf
        if depth > 6:
            return SKIP
        if value is None or isinstance(value, (bool, int, float, complex, str, bytes, np.generic)):
            return value
        if isinstance(value, np.ndarray):
            return value
        if tf is not None:
            if isinstance(value, (tf.Tensor, tf.Variable)):
                return np.asarray(value)
            if isinstance(value, tf.RaggedTensor):
                return value.to_list()
            if isinstance(value, tf.data.Dataset):
                out = []
                for element in value.take(DATASET_ELEMENTS):
                    out.append(self(element, depth + 1))
                return out
        if isinstance(value, (list, tuple)):
            return [self(v, depth + 1) for v in value[:MAX_ELEMENTS]]
        if isinstance(value, dict):
            return {k: self(v, depth + 1) for k, v in list(value.items())[:MAX_ELEMENTS]}
        get_weights = getattr(value, "get_weights", None)
        if callable(get_weights) and not isinstance(value, type):
            try:
                return ("weights", [np.asarray(w) for w in get_weights()])
            except Exception:
                return SKIP
        history = getattr(value, "history", None)
        if isinstance(history, dict):  # keras History
            return self(history, depth + 1)
        if hasattr(value, "__array__") and not isinstance(value, type):
            try:
                return np.asarray(value)
            except Exception:
                return SKIP
        return SKIP


class Comparison:
    def __init__(self, rtol: float, atol: float) -> None:
        self.rtol, self.atol = rtol, atol
        self.compared = 0
        self.max_abs_diff = 0.0
        self.first_difference = ""

    def equal(self, a, b, where: str = "") -> bool:
        if a is SKIP or b is SKIP:
            return True
        if isinstance(a, tuple) and a[:1] == ("weights",):
            a = a[1]
        if isinstance(b, tuple) and b[:1] == ("weights",):
            b = b[1]
        if isinstance(a, dict) and isinstance(b, dict):
            if set(a) != set(b):
                return self._differ(
                    where, f"keys differ: {sorted(map(str, a))} vs {sorted(map(str, b))}"
                )
            return all(self.equal(a[k], b[k], _key(where, k)) for k in a)
        if (
            isinstance(a, list)
            and isinstance(b, list)
            and not (_scalar_list(a) and _scalar_list(b))
        ):
            if len(a) != len(b):
                return self._differ(where, f"lengths differ: {len(a)} vs {len(b)}")
            return all(
                self.equal(x, y, f"{where or 'value'}[{i}]") for i, (x, y) in enumerate(zip(a, b))
            )
        if isinstance(a, (str, bytes)) or isinstance(b, (str, bytes)):
            self.compared += 1
            return a == b or self._differ(where, f"{a!r} != {b!r}")
        try:
            x, y = np.asarray(a), np.asarray(b)
        except Exception:
            self.compared += 1
            try:
                return bool(a == b) or self._differ(where, "values differ")
            except Exception:
                return self._differ(where, "values cannot be compared")
        self.compared += 1
        return self._arrays(x, y, where)

    def _arrays(self, x, y, where: str) -> bool:
        if x.shape != y.shape:
            return self._differ(where, f"shapes differ: {x.shape} vs {y.shape}")
        if x.dtype.kind in "fciub" and y.dtype.kind in "fciub":
            if x.size:
                wide = np.complex128 if "c" in (x.dtype.kind + y.dtype.kind) else np.float64
                diff = np.abs(x.astype(wide) - y)
                finite = diff[np.isfinite(diff)]
                if finite.size:
                    self.max_abs_diff = max(self.max_abs_diff, float(finite.max()))
            if np.allclose(x, y, rtol=self.rtol, atol=self.atol, equal_nan=True):
                return True
            return self._differ(where, f"not allclose (max |difference| {self.max_abs_diff:.3g})")
        try:
            same = bool(np.array_equal(x, y))
        except Exception:
            same = False
        return same or self._differ(where, "values differ")

    def _differ(self, where: str, why: str) -> bool:
        if not self.first_difference:
            self.first_difference = f"{where or 'the value'}: {why}"
        return False


def _key(where: str, key) -> str:
    """``returned``/``variables`` at the top level read as words; deeper keys as ``[k]``."""
    if not where and key == "returned":
        return "the returned value"
    if not where and key == "variables":
        return "variables"
    if where == "variables" and isinstance(key, str) and key.startswith("variable "):
        return key
    return f"{where}[{key!r}]"


def _scalar_list(value) -> bool:
    return all(isinstance(v, (int, float, complex, np.generic)) for v in value)


def finite(x: float) -> bool:
    return isinstance(x, (int, float)) and math.isfinite(x)
