"""The project index: module names, import resolution, exports on demand."""

from tflint_perf.engine.project import ProjectView
from tflint_perf.run.project import DiskTree, Index, Tree, module_of


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


def test_folders_without_an_init_are_namespace_packages_for_the_scripts_above(tmp_path):
    files = write(
        tmp_path,
        {"create_db.py": "", "src/utils.py": "", "src/nets/wide.py": "", "pkg/__init__.py": ""},
    )
    tree = Tree(files)
    script = str(tmp_path / "create_db.py")
    assert tree.locate(script, "src.utils.get_meta") == (
        str(tmp_path / "src/utils.py"),
        ["get_meta"],
    )
    assert tree.locate(script, "src.nets.wide.Net") == (str(tmp_path / "src/nets/wide.py"), ["Net"])
    # a folder that is not a Python name is no package
    assert tree.locate(script, "utils.get_meta") is None


def test_the_disk_tree_finds_what_the_tree_of_every_file_finds(tmp_path):
    files = write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/models.py": "",
            "pkg/sub/__init__.py": "",
            "pkg/sub/layers.py": "",
            "loose/helpers.py": "",  # no __init__.py: not a module of pkg's root
            "scripts/train.py": "",
            "scripts/utils.py": "",
        },
    )
    tree, disk = Tree(files), DiskTree()
    asked = ["pkg.models.Net", "pkg.sub.layers.Dense.call", "pkg.sub", "loose.helpers.f"]
    asked += ["utils.load", "train.main", "numpy.sum", "pkg.missing.x", "helpers.f"]
    for importer in files:
        for qualname in asked:
            assert disk.locate(importer, qualname) == tree.locate(importer, qualname), (
                importer,
                qualname,
            )


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


STEP = (
    "import tensorflow as tf\n"
    "{decorator}def {name}(model, opt, x, y):\n"
    "    with tf.GradientTape() as tape:\n"
    "        loss = tf.reduce_mean(model(x) - y)\n"
    "    grads = tape.gradient(loss, model.trainable_variables)\n"
    "    opt.apply_gradients(zip(grads, model.trainable_variables))\n"
    "    return loss\n"
)


def test_a_function_holding_a_tape_step_exports_it(tmp_path):
    """TFP201 across modules: the step, whether its module compiles or reports it."""
    keras_step = STEP.replace("def ", "    def ").replace("\n    ", "\n        ")
    files = write(
        tmp_path,
        {
            "steps.py": STEP.format(decorator="", name="eager_step")
            + STEP.format(decorator="@tf.function\n", name="compiled_step")
            + STEP.format(decorator="", name="looped_step")
            + "for x, y in batches:\n    looped_step(m, o, x, y)\n"
            + "class Net(tf.keras.Model):\n"
            + keras_step.split("\n", 1)[1].format(decorator="", name="train_step"),
            "user.py": "import steps\n",
        },
    )
    index = Index(Tree(files))
    user = str(tmp_path / "user.py")
    assert index.facts(user, "steps.eager_step")["step"] == {"compiled": False, "reported": False}
    assert index.facts(user, "steps.compiled_step")["step"]["compiled"] is True
    assert index.facts(user, "steps.looped_step")["step"]["reported"] is True
    assert "step" not in (index.facts(user, "steps.Net.train_step") or {})  # fit() compiles it


def test_a_function_returning_a_pipeline_exports_its_facts(tmp_path):
    """TFP401 across modules: the returned pipeline's facts and where it ends."""
    files = write(
        tmp_path,
        {
            "data.py": "import tensorflow as tf\n"
            "def make(files):\n"
            "    ds = tf.data.TFRecordDataset(files).map(tf.io.parse_tensor)\n"
            "    return ds.batch(32)\n"
            "def ready(files):\n"
            "    return make(files).prefetch(tf.data.AUTOTUNE)\n"
            "def batched(ds):\n"
            "    return ds.batch(32)\n",
            "user.py": "import data\n",
        },
    )
    index = Index(Tree(files))
    user = str(tmp_path / "user.py")
    (made,) = index.facts(user, "data.make")["pipelines"]
    assert made["batched"] and not made["prefetched"] and made["serial"]
    assert made["work"] == "`TFRecordDataset` file reads"
    assert (made["last"], made["line"], made["batch_size"]) == ("batch", 4, 32)
    (ready,) = index.facts(user, "data.ready")["pipelines"]
    assert ready["prefetched"] and ready["last"] == "prefetch"
    assert "pipelines" not in (index.facts(user, "data.batched") or {})  # a parameter's pipeline
