"""The floor: LibCST ``parse_module`` of every file, nothing else.

With ``--ast``, the standard library's ``ast`` parse instead: the floor the
screens (``tflint_perf.engine.screen``) pay on every file.

Same file discovery (every ``*.py`` below the paths), same decoding and the
same kind of process pool as ``tflint-perf check -j N``, so the ratio of the
two measures the linter's own work.

    python bench/parse_only.py [--ast] -j 2 PATH...
"""

from __future__ import annotations

import argparse
import ast
import io
import multiprocessing
import os
import sys
import tokenize


def files_under(paths):
    out = []
    for top in paths:
        if os.path.isfile(top):
            out.append(top)
            continue
        for directory, dirs, names in os.walk(top):
            dirs.sort()
            out.extend(os.path.join(directory, n) for n in sorted(names) if n.endswith(".py"))
    return out


def _decoded(path: str) -> str:
    with open(path, "rb") as handle:
        data = handle.read()
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    return data.decode(encoding)


def parse(path: str) -> int:
    import libcst

    try:
        libcst.parse_module(_decoded(path))
    except Exception:  # syntax errors, bad encodings: parsed as far as LibCST could
        return 0
    return 1


def parse_ast(path: str) -> int:
    try:
        ast.parse(_decoded(path))
    except Exception:  # syntax errors, bad encodings
        return 0
    return 1


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--ast", action="store_true", help="the stdlib ast parse instead")
    args = parser.parse_args(argv)
    work = parse_ast if args.ast else parse
    if not args.ast:
        import libcst  # noqa: F401  imported before the fork, as tflint-perf does

    files = files_under(args.paths)
    files.sort(key=lambda p: -os.path.getsize(p))  # largest first, as tflint-perf does
    if args.jobs <= 1:
        ok = sum(work(p) for p in files)
    else:
        context = (
            multiprocessing.get_context("fork")
            if sys.platform.startswith("linux")
            else multiprocessing
        )
        chunk = max(1, min(8, len(files) // (args.jobs * 4)))
        with context.Pool(args.jobs) as pool:
            ok = sum(pool.imap_unordered(work, files, chunksize=chunk))
    print(f"parsed {ok} of {len(files)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
