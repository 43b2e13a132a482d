"""Which device the measurements ran on, and why (worker side).

nvidia-ml-py (``pynvml``) is asked first and on its own, whatever
TensorFlow can do: whenever an NVIDIA driver is present it names every GPU,
its memory and the driver. Then TensorFlow says whether it uses one. When
the runs are on the CPU, ``cpu_reason`` says why, every time: no NVIDIA
driver, nvidia-ml-py not installed, TensorFlow not importable, TensorFlow
built without CUDA (``tensorflow-cpu``), or TensorFlow sees no GPU.
"""

from __future__ import annotations

import os
import platform
from typing import List, Tuple


def _text(value) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def nvml_facts() -> Tuple[List[dict], str, str]:
    """(GPUs as {"name", "memory_bytes"}, driver version, why none were read)."""
    try:
        import pynvml
    except ImportError:
        return [], "", "nvidia-ml-py is not installed (pip install nvidia-ml-py)"
    try:
        pynvml.nvmlInit()
    except Exception as exc:  # NVMLError_LibraryNotFound, NVMLError_DriverNotLoaded, ...
        name = type(exc).__name__
        if "LibraryNotFound" in name:
            return [], "", "no NVIDIA driver (NVML library not found)"
        if "DriverNotLoaded" in name:
            return [], "", "the NVIDIA driver is not loaded"
        return [], "", f"NVML: {exc or name}"
    try:
        driver = _text(pynvml.nvmlSystemGetDriverVersion())
        gpus = []
        for index in range(int(pynvml.nvmlDeviceGetCount())):
            handle = pynvml.nvmlDeviceGetHandleByIndex(index)
            memory = pynvml.nvmlDeviceGetMemoryInfo(handle)
            gpus.append(
                {"name": _text(pynvml.nvmlDeviceGetName(handle)), "memory_bytes": int(memory.total)}
            )
        return gpus, driver, "" if gpus else "the NVIDIA driver reports no GPU"
    except Exception as exc:
        return [], "", f"NVML: {exc or type(exc).__name__}"
    finally:
        try:
            pynvml.nvmlShutdown()
        except Exception:
            pass


def tensorflow_gpus(tf, tf_error: str = "") -> Tuple[int, str]:
    """(GPUs TensorFlow uses, why none when 0)."""
    if tf is None:
        return 0, (
            f"TensorFlow is not importable ({tf_error})" if tf_error else "TensorFlow not loaded"
        )
    try:
        gpus = tf.config.list_physical_devices("GPU")
    except Exception as exc:
        return 0, f"TensorFlow could not list GPUs ({exc})"
    if gpus:
        return len(gpus), ""
    try:
        built_with_cuda = bool(tf.test.is_built_with_cuda())
    except Exception:
        built_with_cuda = True
    if not built_with_cuda:
        return 0, "this TensorFlow is built without CUDA (e.g. tensorflow-cpu)"
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None:
        return 0, f"TensorFlow sees no GPU (CUDA_VISIBLE_DEVICES={visible!r})"
    return 0, "TensorFlow sees no GPU (CUDA or cuDNN libraries missing or not matching?)"


def _gpu_text(gpus: List[dict], driver: str) -> str:
    names = ", ".join(f"{g['name']} ({g['memory_bytes'] / 2**30:.1f} GiB)" for g in gpus)
    return f"{names}; driver {driver}"


def detect(tf, tf_error: str = "") -> dict:
    """{"kind": "GPU"|"CPU", "description", "gpus", "driver", "cpu_reason", ...}."""
    gpus, driver, nvml_reason = nvml_facts()
    used, tf_reason = tensorflow_gpus(tf, tf_error)
    info = {
        "kind": "GPU" if used else "CPU",
        "cpu": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
        "gpus": gpus,
        "driver": driver,
        "nvml": nvml_reason or "ok",
        "tensorflow_gpus": used,
    }
    if used:
        info["name"] = gpus[0]["name"] if gpus else "GPU"
        detail = (
            _gpu_text(gpus, driver) if gpus else f"{nvml_reason}; name, driver and memory unknown"
        )
        info["description"] = f"GPU: {info['name']} ({detail})"
        return info
    info["name"] = info["cpu"]
    info["cpu_reason"] = tf_reason if gpus else "; ".join(r for r in (nvml_reason, tf_reason) if r)
    if gpus:
        info["description"] = (
            f"CPU ({info['cpus']} cores); GPU present but not used: {_gpu_text(gpus, driver)}; "
            f"why the CPU: {tf_reason}"
        )
    else:
        info["description"] = f"CPU ({info['cpus']} cores; no GPU: {info['cpu_reason']})"
    return info
