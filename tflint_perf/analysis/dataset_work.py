"""Does a ``tf.data`` step do real work per element?

Asked by TFP401 (a final ``prefetch`` overlaps input preparation with the
training step, which pays only when preparing an element costs something)
and TFP402 (``num_parallel_calls`` pays only for real per-element work).
Real work is an allowlist, read by qualified name: reading record files,
decoding and parsing, image and audio processing, string processing,
Python code per element (``tf.py_function``). A cast, a scalar multiply or
repacking a dict is not, and neither is anything the linter cannot read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, List, Optional

from tflint_perf.engine import cst
from tflint_perf.engine.names import dotted
from tflint_perf.engine.walk import descendants

# Sources that read files: every element is a read (and usually a decode).
FILE_SOURCES = frozenset(
    {
        "tensorflow.data.TFRecordDataset",
        "tensorflow.data.TextLineDataset",
        "tensorflow.data.FixedLengthRecordDataset",
        "tensorflow.data.experimental.CsvDataset",
        "tensorflow.data.experimental.SqlDataset",
        "tensorflow.data.experimental.make_csv_dataset",
        "tensorflow.data.experimental.make_batched_features_dataset",
    }
)
# Per-element work worth overlapping or parallelising (canonical prefixes).
WORK_PREFIXES = (
    "tensorflow.io.decode_",
    "tensorflow.io.parse_",
    "tensorflow.io.read_file",
    "tensorflow.io.gfile.",
    "tensorflow.image.",
    "tensorflow.audio.",
    "tensorflow.signal.",
    "tensorflow.strings.",
    "tensorflow.py_function",
    "tensorflow.numpy_function",
    "tensorflow.py_func",
    "tensorflow.read_file",
    "tensorflow.decode_",
    "tensorflow.parse_",
    "tensorflow_text.",
)
# Under those prefixes, but a cast or a hash in disguise.
CHEAP = frozenset(
    {
        "tensorflow.image.convert_image_dtype",
        "tensorflow.strings.as_string",
        "tensorflow.strings.to_number",
        "tensorflow.strings.length",
        "tensorflow.strings.join",
        "tensorflow.strings.format",
        "tensorflow.strings.to_hash_bucket",
        "tensorflow.strings.to_hash_bucket_fast",
        "tensorflow.strings.to_hash_bucket_strong",
    }
)
PYTHON_CALLS = frozenset(
    {"tensorflow.py_function", "tensorflow.numpy_function", "tensorflow.py_func"}
)
RANDOM_PREFIXES = ("tensorflow.random.", "tensorflow.random_", "tensorflow.image.random_")
STATEFUL_CALLS = frozenset({"tensorflow.nn.dropout", "tensorflow.multinomial"})
_STATEFUL_METHODS = frozenset({"assign", "assign_add", "assign_sub"})
# Methods whose result is a dataset: a function returning one builds a nested dataset.
_NESTED_DATASET_METHODS = frozenset(
    {"batch", "padded_batch", "window", "flat_map", "unbatch", "take", "skip", "map", "zip"}
)
_MAX_DEPTH = 4
# Substrings of the shown work, heaviest kind first (see _rank).
_RANKS = (
    ("file reads", "read_file", "gfile"),
    ("decode", "parse"),
    ("py_function", "numpy_function", "py_func"),
    ("tf.image.", "tf.audio.", "tf.signal."),
)
# Objects that tokenise text when called (or through ``.tokenize(...)``).
TOKENIZER_CLASSES = frozenset(
    {"keras.layers.TextVectorization", "keras.layers.experimental.preprocessing.TextVectorization"}
)
TOKENIZER_PREFIXES = ("keras_nlp.tokenizers.", "keras_hub.tokenizers.", "tensorflow_text.")


@dataclass(frozen=True)
class Work:
    """What a mapped function does to each element."""

    what: Optional[str] = None  # "`tf.io.read_file`": the first real work found; None: none
    unsafe: bool = False  # Python side effects, stateful random numbers, variable updates
    returns_dataset: bool = False  # builds a nested dataset (window/flat_map), no element work
    python: bool = False  # runs Python per element (py_function): holds the GIL
    text: bool = (
        False  # tokenises text (a tokenizer layer): string kernels loop over a batch on one thread
    )


NOTHING = Work()  # also: not readable here, so nothing known


def short_name(name: str) -> str:
    for prefix, shown in (("tensorflow.", "tf."), ("tensorflow_text.", "tensorflow_text.")):
        if name.startswith(prefix):
            return shown + name[len(prefix) :]
    return name


def is_real_work(name: str) -> bool:
    return (name not in CHEAP and name.startswith(WORK_PREFIXES)) or name in FILE_SOURCES


class ElementWork:
    """Reads the functions given to ``map``/``interleave``/``flat_map``.

    ``resolve(expr, site)`` gives the function bodies ``expr`` may name at
    ``site`` (lambdas, ``functools.partial``, defs of this module); several
    bodies (a name defined twice) count only when they agree.
    """

    def __init__(self, ctx, resolve: Callable[[cst.BaseExpression, cst.CSTNode], List]) -> None:
        self.ctx = ctx
        self.resolve = resolve
        self._tokenizers: Optional[Dict[str, str]] = None

    def tokenizer(self, func: cst.BaseExpression) -> Optional[str]:
        """``vectorize_layer`` / ``tokenizer.tokenize``: a name bound to a tokenizer, shown."""
        if self._tokenizers is None:
            self._tokenizers = {}
            for node in self.ctx.nodes(cst.Assign):
                qual = self.ctx.call_name(node.value) or ""
                if qual in TOKENIZER_CLASSES or _tokenizer_name(qual):
                    for target in node.targets:
                        name = dotted(target.target)
                        if name is not None:
                            self._tokenizers[name] = _tokenizer_kind(qual)
        if isinstance(func, cst.Attribute) and func.attr.value == "tokenize":
            func = func.value
        name = dotted(func)
        kind = self._tokenizers.get(name or "")
        return f"`{name}` ({kind})" if kind else None

    def of_function(self, func: cst.BaseExpression, site: cst.CSTNode) -> Work:
        return self._work(func, site, set(), 0)

    def _work(self, func, site, seen: set, depth: int) -> Work:
        qual = self.ctx.qualname(func)
        if qual in FILE_SOURCES:
            return Work(f"`{qual.rsplit('.', 1)[-1]}` file reads", returns_dataset=True)
        if qual is not None and is_real_work(qual):  # ds.map(tf.io.read_file)
            return Work(f"`{short_name(qual)}`", _unsafe_call(qual), python=qual in PYTHON_CALLS)
        tokenizer = self.tokenizer(func)  # ds.map(vectorize_layer)
        if tokenizer is not None:
            return Work(tokenizer, text=True)
        bodies = self.resolve(func, site)
        if not bodies or depth > _MAX_DEPTH:
            return NOTHING
        results = [self._body_work(body, site, seen, depth) for body in bodies]
        first = results[0]
        if any((r.what is None) != (first.what is None) for r in results):
            return NOTHING  # same-named defs disagree: not sure which runs
        return Work(
            first.what,
            any(r.unsafe for r in results),
            any(r.returns_dataset for r in results),
            all(r.python for r in results),
            all(r.text for r in results),
        )

    def _body_work(self, body: cst.CSTNode, site, seen: set, depth: int) -> Work:
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
                unsafe = unsafe or _unsafe_call(name)
                if is_real_work(name):
                    found.append(Work(f"`{short_name(name)}`", python=name in PYTHON_CALLS))
                continue
            if isinstance(node.func, cst.Attribute) and node.func.attr.value in _STATEFUL_METHODS:
                unsafe = True
            tokenizer = self.tokenizer(node.func)
            if tokenizer is not None:
                found.append(Work(tokenizer, text=True))
            elif self.resolve(node.func, site):
                inner = self._work(node.func, site, seen, depth + 1)
                unsafe = unsafe or inner.unsafe
                if inner.what is not None:
                    found.append(inner)
        if not found:
            return Work(None, unsafe, _returns_dataset(self.ctx, body))
        # the heaviest kind, for the message (every work in `found` names what it does)
        shown = min(found, key=lambda w: _rank(w.what or ""))
        return Work(
            shown.what,
            unsafe,
            _returns_dataset(self.ctx, body),
            python=all(w.python for w in found),
            text=any(w.text for w in found),
        )


def _tokenizer_name(qual: str) -> bool:
    """KerasNLP / KerasHub / TF Text tokenizers, also a model's tokenizer from a preset
    (``keras_hub.models.Tokenizer.from_preset``, ``keras_nlp.models.BertTokenizer``)."""
    if qual.startswith(TOKENIZER_PREFIXES):
        return True
    if qual.startswith(("keras_nlp.models.", "keras_hub.models.")):
        return any(part.endswith("Tokenizer") for part in qual.split(".")[2:])
    return False


def _tokenizer_kind(qual: str) -> str:
    """``TextVectorization``, ``SentencePieceTokenizer``; ``Tokenizer`` for ``...Tokenizer.from_preset``."""
    parts = qual.split(".")
    return next(
        (p for p in reversed(parts) if p.endswith(("Tokenizer", "Vectorization"))), parts[-1]
    )


def _rank(shown: str) -> int:
    """Which work a message names first: reads, then decoding, Python, images, text."""
    for rank, marks in enumerate(_RANKS):
        if any(mark in shown for mark in marks):
            return rank
    return len(_RANKS)


def _unsafe_call(name: str) -> bool:
    return (
        name in PYTHON_CALLS
        or name in STATEFUL_CALLS
        or (name.startswith(RANDOM_PREFIXES) and "stateless_" not in name)
    )


def _returns_dataset(ctx, body: cst.CSTNode) -> bool:
    """The function returns a dataset (``ds.window(...)``, ``Dataset.zip(...)``)."""
    if isinstance(body, cst.FunctionDef):
        values: List[cst.CSTNode] = [
            n.value
            for n in descendants(body.body, skip_scopes=True)
            if isinstance(n, cst.Return) and n.value is not None
        ]
    else:
        values = [body]  # a lambda's expression
    return any(_is_dataset_expr(ctx, value) for value in values)


def _is_dataset_expr(ctx, expr: cst.CSTNode) -> bool:
    if not isinstance(expr, cst.Call):
        return False
    qual = ctx.call_name(expr) or ""
    if qual.startswith("tensorflow.data.") and qual.rsplit(".", 1)[-1][:1].isupper():
        return True  # a dataset class: TFRecordDataset(...)
    if qual.startswith("tensorflow.data.Dataset."):
        return True  # Dataset.zip(...), Dataset.from_tensor_slices(...)
    func = expr.func
    return (
        qual == ""
        and isinstance(func, cst.Attribute)
        and func.attr.value in _NESTED_DATASET_METHODS
        and _is_chain_on_dataset(ctx, func.value)
    )


def _is_chain_on_dataset(ctx, expr: cst.BaseExpression) -> bool:
    """``ds_.unbatch().window(...)``: a method chain that includes ``window``/``unbatch``
    or starts at a dataset constructor (a bare ``x.batch(n)`` may be anything)."""
    while isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
        if expr.func.attr.value in ("window", "unbatch", "flat_map"):
            return True
        if _is_dataset_expr(ctx, expr):
            return True
        expr = expr.func.value
    return False
