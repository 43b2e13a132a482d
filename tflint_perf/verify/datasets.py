"""Synthetic data for known dataset loaders (worker side): no downloads.

In a worker, ``keras.datasets.<name>.load_data`` (and ``tf.keras``,
``tf_keras``), ``tensorflow_datasets.load`` for common datasets and
``keras.utils.get_file`` and ``urllib.request.urlopen`` (for a few text and
table files: ``pd.read_csv`` of a UCI address) never download. Known datasets give random data
of the real shapes, dtypes, value ranges and sizes (seeded: the same in
every run and in both variants); every use is recorded, so the verdict
says the data was synthetic. Anything else that would download raises
``Refused`` at once, naming what (never a network wait).
"""

from __future__ import annotations

import re
import zlib
from typing import Any, Dict, List, NoReturn, Optional, Tuple

from tflint_perf.verify.guard import Refused

USED: List[str] = []  # what was synthesised in this worker, in order
GUARD: Any = None  # the worker's Guard: a refused download is recorded like any refused action


def _refuse(action: str) -> NoReturn:
    if GUARD is not None:
        GUARD.refuse(action)
    raise Refused(13, f"tflint-perf --verify refused {action} (guard rails)")


def _note(what: str) -> None:
    if what not in USED:
        USED.append(what)


def _rng(name: str):
    import numpy as np

    return np.random.default_rng(zlib.crc32(name.encode()))


# -- keras.datasets ------------------------------------------------------------

# name: (train, test, sample shape, dtype, label shape, label dtype, classes or None for regression)
_ARRAYS: Dict[str, Tuple[int, int, tuple, str, tuple, str, Optional[int]]] = {
    "mnist": (60000, 10000, (28, 28), "uint8", (), "uint8", 10),
    "fashion_mnist": (60000, 10000, (28, 28), "uint8", (), "uint8", 10),
    "cifar10": (50000, 10000, (32, 32, 3), "uint8", (1,), "uint8", 10),
    "cifar100": (50000, 10000, (32, 32, 3), "uint8", (1,), "int64", 100),
    "boston_housing": (404, 102, (13,), "float64", (), "float64", None),
    "california_housing": (16512, 4128, (8,), "float32", (), "float32", None),
}
# name: (examples in all, test share by default (None: 25,000 + 25,000), classes, vocabulary,
# median length, log-normal spread): IMDB reviews have a median of 174 words and a mean of 238.
_SEQUENCES = {
    "imdb": (50000, None, 2, 88584, 174, 0.79),
    "reuters": (11228, 0.2, 46, 30979, 95, 0.92),
}


def _array_split(name: str, n: int, spec, part: str, **kwargs):
    import numpy as np

    _, _, shape, dtype, label_shape, label_dtype, classes = spec
    rng = _rng(f"{name}/{part}")
    if np.dtype(dtype).kind == "u":
        x = rng.integers(0, 256, size=(n, *shape), dtype=np.uint8)
    else:
        x = np.abs(rng.standard_normal((n, *shape))).astype(dtype) * 10
    if classes is None:
        y = (np.abs(rng.standard_normal((n, *label_shape))) * 20).astype(label_dtype)
    else:
        if name == "cifar100" and kwargs.get("label_mode") == "coarse":
            classes = 20
        y = rng.integers(0, classes, size=(n, *label_shape)).astype(label_dtype)
    return x, y


def _keras_arrays(name: str):
    spec = _ARRAYS[name]

    def load_data(*args, **kwargs):
        train, test = spec[0], spec[1]
        if name == "california_housing" and kwargs.get("version") == "small":
            train, test = 480, 120
        if "test_split" in kwargs and spec[6] is None:
            total = train + test
            train = int(total * (1 - kwargs["test_split"]))
            test = total - train
        _note(f"keras.datasets.{name}")
        return (
            _array_split(name, train, spec, "train", **kwargs),
            _array_split(name, test, spec, "test", **kwargs),
        )

    return load_data


def _keras_sequences(name: str):
    total, test_share, classes, vocabulary, median, spread = _SEQUENCES[name]

    def load_data(
        path=None,
        num_words=None,
        skip_top=0,
        maxlen=None,
        test_split=test_share,
        seed=113,
        start_char=1,
        oov_char=2,
        index_from=3,
        **kwargs,
    ):
        import numpy as np

        _note(f"keras.datasets.{name}")
        rng = _rng(name)
        lengths = np.clip(rng.lognormal(np.log(median), spread, total), 8, 2500).astype(int)
        labels = rng.integers(0, classes, total).astype("int64")
        words = rng.zipf(1.3, int(lengths.sum())) % vocabulary + index_from
        if num_words:
            words = np.where((words >= skip_top) & (words < num_words), words, oov_char)
        head = [start_char] if start_char is not None else []
        xs = [head + row.tolist() for row in np.split(words, np.cumsum(lengths)[:-1])]
        keep = [i for i, x in enumerate(xs) if not maxlen or len(x) < maxlen]
        xs, labels = [xs[i] for i in keep], labels[keep]
        split = len(xs) // 2 if test_split is None else int(len(xs) * (1 - test_split))
        x = np.empty(len(xs), dtype=object)
        x[:] = xs
        return (x[:split], labels[:split]), (x[split:], labels[split:])

    return load_data


def _word_index(name: str):
    vocabulary = _SEQUENCES[name][3]

    def get_word_index(*args, **kwargs):
        _note(f"keras.datasets.{name} word index")
        return {f"word{i}": i for i in range(1, vocabulary + 1)}

    return get_word_index


def patch_keras_dataset(module) -> None:
    name = module.__name__.rsplit(".", 1)[-1]
    if name in _ARRAYS and hasattr(module, "load_data"):
        module.load_data = _keras_arrays(name)
    elif name in _SEQUENCES:
        if hasattr(module, "load_data"):
            module.load_data = _keras_sequences(name)
        if hasattr(module, "get_word_index"):
            module.get_word_index = _word_index(name)


KERAS_DATASET = re.compile(rf"(^|\.)datasets\.({'|'.join([*_ARRAYS, *_SEQUENCES])})$")


# -- keras.utils.get_file --------------------------------------------------------


def _shakespeare(rng) -> str:
    words = [f"w{i}" for i in range(3000)]
    lines = []
    for _ in range(40000):  # about 1.1 MB, as the real file
        lines.append(" ".join(words[i] for i in rng.integers(0, len(words), rng.integers(3, 9))))
    return "\n".join(lines) + "\n"


def _auto_mpg(rng) -> str:
    rows = []
    for i in range(398):
        values = rng.uniform([9, 3, 68, 46, 1600, 8, 70, 1], [47, 8, 455, 230, 5140, 25, 82, 3])
        cells = [f"{values[0]:.1f}", str(int(values[1])), f"{values[2]:.1f}", f"{values[3]:.1f}"]
        cells += [f"{values[4]:.1f}", f"{values[5]:.1f}", str(int(values[6])), str(int(values[7]))]
        rows.append("   ".join(cells) + f'\t"car {i}"')
    return "\n".join(rows) + "\n"


def _housing(rng) -> str:
    return (
        "\n".join(" ".join(f"{v:.4f}" for v in rng.uniform(0, 100, 14)) for _ in range(506)) + "\n"
    )


def _wine(rng) -> str:
    low = [11.0, 0.7, 1.4, 10.6, 70, 0.98, 0.34, 0.13, 0.41, 1.3, 0.48, 1.27, 278]
    high = [14.8, 5.8, 3.2, 30.0, 162, 3.88, 5.08, 0.66, 3.58, 13.0, 1.71, 4.0, 1680]
    rows = []
    for label in [1] * 59 + [2] * 71 + [3] * 48:
        values = rng.uniform(low, high)
        rows.append(
            ",".join([str(label)] + [f"{v:.2f}" for v in values[:12]] + [f"{values[12]:.0f}"])
        )
    return "\n".join(rows) + "\n"


def _iris(rng) -> str:
    rows = []
    for name in ["Iris-setosa"] * 50 + ["Iris-versicolor"] * 50 + ["Iris-virginica"] * 50:
        values = rng.uniform([4.3, 2.0, 1.0, 0.1], [7.9, 4.4, 6.9, 2.5])
        rows.append(",".join(f"{v:.1f}" for v in values) + f",{name}")
    return "\n".join(rows) + "\n"


# file name -> (what it is, a generator of text of its real format and size)
_FILES = {
    "shakespeare.txt": ("Shakespeare text", _shakespeare),
    "auto-mpg.data": ("Auto MPG table", _auto_mpg),
    "housing.data": ("Boston housing table", _housing),
    "wine.data": ("UCI wine table", _wine),
    "iris.data": ("UCI iris table", _iris),
}


def get_file(fname=None, origin=None, *args, **kwargs):
    """Known text and table files are written synthetic; every other download is refused at once."""
    import os

    url = origin or kwargs.get("origin") or ""
    name = os.path.basename(str(fname or url.rsplit("/", 1)[-1]))
    known = _FILES.get(name)
    if known is None or kwargs.get("extract") or kwargs.get("untar"):
        _refuse(f"downloading {url or fname} with get_file (network)")
    what, make = known
    folder = os.path.join(
        os.path.expanduser(kwargs.get("cache_dir") or "~/.keras"),
        kwargs.get("cache_subdir", "datasets"),
    )
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, name)
    if not os.path.exists(path):
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(make(_rng(name)))
    _note(f"get_file {name} ({what})")
    return path


def _known_url(url: str) -> Optional[str]:
    """The table's file name an http(s) address ends with, if any."""
    if not re.match(r"(?i)https?://", url):
        return None
    name = url.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1]
    return name if name in _FILES else None


def _synthetic_urlopen(urlopen):
    def opened(url, *args, **kwargs):
        import email.message
        import io
        import urllib.response

        address = getattr(url, "full_url", url)
        name = _known_url(address) if isinstance(address, str) else None
        if name is None:
            return urlopen(url, *args, **kwargs)  # the guard rails refuse it
        what, make = _FILES[name]
        _note(f"{name} from {address} ({what})")
        body = io.BytesIO(make(_rng(name)).encode())
        return urllib.response.addinfourl(body, email.message.Message(), address, 200)

    opened.__tfp_synthetic__ = True
    return opened


def patch_urlopen(module) -> None:
    """``urlopen`` of a known table's address (``pd.read_csv('https://.../wine.data')``)
    reads the synthetic table; every other address goes on to be refused."""
    urlopen = getattr(module, "urlopen", None)
    if callable(urlopen) and not hasattr(urlopen, "__tfp_synthetic__"):
        module.urlopen = _synthetic_urlopen(urlopen)


def patch_get_file(module) -> None:
    if callable(getattr(module, "get_file", None)):
        module.get_file = get_file


# -- tensorflow_datasets.load ---------------------------------------------------

_IMAGE, _TEXT, _VECTOR = "image", "text", "vector"
# name: (kind, shape (None: varies), splits, classes)
_TFDS: Dict[str, Tuple[str, Tuple[Optional[int], ...], Dict[str, int], int]] = {
    "mnist": (_IMAGE, (28, 28, 1), {"train": 60000, "test": 10000}, 10),
    "fashion_mnist": (_IMAGE, (28, 28, 1), {"train": 60000, "test": 10000}, 10),
    "kmnist": (_IMAGE, (28, 28, 1), {"train": 60000, "test": 10000}, 10),
    "cifar10": (_IMAGE, (32, 32, 3), {"train": 50000, "test": 10000}, 10),
    "cifar100": (_IMAGE, (32, 32, 3), {"train": 50000, "test": 10000}, 100),
    "horses_or_humans": (_IMAGE, (300, 300, 3), {"train": 1027, "test": 256}, 2),
    "rock_paper_scissors": (_IMAGE, (300, 300, 3), {"train": 2520, "test": 372}, 3),
    "beans": (_IMAGE, (500, 500, 3), {"train": 1034, "validation": 133, "test": 128}, 3),
    "cats_vs_dogs": (_IMAGE, (None, None, 3), {"train": 23262}, 2),
    "tf_flowers": (_IMAGE, (None, None, 3), {"train": 3670}, 5),
    "imdb_reviews": (_TEXT, (), {"train": 25000, "test": 25000, "unsupervised": 50000}, 2),
    "iris": (_VECTOR, (4,), {"train": 150}, 3),
}
_SPLIT = re.compile(r"^(\w+)(?:\[(-?\d*)(%?):(-?\d*)(%?)\])?$")


def _split_range(expr: str, sizes: Dict[str, int]) -> Tuple[str, int, int]:
    match = _SPLIT.match(expr.strip())
    if not match or match.group(1) not in sizes:
        raise ValueError(f"unknown split {expr!r} (synthetic data has {', '.join(sizes)})")
    name, lo, lo_pct, hi, hi_pct = match.groups()
    n = sizes[name]

    def bound(text, pct, default):
        if text in (None, ""):
            return default
        value = int(text)
        value = round(n * value / 100) if pct else value
        return value + n if value < 0 else min(value, n)

    return name, bound(lo, lo_pct, 0), bound(hi, hi_pct, n)


class _Feature:
    def __init__(self, shape=(), dtype="int64", num_classes=None) -> None:
        self.shape, self.dtype, self.num_classes = shape, dtype, num_classes
        self.names = [str(i) for i in range(num_classes)] if num_classes else []

    def int2str(self, index) -> str:
        return self.names[int(index)]

    def str2int(self, name: str) -> int:
        return self.names.index(name)


class _Split:
    def __init__(self, name: str, num_examples: int) -> None:
        self.name, self.num_examples = name, num_examples


class SyntheticInfo:
    """The parts of ``tfds.core.DatasetInfo`` tutorials read."""

    def __init__(self, name: str) -> None:
        kind, shape, sizes, classes = _TFDS[name]
        key = {_IMAGE: "image", _TEXT: "text", _VECTOR: "features"}[kind]
        dtype = {_IMAGE: "uint8", _TEXT: "string", _VECTOR: "float32"}[kind]
        self.name = self.full_name = name
        self.description = (
            f"synthetic {name} (tflint-perf --verify: random data of the real shapes)"
        )
        self.features = {key: _Feature(shape, dtype), "label": _Feature((), "int64", classes)}
        self.splits = {split: _Split(split, n) for split, n in sizes.items()}
        self.supervised_keys = (key, "label")


def _element_fn(name: str, tf):
    kind, shape, _, classes = _TFDS[name]
    key = SyntheticInfo(name).supervised_keys[0]
    words = tf.constant([f"w{i}" for i in range(2000)])

    def element(index):
        seed = tf.stack([index, tf.constant(zlib.crc32(name.encode()) % 2**31, tf.int64)])
        label = tf.random.stateless_uniform([], seed, 0, classes, dtype=tf.int64)
        if kind == _IMAGE:
            dims = list(shape)
            if dims[0] is None:
                side = tf.random.stateless_uniform([2], seed + 1, 200, 500, dtype=tf.int32)
                dims = [side[0], side[1], shape[2]]
            value = tf.random.stateless_uniform(dims, seed + 2, 0, 256, dtype=tf.int32)
            value = tf.cast(value, tf.uint8)
        elif kind == _TEXT:
            length = tf.random.stateless_uniform([], seed + 1, 20, 400, dtype=tf.int32)
            ids = tf.random.stateless_uniform([length], seed + 2, 0, 2000, dtype=tf.int32)
            value = tf.strings.reduce_join(tf.gather(words, ids), separator=" ")
        else:
            value = tf.random.stateless_uniform(list(shape), seed + 2, 0.0, 8.0)
        return {key: value, "label": label}

    return element


def _dataset(name: str, split, tf, as_supervised: bool):
    sizes = _TFDS[name][2]
    if isinstance(split, (list, tuple)):
        return [_dataset(name, s, tf, as_supervised) for s in split]
    parts = str(split).split("+")
    dataset = None
    for part in parts:
        which, lo, hi = _split_range(part, sizes)
        offset = sum(sizes[s] for s in list(sizes)[: list(sizes).index(which)])
        piece = tf.data.Dataset.range(offset + lo, offset + max(lo, hi))
        dataset = piece if dataset is None else dataset.concatenate(piece)
    assert dataset is not None
    dataset = dataset.map(_element_fn(name, tf))
    if as_supervised:
        keys = SyntheticInfo(name).supervised_keys
        dataset = dataset.map(lambda e: (e[keys[0]], e[keys[1]]))
    return dataset


def _tfds_name(name) -> str:
    """The table's name of a TFDS dataset (``mnist:3.0.1`` -> ``mnist``); refused when absent."""
    base = str(name).split(":", 1)[0].split("/", 1)[0]
    if base not in _TFDS or "/" in str(name):
        _refuse(
            f"downloading the tensorflow_datasets dataset {name!r} (network; synthetic data "
            f"exists for {', '.join(sorted(_TFDS))})"
        )
    return base


def tfds_load(name: str, split=None, *args, **kwargs):
    """``tfds.load`` on synthetic data for the datasets in the table; refused for the others."""
    import tensorflow as tf

    base = _tfds_name(name)
    _note(f"tensorflow_datasets {base}")
    splits = list(_TFDS[base][2]) if split is None else split
    as_supervised = bool(kwargs.get("as_supervised", False))
    if split is None:
        out: Any = {s: _dataset(base, s, tf, as_supervised) for s in splits}
    else:
        out = _dataset(base, splits, tf, as_supervised)
    batch = kwargs.get("batch_size")
    if batch is not None:

        def batched(ds):
            if batch == -1:
                return next(iter(ds.batch(1 << 30)))
            return ds.batch(batch)

        if isinstance(out, dict):
            out = {k: batched(v) for k, v in out.items()}
        elif isinstance(out, list):
            out = [batched(v) for v in out]
        else:
            out = batched(out)
    if kwargs.get("with_info"):
        return out, SyntheticInfo(base)
    return out


class SyntheticBuilder:
    """``tfds.builder(name)`` on synthetic data: nothing to download or prepare,
    ``as_dataset`` is ``tfds_load``'s data; refused for datasets not in the table."""

    def __init__(self, name, *args, **kwargs) -> None:
        self.name = _tfds_name(name)
        self.info = SyntheticInfo(self.name)

    def download_and_prepare(self, *args, **kwargs) -> None:
        return None

    def as_dataset(self, split=None, *args, **kwargs):
        kept = {k: v for k, v in kwargs.items() if k in ("as_supervised", "batch_size")}
        return tfds_load(self.name, split, **kept)


def _refused_download(*args, **kwargs) -> NoReturn:
    _refuse("downloading with tensorflow_datasets' download manager (network)")


def patch_tfds(module) -> None:
    """``load`` and ``builder`` on synthetic data; every other download refused at once
    (the download manager would otherwise retry a refused connection for minutes)."""
    if callable(getattr(module, "load", None)):
        module.load = tfds_load
    if callable(getattr(module, "builder", None)):
        module.builder = SyntheticBuilder
    manager = getattr(getattr(module, "download", None), "DownloadManager", None)
    for method in ("download", "download_and_extract", "download_kaggle_data"):
        if manager is not None and callable(getattr(manager, method, None)):
            setattr(manager, method, _refused_download)
