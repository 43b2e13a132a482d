from tests.analysis.snippets import context
from tflint_perf.analysis.exports import module_exports


def test_each_item_of_a_returned_tuple_is_exported_with_its_kind():
    ctx = context(
        """
        from scipy.io import loadmat

        def load(path):
            meta = loadmat(path)
            return meta["x"][0], [1, 2]

        def passed_on(a, b):
            return a, b

        def either(path, flag):
            if flag:
                return loadmat(path)["x"], 1
            return [], 1
        """
    )
    found = module_exports(ctx)
    assert found["load"]["items"] == ["array", "list"]
    # nothing known of any item, or returns that disagree: no items
    assert "items" not in (found.get("passed_on") or {})
    assert "items" not in (found.get("either") or {})


def test_a_class_exports_what_its_instances_attributes_hold():
    ctx = context(
        """
        import tensorflow as tf

        class Table:
            def __init__(self):
                self.values = {}

        class Network:
            def __init__(self, n):
                self.model = tf.keras.Sequential([tf.keras.layers.Dense(n)])
                self.table = Table()
                self.steps = 0
        """
    )
    found = module_exports(ctx)
    # the framework's objects only: not a class of the module, not a number
    assert found["Network"]["attributes"] == {"model": "keras model"}
    assert found["Table"]["attributes"] == {}


def test_the_pipelines_of_a_returned_tuple_are_exported_item_by_item():
    ctx = context(
        """
        import tensorflow as tf

        def make(paths):
            train = tf.data.TFRecordDataset(paths).batch(32)
            valid = tf.data.TFRecordDataset(paths).batch(8).prefetch(1)
            return train, valid, len(paths)
        """
    )
    each = module_exports(ctx)["make"]["pipeline_items"]
    assert [[p["batched"] for p in item] for item in each] == [[True], [True], []]
    assert [[p["prefetched"] for p in item] for item in each] == [[False], [True], []]
