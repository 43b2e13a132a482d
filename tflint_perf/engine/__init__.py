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
"""

import importlib.util
import sys
from typing import TYPE_CHECKING


def _lazy(name: str):
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        raise ImportError(f"tflint-perf needs {name}: pip install {name}")
    spec.loader = importlib.util.LazyLoader(spec.loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


if TYPE_CHECKING:
    import libcst as cst
else:
    cst = _lazy("libcst")
