"""The findings cache and -j: through the real command line, in temporary projects."""

import json
import shutil
import subprocess
import sys

import pytest
from conftest import FIXTURES

BAD = (FIXTURES / "TFP301" / "bad_module_level.py").read_text()
OK = (FIXTURES / "TFP301" / "ok_config_first.py").read_text()
TAMPERED = "served from the cache"


def tflint(cwd, env, *args):
    if args[:1] == ("check",):  # one line per finding (a later --format wins)
        args = ("check", "--output-format", "concise", *args[1:])
    return subprocess.run(
        [sys.executable, "-m", "tflint_perf", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def project(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.tflint-perf]\n")
    (tmp_path / "bad.py").write_text(BAD)
    (tmp_path / "ok.py").write_text(OK)
    return tmp_path


def entries(cache):
    out = {}
    for path in cache.glob("*/*.json"):
        try:
            out[json.loads(path.read_text())["path"]] = path
        except (ValueError, KeyError, TypeError):
            continue
    return out


def tamper(cache, source):
    """Rewrite the cached message of ``source``'s finding, signed with this
    user's key as tflint-perf signs it: a later run that prints it was
    answered from the cache."""
    from tflint_perf.run.cache import _mac, user_key

    entry_path = entries(cache)[str(source)]
    entry = json.loads(entry_path.read_text())
    payload = json.loads(entry["findings"])
    findings = payload["findings"]
    assert findings, "expected a cached finding to tamper with"
    findings[0][6] = TAMPERED
    entry["findings"] = json.dumps(payload)
    entry["mac"] = _mac(user_key(), entry["key"], entry["findings"])
    entry_path.write_text(json.dumps(entry))


def test_second_run_is_answered_from_the_cache(project, cli_env):
    first = tflint(project, cli_env, "check", ".")
    assert first.returncode == 1, first.stderr
    cache = project / ".tflint-perf-cache"
    assert (cache / ".gitignore").read_text().splitlines()[-1] == "*"
    assert "tflint-perf" in (cache / "CACHEDIR.TAG").read_text()
    assert set(entries(cache)) == {str(project / "bad.py"), str(project / "ok.py")}

    assert tflint(project, cli_env, "check", ".").stdout == first.stdout  # unchanged, same output
    tamper(cache, project / "bad.py")
    # Another spelling of the same files (both: a tree's lint has entries of its own).
    again = tflint(project, cli_env, "check", "./bad.py", "./ok.py")
    assert again.returncode == 1
    assert f"./bad.py:8:5: TFP301 [*] {TAMPERED}" in again.stdout


def test_changed_content_is_linted_again(project, cli_env):
    tflint(project, cli_env, "check", ".")
    tamper(project / ".tflint-perf-cache", project / "bad.py")
    (project / "bad.py").write_text("# a new first line\n" + BAD)
    out = tflint(project, cli_env, "check", ".").stdout
    assert TAMPERED not in out
    assert "bad.py:9:5: TFP301" in out


@pytest.mark.parametrize(
    "change",
    [
        ("pyproject", '[tool.tflint-perf]\nper-file-ignores = { "ok.py" = ["TFP000"] }\n'),
        ("option", "--ignore=TFP301"),
    ],
    ids=["configuration", "command-line"],
)
def test_changed_configuration_is_a_miss(project, cli_env, change):
    tflint(project, cli_env, "check", ".")
    tamper(project / ".tflint-perf-cache", project / "bad.py")
    kind, value = change
    args = ["check", "."]
    if kind == "pyproject":
        (project / "pyproject.toml").write_text(value)
    else:
        args.append(value)
    out = tflint(project, cli_env, *args)
    assert TAMPERED not in out.stdout
    if kind == "pyproject":  # same findings, recomputed
        assert out.returncode == 1 and "bad.py:8:5: TFP301" in out.stdout
    else:  # the rule is off
        assert out.returncode == 0 and "TFP301" not in out.stdout


GARBAGE = [
    b"",
    b"\x00\xff not json",
    b"[]",
    b'{"format": 1}',
    b'{"format": 1, "salt": 5, "findings": 7}',
]


def test_corrupt_or_foreign_cache_files_are_ignored(tmp_path, cli_env):
    (tmp_path / "pyproject.toml").write_text("[tool.tflint-perf]\n")
    for index in range(len(GARBAGE)):
        (tmp_path / f"bad{index}.py").write_text(BAD)
    (tmp_path / "ok.py").write_text(OK)
    first = tflint(tmp_path, cli_env, "check", ".")
    cache = tmp_path / ".tflint-perf-cache"
    found = entries(cache)
    for index, garbage in enumerate(GARBAGE):
        found[str(tmp_path / f"bad{index}.py")].write_bytes(garbage)
    # The right format for the wrong file: bad0's entry copied over ok's.
    found[str(tmp_path / "ok.py")].write_bytes(b'{"format": 1}')
    shutil.copy(found[str(tmp_path / "bad1.py")], found[str(tmp_path / "ok.py")])
    (found[str(tmp_path / "ok.py")].parent / "stray.json").write_bytes(b"\x00")
    again = tflint(tmp_path, cli_env, "check", ".")
    assert (again.returncode, again.stdout, again.stderr) == (1, first.stdout, "")
    assert len(entries(cache)) == len(GARBAGE) + 1  # rewritten, valid again


def test_unwritable_cache_warns_and_lints(project, cli_env):
    (project / "blocked").write_text("a file where the cache folder would go")
    out = tflint(project, cli_env, "check", "--cache-dir", "blocked", ".")
    assert out.returncode == 1
    assert "bad.py:8:5: TFP301" in out.stdout
    assert "warning: cannot write the cache" in out.stderr
    assert "Traceback" not in out.stderr


def test_no_cache_neither_reads_nor_writes(project, cli_env):
    out = tflint(project, cli_env, "check", "--no-cache", ".")
    assert out.returncode == 1
    assert not (project / ".tflint-perf-cache").exists()
    tflint(project, cli_env, "check", ".")
    tamper(project / ".tflint-perf-cache", project / "bad.py")
    out = tflint(project, cli_env, "check", "--no-cache", ".")
    assert TAMPERED not in out.stdout and "bad.py:8:5: TFP301" in out.stdout


def test_cache_dir_option_config_key_and_clean(project, cli_env):
    tflint(project, cli_env, "check", "--cache-dir", "elsewhere", ".")
    assert entries(project / "elsewhere") and not (project / ".tflint-perf-cache").exists()
    out = tflint(project, cli_env, "clean", "--cache-dir", "elsewhere")
    assert out.returncode == 0 and not (project / "elsewhere").exists()
    tflint(project, dict(cli_env, TFLINT_PERF_CACHE_DIR=str(project / "from-env")), "check", ".")
    assert entries(project / "from-env") and not (project / ".tflint-perf-cache").exists()

    (project / "pyproject.toml").write_text('[tool.tflint-perf]\ncache-dir = "build-cache/tfp"\n')
    tflint(project, cli_env, "check", ".")
    assert entries(project / "build-cache" / "tfp")
    sub = project / "sub"
    sub.mkdir()
    out = tflint(sub, cli_env, "clean", "--config", str(project / "pyproject.toml"))
    assert out.returncode == 0, out.stderr
    assert "Removed" in out.stdout and not (project / "build-cache" / "tfp").exists()
    assert tflint(project, cli_env, "clean").stdout.startswith("No cache at")


def test_clean_removes_default_cache_and_refuses_other_folders(project, cli_env):
    tflint(project, cli_env, "check", ".")
    assert (project / ".tflint-perf-cache").is_dir()
    out = tflint(project, cli_env, "clean")
    assert out.returncode == 0
    assert not (project / ".tflint-perf-cache").exists()

    precious = project / "precious"
    precious.mkdir()
    (precious / "notes.txt").write_text("keep me")
    out = tflint(project, cli_env, "clean", "--cache-dir", "precious")
    assert out.returncode == 2
    assert "not a tflint-perf cache folder" in out.stderr
    assert (precious / "notes.txt").exists()


def test_fix_and_diff_work_from_a_cached_run(project, cli_env):
    tflint(project, cli_env, "check", ".")  # cache holds the finding and its fix
    diff = tflint(project, cli_env, "check", "--diff", ".")
    assert diff.returncode == 1 and "+++ b/bad.py" in diff.stdout
    fixed = tflint(project, cli_env, "check", "--fix", ".")
    assert fixed.returncode == 0, fixed.stdout
    assert (project / "bad.py").read_text() == (
        FIXTURES / "TFP301" / "bad_module_level.fixed.py"
    ).read_text()
    assert tflint(project, cli_env, "check", ".").returncode == 0
    assert tflint(project, cli_env, "check", "--diff", ".").stderr == "No fixes would be applied.\n"


def _many_files(root):
    """Files of every kind: findings, near misses, syntax and decoding errors."""
    cases = sorted(p for p in FIXTURES.glob("TFP*/*.py") if not p.name.endswith(".fixed.py"))
    for copy in range(3):
        folder = root / f"pkg{copy}"
        folder.mkdir(parents=True)
        for case in cases:
            (folder / f"{case.parent.name}_{case.name}").write_text(case.read_text())
        (folder / "broken.py").write_text("import tensorflow as tf\ndef f(:\n")
        (folder / "latin.py").write_bytes(b"# -*- coding: ascii -*-\nname = '\xe9'\n")
        (folder / "plain.py").write_text("print('no framework here')\n" * (copy + 1))


def test_output_is_the_same_for_any_number_of_jobs(tmp_path, cli_env):
    _many_files(tmp_path)
    env = dict(cli_env, TFLINT_PERF_POOL="always")
    outputs = {}
    for jobs, fmt in (("1", "text"), ("2", "text"), ("1", "json"), ("3", "json")):
        out = tflint(tmp_path, env, "check", "--no-cache", "-j", jobs, "--format", fmt, ".")
        assert out.returncode == 1, out.stderr
        outputs.setdefault(fmt, set()).add(out.stdout)
    assert len(outputs["text"]) == 1 and len(outputs["json"]) == 1
    found = json.loads(outputs["json"].pop())
    assert {f["code"] for f in found} >= {"TFP000", "TFP301"}
    assert [f["path"] for f in found] == sorted(f["path"] for f in found)


def test_fix_with_jobs_matches_in_process(tmp_path, cli_env):
    env = dict(cli_env, TFLINT_PERF_POOL="always")
    for name, jobs in (("one", "1"), ("two", "2")):
        _many_files(tmp_path / name)
        out = tflint(tmp_path / name, env, "check", "--no-cache", "--fix", "-j", jobs, ".")
        assert "Traceback" not in out.stderr
    one = {
        p.relative_to(tmp_path / "one"): p.read_bytes() for p in (tmp_path / "one").rglob("*.py")
    }
    two = {
        p.relative_to(tmp_path / "two"): p.read_bytes() for p in (tmp_path / "two").rglob("*.py")
    }
    assert one == two
    assert (
        one[next(p for p in one if p.name == "TFP301_bad_module_level.py")]
        == (FIXTURES / "TFP301" / "bad_module_level.fixed.py").read_bytes()
    )


def test_bad_jobs_value_is_a_usage_error(project, cli_env):
    out = tflint(project, cli_env, "check", "-j", "-3", ".")
    assert out.returncode == 2 and "--jobs" in out.stderr


def test_cached_run_does_not_import_libcst(project, cli_env):
    """Startup: a run answered from the cache never loads the parser."""
    tflint(project, cli_env, "check", ".")
    code = (
        "import sys\n"
        "from tflint_perf.cli import main\n"
        "main(['check', '.'])\n"
        # The engine registers LibCST lazily: loaded means its node classes are.
        "print('libcst loaded' if 'libcst._nodes.statement' in sys.modules else 'libcst not loaded')\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=project, env=cli_env, capture_output=True, text=True
    )
    assert out.stdout.strip().endswith("libcst not loaded"), out.stdout


def test_code_fingerprint_covers_subpackages(tmp_path, monkeypatch):
    """An edit in engine/ or analysis/ must invalidate cached results."""
    from tflint_perf.run import cache

    (tmp_path / "engine").mkdir()
    (tmp_path / "engine" / "walk.py").write_text("A = 1\n")
    monkeypatch.setattr(cache, "_package_dirs", lambda: [str(tmp_path)])
    before = cache.code_fingerprint()
    (tmp_path / "engine" / "walk.py").write_text("A = 2\n")
    assert cache.code_fingerprint() != before
