"""Fixtures for the site tests: the built-in tournament and its results, a small corpus shared by the
browser sites, a static server and Debian's Chromium driven by Playwright."""

from __future__ import annotations

import contextlib
import functools
import gzip
import http.server
import io
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from runner.cli import main as gamenight
from site_builder.scoring.corpus import load
from site_builder.scoring.results import assemble

CHROMIUM = os.environ.get("GAMENIGHT_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args) -> None:  # noqa: A002 - stdlib signature
        pass


@pytest.fixture(scope="module")
def replays(tmp_path_factory) -> Path:
    """The built-in tournament with two games per matchup (the page, board and chart tests')."""
    out = tmp_path_factory.mktemp("replays")
    played = CliRunner().invoke(gamenight, ["run", "--games", "2", "--out", str(out)])
    assert played.exit_code == 0, played.output
    return out


@pytest.fixture(scope="module")
def results(replays) -> dict:
    """Its results, with the paper reading of the MAgIC metrics as the headline (the default)."""
    return assemble(load([replays]), seed=1)


@pytest.fixture(scope="module")
def reference_results(replays) -> dict:
    """The same games with the reference-code reading as the headline."""
    return assemble(load([replays]), seed=1, magic_reading="reference")


@pytest.fixture(scope="session")
def small_corpus(tmp_path_factory) -> Path:
    """The built-in tournament with two games per matchup (replays/) and one stage of the ranked
    suite for builtin:scripted (replays/ranked/), played once per session: the browser and axe
    sites copy it rather than play it again. A separate process: Playwright's sync API keeps an
    event loop running in this thread."""
    root = tmp_path_factory.mktemp("small-corpus") / "replays"
    played = subprocess.run([sys.executable, "-m", "runner", "run", "--games", "2", "--out", str(root)],
                            capture_output=True, text=True, check=False)
    assert played.returncode == 0, played.stderr
    suite = subprocess.run([sys.executable, "-m", "runner", "run", "--suite", "ranked", "--model", "builtin:scripted",
                            "--out", str(root / "ranked")], capture_output=True, text=True, check=False)
    assert suite.returncode == 0, suite.stderr
    return root


@pytest.fixture(scope="session")
def serve():
    """serve(folder) -> base URL of a static server on 127.0.0.1 for that folder."""
    servers = []

    def start(folder: Path) -> str:
        handler = functools.partial(_QuietHandler, directory=str(folder))
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}"

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


class _PagesLikeHandler(_QuietHandler):
    """Serves text gzip-compressed, as GitHub Pages does, and notes the body bytes it sends.

    The shards (.gz) and images go as they are; `sent` (set per server) collects
    (path without the query, body bytes) for every answered GET.
    """

    sent: list[tuple[str, int]]

    def send_head(self):  # noqa: ANN201 - stdlib signature
        from site_builder.bench.scale import WIRE_GZIP

        path = Path(self.translate_path(self.path))
        if path.is_dir() and self.path.split("?")[0].endswith("/"):
            path = path / "index.html"
        if not path.is_file():
            return super().send_head()
        raw = path.read_bytes()
        gzipped = path.suffix in WIRE_GZIP and "gzip" in self.headers.get("Accept-Encoding", "")
        body = gzip.compress(raw, compresslevel=6, mtime=0) if gzipped else raw
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        if gzipped:
            self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "max-age=600")  # as Pages: kept for 10 minutes
        self.end_headers()
        self.sent.append((self.path.split("?")[0], len(body)))
        return io.BytesIO(body)


@pytest.fixture(scope="session")
def serve_like_pages():
    """serve_like_pages(folder) -> (base URL, list of (path, body bytes) sent): a static server
    that compresses text on the way as GitHub Pages does, and counts what it sends."""
    servers = []

    def start(folder: Path) -> tuple[str, list[tuple[str, int]]]:
        sent: list[tuple[str, int]] = []
        handler = type("Handler", (_PagesLikeHandler,), {"sent": sent})
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(folder)))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}", sent

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    """A headless Chromium. Outside CI a missing Chromium skips (CI installs it: .ci/run).

    Module-scoped: Playwright's synchronous API keeps an event loop marked as running in this
    thread while it is open, which would break `asyncio.run` in the tests of other modules.
    """
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        if os.environ.get("CI"):
            pytest.fail(f"Chromium not found at {CHROMIUM}; .ci/run installs Debian's chromium")
        pytest.skip(f"Chromium not found at {CHROMIUM}: run `bash .ci/run`, or apt-get install chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield instance
        instance.close()


@pytest.fixture
def new_tab(browser):
    """new_tab(**options) -> a page in a browser context of its own (viewport, colour scheme,
    JavaScript off...), closed when the `with` block ends."""
    @contextlib.contextmanager
    def opened(**options) -> Iterator[Any]:
        context = browser.new_context(**options)
        try:
            yield context.new_page()
        finally:
            context.close()

    return opened


@pytest.fixture
def page(browser):
    """A fresh page that fails the test on any JavaScript error or dialog."""
    context = browser.new_context()
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    tab.on("dialog", lambda dialog: (errors.append(f"dialog: {dialog.message}"), dialog.dismiss()))
    yield tab
    context.close()
    assert not errors, errors
