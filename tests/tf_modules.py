"""A hypothesis strategy for valid Python modules made of TensorFlow idioms.

Each module imports TensorFlow (and maybe NumPy, gc, os) under random
aliases, then strings together blocks: loops over tensors, gradient tapes,
tf.data pipelines, ``tf.config`` calls, ``predict`` in loops, models and
``tf.function``s built in loops, ``gc.collect()``, growing tensors,
hand-written convolutions; blocks are nested in functions, methods and
loops at random. Names are random. Every module compiles (checked).
"""

import keyword
import textwrap

from hypothesis import strategies as st

_WORDS = ["x", "y", "data", "batch", "model", "net", "ds", "step", "fn", "acc", "img", "w"]
_RESERVED = {"tf", "np", "gc", "os", "range", "len", "print", "zip", "self", "float", "list"}
# Fixed names in the templates (the_model, the_opt, y_true, encoder, tape, ...) are not
# drawn, so a drawn name never repeats a parameter.
names = st.builds(
    lambda word, n: f"{word}{n}" if n else word,
    st.sampled_from(_WORDS),
    st.integers(0, 3),
).filter(lambda name: not keyword.iskeyword(name) and name not in _RESERVED)
aliases = st.sampled_from(["tf", "tensorflow", "T", "tflow"])
np_aliases = st.sampled_from(["np", "numpy", "onp"])

# Templates: {tf} {np} are the aliases; {a} {b} {c} {d} random names.
BLOCKS = [
    "{a} = {tf}.random.normal([64, 8])\nfor {b} in range({a}.shape[0]):\n"
    "    {c} = {tf}.reduce_sum({a}[{b}] * 2.0)\n",
    "{a} = {np}.ones((16, 4))\n{b} = []\nfor {c} in {a}:\n    {b}.append({np}.exp({c}).sum())\n",
    "{a} = {tf}.Variable(1.0)\nopt = {tf}.keras.optimizers.SGD(0.1)\n\n\n"
    "def {b}({c}):\n    with {tf}.GradientTape() as tape:\n"
    "        loss = {tf}.square({a} * {c} - 1.0)\n"
    "    grad = tape.gradient(loss, {a})\n    opt.apply_gradients([(grad, {a})])\n"
    "    return loss\n\n\nfor _ in range(100):\n    {b}(2.0)\n",
    "{a} = {tf}.data.Dataset.from_tensor_slices({tf}.zeros([100, 3]))\n"
    "{a} = {a}.map(lambda {b}: {b} * 2).batch(10)\nfor {c} in {a}:\n    pass\n",
    "{a} = {tf}.data.Dataset.range(50).map(lambda {b}: {tf}.io.decode_raw({tf}.strings.as_string({b}), {tf}.uint8))\n"
    "{a} = {a}.batch(5).prefetch({tf}.data.AUTOTUNE)\n",
    "{a} = {tf}.constant(1.0)\nfor {b} in {tf}.config.list_physical_devices('GPU'):\n"
    "    {tf}.config.experimental.set_memory_growth({b}, True)\n",
    "{tf}.config.set_visible_devices([], 'GPU')\n{a} = {tf}.zeros([2])\n",
    "{a} = {tf}.ones([3])\nos.environ['CUDA_VISIBLE_DEVICES'] = '0'\n",
    "{a} = {tf}.keras.Sequential([{tf}.keras.layers.Dense(1)])\n"
    "for {b} in [{tf}.zeros([1, 4])] * 10:\n    {c} = {a}.predict({b}[None])\n",
    "for {a} in range(3):\n    {b} = {tf}.keras.Sequential([{tf}.keras.layers.Dense(4)])\n"
    "    {b}.compile(optimizer='adam', loss='mse')\n",
    "@{tf}.function\ndef {a}({b}):\n    return {tf}.zeros([{b}])\n\n\n"
    "for {c} in range(10):\n    {a}({c})\n",
    "for {a} in range(5):\n    {b} = {tf}.zeros([2])\n    gc.collect()\n",
    "{a} = {tf}.zeros([0, 4])\nfor {b} in range(10):\n"
    "    {a} = {tf}.concat([{a}, {tf}.ones([1, 4])], axis=0)\n",
    "{a} = {np}.zeros((8, 8))\n{b} = {np}.ones((3, 3))\n{c} = {np}.zeros((6, 6))\n"
    "for i in range(6):\n    for j in range(6):\n"
    "        {c}[i, j] = ({a}[i:i + 3, j:j + 3] * {b}).sum()\n",
    "{a} = [{tf}.constant(float({b})) for {b} in range(4)]\n{c} = {tf}.stack({a})\n",
    "def {a}({b}, encoder):\n    {c} = {tf}.zeros([0, 8])\n    for {d} in {b}:\n"
    "        {c} = {tf}.concat([{c}, encoder({d})], axis=0)\n    return {c}\n",
    "def {a}({b}, the_model, the_opt):\n    for {c}, ({d}, y_true) in enumerate({b}):\n"
    "        with {tf}.GradientTape() as tape:\n"
    "            loss = {tf}.reduce_mean(the_model({d}) - y_true)\n"
    "        grads = tape.gradient(loss, the_model.trainable_variables)\n"
    "        the_opt.apply_gradients(zip(grads, the_model.trainable_variables))\n"
    "        gc.collect()\n",
    "def {a}(pattern):\n    {b} = {tf}.data.TFRecordDataset(pattern).map(lambda r: r)\n"
    "    return {b}.shuffle(100).batch(32)\n\n\ndef {c}(the_model):\n"
    "    for {d} in {a}('x'):\n        the_model.train_on_batch({d})\n",
    "{a} = {tf}.data.Dataset.range(10).batch(2)\n{b} = {tf}.keras.Sequential()\n{b}.fit({a}, epochs=2)\n",
]
WRAPPERS = [
    "def {name}():\n{body}",
    "class {cls}:\n    def {name}(self):\n{body2}",
    "for _ in range(2):\n{body}",
    "if __name__ == '__main__':\n{body}",
    "with {tf}.device('/CPU:0'):\n{body}",
]


@st.composite
def blocks(draw, tf: str, np: str, depth: int = 0) -> str:
    template = draw(st.sampled_from(BLOCKS))
    a, b, c, d = draw(st.lists(names, min_size=4, max_size=4, unique=True))
    text = template.format(tf=tf, np=np, a=a, b=b, c=c, d=d)
    if depth < 2 and draw(st.booleans()):
        wrapper = draw(st.sampled_from(WRAPPERS))
        name = draw(names)
        text = wrapper.format(
            name=name,
            cls=name.capitalize() + "Cls",
            tf=tf,
            body=textwrap.indent(text, "    "),
            body2=textwrap.indent(text, "        "),
        )
    return text


def _header(tf: str, np: str, extra) -> str:
    lines = ["import tensorflow" + (f" as {tf}" if tf != "tensorflow" else "")]
    lines.append("import numpy" + (f" as {np}" if np != "numpy" else ""))
    lines.extend(extra)
    return "\n".join(lines) + "\n\n"


@st.composite
def modules(draw) -> str:
    """One module's source: imports, then 1 to 6 blocks."""
    tf, np = draw(aliases), draw(np_aliases)
    extra = draw(st.lists(st.sampled_from(["import gc", "import os"]), unique=True))
    extra = sorted(set(extra) | {"import gc", "import os"})
    parts = draw(st.lists(blocks(tf, np), min_size=1, max_size=6))
    source = _header(tf, np, extra) + "\n".join(parts)
    compile(source, "<generated>", "exec")  # the strategy's own promise
    return source
