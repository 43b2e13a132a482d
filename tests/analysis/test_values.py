"""Value kinds through dataflow: what a name, attribute or call holds."""

from tests.analysis.snippets import context, find, name
from tflint_perf.analysis.api import Kind
from tflint_perf.analysis.symbolic import symbolic
from tflint_perf.analysis.values import Values
from tflint_perf.engine import cst


def kinds(source, *spelled):
    """The kind of the last read of each name (or dotted name) in ``source``."""
    ctx = context(source)
    values = ctx.shared(Values)
    out = []
    for text in spelled:
        node_type = cst.Attribute if "." in text else cst.Name
        found = [n for n in ctx.nodes(node_type) if ctx.code(n) == text]
        out.append(values.kind(found[-1]))
    return out


def test_calls_of_the_api_table():
    assert kinds(
        """
        import numpy as np
        import tensorflow as tf
        from tensorflow import keras
        a = np.zeros((3, 4))
        t = tf.reduce_sum(a)
        ds = tf.data.Dataset.from_tensor_slices(a).batch(2)
        m = keras.Sequential()
        opt = keras.optimizers.Adam()
        parts = tf.split(t, 2)
        n = np.float32(3)
        use(a, t, ds, m, opt, parts, n)
        """,
        "a",
        "t",
        "ds",
        "m",
        "opt",
        "parts",
        "n",
    ) == [
        Kind.ARRAY,
        Kind.TENSOR,
        Kind.DATASET,
        Kind.KERAS_MODEL,
        Kind.OPTIMIZER,
        Kind.LIST,
        Kind.SCALAR,
    ]


def test_aliases_arithmetic_methods_and_subscripts_keep_the_kind():
    assert kinds(
        """
        import numpy as np
        x = np.ones(5)
        y = x
        z = (y * 2).reshape(5, 1)
        row = z[0]
        back = model_out.numpy()
        use(y, z, row, back)
        """,
        "y",
        "z",
        "row",
        "back",
    ) == [Kind.ARRAY, Kind.ARRAY, Kind.ARRAY, Kind.ARRAY]


def test_unpacking_of_load_data_and_of_literal_tuples():
    assert kinds(
        """
        from tensorflow import keras
        (x_train, y_train), (x_test, y_test) = keras.datasets.mnist.load_data()
        a, b = 1, "s"
        use(x_train, y_test, a, b)
        """,
        "x_train",
        "y_test",
        "a",
        "b",
    ) == [Kind.ARRAY, Kind.ARRAY, Kind.SCALAR, Kind.STRING]


def test_loop_targets_are_elements_of_what_is_iterated():
    assert kinds(
        """
        import numpy as np
        import tensorflow as tf
        data = np.zeros((10, 3))
        ds = tf.data.Dataset.range(10).batch(2)
        for i, row in enumerate(data):
            use(i, row)
        for batch in ds:
            use(batch)
        for k in range(3):
            use(k)
        for a, b in zip(data, data):
            use(a)
        """,
        "i",
        "row",
        "batch",
        "k",
        "a",
    ) == [Kind.SCALAR, Kind.ARRAY, Kind.TENSOR, Kind.SCALAR, Kind.ARRAY]


def test_self_attributes_set_in_init_and_local_keras_model_classes():
    ctx = context(
        """
        from tensorflow import keras
        class Net(keras.Model):
            def call(self, x):
                return x
        class Wrapped(Net):
            pass
        class Agent:
            def __init__(self):
                self.brain = Wrapped()
                self.memory = []
            def act(self, s):
                return self.brain.predict(s)
        agent = Agent()
        use(agent.brain)
        """
    )
    values = ctx.shared(Values)
    assert values.kind(find(ctx, cst.Attribute, "self.brain", 1)) is Kind.KERAS_MODEL
    assert values.kind(find(ctx, cst.Attribute, "agent.brain")) is Kind.KERAS_MODEL
    assert values.kind(find(ctx, cst.Call, "self.brain.predict(s)")) is Kind.ARRAY
    assert values.instance_class(name(ctx, "agent", 1)).name.value == "Agent"


def test_returns_of_module_functions_and_parameters_from_their_callers():
    ctx = context(
        """
        import numpy as np
        def make(n):
            return np.zeros(n)
        def scale(v):
            return v * 2
        a = make(3)
        b = scale(a)
        """
    )
    values = ctx.shared(Values)
    assert values.kind(find(ctx, cst.Call, "make(3)")) is Kind.ARRAY
    assert values.kind(name(ctx, "v", 1)) is Kind.ARRAY  # every caller passes an array
    assert values.kind(find(ctx, cst.Call, "scale(a)")) is Kind.ARRAY


def test_mixed_bindings_are_unknown_and_none_first_is_ignored():
    assert kinds(
        """
        import numpy as np
        x = np.zeros(3)
        if flag:
            x = "text"
        y = None
        y = np.ones(2)
        use(x, y)
        """,
        "x",
        "y",
    ) == [Kind.UNKNOWN, Kind.ARRAY]


def test_list_elements_from_appends_literals_and_comprehensions():
    ctx = context(
        """
        import tensorflow as tf
        parts = []
        for i in range(3):
            parts.append(tf.ones(2))
        names = ["a", "b"]
        rows = [tf.zeros(3) for _ in range(4)]
        use(parts, names, rows)
        """
    )
    values = ctx.shared(Values)
    assert values.element_kind(name(ctx, "parts", 2)) is Kind.TENSOR
    assert values.element_kind(name(ctx, "names", 1)) is Kind.STRING
    assert values.element_kind(name(ctx, "rows", 1)) is Kind.TENSOR


def test_with_targets():
    assert kinds(
        """
        import tensorflow as tf
        with tf.GradientTape() as tape:
            pass
        with tf.Session() as sess:
            pass
        use(tape, sess)
        """,
        "tape",
        "sess",
    ) == [Kind.TAPE, Kind.SESSION]


def test_instances_through_an_alias_of_the_class_or_of_the_object():
    ctx = context(
        """
        class Agent:
            def act(self):
                pass
        Cls = Agent
        agent = Cls()
        same = agent
        same.act()
        """
    )
    values = ctx.shared(Values)
    assert values.class_called(find(ctx, cst.Call, "Cls()")).name.value == "Agent"
    assert values.instance_class(name(ctx, "same", 1)).name.value == "Agent"


def test_strategies_are_their_own_kind():
    assert kinds(
        """
        import tensorflow as tf
        strategy = tf.distribute.MirroredStrategy()
        default = tf.distribute.get_strategy()
        use(strategy, default)
        """,
        "strategy",
        "default",
    ) == [Kind.STRATEGY, Kind.STRATEGY]


def test_a_model_built_with_add_is_still_a_model_where_it_is_trained():
    ctx = context(
        """
        from tensorflow.keras.models import Sequential
        from tensorflow.keras.layers import Dense
        model = Sequential()
        model.add(Dense(4))
        model.fit(x, y)
        """
    )
    from tflint_perf.analysis.values import Values

    receiver = find(ctx, cst.Call, "model.fit(x, y)").func.value
    assert ctx.shared(Values).kind(receiver) is Kind.KERAS_MODEL


def test_a_name_rebound_to_its_own_attribute_in_a_loop_has_no_known_source():
    """``node = node.parent`` in a loop over a parameter: following the object's
    sources comes back to the object (it recursed without end)."""
    ctx = context(
        """
        def outermost(node, stop=None):
            while node:
                if node == stop:
                    return node
                node = node.parent
            return None
        def use(op):
            return outermost(op.context())
        """
    )
    values = ctx.shared(Values)
    reads = [n for n in ctx.nodes(cst.Name) if n.value == "node"]
    parent = find(ctx, cst.Attribute, "node.parent")
    assert len(reads) == 6  # every read is answered (no RecursionError)
    assert [values.instance_class(n) for n in reads] == [None] * 6
    assert values.constructed_by(parent) is None


def test_items_of_a_tuple_a_module_function_returns_and_arrays_of_an_h5py_file():
    found = kinds(
        """
        import h5py
        def load(path):
            store = h5py.File(path, "r")
            return ["a", "b"], store["train_x"], store["train_y"]
        def load_some(path, many):
            if many:
                return load(path)
            return None
        def split(path):
            return load(path) + (1,)
        words, xs, ys = load("data.h5")
        a, b, c = load_some("data.h5", True)
        d, e, f, g = split("data.h5")
        xs, ys, words, a, e
        """,
        "xs",
        "ys",
        "words",
        "a",
        "e",
    )
    # a list, two arrays; no tuple spelled out in one return (or not a tuple at all): unknown
    assert found == [Kind.ARRAY, Kind.ARRAY, Kind.LIST, Kind.UNKNOWN, Kind.UNKNOWN]


def test_a_keras_symbolic_tensor_is_told_through_layers_models_and_ops():
    ctx = context(
        """
        import numpy as np
        import tensorflow as tf
        from tensorflow.keras import layers

        class Block(tf.keras.Model):
            def call(self, x):
                return x

        inputs = tf.keras.Input(shape=(8,))
        x = layers.Dense(4)(inputs)
        for _ in range(depth):
            x = Block()(x)
        joined = tf.concat([x, inputs], axis=-1) + 1
        ends = {}
        ends["top"] = joined
        head = layers.Dense(2)(ends["top"])
        data = np.ones((2, 8))
        y = Block()(data)
        use(x, joined, head, data, y)
        """
    )
    last = {n.value: n for n in ctx.nodes(cst.Name)}
    spelled = ("x", "joined", "head", "data", "y")
    assert [symbolic(ctx, last[n]) for n in spelled] == [True, True, True, False, False]
