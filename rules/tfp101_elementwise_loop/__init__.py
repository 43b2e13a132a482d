"""TFP101 elementwise-loop."""

from __future__ import annotations

from typing import List

from tflint_perf.engine import cst
from tflint_perf.engine.rule import Rule
from tflint_perf.engine.verification import Input, InputKind, Rewrite, Verification


class ElementwiseLoop(Rule):
    """A Python loop applies TensorFlow/NumPy math to a tensor one element or row at a time.

    ## What it does
    Flags a `for`/`while` loop or comprehension that walks an array or
    tensor element by element or row by row (`for i in range(x.shape[0])`,
    `range(len(x))`, `range(n)` indexing known arrays, a `while i < n`
    counter, `for row in x`, `enumerate(x)`, `zip(x, y)`, `sorted(x)`,
    `for v in np.arange(...)`) and does per element what one vectorised
    op does on the whole array:
    - arithmetic, NumPy/TF math or `math.*` on each element or row
      (broadcasting, or an axis reduction such as `np.max(x, axis=1)`);
    - a comparison or an `if` on each element that picks or stores values
      (`np.where(...)` or a boolean mask);
    - counting matches (`n += 1` under a test: `np.count_nonzero(a == b)`);
    - updates each element in place (`x[i, j] += y[i, j]`: `x += y`);
    - writes or adds at an index read from the data (`onehot[i, y[i]] =
      1`, `target[i][action[i]] = r[i] + g * np.amax(q[i])`, also through
      a row alias `t = target[i]; t[action[i]] = ...`: fancy indexing;
      `sums[idx[i]] += v[i]`: `np.add.at`), gathers (`p[i, y[i]]`:
      `p[np.arange(n), y]`);
    - calls a function of the module on each element or row (any function
      the call graph resolves: a helper, a method, an alias), or one of
      another module of the linted tree that its module shows to be array
      math: called once on the whole array when it is built from
      element-wise ops, else rewritten to broadcast;
    - copies sliding windows `x[i:i + k]` into a preallocated array
      (`sliding_window_view`), or sums/averages a window that moves with
      the index (`avg[t] = x[max(0, t - k):t + 1].mean()`: a cumulative
      sum);
    - finds the first match per row (`np.min(np.where(row >= t))`:
      `np.argmax(..., axis=1)`), intersects rows as sets (broadcast
      equality), maps elements through a dict (`np.unique(...,
      return_inverse=True)`);
    - masks and reduces once per class value of the data (`for c in
      np.unique(y)`: a segment reduction).

    The headline names the replacement; the detail gives the whole-array
    code (the same code `--verify` times, attached to the finding as
    `whole_array` in JSON output) and what it assumes. Where no
    whole-array form with the loop's meaning can be derived, the advice
    names the function to use instead.

    An array is what the file shows to be one (see
    `tflint_perf/analysis/arrays.py`): a NumPy/TF call, `model.predict(...)`,
    `.numpy()`, `sess.run(t)`, `.values`, a function of the module returning
    one, a tuple of arrays (`load_data()`, `np.linalg.eig`), a field of a
    loader's record of arrays (`load_iris().target`, TF1's
    `read_data_sets(d).train.images`; not its names or counts), `self.x` when
    the class only assigns arrays to it, a parameter used as an array,
    annotated as one or passed one by every call in the file (also where a
    path rebinds it to an array: `if x.ndim < 4: x = np.array([x])`).

    It stays silent on loops of a handful of iterations (`range(4)`, a
    name bound to a small number, a count every call in the file passes
    (also to a method only ever called, as `self.draw(self.batch_size)`), an
    attribute `__init__` sets from what every construction passes
    (`TinyNet(2, 3)`), a short literal array, a few channels,
    the rows of a small array every call of the function passes, unless a
    loop makes those calls again and again, work a counter ends after a
    few iterations: `tflint-perf why` says so), on loops over variables, layers, files,
    datasets and Python lists; on bookkeeping without math (`if done[i]:
    log(r[i]); r[i] = 0`), on windows appended to a list (dataset
    preparation); on recurrences (a value or an array element carried to
    the next iteration: discounted returns computed backwards, AR series, RNN
    steps, SGD updates; a factor multiplied by the same number each step,
    `w *= gamma`, is a power of the index, and an accumulator reset at the top
    of each iteration, `s = 0.0`, carries nothing); on loops compiled by
    `tf.function`, `numba.jit`/`njit` or `jax.jit`; on per-class loops whose body is already vectorised (`x[labels
    == k]`, `R[:, k]` next to `X - M[k]`); on chunked loops (`range(0, n,
    batch)`), tiling, random or I/O ops, plotting loops and calls the file
    does not show to be array math; on random picks and whole-array draws;
    on online updates (an array read whole and written per step); on text
    (string formatting, comparisons with strings, vocabulary decoding,
    `join`), on list padding (`seq + [0] * (n - len(seq))`), on multi-hot
    encoding of token-id sequences (ragged lists), on arrays made per
    element with a length the element sets (`np.arange(n)` for `n` in
    sizes: ragged), on masks of the whole array per distinct value that
    reduce nothing (`for c in np.unique(y): X[y == c][:n]`), on a
    comprehension that is only shown (a notebook cell's last line), elements tested for
    `None` (a shape's sizes: no numeric array holds None), Python lists being built,
    work lists handed to `pool.map`, and a linear solve or decomposition per
    row; and on convolution and pooling nests, which TFP102 reports.

    ## Why is this bad?
    Each iteration dispatches one small op from Python: the interpreter
    and op-launch overhead dominate and the hardware works on one row at a
    time. One op along an axis does the same work in a single kernel;
    measured on TF 2.21 (CPU) the vectorised form is 40 to 380 times
    faster.

    ## Example
    ```python
    import tensorflow as tf

    scores = tf.random.normal([1000, 64])
    totals = []
    for i in range(scores.shape[0]):
        totals.append(tf.reduce_sum(scores[i]))
    totals = tf.stack(totals)
    ```

    ## Use instead
    ```python
    import tensorflow as tf

    scores = tf.random.normal([1000, 64])
    totals = tf.reduce_sum(scores, axis=1)
    ```
    Use an axis reduction for per-row reductions, broadcasting for
    element-wise arithmetic, `np.where`/`tf.where` or a boolean mask for
    per-element conditions, fancy indexing (`np.add.at` when indices
    repeat) for scatters and gathers, and `tf.vectorized_map` (or
    `tf.map_fn`) when the body is more than a simple op.
    """

    code = "TFP101"
    name = "elementwise-loop"
    message = "Loop over `{var}` applies {op} to {what} one at a time; {suggestion}"
    triggers = ("for ", "while ")
    fixable = False
    # For --verify: the tensor the loop walks gets a batch of rows when nothing
    # calls the function; the loop is timed against the finding's whole-array
    # code (Finding.extra["whole_array"], a verification-only rewrite).
    verification = Verification(
        inputs=(Input("iterated", InputKind.ROWS), Input("coefficient", InputKind.SCALAR)),
        rewrite=Rewrite.STACK_TO_VECTOR,
    )

    @classmethod
    def screen(cls, facts) -> bool:
        # Every finding is a loop or a comprehension.
        return facts.has_loop()

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.candidates: List[cst.CSTNode] = []

    def visit_For(self, node: cst.For) -> None:
        self.candidates.append(node)

    def visit_While(self, node: cst.While) -> None:
        self.candidates.append(node)

    def visit_ListComp(self, node: cst.ListComp) -> None:
        self.candidates.append(node)

    def visit_GeneratorExp(self, node: cst.GeneratorExp) -> None:
        self.candidates.append(node)

    def finish(self) -> None:
        if not self.candidates:
            return
        # The model is loaded here, not at import: importing the rules stays free of
        # LibCST for the modules no screen lets through.
        from .detect import Detector

        Detector(self).run(self.candidates)
