"""Notebooks under --verify: the code cells joined in order, as the linter reads them.

Planner side: ``joined_source`` gives the module the linter parsed (one
marker line before each cell, IPython syntax neutralised line for line),
``to_joined``/``cell_ref`` map positions between the ``.ipynb`` file, the
cells and the joined module. Worker side: ``ipython_names`` gives the
names Jupyter puts in a notebook's namespace (``display``, ``get_ipython``).
"""

from __future__ import annotations


class _Shell:
    """Enough of ``get_ipython()`` for notebooks that configure their shell."""

    def __getattr__(self, name):
        return lambda *args, **kwargs: None


def _display(*objects, **kwargs) -> None:
    """Jupyter's ``display``: nothing to show in a worker."""


def ipython_names() -> dict:
    return {"display": _display, "get_ipython": _Shell}
