"""Patch modules as the code under review imports them (worker side).

Also: the module's own training before the measured code (Keras ``fit``) is
cut to one epoch (``SHORTEN``), and a dataset's shuffle keeps one order on
every pass (``FIXED_ORDER``); the verdict says so.

``after_import(patchers)`` installs a finder at the front of
``sys.meta_path`` that lets the real finders find each module and, for
the names a patcher wants, runs the patcher once the module has executed
(modules imported before are patched at once). Used for the dataset
loaders (``datasets``) and ``plt.pause`` (its sleep is not the code's
work, and under the Agg backend there is nothing to show).
"""

from __future__ import annotations

import importlib.abc
import os
import sys
from typing import Any, Callable, Dict, List, Tuple

Patcher = Tuple[Callable[[str], bool], Callable]


class _Loader(importlib.abc.Loader):
    def __init__(self, loader, patch: Callable) -> None:
        self._loader, self._patch = loader, patch

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module) -> None:
        self._loader.exec_module(module)
        self._patch(module)

    def __getattr__(self, name):  # get_resource_reader, is_package, ...
        return getattr(self._loader, name)


class _AfterImport(importlib.abc.MetaPathFinder):
    def __init__(self, patchers: List[Patcher]) -> None:
        self.patchers = patchers
        self.busy = False

    def wanted(self, name: str) -> List[Callable]:
        return [patch for matches, patch in self.patchers if matches(name)]

    def find_spec(self, name, path, target=None):
        if self.busy:
            return None
        patches = self.wanted(name)
        if not patches:
            return None
        self.busy = True
        try:
            for finder in sys.meta_path:
                if finder is self or not hasattr(finder, "find_spec"):
                    continue
                spec = finder.find_spec(name, path, target)
                if spec is not None:
                    break
            else:
                return None
        finally:
            self.busy = False
        if spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec

        def patch(module) -> None:
            for one in patches:
                one(module)

        spec.loader = _Loader(spec.loader, patch)
        return spec


def after_import(patchers: List[Patcher]) -> None:
    finder = _AfterImport(patchers)
    for name, module in list(sys.modules.items()):
        for patch in finder.wanted(name):
            if module is not None:
                patch(module)
    sys.meta_path.insert(0, finder)


# Training the module does before the measured code (a notebook's `model.fit(epochs=500)`)
# is cut to one epoch: the measured code runs on that model in both variants, and its speed
# does not depend on how well the model was trained. The verdict says so.
SHORTEN: Dict[str, object] = {"on": True}
SHORTENED: List[str] = []
GUARD: Dict[str, Any] = {"guard": None}  # the worker's guard rails, for writers in C


def _user_line() -> int:
    import sys as _sys

    frame = _sys._getframe(2)
    path = SHORTEN.get("path")
    while frame is not None:
        if frame.f_code.co_filename == path:
            return frame.f_lineno
        frame = frame.f_back  # type: ignore[assignment]
    return 0


def _padded(history, first: int, epochs: int):
    """The History of a cut fit, as long as asked: code after it plots ``range(epochs)``
    against ``history.history["loss"]``. The one epoch's figures stand for the others."""
    logs = getattr(history, "history", None)
    if isinstance(logs, dict) and isinstance(getattr(history, "epoch", None), list):
        for values in logs.values():
            if isinstance(values, list) and values:
                values.extend([values[-1]] * (epochs - first - len(values)))
        history.epoch = list(range(first, epochs))
    return history


def _shortened_fit(fit):
    import functools

    @functools.wraps(fit)
    def shortened(self, *args, **kwargs):
        if SHORTEN["on"]:
            epochs = kwargs.get("epochs", args[3] if len(args) > 3 else 1)
            first = kwargs.get("initial_epoch", 0)
            if isinstance(epochs, int) and epochs > first + 1:
                if "epochs" in kwargs or len(args) <= 3:
                    kwargs["epochs"] = first + 1
                else:
                    args = (*args[:3], first + 1, *args[4:])
                SHORTENED.append(f"fit at line {_user_line()}: 1 of {epochs - first} epochs")
                return _padded(fit(self, *args, **kwargs), first, epochs)
        return fit(self, *args, **kwargs)

    shortened.__tfp_shortened__ = True
    return shortened


def patch_keras_fit(module) -> None:
    model = getattr(module, "Model", None)
    fit = getattr(model, "fit", None)
    if isinstance(model, type) and callable(fit) and not getattr(fit, "__tfp_shortened__", False):
        model.fit = _shortened_fit(fit)  # type: ignore[attr-defined]
    if isinstance(model, type) and GUARD["guard"] is not None:
        # Keras writes models through h5py and TensorFlow's C++ code: no audit event
        from tflint_perf.verify.guard import wrap, write_check

        for name in ("save", "save_weights"):
            wrap(model, name, write_check(GUARD["guard"], "saving a model to", (1,)))


# A dataset's ``shuffle`` draws a new order each time it is iterated, from a seed
# generator that no state capture can restore: two runs of the same loop would train on
# different batches. In the workers every shuffle keeps one seeded order for every pass:
# the same work (the buffer is filled and drawn from as before), the same batches in both
# variants. The verdict says so.
FIXED_ORDER: List[str] = []


def _fixed_order(shuffle):
    import functools

    @functools.wraps(shuffle)
    def seeded(self, buffer_size, seed=None, reshuffle_each_iteration=None, name=None):
        line = _user_line()
        if line:
            FIXED_ORDER.append(f"shuffle at line {line}")
        return shuffle(self, buffer_size, 0 if seed is None else seed, False, name=name)

    seeded.__tfp_fixed__ = True
    return seeded


def patch_dataset_shuffle(module) -> None:
    dataset = getattr(module, "DatasetV2", None)
    shuffle = getattr(dataset, "shuffle", None)
    if isinstance(dataset, type) and callable(shuffle) and not hasattr(shuffle, "__tfp_fixed__"):
        dataset.shuffle = _fixed_order(shuffle)  # type: ignore[attr-defined]


def patch_h5py(module) -> None:
    """``h5py.File(path, "w")`` opens the file in C: checked here."""
    original = getattr(module, "File", None)
    guard = GUARD["guard"]
    if (
        not isinstance(original, type)
        or guard is None
        or getattr(original, "__tfp_guarded__", False)
    ):
        return

    def __init__(self, name, mode="r", *args, **kwargs):
        if isinstance(name, (str, bytes, os.PathLike)) and mode not in ("r", None):
            guard.check_write(name, "writing")
        original.__init__(self, name, mode, *args, **kwargs)

    module.File = type("File", (original,), {"__init__": __init__, "__tfp_guarded__": True})


def _no_pause(*args, **kwargs) -> None:
    """``plt.pause`` without its sleep (the Agg backend draws nothing to wait for)."""


def patch_pyplot(module) -> None:
    if callable(getattr(module, "pause", None)):
        module.pause = _no_pause


class _Shown:
    """IPython's ``Image``, ``HTML``, ... in a worker: made, never shown, no file read."""

    def __init__(self, *args, **kwargs) -> None:
        pass

    def _repr_html_(self) -> str:
        return ""


def patch_ipython_display(module) -> None:
    """Notebooks show figures (``Image(filename='images/01.png')``): display only, not the code's work."""
    for name in ("Image", "HTML", "Markdown", "SVG", "Video", "Audio", "IFrame", "YouTubeVideo"):
        if isinstance(getattr(module, name, None), type):
            setattr(module, name, _Shown)
    if callable(getattr(module, "display", None)):
        module.display = lambda *args, **kwargs: None


def install(worker) -> None:
    """The worker's patches: dataset loaders (synthetic data, refused downloads) and ``plt.pause``."""
    from tflint_perf.verify import datasets

    datasets.GUARD = getattr(worker, "guard", None)
    GUARD["guard"] = datasets.GUARD
    SHORTEN["path"] = worker.path
    after_import(
        [
            (_keras_dataset, datasets.patch_keras_dataset),
            (_keras_utils, datasets.patch_get_file),
            (lambda name: name == "urllib.request", datasets.patch_urlopen),
            (
                lambda name: name in ("tensorflow_datasets", "tensorflow_datasets.public_api"),
                datasets.patch_tfds,
            ),
            (lambda name: name == "matplotlib.pyplot", patch_pyplot),
            (lambda name: name in ("keras", "tf_keras"), patch_keras_fit),
            (lambda name: name == "h5py", patch_h5py),
            (
                lambda name: name == "tensorflow.python.data.ops.dataset_ops",
                patch_dataset_shuffle,
            ),
            (
                lambda name: name in ("IPython.display", "IPython.core.display"),
                patch_ipython_display,
            ),
        ]
    )


def _keras_dataset(name: str) -> bool:
    from tflint_perf.verify.datasets import KERAS_DATASET

    return KERAS_DATASET.search(name) is not None


def _keras_utils(name: str) -> bool:
    root = name.split(".", 1)[0]
    if root not in ("keras", "tf_keras", "tensorflow"):
        return False
    return name.endswith((".utils", ".file_utils", ".data_utils"))
