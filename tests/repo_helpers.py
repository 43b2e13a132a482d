"""Helpers for tests that drive the real CLI in temporary git repositories."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def cli_environment(home: Path) -> dict:
    env = dict(os.environ)
    env["NO_COLOR"] = "1"
    # Keep the developer's git configuration out of the tests.
    env["HOME"] = str(home)
    env["GIT_CONFIG_NOSYSTEM"] = "1"
    env["GIT_CONFIG_GLOBAL"] = os.devnull
    return env


def tflint(cwd: Path, *args: str, env: dict, stdin: str = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        # concise: one line per finding (a later --format in args wins)
        [sys.executable, "-m", "tflint_perf", "check", "--output-format", "concise", *args],
        cwd=cwd,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
    )


def git(repo: Path, *args: str, env: dict) -> str:
    proc = subprocess.run(
        [
            "git",
            "-c",
            "user.name=Test",
            "-c",
            "user.email=test@example.com",
            "-c",
            "commit.gpgsign=false",
            *args,
        ],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def init_repo(repo: Path, env: dict) -> Path:
    repo.mkdir(parents=True, exist_ok=True)
    git(repo, "init", "-q", "-b", "main", env=env)
    return repo


def commit_all(repo: Path, message: str, env: dict) -> None:
    git(repo, "add", "-A", env=env)
    git(repo, "commit", "-q", "-m", message, env=env)


def findings_json(proc: subprocess.CompletedProcess) -> list:
    assert proc.returncode in (0, 1), proc.stderr
    return json.loads(proc.stdout)


def where(findings: list) -> list:
    """``path:line CODE`` (``path:cell C:L CODE`` in notebooks), sorted."""
    out = []
    for f in findings:
        if "cell" in f:
            out.append(f"{f['path']}:cell {f['cell']}:{f['cell_line']} {f['code']}")
        else:
            out.append(f"{f['path']}:{f['line']} {f['code']}")
    return sorted(out)


def notebook(*cells, indent=1, sort_keys=True, ensure_ascii=False, trailing_newline=True) -> str:
    """An nbformat 4 notebook; each cell is code text, or ("markdown", text)."""
    out = []
    for cell in cells:
        kind, text = cell if isinstance(cell, tuple) else ("code", cell)
        parts = text.split("\n")
        source = [p + "\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])
        entry = {"cell_type": kind, "metadata": {}, "source": source}
        if kind == "code":
            entry.update({"execution_count": None, "outputs": []})
        out.append(entry)
    nb = {
        "cells": out,
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    text = json.dumps(nb, indent=indent, sort_keys=sort_keys, ensure_ascii=ensure_ascii)
    return text + ("\n" if trailing_newline else "")


# A module with one TFP301 finding, on the line of the set_memory_growth call (line 5).
LATE_CONFIG = """import tensorflow as tf

scale = tf.constant(2.0)
for gpu in tf.config.list_physical_devices("GPU"):
    tf.config.experimental.set_memory_growth(gpu, True)
"""

LATE_CONFIG_IN_FUNCTION = """

def {name}():
    warmup = tf.zeros([8])
    for device in tf.config.list_physical_devices("GPU"):
        tf.config.experimental.set_memory_growth(device, True)
    return warmup
"""
