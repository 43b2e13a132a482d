"""The TFP102 unsafe fix keeps the function's results (np.allclose on random input).

Not collected by pytest (needs TensorFlow). Run with the scratch venv:
  /work/venv-scratch/bin/python tests/manual_verify_tfp102_fix.py \
      fixtures/TFP102/bad_valid_window_sum.py fixtures/TFP102/bad_valid_window_sum.unsafe.fixed.py
"""
import importlib.util, sys
import numpy as np

def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod

before = load(sys.argv[1], "before")
after = load(sys.argv[2], "after")
rng = np.random.default_rng(0)
for shape, k in [((8, 8), (3, 3)), ((31, 17), (5, 2)), ((64, 48), (7, 7)), ((4, 4), (4, 4))]:
    image = rng.normal(size=shape)
    kernel = rng.normal(size=k)
    a = before.correlate_valid(image, kernel)
    b = after.correlate_valid(image, kernel)
    assert a.shape == b.shape, (a.shape, b.shape)
    assert np.allclose(a, b, rtol=1e-4, atol=1e-4), np.abs(a - b).max()
    print(shape, k, "ok, max abs diff", float(np.abs(a - b).max()), type(b).__name__)
