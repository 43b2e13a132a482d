"""Patch modules as the code under review imports them (worker side).

``after_import(patchers)`` installs a finder at the front of
``sys.meta_path`` that lets the real finders find each module and, for
the names a patcher wants, runs the patcher once the module has executed
(modules imported before are patched at once). Used for the dataset
loaders (``datasets``) and ``plt.pause`` (its sleep is not the code's
work, and under the Agg backend there is nothing to show).
"""

from __future__ import annotations

import importlib.abc
import sys
from typing import Callable, List, Tuple

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


def _no_pause(*args, **kwargs) -> None:
    """``plt.pause`` without its sleep (the Agg backend draws nothing to wait for)."""


def patch_pyplot(module) -> None:
    if callable(getattr(module, "pause", None)):
        module.pause = _no_pause


def install(worker) -> None:
    """The worker's patches: dataset loaders (synthetic data, refused downloads) and ``plt.pause``."""
    from tflint_perf.verify import datasets

    datasets.GUARD = getattr(worker, "guard", None)
    after_import(
        [
            (_keras_dataset, datasets.patch_keras_dataset),
            (_keras_utils, datasets.patch_get_file),
            (
                lambda name: name in ("tensorflow_datasets", "tensorflow_datasets.public_api"),
                datasets.patch_tfds,
            ),
            (lambda name: name == "matplotlib.pyplot", patch_pyplot),
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
