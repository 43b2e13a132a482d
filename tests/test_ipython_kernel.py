"""The IPython extension in a real Jupyter kernel (``make smoke``, not ``make test``).

jupyter_client starts ipykernel with this Python, as a notebook server
would, and the cells go through the kernel's messages; what the extension
shows must arrive as a ``display_data`` of that cell, with its HTML.
"""

import json
import sys

import pytest

pytestmark = pytest.mark.kernel

jupyter_client = pytest.importorskip("jupyter_client")
pytest.importorskip("ipykernel")

from jupyter_client.kernelspec import KernelSpecManager  # noqa: E402
from jupyter_client.manager import KernelManager  # noqa: E402

# The cells import this instead of TensorFlow: any attribute, any call.
STUB = """
class _Anything:
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return self
    def __call__(self, *args, **kwargs):
        return self
    def __iter__(self):
        return iter([self])
def __getattr__(name):
    return _Anything().__getattr__(name)
"""
TIMEOUT = 60  # seconds for any one message


@pytest.fixture
def kernel(tmp_path):
    """A kernel of this Python, started in tmp_path; its client."""
    spec = tmp_path / "kernels" / "tflint-test"
    spec.mkdir(parents=True)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (spec / "kernel.json").write_text(
        json.dumps({"argv": argv, "display_name": "tflint-test", "language": "python"})
    )
    work = tmp_path / "work"
    work.mkdir()
    (work / "tensorflow.py").write_text(STUB)
    manager = KernelManager(
        kernel_name="tflint-test",
        kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(tmp_path / "kernels")]),
    )
    manager.start_kernel(cwd=str(work), env={"IPYTHONDIR": str(tmp_path / "ipython")})
    client = manager.client()
    client.start_channels()
    try:
        client.wait_for_ready(timeout=TIMEOUT)
        yield client
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def execute(client, code):
    """Run one cell: (status, the display_data and stream outputs of that cell)."""
    msg_id = client.execute(code)
    outputs = []
    while True:
        msg = client.get_iopub_msg(timeout=TIMEOUT)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        kind, content = msg["msg_type"], msg["content"]
        if kind == "display_data":
            outputs.append(content["data"])
        elif kind == "stream":
            outputs.append({"stream": content["text"]})
        elif kind == "status" and content["execution_state"] == "idle":
            break
    reply = client.get_shell_msg(timeout=TIMEOUT)
    return reply["content"]["status"], outputs


def test_findings_arrive_under_the_cell_as_html(kernel):
    cells = [
        "%load_ext tflint_perf",
        "import tensorflow as tf",
        'gpus = tf.config.list_physical_devices("GPU")',
        "for gpu in gpus:\n    tf.config.experimental.set_memory_growth(gpu, True)",
        "x = tf.constant([1.0, 2.0])",
    ]
    for code in cells:
        status, outputs = execute(kernel, code)
        assert (status, outputs) == ("ok", []), code
    status, outputs = execute(
        kernel, "for gpu in gpus:\n    tf.config.experimental.set_memory_growth(gpu, True)"
    )
    assert status == "ok"
    [shown] = outputs
    assert "<code>TFP301</code> line 2:" in shown["text/html"]
    assert "at cell 5, line 1" in shown["text/plain"]  # the model cell is In [5]
    status, outputs = execute(kernel, "%tflint_perf off")
    assert outputs == [{"text/plain": "tflint-perf is off"}]
    status, outputs = execute(
        kernel, "for gpu in gpus:\n    tf.config.experimental.set_memory_growth(gpu, True)"
    )
    assert (status, outputs) == ("ok", [])
