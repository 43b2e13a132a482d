"""Failure findings (``Purpose.FAILURE``): run the whole module once, watch TensorFlow (worker side).

TensorFlow's device-configuration functions are wrapped to record every
call, the user's lines on the stack, and what it raised. In the original
run, a ``RuntimeError`` from a call on the finding's line stops the module
right there (the failure is reproduced; what follows would only fail
further). The result also says how many GPUs TensorFlow sees and what
``CUDA_VISIBLE_DEVICES`` was, for ``Observe.VISIBLE_GPUS``.
"""

from __future__ import annotations

import functools
import os
import sys
import types
from typing import Optional

CONFIG_FUNCTIONS = (
    "set_memory_growth",
    "set_visible_devices",
    "set_logical_device_configuration",
    "set_virtual_device_configuration",
    "set_intra_op_parallelism_threads",
    "set_inter_op_parallelism_threads",
)
CONFIG_NAMESPACES = (
    "config",
    "config.experimental",
    "config.threading",
    "compat.v1.config",
    "compat.v1.config.experimental",
    "compat.v1.config.threading",
)


def _user_lines(path: str) -> list:
    frame: Optional[types.FrameType] = sys._getframe(2)
    lines = []
    while frame is not None:
        if frame.f_code.co_filename == path:
            lines.append(frame.f_lineno)
        frame = frame.f_back
    return lines


def _recording(original, name: str, events: list, stop_at, worker):
    @functools.wraps(original)
    def record(*args, **kwargs):
        lines = _user_lines(worker.path)
        try:
            value = original(*args, **kwargs)
        except Exception as exc:
            events.append({"call": name, "lines": lines, "error": worker.error_line(exc)})
            if stop_at is not None and stop_at in lines and isinstance(exc, RuntimeError):
                raise worker.Stop() from None
            raise
        events.append({"call": name, "lines": lines, "error": None})
        return value

    record.__tfp_recording__ = True  # type: ignore[attr-defined]
    return record


def _instrument(tf, make_recorder) -> None:
    for dotted in CONFIG_NAMESPACES:
        namespace = tf
        try:
            for part in dotted.split("."):
                namespace = getattr(namespace, part)
        except AttributeError:
            continue
        for name in CONFIG_FUNCTIONS:
            original = getattr(namespace, name, None)
            if original is not None and not getattr(original, "__tfp_recording__", False):
                try:
                    setattr(namespace, name, make_recorder(original, name))
                except Exception:
                    pass


def run_failure(worker, job: dict, variant: str) -> dict:
    """Run the original (``variant="original"``) or the fixed module; what the config calls did."""
    source = worker.source if variant == "original" else job["fixed_source"]
    events: list = []
    stop_at = job["line"] if variant == "original" else None
    if worker.tf is not None:
        _instrument(
            worker.tf, lambda original, name: _recording(original, name, events, stop_at, worker)
        )
    error, stopped = None, False
    try:
        worker.run_main(compile(source, worker.path, "exec"), worker.namespace())
    except worker.Stop:
        stopped = True
    except Exception as exc:
        error = worker.error_line(exc, worker.path)
    except SystemExit as exc:
        error = worker.error_line(exc, worker.path)
    result = {"variant": variant, "events": events, "error": error, "stopped": stopped}
    if worker.tf is not None:
        try:
            result["gpus_visible"] = len(worker.tf.config.list_physical_devices("GPU"))
        except Exception:
            pass
    result["cuda_visible_devices"] = os.environ.get("CUDA_VISIBLE_DEVICES")
    return result
