"""``flake8`` as if tflint-perf were not installed: the floor its plugin is
measured against (``python bench/flake8_without_plugin.py FLAKE8_ARGS...``)."""

import sys

from flake8.plugins import finder

_installed = finder._find_importlib_plugins


def _without_tflint_perf():
    return (plugin for plugin in _installed() if plugin.package != "tflint-perf")


finder._find_importlib_plugins = _without_tflint_perf

if __name__ == "__main__":
    from flake8.main.cli import main

    sys.exit(main())
