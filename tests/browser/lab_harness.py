"""Drive JupyterLab in headless Chromium: start a lab server, open a notebook, run it, take a
screenshot.

The pieces:
- `JupyterLab.start(root_dir, ...)` runs `jupyter lab` on a free loopback port with a random token
  and private Jupyter config, runtime and settings folders, and waits until it answers;
  `stop()` shuts it down (and the kernels it started).
- `launch_chromium(profile_dir)` opens Chromium (the system's, else Playwright's) with a fresh
  profile.
- `NotebookPage` wraps a Playwright page showing one notebook: `run_all_cells()` runs every cell and
  waits until the kernel is idle, failing with the error of any cell that raised;
  `kernel_output(code)` runs code in the notebook's kernel and returns what it printed,
  `kernel_value(expression)` the value of a literal expression there;
  `cut_texts(locator)`, `horizontal_overflow(locator)` and `past_right_edge(locator)` measure
  what a person would see cut or out of sight, and `assert_reads_well(locator)` asserts that
  none of it happens; `panel_output()` is the output showing a `ChapPanel`.
"""

from __future__ import annotations

import ast
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from playwright.sync_api import BrowserContext, Locator, Page, Playwright

from readability import (
    TEXT_BOXES_JS,
    crowded,
    cut_texts,
    overflowing,
    page_text_boxes,
    read_the_same,
)

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# JupyterLab plugins that pop up notifications unrelated to the notebook under test.
DISABLED_LAB_PLUGINS = ["@jupyterlab/apputils-extension:announcements"]
# Every cell laid out, also out of view, so that tests measure every output.
NOTEBOOK_SETTINGS = {"windowingMode": "none"}
CHART_RECORDER = Path(__file__).with_name("chart_recorder.py")
"""Runs at the start of every kernel (an IPython startup file): keeps each chart's figure, for
:meth:`NotebookPage.chart_problems`."""
LAB_START_TIMEOUT_S = 90.0
DEFAULT_TIMEOUT_MS = 60_000


def free_port() -> int:
    """A TCP port on loopback that nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def chromium_path() -> str | None:
    """The system's Chromium (Debian's, installed by scripts/ensure-chromium as root), or None
    for the browser Playwright installed for this user (scripts/ensure-chromium otherwise)."""
    return shutil.which("chromium")


def launch_chromium(playwright: Playwright, profile_dir: Path) -> BrowserContext:
    """Headless Chromium with a fresh user-data-dir."""
    context = playwright.chromium.launch_persistent_context(
        user_data_dir=str(profile_dir),
        executable_path=chromium_path(),
        headless=True,
        args=CHROMIUM_ARGS,
        viewport={"width": 1400, "height": 1000},
    )
    context.set_default_timeout(DEFAULT_TIMEOUT_MS)
    return context


@dataclass
class JupyterLab:
    """A running `jupyter lab` server serving `root_dir`."""

    process: subprocess.Popen[bytes]
    base_url: str
    token: str
    root_dir: Path
    log_path: Path

    @classmethod
    def start(
        cls,
        root_dir: Path,
        state_dir: Path,
        env: dict[str, str] | None = None,
        timeout_s: float = LAB_START_TIMEOUT_S,
    ) -> JupyterLab:
        """Start JupyterLab on `root_dir`; `env` adds variables (such as CHAP_URL) for the kernels.

        `state_dir` receives the Jupyter config, runtime and settings folders and the server log,
        so that nothing from the user's own Jupyter setup takes part.
        """
        token = secrets.token_hex(16)
        port = free_port()
        lab_env = isolated_jupyter_env(state_dir)
        lab_env.update(env or {})
        log_path = state_dir / "jupyterlab.log"
        with log_path.open("wb") as log:
            process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "jupyterlab",
                    "--no-browser",
                    "--ServerApp.ip=127.0.0.1",
                    f"--ServerApp.port={port}",
                    "--ServerApp.port_retries=0",
                    "--allow-root",
                    f"--IdentityProvider.token={token}",
                    f"--ServerApp.root_dir={root_dir}",
                    "--LabApp.expose_app_in_browser=True",
                    "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
                    "--LabApp.extension_manager=readonly",
                ],
                env=lab_env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        lab = cls(process, f"http://127.0.0.1:{port}", token, root_dir, log_path)
        try:
            lab.wait_until_ready(timeout_s)
        except BaseException:
            lab.stop()
            raise
        return lab

    def wait_until_ready(self, timeout_s: float) -> None:
        """Poll the server's status API until it answers, the process exits, or time runs out."""
        deadline = time.monotonic() + timeout_s
        status_url = f"{self.base_url}/api/status?token={self.token}"
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"jupyter lab exited with {self.process.returncode}: {self.log()}"
                )
            try:
                with urllib.request.urlopen(status_url, timeout=2) as response:
                    if response.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.25)
        raise RuntimeError(f"jupyter lab did not answer within {timeout_s:g} s: {self.log()}")

    def notebook_url(self, relative_path: str) -> str:
        """The address that opens `relative_path` (relative to root_dir) alone in the lab.

        `reset` starts from an empty workspace, so tabs opened earlier are not restored.
        """
        return f"{self.base_url}/lab/tree/{quote(relative_path)}?reset&token={self.token}"

    def log(self) -> str:
        """The end of the server's log, for error messages."""
        return self.log_path.read_text(errors="replace")[-3000:]

    def stop(self) -> None:
        """Shut the server and its kernels down (the whole process group)."""
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, 15)
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, 9)
                self.process.wait()
            except ProcessLookupError:
                pass


def isolated_jupyter_env(state_dir: Path) -> dict[str, str]:
    """The current environment with private Jupyter folders under `state_dir`."""
    env = dict(os.environ)
    folders = {
        "JUPYTER_CONFIG_DIR": state_dir / "config",
        "JUPYTER_RUNTIME_DIR": state_dir / "runtime",
        "JUPYTERLAB_SETTINGS_DIR": state_dir / "settings",
        "JUPYTERLAB_WORKSPACES_DIR": state_dir / "workspaces",
        "IPYTHONDIR": state_dir / "ipython",
    }
    for name, folder in folders.items():
        folder.mkdir(parents=True, exist_ok=True)
        env[name] = str(folder)
    page_config = folders["JUPYTER_CONFIG_DIR"] / "labconfig" / "page_config.json"
    page_config.parent.mkdir(parents=True, exist_ok=True)
    page_config.write_text(
        json.dumps({"disabledExtensions": {name: True for name in DISABLED_LAB_PLUGINS}})
    )
    notebook_settings = (
        folders["JUPYTERLAB_SETTINGS_DIR"]
        / "@jupyterlab"
        / "notebook-extension"
        / "tracker.jupyterlab-settings"
    )
    notebook_settings.parent.mkdir(parents=True, exist_ok=True)
    notebook_settings.write_text(json.dumps(NOTEBOOK_SETTINGS))
    startup = folders["IPYTHONDIR"] / "profile_default" / "startup"
    startup.mkdir(parents=True, exist_ok=True)
    (startup / "00-chart-recorder.py").write_text(
        "import sys\n"
        f"sys.path += [{str(CHART_RECORDER.parent.parent)!r}, {str(CHART_RECORDER.parent)!r}]\n"
        "from chart_recorder import chart_facts\n"
    )
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


# Runs in the page: resolves once the open notebook's kernel exists and is idle.
_WAIT_FOR_IDLE_KERNEL_JS = """
async () => {
  const panel = window.jupyterapp.shell.currentWidget;
  await panel.sessionContext.ready;
  const kernel = () => panel.sessionContext.session?.kernel;
  while (!kernel() || kernel().status !== 'idle') {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
"""

# Runs in the page: run all cells of the open notebook; resolves when their execution has ended.
_RUN_ALL_CELLS_JS = """
async () => {
  const app = window.jupyterapp;
  const panel = app.shell.currentWidget;
  await panel.context.ready;
  await panel.sessionContext.ready;
  await app.commands.execute('notebook:run-all-cells');
}
"""

# Runs in the page: the errors that the open notebook's code cells show, as "cell i: Name: value".
_CELL_ERRORS_JS = """
() => {
  const cells = window.jupyterapp.shell.currentWidget.content.model.cells;
  const errors = [];
  for (let i = 0; i < cells.length; i++) {
    const cell = cells.get(i);
    if (cell.type !== 'code') continue;
    for (const output of cell.outputs.toJSON()) {
      if (output.output_type === 'error') {
        errors.push(`cell ${i}: ${output.ename}: ${output.evalue}`);
      }
    }
  }
  return errors;
}
"""


# Runs in the page: executes code in the open notebook's kernel, resolves to what it printed.
_KERNEL_OUTPUT_JS = """
async (code) => {
  const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
  const future = kernel.requestExecute({ code, silent: false, store_history: false });
  let printed = '';
  future.onIOPub = (message) => {
    if (message.header.msg_type === 'stream') printed += message.content.text;
    if (message.header.msg_type === 'error') printed += message.content.ename + ': '
      + message.content.evalue;
  };
  await future.done;
  return printed;
}
"""

# Runs in the page on an element: the texts inside it that do not fit their box (buttons,
# labels, HTML, descriptions: text wider than the box; dropdowns: a choice wider than the
# box without its arrow), each as "text (needs N px, has M px)".
_CUT_TEXTS_JS = """
(root) => {
  const visible = (element) => element.offsetParent !== null
    && getComputedStyle(element).visibility !== 'hidden';
  const cut = [];
  const texts = root.querySelectorAll(
    'button, .widget-label, .widget-label-basic, .widget-html-content, .widget-inline-hbox label'
  );
  for (const element of texts) {
    if (!visible(element) || !element.textContent.trim()) continue;
    if (element.scrollWidth > element.clientWidth + 1) {
      const text = element.textContent.trim();
      cut.push(`${text} (needs ${element.scrollWidth} px, has ${element.clientWidth} px)`);
    }
  }
  const canvas = document.createElement('canvas').getContext('2d');
  for (const select of root.querySelectorAll('select:not([multiple])')) {
    if (!visible(select)) continue;
    canvas.font = getComputedStyle(select).font;
    const room = select.clientWidth - 28;  // the arrow and the padding
    for (const option of select.options) {
      const needed = Math.ceil(canvas.measureText(option.text).width);
      if (needed > room) cut.push(`${option.text} (needs ${needed} px, has ${room} px)`);
    }
  }
  return cut;
}
"""

# Runs in the page on an element: how many pixels its content is wider than its box.
_HORIZONTAL_OVERFLOW_JS = "(element) => element.scrollWidth - element.clientWidth"

# Runs in the page on an element: the visible elements inside it that reach past its right edge
# (clipped by an output, they would be out of sight), at most 20.
_PAST_RIGHT_EDGE_JS = """
(root) => {
  const edge = root.getBoundingClientRect().right + 1;
  const past = [];
  for (const element of root.querySelectorAll('*')) {
    if (element.offsetParent === null) continue;
    const box = element.getBoundingClientRect();
    if (box.width > 0 && box.right > edge) {
      const text = (element.textContent || '').trim().slice(0, 40);
      past.push(`<${element.tagName.toLowerCase()}> ${text} (right edge ${Math.round(box.right)}`
        + ` > ${Math.round(edge)})`);
    }
  }
  return past.slice(0, 20);
}
"""


# Runs in the page on an element: each raster picture shown inside it (an <img> in sight of the
# layout), with the SHA-1 of its bytes, its width in pixels, the width it is shown at and where
# it is (the notebook cell holding it).
_PICTURES_JS = """
async (root) => {
  const cells = [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell')];
  const pictures = [];
  for (const img of root.querySelectorAll('img')) {
    const shown = img.getBoundingClientRect().width;
    if (img.offsetParent === null || shown === 0 || !img.complete) continue;
    const bytes = await (await fetch(img.src)).arrayBuffer();
    const digest = await crypto.subtle.digest('SHA-1', bytes);
    const sha1 = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
    const cell = cells.indexOf(img.closest('.jp-Cell'));
    pictures.push({
      sha1, natural: img.naturalWidth, shown,
      where: (cell >= 0 ? `cell ${cell}` : 'an output')
        + (img.classList.contains('widget-image') ? ', a widget picture' : ''),
    });
  }
  return pictures;
}
"""

READING_LAYOUTS = {"1400 px, file browser open": (1400, True), "1024 px": (1024, False)}
"""The windows a person reads a notebook in: (width, whether JupyterLab's file browser is open)."""
SHOWN_AT_LEAST = 0.9
"""A chart is shown at 90 to 100 % of the width it was drawn for."""
SMALLEST_TEXT = 10.0
"""CSS pixels a chart's smallest text is shown at, at least."""
SHARP = 2.0
"""Pixels a chart has per CSS pixel it is shown at, at least: sharp at a device pixel ratio of 2
(most laptops) and at 200 % zoom."""

MENU_TOOLBARS_AND_STATUS_BAR = 200
"""Pixels of a window's height that JupyterLab's menu, toolbars and status bar take, with room
to spare."""


class NotebookPage:
    """A Playwright page showing one notebook in JupyterLab."""

    def __init__(self, page: Page) -> None:
        self.page = page

    @classmethod
    def open(cls, context: BrowserContext, lab: JupyterLab, relative_path: str) -> NotebookPage:
        """Open the notebook in a new tab and wait until its panel and kernel are shown."""
        page = context.new_page()
        page.goto(lab.notebook_url(relative_path))
        page.wait_for_function(
            """(path) => {
                 const widget = window.jupyterapp?.shell.currentWidget;
                 return widget?.context?.path === path && widget.sessionContext !== undefined;
               }""",
            arg=relative_path,
        )
        page.locator(".jp-NotebookPanel:visible .jp-Cell").first.wait_for()
        return cls(page)

    def run_all_cells(self) -> None:
        """Run every cell, wait until the kernel is idle; fail naming any cell that raised."""
        self.page.evaluate(_RUN_ALL_CELLS_JS)
        self.wait_until_idle()
        errors = self.page.evaluate(_CELL_ERRORS_JS)
        if errors:
            raise AssertionError("notebook cells raised:\n" + "\n".join(errors))

    def open_file_browser(self) -> None:
        """Show JupyterLab's file browser in the left area, as a person working on files has it
        (the notebook gets narrower)."""
        self.page.evaluate("() => window.jupyterapp.commands.execute('filebrowser:activate')")
        self.page.locator("#filebrowser").wait_for(state="visible")

    def wait_until_idle(self) -> None:
        """Wait until the notebook's kernel has nothing left to do."""
        self.page.evaluate(_WAIT_FOR_IDLE_KERNEL_JS)

    def output_area(self) -> Locator:
        """A locator for the outputs of the open notebook, to wait for rendered results."""
        return self.page.locator(".jp-NotebookPanel:visible .jp-OutputArea-output")

    def kernel_output(self, code: str) -> str:
        """Run ``code`` in the notebook's kernel (not in a cell) and return what it printed."""
        return str(self.page.evaluate(_KERNEL_OUTPUT_JS, code))

    def kernel_value(self, expression: str) -> object:
        """The value of a Python ``expression`` (a literal: names, lists, sets) in the kernel."""
        return ast.literal_eval(self.kernel_output(f"print(repr({expression}))").strip())

    def panel_output(self) -> Locator:
        """The output of the cell that displays a ``ChapPanel`` (the one holding its launcher)."""
        return self.output_area().filter(has_text="Run an evaluation").first

    def cut_texts(self, locator: Locator) -> list[str]:
        """The texts inside ``locator`` that do not fit their box (an empty list: none cut)."""
        return list(locator.evaluate(_CUT_TEXTS_JS))

    def horizontal_overflow(self, locator: Locator) -> int:
        """How many pixels the content of ``locator`` is wider than it (0 or less: no
        horizontal scroll)."""
        return int(locator.evaluate(_HORIZONTAL_OVERFLOW_JS))

    def past_right_edge(self, locator: Locator) -> list[str]:
        """The visible elements inside ``locator`` that reach past its right edge (an empty
        list: everything is in sight)."""
        return list(locator.evaluate(_PAST_RIGHT_EDGE_JS))

    def text_problems(self, locator: Locator) -> list[str]:
        """What is wrong with the texts inside each element of ``locator`` (tests/readability.py
        measures them as rendered), in sentences: a text out of its box or over another one, a
        text cut without an ellipsis and its whole text in a title, two different texts that
        read the same where they are cut."""
        problems = []
        for index in range(locator.count()):
            found = locator.nth(index).evaluate(TEXT_BOXES_JS)
            boxes = page_text_boxes(found)
            problems += overflowing(boxes, slack=0.5) + crowded(boxes, 0)
            problems += cut_texts(found) + read_the_same(found)
        return problems

    def chart_problems(self, locator: Locator) -> list[str]:
        """What is wrong with each raster chart shown inside ``locator``, in sentences: shown
        at less than 90 % or more than 100 % of the width it was drawn for, its smallest text
        under 10 CSS pixels as shown, fewer than two pixels per CSS pixel, and what its time
        panels draw against what the chart says (``chart_recorder.drawn_problems``). A picture
        no kernel recorded is measured by its size alone."""
        problems = []
        for picture in locator.evaluate(_PICTURES_JS):
            facts = json.loads(
                self.kernel_output(f"print(chart_facts({picture['sha1']!r}))").strip() or "null"
            )
            where, natural, shown = picture["where"], picture["natural"], picture["shown"]
            ratio = facts["ratio"] if facts else 1.0
            drawn_for = natural / ratio
            if not SHOWN_AT_LEAST <= shown / drawn_for <= 1.0 + 1e-3:
                problems.append(
                    f"{where}: a chart drawn for {drawn_for:.0f} px is shown at {shown:.0f} px "
                    f"({shown / drawn_for:.0%})"
                )
            if natural < SHARP * shown - 1:
                problems.append(
                    f"{where}: a chart of {natural} px shown at {shown:.0f} px is not sharp at "
                    f"a device pixel ratio of {SHARP:g}"
                )
            if facts is None:
                continue
            if facts["smallest_points"] is not None:
                text = facts["smallest_points"] * facts["dpi"] / 72 * shown / drawn_for
                if text < SMALLEST_TEXT - 1e-6:
                    problems.append(
                        f"{where}: its smallest text ({facts['smallest_points']:g} pt) is shown "
                        f"{text:.1f} px tall, less than {SMALLEST_TEXT:g}"
                    )
            problems += [f"{where}: {problem}" for problem in facts["problems"]]
        return problems

    def reading_problems(self, locator: Locator) -> list[str]:
        """Everything a person would find hard to read in ``locator`` as the window is now:
        texts cut, out of their box, over each other or reading the same; elements past its
        right edge; a horizontal scroll; charts shown too small, soft or drawing other than
        they say (:meth:`text_problems`, :meth:`chart_problems`)."""
        problems = [f"cut: {text}" for text in self.cut_texts(locator)]
        problems += self.past_right_edge(locator)
        notebook = self.page.locator(".jp-NotebookPanel:visible .jp-Notebook")
        for element, name in ((locator, "the output"), (notebook, "the notebook")):
            wider = self.horizontal_overflow(element)
            if wider > 0:
                problems.append(f"{name} scrolls sideways: {wider} px wider than its box")
        return problems + self.text_problems(locator) + self.chart_problems(locator)

    def assert_reads_well(self, locator: Locator) -> None:
        """:meth:`reading_problems` finds nothing in ``locator``, in a 1400 px window with the
        file browser open and in a 1024 px one without it (the window and the left area are put
        back after)."""
        size = self.page.viewport_size
        assert size is not None
        browsing = not self.page.evaluate("() => window.jupyterapp.shell.leftCollapsed")
        problems = []
        try:
            for name, (width, file_browser) in READING_LAYOUTS.items():
                self.set_layout(width, file_browser, size["height"])
                problems += [f"{name}: {problem}" for problem in self.reading_problems(locator)]
        finally:
            self.set_layout(size["width"], browsing, size["height"])
        assert problems == [], "\n".join(problems)

    def set_layout(self, width: int, file_browser: bool, height: int = 900) -> None:
        """A window ``width`` px wide, JupyterLab's file browser open or closed."""
        if file_browser:
            self.open_file_browser()
        else:
            self.page.evaluate("() => window.jupyterapp.shell.collapseLeft()")
        self.page.set_viewport_size({"width": width, "height": height})
        self.wait_until_idle()

    def screenshot(self, path: Path) -> Path:
        """Save a PNG of the browser viewport to `path` once the kernel is idle (folders are
        made)."""
        self.wait_until_idle()
        path.parent.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(path))
        return path

    def screenshot_whole(self, locator: Locator, path: Path) -> Path:
        """Save a PNG of ``locator`` whole, once the kernel is idle: the window is made as tall
        as it needs (its width kept, so the layout is the same) while the picture is taken, so
        nothing of it is past the notebook's scroll area or under JupyterLab's status bar."""
        self.wait_until_idle()
        size = self.page.viewport_size
        box = locator.bounding_box()
        assert size is not None and box is not None
        tall = max(size["height"], round(box["height"]) + MENU_TOOLBARS_AND_STATUS_BAR)
        self.page.set_viewport_size({"width": size["width"], "height": tall})
        try:
            locator.scroll_into_view_if_needed()
            path.parent.mkdir(parents=True, exist_ok=True)
            locator.screenshot(path=str(path))
        finally:
            self.page.set_viewport_size(size)
        return path

    def close(self) -> None:
        """Close the tab."""
        self.page.close()
