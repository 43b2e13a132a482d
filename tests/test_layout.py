"""The source layout CONTRIBUTING.md promises: small modules, no private helper
shared across modules."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAX_LINES = 600
# Where rules and their analyses live (CONTRIBUTING.md, "The model rules read").
SIZED = [ROOT / "rules", ROOT / "tflint_perf" / "analysis"]
# Every module of the package and the rules (rules/ is installed as tflint_perf.rules).
PACKAGES = [ROOT / "rules", ROOT / "tflint_perf"]
# Private helpers imported across modules (none left; the list only shrinks).
KNOWN_PRIVATE_IMPORTS: set = set()


def python_files(folders):
    return sorted(p for folder in folders for p in folder.rglob("*.py"))


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[0] == "rules":
        parts = ["tflint_perf", *parts]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def ours(module: str) -> bool:
    return module == "tflint_perf" or module.startswith("tflint_perf.")


def private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_imports(path: Path, root: Path = ROOT):
    """``from m import _x`` and ``m._x`` (``m`` an imported module of the
    package) in one file: (line, what) for each."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    here = module_name(path, root)
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    modules = {}  # local name -> imported module of the package
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            if not ours(base):
                continue
            for alias in node.names:
                if private(alias.name):
                    found.append((node.lineno, f"from {base} import {alias.name}"))
                else:
                    modules[alias.asname or alias.name] = f"{base}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if ours(alias.name):
                    modules[alias.asname or alias.name.split(".")[0]] = alias.name
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and private(node.attr)
            and isinstance(node.value, ast.Name)
            and node.value.id in modules
        ):
            found.append((node.lineno, f"{node.value.id}.{node.attr}"))
    return found


def test_no_rule_or_analysis_module_over_600_lines():
    too_long = [
        f"{path.relative_to(ROOT)}: {lines} lines"
        for path in python_files(SIZED)
        for lines in [len(path.read_text(encoding="utf-8").splitlines())]
        if lines > MAX_LINES
    ]
    assert not too_long, "split these modules:\n" + "\n".join(too_long)


def test_no_private_name_imported_from_another_module():
    found = {
        f"{path.relative_to(ROOT)}: {what}": line
        for path in python_files(PACKAGES)
        for line, what in private_imports(path)
    }
    assert set(found) >= KNOWN_PRIVATE_IMPORTS, "fixed: drop from KNOWN_PRIVATE_IMPORTS"
    offenders = [
        f"{where} (line {line})"
        for where, line in found.items()
        if where not in KNOWN_PRIVATE_IMPORTS
    ]
    assert not offenders, "make these public or keep them in their module:\n" + "\n".join(offenders)


def test_the_private_import_check_sees_both_spellings(tmp_path):
    folder = tmp_path / "tflint_perf" / "analysis"
    folder.mkdir(parents=True)
    source = folder / "sample.py"
    source.write_text(
        "from tflint_perf.analysis.semantic import _free, SemanticModel\n"
        "from . import walks\n"
        "import tflint_perf.engine.walk as walk\n"
        "import os\n"
        "walks._helper(1)\n"
        "walk.__name__, walk._x, os._exit\n"
    )
    assert private_imports(source, tmp_path) == [
        (1, "from tflint_perf.analysis.semantic import _free"),
        (5, "walks._helper"),
        (6, "walk._x"),
    ]


# -- API names live in the API tables ----------------------------------------------
API_PREFIXES = ("tensorflow.", "keras.", "numpy.", "tf_keras.")
API_TABLES = ROOT / "tflint_perf" / "analysis" / "api"
# Modules still holding API names of their own, with how many: to move into
# analysis/api/ (issue 18). The count may only fall; at zero, drop the line.
KNOWN_API_NAMES = {
    "rules/tfp101_elementwise_loop/segments.py": 3,
    "rules/tfp101_elementwise_loop/windows.py": 2,
    "rules/tfp102_handwritten_convolution/fix.py": 2,
    "rules/tfp103_tensor_grown_in_loop/growth.py": 1,
    "rules/tfp202_rebuilt_in_loop/common.py": 1,
    "rules/tfp202_rebuilt_in_loop/searches.py": 8,
    "rules/tfp203_retracing_argument.py": 2,
    "rules/tfp403_predict_in_loop/__init__.py": 1,
    "tflint_perf/analysis/one_sample.py": 3,
    "tflint_perf/analysis/convolution.py": 2,
    "tflint_perf/analysis/dataset_steps.py": 2,
    "tflint_perf/analysis/dataset_work.py": 2,
    "tflint_perf/analysis/datasets.py": 1,
    "tflint_perf/analysis/elementwise.py": 6,
    "tflint_perf/analysis/functions.py": 1,
    "tflint_perf/analysis/steps.py": 6,
    "tflint_perf/analysis/summaries.py": 1,
    "tflint_perf/analysis/testcode.py": 1,
    "tflint_perf/analysis/tf_version.py": 10,
    "tflint_perf/analysis/tracing.py": 1,
}


def api_names(path: Path):
    """(line, text) of each string literal in ``path`` that is a TensorFlow,
    Keras or NumPy qualified name or prefix; docstrings are prose, not names."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    prose = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (
            isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
        ):
            prose.add(id(body[0].value))
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and node.value.startswith(API_PREFIXES)
        and id(node) not in prose
    ]


def test_api_names_are_read_from_the_api_tables():
    found = {}
    for path in python_files(SIZED):
        if API_TABLES in path.parents:
            continue
        names = api_names(path)
        if names:
            found[str(path.relative_to(ROOT))] = names
    grown = [
        f"{where}:{line}: {text!r}"
        for where, names in sorted(found.items())
        if len(names) > KNOWN_API_NAMES.get(where, 0)
        for line, text in names
    ]
    assert not grown, "move these into tflint_perf/analysis/api/ and read them there:\n" + (
        "\n".join(grown)
    )
    gone = sorted(
        where for where in KNOWN_API_NAMES if len(found.get(where, ())) < KNOWN_API_NAMES[where]
    )
    assert not gone, f"fewer API names now: lower or drop KNOWN_API_NAMES for {gone}"


def test_the_api_name_audit_sees_names_but_not_docstrings(tmp_path):
    source = tmp_path / "sample.py"
    source.write_text(
        '"""Reads tensorflow.function."""\n'
        'WRAPPERS = ("tensorflow.function", "keras.Model")\n'
        "def f(name):\n"
        '    """numpy.where in a docstring."""\n'
        '    return name.startswith("numpy.") or name == "torch.nn"\n'
    )
    assert api_names(source) == [
        (2, "tensorflow.function"),
        (2, "keras.Model"),
        (5, "numpy."),
    ]
