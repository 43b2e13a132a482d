"""The IPython extension: ``%load_ext tflint_perf`` in Jupyter or IPython.

Each cell is linted when it runs, just before it runs (advice about a long
training cell shows at its start), in the context of the cells this kernel
ran before it (``tflint_perf.kernel``); the findings in that cell are shown
under it, as a compact HTML list in Jupyter and as plain text elsewhere.

- ``%tflint_perf off`` / ``%tflint_perf on``: stop and resume; cells run
  while off still count as context. ``%tflint_perf`` says the state.
- ``%%tflint_perf`` on a cell's first line: lint that cell even when off.
- The configuration is the ``[tool.tflint-perf]`` table of the nearest
  ``pyproject.toml`` above the notebook (or the working folder), read as
  ``tflint-perf check`` reads it, again for each cell.

Linting never raises into the user's cell: an internal error is one line
under the cell. It never imports TensorFlow.
"""

from __future__ import annotations

import ast
import html
import os
import re
from dataclasses import replace
from pathlib import Path
from typing import Dict, List, Optional

from IPython.display import display

from tflint_perf.engine.rule import SYNTAX_CODE, Finding
from tflint_perf.kernel import History, RunCell, run_cell, warm_up
from tflint_perf.run.config import ConfigError, Settings, load_settings

MAGIC = "tflint_perf"
_OWN_CELL_MAGIC = re.compile(r"\A\s*%%tflint_perf\b")
_USAGE = "tflint-perf: usage: %tflint_perf [on|off], or %%tflint_perf on a cell's first line"
# Where per-file patterns are matched when the kernel does not know its notebook.
_UNKNOWN_NOTEBOOK = "ipython.ipynb"

_loaded: Dict[int, "Extension"] = {}


def load_ipython_extension(shell) -> None:
    if id(shell) not in _loaded:
        _loaded[id(shell)] = Extension(shell)


def unload_ipython_extension(shell) -> None:
    extension = _loaded.pop(id(shell), None)
    if extension is not None:
        extension.close()


class Extension:
    """The state of one shell: the cells it ran, on or off."""

    def __init__(self, shell) -> None:
        self.shell = shell
        self.enabled = True
        self.history = History()
        self._outer = None  # the ExecutionInfo of the cell being run (not a nested run_cell)
        self._pending: Optional[RunCell] = None  # joins the history once the cell ran
        # Cells run before the extension was loaded are context too.
        for number, source in enumerate(self._inputs()[1:], 1):
            cell = run_cell(number, source)
            if cell.compiles:
                self.history.add(cell)
        warm_up()
        shell.events.register("pre_run_cell", self.pre_run_cell)
        shell.events.register("post_run_cell", self.post_run_cell)
        shell.register_magic_function(self.magic, "line_cell", MAGIC)

    def close(self) -> None:
        self.shell.events.unregister("pre_run_cell", self.pre_run_cell)
        self.shell.events.unregister("post_run_cell", self.post_run_cell)
        for kind in ("line", "cell"):
            self.shell.magics_manager.magics[kind].pop(MAGIC, None)

    # -- events -----------------------------------------------------------

    def pre_run_cell(self, info) -> None:
        if self._outer is not None:
            return  # a cell run from inside a cell (%%capture): part of that cell
        self._outer, self._pending = info, None
        if _OWN_CELL_MAGIC.match(info.raw_cell):
            return  # the magic lints and records its body
        try:
            self._pending = run_cell(self._number(stored=False), info.raw_cell)
            if self.enabled:
                self._show(self._pending)
        except Exception as exc:  # never into the user's cell
            _note_error(exc)

    def post_run_cell(self, result) -> None:
        if result is not None and result.info is not self._outer:
            return  # a nested cell, or an empty one (IPython skips pre_run_cell for those)
        cell, self._outer, self._pending = self._pending, None, None
        if cell is None or result is None or result.error_before_exec is not None:
            return  # it did not run (a syntax error): it is nobody's context
        self.history.add(replace(cell, number=result.execution_count or cell.number))

    # -- the magic --------------------------------------------------------

    def magic(self, line: str, cell: Optional[str] = None):
        if cell is not None:
            return self._run_linted(cell)
        word = line.strip().lower()
        if word in ("on", "off"):
            self.enabled = word == "on"
            _note(f"tflint-perf is {word}")
        elif not word:
            _note(self._status())
        else:
            _note(_USAGE)
        return None

    def _run_linted(self, body: str):
        """``%%tflint_perf``: lint the body (even when off), then run it as the cell."""
        try:
            # A blank first line stands for the magic's: lines counted as the cell shows them.
            self._pending = run_cell(self._number(stored=True), "\n" + body)
            self._show(self._pending)
        except Exception as exc:
            _note_error(exc)
        source = self.shell.transform_cell(body)
        try:
            tree = self.shell.compile.ast_parse(source)
        except SyntaxError:
            self._pending = None  # it does not run
            raise
        return _execute(self.shell, tree, source)

    def _status(self) -> str:
        state = "on" if self.enabled else "off (%tflint_perf on to resume)"
        try:
            config = self._settings().config_path or "none found, all rules"
        except ConfigError as exc:
            config = str(exc)
        return (
            f"tflint-perf is {state}; {len(self.history.cells)} cells run in this kernel so far; "
            f"configuration: {config}"
        )

    # -- linting ----------------------------------------------------------

    def _show(self, cell: RunCell) -> None:
        path = self._notebook()
        try:
            settings = self._settings()
        except ConfigError as exc:
            _note(f"tflint-perf: {exc}; cell not linted")
            return
        if settings.is_excluded(path):
            return
        findings = self.history.lint(cell, path, settings.rules_for(path))
        if not settings.reports_syntax_errors(path):
            findings = [f for f in findings if f.code != SYNTAX_CODE]
        if findings:
            display(render(findings), raw=True)

    def _settings(self) -> Settings:
        return load_settings(None, [self._notebook()])

    def _notebook(self) -> str:
        """The notebook's file when the front end tells the kernel (JupyterLab,
        VS Code), else a name in the working folder: what patterns match."""
        namespace = self.shell.user_ns
        for key in ("__vsc_ipynb_file__", "__session__"):
            value = namespace.get(key)
            if isinstance(value, str) and value.endswith(".ipynb") and os.path.isfile(value):
                return os.path.abspath(value)
        return str(Path.cwd() / _UNKNOWN_NOTEBOOK)

    def _inputs(self) -> List[str]:
        manager = self.shell.history_manager
        return list(manager.input_hist_raw) if manager is not None else [""]

    def _number(self, stored: bool) -> int:
        """``In [n]`` of the cell being run: where the input history keeps it
        (IPython versions differ in when ``execution_count`` moves on)."""
        info = self._outer
        if info is not None and not info.store_history:
            return self.shell.execution_count
        return len(self._inputs()) - (1 if stored else 0)


def _execute(shell, tree: ast.Module, source: str):
    """Run a cell's code in the user's namespace; the value of a last
    expression is returned, so IPython shows it as the cell's output."""
    filename = shell.compile.cache(source)
    last = tree.body[-1] if tree.body else None
    value = None
    if isinstance(last, ast.Expr):
        tree.body.pop()
        value = shell.compile(ast.Expression(last.value), filename, "eval")
    exec(shell.compile(tree, filename, "exec"), shell.user_ns)
    return eval(value, shell.user_ns) if value is not None else None


# -- what the user sees -----------------------------------------------------


def render(findings: List[Finding]) -> Dict[str, str]:
    """The findings of one cell: plain text and a compact HTML list."""
    text, items = [], []
    for f in findings:
        line = f.extra.get("cell_line", f.line)
        text.append(f"tflint-perf: line {line}:{f.column}: {f.code} {f.message}")
        hint = html.escape(f"{f.code} ({f.name}). {f.detail}".strip(), quote=True)
        items.append(
            f'<li title="{hint}"><code>{f.code}</code> line {line}: {_html_message(f.message)}</li>'
        )
    markup = (
        '<div class="tflint-perf" style="border-left: 3px solid #e8a33d; padding: 2px 8px;">'
        "<b>tflint-perf</b>"
        f'<ul style="margin: 2px 0; padding-left: 1.4em;">{"".join(items)}</ul></div>'
    )
    return {"text/plain": "\n".join(text), "text/html": markup}


def _html_message(message: str) -> str:
    """Escaped, with ``code`` spans as <code>."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(message, quote=False))


def _note(message: str) -> None:
    display({"text/plain": message}, raw=True)


def _note_error(exc: BaseException) -> None:
    reason = (str(exc).splitlines() or [""])[0][:200]
    _note(
        f"tflint-perf: internal error, cell not linted ({type(exc).__name__}: {reason}); "
        "%tflint_perf off stops linting"
    )
