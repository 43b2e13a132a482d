"""Which device the measurements ran on (worker side).

nvidia-ml-py (``pynvml``) names the GPU, its driver and total memory; when
it finds no driver (``NVMLError_LibraryNotFound``), is not installed, or
TensorFlow sees no GPU, the runs are on the CPU, and the description says
why, every time.
"""

from __future__ import annotations

import os
import platform


def _nvml():
    try:
        import pynvml
    except ImportError:
        return None, "nvidia-ml-py is not installed"
    try:
        pynvml.nvmlInit()
    except Exception as exc:  # NVMLError_LibraryNotFound, NVMLError_DriverNotLoaded, ...
        name = type(exc).__name__
        if "LibraryNotFound" in name:
            return None, "NVML library not found (no NVIDIA driver)"
        return None, f"NVML: {exc or name}"
    return pynvml, ""


def _text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def detect(tf) -> dict:
    """{"kind": "GPU"|"CPU", "name", "description", ...}."""
    gpus = []
    if tf is not None:
        try:
            gpus = tf.config.list_physical_devices("GPU")
        except Exception:
            gpus = []
    nvml, nvml_reason = _nvml()
    info = {"kind": "CPU", "name": platform.processor() or platform.machine(), "cpus": os.cpu_count()}
    if gpus and nvml is not None:
        try:
            handle = nvml.nvmlDeviceGetHandleByIndex(0)
            memory = nvml.nvmlDeviceGetMemoryInfo(handle)
            info = {
                "kind": "GPU",
                "name": _text(nvml.nvmlDeviceGetName(handle)),
                "driver": _text(nvml.nvmlSystemGetDriverVersion()),
                "total_memory_bytes": int(memory.total),
                "gpus": len(gpus),
            }
            info["description"] = (
                f"GPU: {info['name']} (driver {info['driver']}, {memory.total / 2**30:.1f} GiB)"
            )
            return info
        except Exception as exc:  # pragma: no cover - depends on the machine
            nvml_reason = f"NVML: {exc}"
    if gpus:
        info = {"kind": "GPU", "name": getattr(gpus[0], "name", "GPU"), "gpus": len(gpus)}
        info["description"] = f"GPU: {info['name']} ({nvml_reason}; name, driver and memory unknown)"
        return info
    why = []
    if tf is None:
        why.append("TensorFlow not loaded")
    else:
        why.append("TensorFlow sees no GPU")
    if nvml_reason:
        why.append(nvml_reason)
    info["description"] = f"CPU ({info['cpus']} cores; no GPU: {'; '.join(why)})"
    return info
