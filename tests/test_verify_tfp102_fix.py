"""The TFP102 unsafe fix (a hand-written correlation -> ``tf.nn.conv2d``) keeps the results.

For every way of writing the loop that the fix accepts (how the sizes are
read, how ``out`` is initialised, whether TensorFlow is imported already)
the rule must offer the fix, and the original and fixed functions must give
equal results (``numpy.allclose``, rtol 1e-4, atol 1e-4: the fix computes in
float32) on random inputs of every shape the fix accepts: square and
non-square images and kernels, a 1x1 kernel, a kernel as large as the
image, float64, float32 and integer arrays. One subprocess imports
TensorFlow once for all of them.
"""

import importlib.util
import itertools
import json
import subprocess
import sys

import pytest

from tflint_perf.engine.fixes import apply_edits
from tflint_perf.engine.linter import lint_source
from tflint_perf.rules import all_rules

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("tensorflow") is None,
    reason="tensorflow is not installed (make test installs tensorflow-cpu)",
)

SIZES = {
    "kernel": [
        "    kh, kw = kernel.shape\n",
        "    kh = kernel.shape[0]\n    kw = kernel.shape[1]\n",
    ],
    "image": ["    h, w = image.shape\n", "    h = image.shape[0]\n    w = image.shape[1]\n"],
}
INITS = [
    "np.zeros((h - kh + 1, w - kw + 1))",
    "np.zeros([h - kh + 1, w - kw + 1])",
    "np.zeros((h - kh + 1, w - kw + 1), dtype=image.dtype)",
    "np.empty((h - kh + 1, w - kw + 1))",
]
IMPORTS = ["import numpy as np\n", "import numpy as np\nimport tensorflow as tf\n"]
# (image shape, kernel shape, dtype)
ARRAYS = [
    ((8, 8), (3, 3), "float64"),
    ((31, 17), (5, 2), "float64"),
    ((64, 48), (7, 7), "float32"),
    ((4, 4), (4, 4), "float64"),  # the kernel covers the image: one output value
    ((9, 5), (1, 1), "float64"),
    ((12, 10), (3, 4), "int64"),
]


def _variants():
    for kernel, image, init, imports in itertools.product(
        SIZES["kernel"], SIZES["image"], INITS, IMPORTS
    ):
        yield (
            imports
            + "\n\ndef correlate(image, kernel):\n"
            + kernel
            + image
            + f"    out = {init}\n"
            + "    for i in range(h - kh + 1):\n"
            + "        for j in range(w - kw + 1):\n"
            + "            out[i, j] = np.sum(image[i:i + kh, j:j + kw] * kernel)\n"
            + "    return out\n"
        )


CHECK = """\
import json, sys
import numpy as np

pairs, arrays = json.load(open(sys.argv[1]))
results = []
for index, (original, fixed) in enumerate(pairs):
    spaces = [{}, {}]
    exec(compile(original, f"original_{index}.py", "exec"), spaces[0])
    exec(compile(fixed, f"fixed_{index}.py", "exec"), spaces[1])
    rng = np.random.default_rng(index)
    for image_shape, kernel_shape, dtype in arrays:
        image = (rng.normal(size=image_shape) * 10).astype(dtype)
        kernel = (rng.normal(size=kernel_shape) * 3).astype(dtype)
        a = np.asarray(spaces[0]["correlate"](image, kernel))
        b = np.asarray(spaces[1]["correlate"](image, kernel))
        equal = a.shape == b.shape and bool(np.allclose(a, b, rtol=1e-4, atol=1e-4))
        diff = float(np.abs(a - b).max()) if a.shape == b.shape else None
        results.append([index, image_shape, kernel_shape, dtype, equal, diff])
print(json.dumps(results))
"""


def test_the_fix_is_offered_and_equal_for_every_shape_it_accepts(tmp_path):
    rules = [r for r in all_rules() if r.code == "TFP102"]
    pairs = []
    for source in _variants():
        findings = [f for f in lint_source(source, "conv.py", rules) if f.code == "TFP102"]
        assert len(findings) == 1 and findings[0].fix is not None, source
        fixed = apply_edits(source, list(findings[0].fix.edits))
        assert "tf.nn.conv2d(" in fixed and "for i in" not in fixed, fixed
        pairs.append((source, fixed))
    spec = tmp_path / "pairs.json"
    spec.write_text(json.dumps([pairs, ARRAYS]))
    script = tmp_path / "check.py"
    script.write_text(CHECK)
    proc = subprocess.run(
        [sys.executable, str(script), str(spec)],
        capture_output=True,
        text=True,
        timeout=300,
        env={"TF_CPP_MIN_LOG_LEVEL": "2", "PATH": "/usr/bin:/bin"},
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = json.loads(proc.stdout.strip().splitlines()[-1])
    assert len(results) == len(pairs) * len(ARRAYS) == 32 * 6
    unequal = [r for r in results if not r[4]]
    assert unequal == [], unequal[:5]
