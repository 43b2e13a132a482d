"""The project index in the cache: a second run computes no exports, and what
it prints never depends on the cache's state.

Each run is ``tflint-perf check --format json`` in this process; its output
must be byte-identical to a ``--no-cache`` run of the same tree: cold, warm,
and warm after an edit of a module that others import, directly or through
a chain (an entry reused without checking the facts it was computed from
would keep the importer's old findings)."""

import shutil

import pytest

from fixture_cases import project_cases
from tflint_perf.run import project as project_module
from tflint_perf.run.cache import Cache
from tflint_perf.run.config import Settings
from tflint_perf.run.project import Index, Tree

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


@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.parametrize("case", project_cases(), ids=lambda c: c.name)
def test_a_warm_run_equals_a_cold_one_and_computes_no_exports(case, jobs, lint, computed, tmp_path):
    tree = tmp_path / "tree"
    shutil.copytree(case, tree)
    uncached = lint(tree, "--no-cache", jobs=jobs)
    assert lint(tree, jobs=jobs) == uncached  # cold
    del computed[:]
    assert lint(tree, jobs=jobs) == uncached  # warm
    assert computed == []
    assert lint(tree, jobs=jobs) == uncached


@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.parametrize("depth", [1, 2, 3])
def test_editing_a_module_down_the_chain_changes_findings_as_without_cache(
    depth, jobs, lint, computed, tmp_path
):
    """depth 1: main -> net; 2: main -> m1 -> net; 3: main -> m1 -> m2 -> net.
    Only net.py changes; the entries of the modules between, whose text is
    the same, must not be reused: the facts they were computed from changed."""
    root = chain(tmp_path / "tree", depth)
    plain = lint(root, "--no-cache", jobs=jobs)
    assert '"TFP403"' not in plain
    assert lint(root, jobs=jobs) == plain
    assert lint(root, jobs=jobs) == plain  # warm

    (root / "net.py").write_text(PREDICTS)  # score() now predicts on one sample
    del computed[:]
    warm = lint(root, jobs=jobs)
    analysed = sorted(computed)
    predicts = lint(root, "--no-cache", jobs=jobs)
    assert '"TFP403"' in predicts and warm == predicts
    # net.py, and each module between it and main.py, is analysed again.
    assert analysed == sorted(["net.py", *(f"m{k}.py" for k in range(1, depth))])

    assert lint(root, jobs=jobs) == predicts  # warm on the new tree
    (root / "net.py").write_text(PLAIN)  # and back: the old entries verify again
    assert lint(root, jobs=jobs) == plain


def test_no_cache_neither_reads_nor_writes_the_index(lint, tmp_path):
    root = chain(tmp_path / "tree", 2, PREDICTS)
    lint(root, "--no-cache")
    assert not lint.cache.exists()


def test_a_full_disk_met_by_the_index_alone_is_said_once(check, lint, tmp_path, monkeypatch):
    """Every file's own entry is there, the index's are not, and nothing can
    be written: the same output, and one warning."""
    import json

    from tflint_perf.run import cache as cache_module

    root = chain(tmp_path / "tree", 3, PREDICTS)
    expected = lint(root, "--no-cache")
    assert lint(root) == expected
    exports = [
        p
        for p in lint.cache.glob("*/*.json")
        if "exports" in json.loads(json.loads(p.read_text())["findings"])["extra"]
    ]
    assert len(exports) == 3  # net, m2, m1
    for path in exports:
        path.unlink()

    def full(target, payload):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(cache_module, "_write_atomic", full)
    status, out, err = check(
        root, "--format", "json", "--exit-zero", "--cache-dir", lint.cache, "."
    )
    assert out == expected
    assert err.count("warning: cannot write the cache") == 1, err


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


CYCLE = {
    "a.py": NET + "from b import g\n"
    "def f(x):\n    return model.predict(x[None])\n"
    "def h(x):\n    return g(x)\n",
    "b.py": "from a import f\ndef g(x):\n    return f(x)\n",
    "user.py": "import a\nimport b\n",
}


@pytest.mark.parametrize("cold", [("a.h", "b.g"), ("b.g", "a.h")])
@pytest.mark.parametrize("warm", [("a.h", "b.g"), ("b.g", "a.h")])
def test_an_import_cycle_gives_what_it_gives_without_the_cache(
    cold, warm, tmp_path, monkeypatch, computed
):
    """In a cycle, the module asked about first sees no facts of the other: the
    answers depend on the order. An entry recorded in one order is used in
    the other only if it gives what computing it gives."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    for name, text in CYCLE.items():
        (tmp_path / name).write_text(text)
    files = sorted(str(tmp_path / n) for n in CYCLE)
    user = str(tmp_path / "user.py")
    settings = Settings(root=str(tmp_path))

    def ask(order, cache):
        index = Index(Tree(files), cache=cache)
        return [index.facts(user, q) for q in order]

    ask(cold, Cache(tmp_path / "cache", settings))
    del computed[:]
    found = ask(warm, Cache(tmp_path / "cache", settings))
    if warm == cold:
        assert computed == []  # asked in the same order: every entry verifies
    else:
        assert computed  # the other order: an entry recorded in a cycle does not
    assert found == ask(warm, None)
    fresh = ask(("a.h", "b.g"), None), ask(("b.g", "a.h"), None)
    assert fresh[0] != fresh[1][::-1]  # the order matters here: the test tests something


def test_the_index_trace_holds_each_name_asked_once_in_order(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    root = chain(tmp_path, 3, PREDICTS)
    files = sorted(str(p) for p in root.glob("*.py"))
    cache = Cache(tmp_path / "cache", Settings(root=str(root)))
    stored = []
    monkeypatch.setattr(
        project_module.Index,
        "_store",
        lambda self, path, data, extra, variant: stored.append(extra),
    )
    Index(Tree(files), cache=cache).facts(str(root / "main.py"), "m1.f1")
    traces = [[q for q, _ in extra["trace"]] for extra in stored]
    assert traces == [[], ["net.score"], ["m2.f2"]]  # net.py first: m2.py waits for it
