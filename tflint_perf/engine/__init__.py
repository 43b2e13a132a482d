"""The engine: rule base class, file context, the one walk, import-alias
resolution, the linter (parse once, every rule), noqa, applying fixes, and
the screens that decide whether a module needs LibCST at all.

Imports nothing else of the package; everything else builds on it.

LibCST takes about 0.2 s to import, more than linting a small file. Code
of this package writes ``from tflint_perf.engine import cst`` (never
``import libcst``): that ``cst`` is LibCST loaded lazily with the standard
library's ``importlib.util.LazyLoader``, so importing the rules costs
nothing and the real import happens on the first ``cst.X``, which only a
module that passes some rule's screen reaches. (An ``import libcst``
statement would load it at once: the import system reads ``__spec__``.)

As it loads, its node classes get a hash and an ``isinstance`` check that
run in C (``fastnodes``): the same answers, without the Python calls that took
about 5% of a whole-corpus run.
"""

import importlib.util
import sys
from typing import TYPE_CHECKING

from tflint_perf.engine.fastnodes import tune


class _ThenTune:
    """A module's own loader, then ``fastnodes.tune`` on the module loaded."""

    def __init__(self, loader) -> None:
        self.loader = loader

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module) -> None:
        self.loader.exec_module(module)
        tune(module)


def _lazy(name: str):
    if name in sys.modules:
        tune(sys.modules[name])
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        raise ImportError(f"tflint-perf needs {name}: pip install {name}")
    # _ThenTune is a Loader in all but name (importlib.abc takes 7 ms to import)
    spec.loader = importlib.util.LazyLoader(_ThenTune(spec.loader))  # type: ignore[arg-type]
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


if TYPE_CHECKING:
    import libcst as cst
else:
    cst = _lazy("libcst")
