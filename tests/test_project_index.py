"""The project index: module names, import resolution, exports on demand."""

from tflint_perf.engine.project import ProjectView
from tflint_perf.run.project import Index, Tree, module_of


def write(root, files):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return sorted(str(root / name) for name in files)


def test_module_names_follow_packages(tmp_path):
    write(
        tmp_path, {"pkg/__init__.py": "", "pkg/sub/__init__.py": "", "pkg/sub/m.py": "", "s.py": ""}
    )
    assert module_of(str(tmp_path / "pkg/sub/m.py")) == (str(tmp_path), "pkg.sub.m", "pkg.sub")
    assert module_of(str(tmp_path / "pkg/sub/__init__.py")) == (str(tmp_path), "pkg.sub", "pkg.sub")
    assert module_of(str(tmp_path / "s.py")) == (str(tmp_path), "s", "")


def test_relative_imports_resolve_against_the_package():
    view = ProjectView("pkg.sub")
    assert view.absolute(".m.f") == "pkg.sub.m.f"
    assert view.absolute("..other.g") == "pkg.other.g"
    assert view.absolute("numpy.sum") == "numpy.sum"


def test_locate_finds_package_modules_and_script_siblings(tmp_path):
    files = write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/models.py": "",
            "scripts/train.py": "",
            "scripts/utils.py": "",
        },
    )
    tree = Tree(files)
    train = str(tmp_path / "scripts/train.py")
    assert tree.locate(train, "utils.load") == (str(tmp_path / "scripts/utils.py"), ["load"])
    models = str(tmp_path / "pkg/models.py")
    assert tree.locate(models, "pkg.models.Net.call") == (models, ["Net", "call"])
    assert tree.locate(train, "numpy.sum") is None


def test_exports_are_computed_on_demand_and_follow_imports(tmp_path):
    files = write(
        tmp_path,
        {
            "net.py": "from tensorflow import keras\n"
            "model = keras.models.load_model('m.keras')\n"
            "def score(x):\n    return model.predict(x[None])\n",
            "wrap.py": "from net import score\ndef best(s):\n    return score(s).argmax()\n",
            "unused.py": "import numpy as np\n",
        },
    )
    index = Index(Tree(files))
    wrap = str(tmp_path / "wrap.py")
    facts = index.facts(wrap, "net.score")
    assert facts["effects"] == ["INFERENCE", "INITS_RUNTIME"]  # a model call starts it
    assert facts["uses"] == {"INFERENCE": {"x": {"one_sample": True}}}
    assert index.facts(str(tmp_path / "unused.py"), "wrap.best")["uses"] == {
        "INFERENCE": {"s": {"one_sample": True}}
    }
    assert str(tmp_path / "unused.py") not in index._exports  # never asked about
    assert index.facts(wrap, "net.model") == {"kind": "value", "value_kind": "keras model"}


def test_an_import_cycle_gives_no_facts_rather_than_looping(tmp_path):
    files = write(
        tmp_path,
        {
            "a.py": "from b import g\ndef f(x):\n    return g(x)\n",
            "b.py": "from a import f\ndef g(x):\n    return f(x)\n",
        },
    )
    index = Index(Tree(files))
    assert index.facts(str(tmp_path / "a.py"), "b.g") is None
