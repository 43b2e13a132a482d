"""The cache never trusts what it did not write (issue 21, item 10): a planted
entry, or one with findings the file cannot have, is a miss; entries are
signed with a per-user key kept outside the project; entries of deleted
files are pruned."""

import json
import os
import stat
import time

import pytest

from repo_helpers import LATE_CONFIG
from tflint_perf.run import cache as cache_module
from tflint_perf.run.cache import Cache, _mac, key_path, user_key
from tflint_perf.run.config import Settings


@pytest.fixture
def project(tmp_path, monkeypatch):
    """One file with one finding; the per-user key in a folder of the test's own."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    root = tmp_path / "proj"
    root.mkdir()
    (root / "pyproject.toml").write_text("[tool.tflint-perf]\n")
    (root / "a.py").write_text(LATE_CONFIG)
    return root


def _entry(root):
    (path,) = (root / ".tflint-perf-cache").glob("*/*.json")
    return path, json.loads(path.read_text())


def _rewrite(path, entry, findings, key):
    entry["findings"] = json.dumps({"findings": findings, "extra": {}})
    entry["mac"] = _mac(key, entry["key"], entry["findings"])
    path.write_text(json.dumps(entry))


def test_the_key_lives_in_the_users_cache_folder_not_the_project(project):
    key = user_key()
    assert key_path() == project.parent / "user-cache" / "tflint-perf" / "key"
    assert key_path().read_bytes() == key and len(key) == 32
    assert stat.S_IMODE(key_path().stat().st_mode) == 0o600
    assert user_key() == key  # made once


@pytest.mark.parametrize("signer", ["another key", "no mac"])
def test_an_entry_this_user_did_not_write_is_a_miss(project, check, signer):
    expected = check(project, "--no-cache", ".")[1]
    check(project, ".")
    path, entry = _entry(project)
    if signer == "no mac":
        entry["findings"], entry["mac"] = "[]", ""
        path.write_text(json.dumps(entry))
    else:  # a planted cache: the attacker signs with a key of their own
        _rewrite(path, entry, [], os.urandom(32))
    assert check(project, ".")[1] == expected  # the finding is not hidden


@pytest.mark.parametrize(
    "field, value",
    [
        (4, "TFP999"),  # an unknown code
        (0, 10**9),  # a line far past the end of the file
        (1, 10**6),  # a column far past the end of the line
        (6, "\x1b]0;owned\x07\x1b[31mfake"),  # terminal escapes
        (9, "detail \x1b[2J"),
        (5, "Not A Name"),
    ],
)
def test_implausible_findings_are_a_miss_even_when_signed(project, check, field, value):
    """Were the key leaked, an entry still cannot inject what the file cannot have."""
    expected = check(project, "--no-cache", "--format", "json", ".")[1]
    check(project, ".")
    path, entry = _entry(project)
    findings = json.loads(entry["findings"])["findings"]
    findings[0][field] = value
    _rewrite(path, entry, findings, user_key())
    assert json.loads(check(project, "--format", "json", ".")[1]) == json.loads(expected)
    assert "\x1b" not in check(project, "--output-format", "full", ".")[1]
    check(project, "--write-baseline", "base.json")
    assert "TFP999" not in (project / "base.json").read_text()


def test_a_signed_plausible_entry_is_used(project, check):
    """The other side of the tests above: the cache does answer."""
    check(project, ".")
    path, entry = _entry(project)
    findings = json.loads(entry["findings"])["findings"]
    findings[0][6] = "from the cache"
    _rewrite(path, entry, findings, user_key())
    assert "TFP301 [*] from the cache" in check(project, ".")[1]


def test_the_entry_key_covers_settings_path_and_content(project):
    one = Cache(project / "c", Settings(root=project))
    other = Cache(project / "c", Settings(root=project, ignore=["TFP1"]))
    key = one.entry_key("/p/a.py", b"x = 1\n")
    assert (
        len(
            {
                key,
                one.entry_key("/p/b.py", b"x = 1\n"),
                one.entry_key("/p/a.py", b"x = 2\n"),
                other.entry_key("/p/a.py", b"x = 1\n"),
            }
        )
        == 4
    )
    assert one.entry_key("/p/a.py", b"x = 1\n") == key


def test_entries_of_deleted_files_are_pruned_once_a_day(project, check):
    (project / "b.py").write_text(LATE_CONFIG)
    check(project, ".")
    bucket = next((project / ".tflint-perf-cache").glob("*/"))
    assert len(list(bucket.glob("*.json"))) == 2
    (project / "b.py").unlink()
    check(project, ".")  # pruned less than a day ago: nothing to do yet
    assert len(list(bucket.glob("*.json"))) == 2
    old = time.time() - cache_module.PRUNE_SECONDS - 60
    os.utime(bucket / cache_module.PRUNE_STAMP, (old, old))
    check(project, ".")
    (left,) = bucket.glob("*.json")
    assert json.loads(left.read_text())["path"] == str(project / "a.py")


def test_a_key_that_cannot_be_made_means_no_cache_and_one_warning(project, check, monkeypatch):
    blocked = project.parent / "blocked"
    blocked.write_text("a file where the user's cache folder would go")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    status, out, err = check(project, ".")
    assert status == 1 and "TFP301" in out
    assert (
        err.startswith("tflint-perf: warning: cannot keep the cache key in ")
        and len(err.splitlines()) == 1
    )
    assert not (project / ".tflint-perf-cache").exists()


def test_every_rules_code_is_known_without_importing_the_rules():
    """A rule that is a package (``rules/tfp101_.../``) as well as one file: its
    cached findings are plausible, so a second run reads them."""
    from tflint_perf.rules import all_rules

    assert cache_module.known_codes() == {r.code for r in all_rules()} | {"TFP000"}
