"""Fetch the benchmark corpus: the sources of four TensorFlow wheels.

    python bench/fetch_corpus.py              # pip download, then unpack
    python bench/fetch_corpus.py --wheels DIR # unpack wheels already downloaded

Downloads (``pip download --no-deps``) pinned versions of keras, tf-keras,
tf-models-official and tensorflow-datasets into bench/corpus/wheels/ and
unpacks their ``.py`` files into bench/corpus/src/<wheel name>/ (about 4,300
files, 920k lines). bench/corpus/ is git-ignored. Nothing is installed and
nothing is imported: the files are only read by the tools under test.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "corpus"
PACKAGES = (
    "keras==3.15.1",
    "tf-keras==2.21.0",
    "tf-models-official==2.20.0",
    "tensorflow-datasets==4.9.10",
)


def download(dest: Path) -> None:
    dest.mkdir(parents=True, exist_ok=True)
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary=:all:",
        "-d",
        str(dest),
        *PACKAGES,
    ]
    print("$ " + " ".join(cmd))
    subprocess.run(cmd, check=True)


def unpack(wheels: Path, dest: Path) -> int:
    count = 0
    found = sorted(wheels.glob("*.whl"))
    if not found:
        raise SystemExit(f"no wheels in {wheels}")
    for wheel in found:
        target = dest / wheel.name[: -len(".whl")]
        with zipfile.ZipFile(wheel) as archive:
            for member in archive.infolist():
                name = member.filename
                # Only sources, and only inside the target folder.
                if not name.endswith(".py") or name.startswith("/") or ".." in Path(name).parts:
                    continue
                out = target / name
                out.parent.mkdir(parents=True, exist_ok=True)
                out.write_bytes(archive.read(member))
                count += 1
    return count


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--wheels", type=Path, help="unpack the wheels in this folder instead of downloading"
    )
    parser.add_argument(
        "--dest",
        type=Path,
        default=CORPUS / "src",
        help="where to unpack (default: bench/corpus/src)",
    )
    args = parser.parse_args(argv)
    wheels = args.wheels
    if wheels is None:
        wheels = CORPUS / "wheels"
        download(wheels)
    count = unpack(wheels, args.dest)
    print(f"{count} .py files in {args.dest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
