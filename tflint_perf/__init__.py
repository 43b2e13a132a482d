"""tflint-perf: a linter for TensorFlow performance traps."""

import importlib.machinery as _machinery
import importlib.util as _util
import os as _os
import sys as _sys

__version__ = "0.1.0"


def _map_source_rules() -> None:
    """Make ``tflint_perf.rules`` importable from a source checkout.

    Installed (wheel or editable), setuptools maps the top-level ``rules/``
    folder to ``tflint_perf.rules``. When this package is imported straight
    from the repository (tests run from the root, no install), there is no
    such mapping, so register the folder under that name ourselves.
    """
    if "tflint_perf.rules" in _sys.modules:
        return
    if _machinery.PathFinder.find_spec("tflint_perf.rules", __path__) is not None:
        return  # a real tflint_perf/rules package (built wheel)
    init = _os.path.join(_os.path.dirname(__path__[0]), "rules", "__init__.py")
    if not _os.path.isfile(init):
        return  # installed: the editable finder or the wheel provides it
    spec = _util.spec_from_file_location(
        "tflint_perf.rules", init, submodule_search_locations=[_os.path.dirname(init)]
    )
    _sys.modules["tflint_perf.rules"] = module = _util.module_from_spec(spec)
    spec.loader.exec_module(module)


_map_source_rules()
