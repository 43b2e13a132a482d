"""The project index in the cache: a second run computes no exports, and what
it prints never depends on the cache's state.

Each run is ``tflint-perf check --format json`` in this process; its output
must be byte-identical to a ``--no-cache`` run of the same tree: cold, warm,
and warm after an edit of a module that others import, directly or through
a chain (an entry reused without checking the facts it was computed from
would keep the importer's old findings)."""

import shutil

import pytest

from tflint_perf.run.project import Index

NET = "from tensorflow import keras\nmodel = keras.models.load_model('m.keras')\n"
PREDICTS = NET + "def score(x):\n    return model.predict(x[None])\n"
PLAIN = NET + "def score(x):\n    return x * 2\n"
MAIN = "import numpy as np\nfrom {first} import {name}\ndef run(xs):\n    return [{name}(x) for x in xs]\n"
# A file of the tree with a loop that asks nothing of it: its entries stay.
OTHER = "import numpy as np\ndef total(xs):\n    out = 0\n    for x in xs:\n        out += np.sum(x)\n    return out\n"


@pytest.fixture
def lint(check, tmp_path, monkeypatch):
    """``lint(folder, *args)``: the JSON output (exit status checked), the
    cache in a folder of the test's own, the pool as ``jobs`` says."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    cache = tmp_path / "cache"

    def run(folder, *args, jobs=1, paths=(".",)):
        monkeypatch.setenv("TFLINT_PERF_POOL", "always" if jobs > 1 else "never")
        status, out, err = check(
            folder,
            "--format",
            "json",
            "--exit-zero",
            "-j",
            jobs,
            "--cache-dir",
            cache,
            *args,
            *paths,
        )
        assert status == 0 and "warning" not in err, err
        return out

    run.cache = cache
    return run


@pytest.fixture
def computed(monkeypatch):
    """The modules whose exports the index analyses (not answered by the cache)."""
    seen: list = []
    real = Index._compute

    def counted(self, path, *args):
        seen.append(path)
        return real(self, path, *args)

    monkeypatch.setattr(Index, "_compute", counted)
    return seen


def chain(root, depth, score=PLAIN):
    """main.py loops over ``m1.f1``, which calls ``m2.f2`` ... which calls
    ``net.score``; with ``score=PREDICTS`` each call predicts on one sample."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text("[tool.tflint-perf]\n")
    (root / "net.py").write_text(score)
    callee, name = "net", "score"
    for k in range(depth - 1, 0, -1):
        (root / f"m{k}.py").write_text(
            f"from {callee} import {name}\ndef f{k}(s):\n    return {name}(s).argmax()\n"
        )
        callee, name = f"m{k}", f"f{k}"
    (root / "main.py").write_text(MAIN.format(first=callee, name=name))
    (root / "other.py").write_text(OTHER)
    return root


def test_a_one_file_run_does_not_answer_for_a_tree(lint, tmp_path):
    """A file linted alone asks nothing of the tree, and a file of a tree
    without the module it imports runs fewer rules: neither entry holds for
    the whole tree."""
    root = chain(tmp_path / "tree", 2, PREDICTS)
    (root / "loop.py").write_text(  # imports the tree, names no framework
        "from net import score\ndef run(xs):\n    out = []\n"
        "    for x in xs:\n        out.append(score(x))\n    return out\n"
    )
    whole = lint(root, "--no-cache")
    assert whole.count('"TFP403"') == 2
    for files in ("main.py",), ("loop.py", "other.py"):
        shutil.rmtree(lint.cache, ignore_errors=True)
        assert lint(root, paths=files) == lint(root, "--no-cache", paths=files)
        assert lint(root) == whole
        assert lint(root, paths=files) == lint(root, "--no-cache", paths=files)
