"""Device facts from NVML whenever a driver is present, independent of TensorFlow (a fake NVML here).

No GPU is needed: ``pynvml`` is replaced by a fake module, in this process
(``detect``) and in a real worker (a ``pynvml.py`` put first on its path).
The text table, JSON and HTML report must all say which GPU is there and
why the runs used the CPU.
"""

import json
import sys
import types
from io import StringIO
from pathlib import Path

import pytest

from tflint_perf.engine.rule import Edit, Finding, Fix
from tflint_perf.reporters import finding_to_dict
from tflint_perf.verify import device
from tflint_perf.verify.options import VerifyOptions
from tflint_perf.verify.report import write_html, write_table
from tflint_perf.verify.session import verify

FAKE_NVML = '''\
"""A fake nvidia-ml-py: one 80 GB GPU, driver 550.54.15."""


class NVMLError_LibraryNotFound(Exception):
    pass


class _Memory:
    total = 80 * 2**30
    used = 2**30
    free = total - used


def nvmlInit():
    pass


def nvmlShutdown():
    pass


def nvmlSystemGetDriverVersion():
    return b"550.54.15"


def nvmlDeviceGetCount():
    return 1


def nvmlDeviceGetHandleByIndex(index):
    return ("handle", index)


def nvmlDeviceGetName(handle):
    return b"NVIDIA H100 80GB HBM3"


def nvmlDeviceGetMemoryInfo(handle):
    return _Memory()
'''


def _fake_nvml(monkeypatch, source=FAKE_NVML):
    module = types.ModuleType("pynvml")
    exec(source, module.__dict__)
    monkeypatch.setitem(sys.modules, "pynvml", module)
    return module


class _FakeTf:
    """TensorFlow as far as ``detect`` asks: GPUs it lists, whether it was built with CUDA."""

    def __init__(self, gpus=0, cuda=True):
        self.config = types.SimpleNamespace(
            list_physical_devices=lambda kind: [
                types.SimpleNamespace(name=f"/GPU:{i}") for i in range(gpus)
            ]
        )
        self.test = types.SimpleNamespace(is_built_with_cuda=lambda: cuda)


def test_gpu_present_but_tensorflow_cpu_says_which_gpu_and_why_the_cpu(monkeypatch):
    _fake_nvml(monkeypatch)
    info = device.detect(_FakeTf(gpus=0, cuda=False))
    assert info["kind"] == "CPU"
    assert info["gpus"] == [{"name": "NVIDIA H100 80GB HBM3", "memory_bytes": 80 * 2**30}]
    assert info["driver"] == "550.54.15"
    assert info["cpu_reason"] == "this TensorFlow is built without CUDA (e.g. tensorflow-cpu)"
    assert (
        "GPU present but not used: NVIDIA H100 80GB HBM3 (80.0 GiB); driver 550.54.15"
        in (info["description"])
    )


def test_gpu_present_without_tensorflow_and_with_a_hidden_gpu(monkeypatch):
    _fake_nvml(monkeypatch)
    info = device.detect(None, "ModuleNotFoundError: No module named 'tensorflow'")
    assert info["kind"] == "CPU" and info["gpus"][0]["name"] == "NVIDIA H100 80GB HBM3"
    assert "TensorFlow is not importable (ModuleNotFoundError" in info["cpu_reason"]
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    info = device.detect(_FakeTf(gpus=0, cuda=True))
    assert info["cpu_reason"] == "TensorFlow sees no GPU (CUDA_VISIBLE_DEVICES='')"


def test_gpu_used_by_tensorflow_is_named_from_nvml(monkeypatch):
    _fake_nvml(monkeypatch)
    info = device.detect(_FakeTf(gpus=1))
    assert info["kind"] == "GPU" and info["tensorflow_gpus"] == 1
    assert (
        info["description"]
        == "GPU: NVIDIA H100 80GB HBM3 (NVIDIA H100 80GB HBM3 (80.0 GiB); driver 550.54.15)"
    )


def test_no_driver_and_no_nvidia_ml_py_say_so(monkeypatch):
    _fake_nvml(
        monkeypatch,
        "class NVMLError_LibraryNotFound(Exception):\n    pass\n\n"
        "def nvmlInit():\n    raise NVMLError_LibraryNotFound()\n",
    )
    info = device.detect(_FakeTf(gpus=0, cuda=False))
    assert info["gpus"] == [] and info["nvml"] == "no NVIDIA driver (NVML library not found)"
    assert info["description"].startswith("CPU (") and "no NVIDIA driver" in info["description"]
    monkeypatch.setitem(sys.modules, "pynvml", None)  # not installed
    info = device.detect(None)
    assert "nvidia-ml-py is not installed" in info["description"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="posix worker")
def test_a_real_worker_reports_the_fake_gpu_in_text_json_and_html(tmp_path, monkeypatch):
    fake = tmp_path / "fake_nvml"
    fake.mkdir()
    (fake / "pynvml.py").write_text(FAKE_NVML)
    monkeypatch.setenv("PYTHONPATH", str(fake))
    path = tmp_path / "m.py"
    path.write_text("import numpy as np\n\ny = np.ones(4) * 2\n")
    finding = Finding(
        str(path), 3, 1, 3, 1, "XYZ001", "t", "m", Fix((Edit(3, 0, 3, 17, "y = np.ones(4) + 1"),))
    )
    options = VerifyOptions(root=tmp_path, python=sys.executable, tf_module=None, timeout=20)
    session = verify([(str(path), path.read_text(), [finding])], options, {}, StringIO())
    facts = session.device_info
    assert facts["gpus"][0]["name"] == "NVIDIA H100 80GB HBM3" and facts["driver"] == "550.54.15"
    assert facts["cpu_reason"] == "TensorFlow not loaded"  # tf_module=None: the worker has none
    out = StringIO()
    write_table(session.findings, out, session)
    assert (
        "GPU present but not used: NVIDIA H100 80GB HBM3 (80.0 GiB); driver 550.54.15"
        in out.getvalue()
    )
    assert "why the CPU: TensorFlow not loaded" in out.getvalue()
    data = json.loads(json.dumps(finding_to_dict(finding)))
    assert data["verify"]["device_facts"]["gpus"][0]["memory_bytes"] == 80 * 2**30
    assert "GPU present but not used" in data["verify"]["device"]
    report = tmp_path / "r.html"
    write_html(session.findings, str(report), session)
    page = Path(report).read_text()
    assert "NVIDIA H100 80GB HBM3" in page and "why the CPU: TensorFlow not loaded" in page
