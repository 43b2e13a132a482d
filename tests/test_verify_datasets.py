"""Synthetic data for known dataset loaders in --verify's workers: real shapes, no downloads."""

import importlib.util

import pytest

from tflint_perf.verify import datasets
from tflint_perf.verify.guard import Guard, Refused

np = pytest.importorskip("numpy")


@pytest.fixture(autouse=True)
def fresh(monkeypatch, tmp_path):
    monkeypatch.setattr(datasets, "USED", [])
    monkeypatch.setattr(datasets, "GUARD", Guard([str(tmp_path)]))
    monkeypatch.setenv("HOME", str(tmp_path))


def test_keras_image_and_table_datasets_have_the_real_shapes_dtypes_and_ranges():
    (x, y), (xt, yt) = datasets._keras_arrays("mnist")()
    assert (x.shape, x.dtype, y.shape, y.dtype) == ((60000, 28, 28), np.uint8, (60000,), np.uint8)
    assert (xt.shape, yt.shape) == ((10000, 28, 28), (10000,)) and set(np.unique(y)) == set(
        range(10)
    )
    (x, y), _ = datasets._keras_arrays("cifar10")()
    assert (x.shape, y.shape, y.dtype) == ((50000, 32, 32, 3), (50000, 1), np.uint8)
    (x, y), (xt, _) = datasets._keras_arrays("boston_housing")()
    assert (x.shape, xt.shape, x.dtype) == ((404, 13), (102, 13), np.float64)
    again, _ = datasets._keras_arrays("mnist")()
    assert np.array_equal(again[0], datasets._keras_arrays("mnist")()[0][0])  # seeded: the same
    assert datasets.USED == [
        "keras.datasets.mnist",
        "keras.datasets.cifar10",
        "keras.datasets.boston_housing",
    ]


def test_keras_sequences_follow_num_words_maxlen_and_the_start_character():
    (x, y), (xt, yt) = datasets._keras_sequences("imdb")(num_words=1000, maxlen=200)
    assert x.dtype == object and len(x) + len(xt) > 10000
    assert all(row[0] == 1 and max(row) < 1000 and len(row) < 200 for row in x[:200])
    assert y.dtype == np.int64 and set(np.unique(y)) == {0, 1}
    (x, _), (xt, _) = datasets._keras_sequences("reuters")(test_split=0.2)
    assert len(xt) == pytest.approx(0.2 * (len(x) + len(xt)), abs=1)
    assert len(datasets._word_index("imdb")()) == 88584


def test_known_files_are_written_in_the_temporary_home_and_other_downloads_refused(tmp_path):
    path = datasets.get_file("auto-mpg.data", "http://archive.ics.uci.edu/ml/auto-mpg.data")
    assert path == str(tmp_path / ".keras" / "datasets" / "auto-mpg.data")
    assert len(open(path).read().splitlines()) == 398
    with pytest.raises(Refused, match="downloading https://example.com/x.zip with get_file"):
        datasets.get_file("x.zip", "https://example.com/x.zip", extract=True)
    assert datasets.GUARD.refused == [
        "downloading https://example.com/x.zip with get_file (network)"
    ]


def test_a_known_tables_address_reads_the_synthetic_table_and_others_go_on_to_be_refused():
    import types
    import urllib.request

    refused = []

    def urlopen(url, *args, **kwargs):
        refused.append(url)
        raise Refused(13, "refused")

    module = types.ModuleType("urllib.request")
    module.urlopen = urlopen
    datasets.patch_urlopen(module)
    address = "https://archive.ics.uci.edu/ml/machine-learning-databases/wine/wine.data"
    with module.urlopen(urllib.request.Request(address)) as response:
        rows = response.read().decode().splitlines()
    assert len(rows) == 178 and len(rows[0].split(",")) == 14 and rows[0].startswith("1,")
    assert datasets.USED[-1] == f"wine.data from {address} (UCI wine table)"
    with pytest.raises(Refused):
        module.urlopen("https://example.com/wine.data.zip")
    assert refused == ["https://example.com/wine.data.zip"]


def test_patched_modules_load_synthetic_data():
    import types

    module = types.ModuleType("keras.datasets.fashion_mnist")
    module.load_data = lambda: pytest.fail("downloads")
    assert datasets.KERAS_DATASET.search(module.__name__)
    datasets.patch_keras_dataset(module)
    (x, _), _ = module.load_data()
    assert x.shape == (60000, 28, 28)


@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="needs TensorFlow")
def test_tfds_load_gives_the_real_element_spec_splits_and_info():
    import tensorflow as tf

    ds, info = datasets.tfds_load("mnist", split="train[:10%]", as_supervised=True, with_info=True)
    image, label = ds.element_spec
    assert (image.shape, image.dtype, label.dtype) == ((28, 28, 1), tf.uint8, tf.int64)
    assert int(ds.cardinality()) == 6000
    assert info.features["label"].num_classes == 10 and info.splits["train"].num_examples == 60000
    first = [x.numpy() for x, _ in ds.take(2)]
    assert np.array_equal(first[0], next(iter(datasets.tfds_load("mnist", split="train")))["image"])
    text = datasets.tfds_load("imdb_reviews", split=["train", "test"])
    assert [int(d.cardinality()) for d in text] == [25000, 25000]
    with pytest.raises(Refused, match="the tensorflow_datasets dataset 'coco'"):
        datasets.tfds_load("coco", split="train")


def test_training_before_the_measured_code_is_cut_to_one_epoch_and_said(monkeypatch):
    import types

    from tflint_perf.verify import imports

    monkeypatch.setattr(imports, "SHORTENED", [])
    monkeypatch.setitem(imports.SHORTEN, "on", True)

    class Model:
        def fit(self, x=None, y=None, batch_size=None, epochs=1, initial_epoch=0):
            return epochs - initial_epoch

    keras = types.ModuleType("keras")
    keras.Model = Model
    imports.patch_keras_fit(keras)
    assert Model().fit([1], [2], epochs=500) == 1
    assert Model().fit([1], [2], 32, 40) == 1  # positional epochs
    assert Model().fit([1], [2], epochs=5, initial_epoch=3) == 1
    assert len(imports.SHORTENED) == 3 and imports.SHORTENED[0].endswith("1 of 500 epochs")
    imports.SHORTEN["on"] = False  # while measuring: as written
    assert Model().fit([1], [2], epochs=500) == 500


def test_a_cut_fit_returns_a_history_as_long_as_asked(monkeypatch):
    """Code after the fit plots `range(epochs)` against the losses: the shapes must agree."""
    import types

    from tflint_perf.verify import imports

    monkeypatch.setattr(imports, "SHORTENED", [])
    monkeypatch.setitem(imports.SHORTEN, "on", True)

    class Model:
        def fit(self, x=None, y=None, batch_size=None, epochs=1, initial_epoch=0):
            ran = range(initial_epoch, epochs)
            logs = {"loss": [0.5 - 0.1 * e for e in ran], "val_loss": [0.6 for _ in ran]}
            return types.SimpleNamespace(history=logs, epoch=list(ran))

    keras = types.ModuleType("keras")
    keras.Model = Model
    imports.patch_keras_fit(keras)
    history = Model().fit([1], [2], epochs=4, initial_epoch=1)
    assert history.history == {"loss": [0.4] * 3, "val_loss": [0.6] * 3}
    assert history.epoch == [1, 2, 3]


def test_ipython_display_objects_read_no_file():
    import types

    from tflint_perf.verify import imports

    display = types.ModuleType("IPython.display")

    class Image:
        def __init__(self, filename=None):
            open(filename).close()

    display.Image = Image
    display.display = lambda *a: pytest.fail("shown")
    imports.patch_ipython_display(display)
    display.display(display.Image(filename="images/12_01.png"))  # no FileNotFoundError


def _fake_tfds():
    import types

    module = types.ModuleType("tensorflow_datasets")
    module.load = lambda *a, **k: pytest.fail("tfds.load downloads")
    module.builder = lambda *a, **k: pytest.fail("tfds.builder downloads")
    module.download = types.SimpleNamespace(DownloadManager=type("DownloadManager", (), {}))
    module.download.DownloadManager.download_and_extract = lambda self, urls: pytest.fail("net")
    datasets.patch_tfds(module)
    return module


def test_tfds_downloads_other_than_the_table_are_refused_at_once():
    module = _fake_tfds()
    with pytest.raises(Refused, match="download manager"):
        module.download.DownloadManager().download_and_extract({"train": "https://x/y.gz"})
    with pytest.raises(Refused, match="the tensorflow_datasets dataset 'coco'"):
        module.builder("coco")


@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="needs TensorFlow")
def test_tfds_builder_prepares_nothing_and_gives_the_synthetic_splits():
    builder = _fake_tfds().builder("mnist")
    assert builder.download_and_prepare() is None
    assert builder.info.splits["test"].num_examples == 10000
    ds = builder.as_dataset(split="test", as_supervised=True, shuffle_files=True)
    image, label = ds.element_spec
    assert (tuple(image.shape), int(ds.cardinality())) == ((28, 28, 1), 10000)
