"""--verify's guard rails, with a canary folder: what the code under review may not touch.

Plain-Python workers (no TensorFlow). Each module does one forbidden thing at
module level before the flagged line; the canary folder (outside the working
copy) must survive untouched, and the finding must be ``unverified`` naming
what was refused. Allowed things (relative writes, reads next to the script,
loopback connections, ``makedirs`` of a folder that exists) must not be.
"""

import socket
import sys
import textwrap
import threading
from io import StringIO
from pathlib import Path

import pytest

from tflint_perf.engine.rule import Edit, Finding, Fix
from tflint_perf.engine.verification import Verification
from tflint_perf.verify.options import VerifyOptions
from tflint_perf.verify.session import verify

pytest.importorskip("numpy")


class AnyRule:
    verification = Verification()


RULES = {"XYZ001": AnyRule}
TAIL = "x = np.arange(2000.0)\ny = np.array([v * 2 for v in x])\n"


def _verify(tmp_path, modules: dict, **options):
    """Verify the last line of each module (fix: ``y = x * 2``); the verdicts by module name."""
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    (project / "data.txt").write_text("1 2 3\n")
    files, findings = [], {}
    for name, head in modules.items():
        source = "import numpy as np\n" + textwrap.dedent(head) + TAIL
        path = project / f"{name}.py"
        path.write_text(source)
        line = len(source.splitlines())
        old = source.splitlines()[-1]
        finding = Finding(
            str(path),
            line,
            1,
            line,
            1,
            "XYZ001",
            "t",
            "m",
            Fix((Edit(line, 0, line, len(old), "y = x * 2"),)),
        )
        findings[name] = finding
        files.append((str(path), source, [finding]))
    opts = VerifyOptions(
        root=project, python=sys.executable, tf_module=None, timeout=20, budget=0, **options
    )
    stderr = StringIO()
    verify(files, opts, RULES, stderr=stderr)
    return {name: f.extra["verify"] for name, f in findings.items()}, stderr.getvalue(), project


@pytest.fixture
def canary(tmp_path):
    folder = tmp_path / "canary"
    folder.mkdir()
    (folder / "keep.txt").write_text("keep me\n")
    return folder


def _snapshot(folder: Path) -> dict:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*")}


def test_the_canary_survives_and_each_refused_action_is_named(tmp_path, canary):
    modules = {
        "rmtree": f"import shutil\nshutil.rmtree({str(canary)!r})\n",
        "write": f"open({str(canary / 'new.txt')!r}, 'w').write('x')\n",
        "unlink": f"import pathlib\npathlib.Path({str(canary / 'keep.txt')!r}).unlink()\n",
        "rename": f"import os\nos.rename({str(canary / 'keep.txt')!r}, 'stolen.txt')\n",
        "download": (
            "import urllib.request\n"
            "try:\n"
            "    urllib.request.urlretrieve('http://example.com/data.npz', 'data.npz')\n"
            "except OSError:\n"
            "    pass  # caught: the finding is still unverified\n"
        ),
        "connect": "import socket\nsocket.create_connection(('10.255.255.1', 80), timeout=30)\n",
        "lookup": "import socket\nsocket.gethostbyname('example.com')\n",
    }
    before = _snapshot(canary)
    verdicts, stderr, _ = _verify(tmp_path, modules)
    assert _snapshot(canary) == before
    expected = {
        "rmtree": f"deleting the folder `{canary}`",
        "write": f"writing `{canary / 'new.txt'}`",
        "unlink": f"deleting `{canary / 'keep.txt'}`",
        "rename": f"moving `{canary / 'keep.txt'}`",
        "download": "downloading http://example.com/data.npz (network)",
        "connect": "connecting to 10.255.255.1:80 (network)",
        "lookup": "looking up the network address of 'example.com' (network)",
    }
    for name, words in expected.items():
        v = verdicts[name]
        assert v["status"] == "unverified", (name, v)
        assert f"the guard rails refused {words}" in v["reason"], (name, v["reason"])
    assert stderr.count("--verify runs the code under review") == 1


def test_allowed_actions_stay_in_the_working_copy(tmp_path):
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]
    threading.Thread(target=lambda: server.accept()[0].close(), daemon=True).start()
    modules = {
        "relative": (
            "import os\n"
            "os.makedirs('out', exist_ok=True)\n"
            "open('out/log.txt', 'w').write(open('data.txt').read())\n"  # read next to the script
            "os.makedirs('/tmp', exist_ok=True)\n"  # there already: nothing changes
            "open(os.path.expanduser('~/.cache-test'), 'w').write('x')\n"  # HOME is temporary
            "import tempfile\n"
            "tempfile.NamedTemporaryFile().close()\n"
        ),
        "loopback": f"import socket\nsocket.create_connection(('127.0.0.1', {port})).close()\n",
    }
    verdicts, _, project = _verify(tmp_path, modules)
    server.close()
    for name, v in verdicts.items():
        assert v["equal"] is True and "refused" not in v["reason"], (name, v)
    assert sorted(p.name for p in project.iterdir()) == [
        "data.txt",
        "loopback.py",
        "relative.py",
    ]  # the writes went to the working copy, removed since
    assert not (Path.home() / ".cache-test").exists()


def test_a_write_into_a_folder_the_working_copy_lacks_makes_the_folder(tmp_path, canary):
    modules = {
        # the user's checkout has `figures/` (made by hand, kept out of git); the copy has not
        "figures": "open('figures/epoch_0.txt', 'w').write('x')\n",
        # outside the working copy: refused, not made
        "outside": f"open({str(canary / 'sub' / 'f.txt')!r}, 'w').write('x')\n",
    }
    verdicts, _, project = _verify(tmp_path, modules)
    made = verdicts["figures"]
    assert made["equal"] is True, made
    assert made["made_folders"] == ["figures"]
    assert (
        "the working copy lacked the folder the code writes into, made empty: figures"
        in (made["reason"])
    )
    outside = verdicts["outside"]
    assert outside["status"] == "unverified"
    assert f"the guard rails refused writing `{canary / 'sub' / 'f.txt'}`" in outside["reason"]
    assert not (canary / "sub").exists()
    assert not (project / "figures").exists()  # made in the working copy, not the user's folder
