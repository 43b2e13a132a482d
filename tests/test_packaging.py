"""The rules/ folder ships as tflint_perf.rules in a built wheel."""

import subprocess
import sys
import zipfile

from conftest import ROOT


def test_wheel_contains_rules_and_imports_them(tmp_path):
    build = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "-v",  # the build backend's own output: no warning box (make demo shows it)
            "-w",
            str(tmp_path / "dist"),
            str(ROOT),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert build.returncode == 0, build.stderr
    said = build.stdout + build.stderr
    assert "BuildBackendWarning" not in said and "DeprecationWarning" not in said, said[-3000:]
    (wheel,) = (tmp_path / "dist").glob("tflint_perf-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    # A rule is a module (tfpNNN_x.py) or a package (tfpNNN_x/ with its files).
    rule_files = sorted(
        str(p.relative_to(ROOT / "rules"))
        for p in (ROOT / "rules").glob("tfp*")
        for p in ([p] if p.suffix == ".py" else sorted(p.glob("*.py")))
    )
    for name in rule_files:
        assert f"tflint_perf/rules/{name}" in names
    rules = {name.split("/")[0].removesuffix(".py") for name in rule_files}
    assert "tflint_perf/verify/worker.py" in names
    assert not any(n.startswith(("rules/", "tests/", "fixtures/")) for n in names)

    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    probe = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; sys.path.insert(0, sys.argv[1]); "
            "import tflint_perf.rules as r; print(len(r.all_rules()), r.__file__)",
            str(site),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": "/usr/bin:/bin", "PYTHONNOUSERSITE": "1"},
    )
    assert probe.returncode == 0, probe.stderr
    count, location = probe.stdout.split()
    assert int(count) == len(rules)
    assert location.startswith(str(site))
