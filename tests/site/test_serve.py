"""`gamenight serve` (site_builder/serve.py): real servers on free ports, a browser-like client that
drops a download half way, and rebuilds while a client keeps fetching."""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner

from site_builder import cli, serve
from site_builder.build import BuildError, build_site
from tests.site.test_incremental import tree

REPO = Path(__file__).resolve().parents[2]
#: What a client fetches over and over during a rebuild: pages, a script, the viewer's manifest.
FETCHED = ("/", "/games/chameleon/", "/assets/gamenight/site.js", "/replays/data/index.json", "/cost/")


@pytest.fixture(scope="module")
def replays(tmp_path_factory) -> Path:
    """Twelve shipped games: enough for every kind of page, quick to build."""
    folder = tmp_path_factory.mktemp("serve-replays")
    for path in sorted((REPO / "replays" / "builtin").glob("*.jsonl"))[:12]:
        shutil.copy(path, folder)
    return folder


@pytest.fixture
def served(replays, tmp_path):
    """A built site served by serve.make_server on a free port: (site, base URL, cache)."""
    site, cache = tmp_path / "site", tmp_path / "cache" / "scores.sqlite"
    build_site([replays], site, cache_path=cache, seed=5, site_url="http://127.0.0.1:1/")
    server = serve.make_server(site, 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield site, f"http://127.0.0.1:{server.server_address[1]}", cache
    server.shutdown()
    server.server_close()


class Fetcher(threading.Thread):
    """Fetches FETCHED in turn until stopped; keeps every status that was not 200."""

    def __init__(self, base: str):
        super().__init__(daemon=True)
        self.base, self.failed, self.fetched = base, [], 0
        self.stopping = threading.Event()

    def run(self) -> None:
        while not self.stopping.is_set():
            for path in FETCHED:
                try:
                    with urllib.request.urlopen(self.base + path, timeout=30) as response:
                        response.read()
                        status = response.status
                except urllib.error.HTTPError as err:
                    status = err.code
                self.fetched += 1
                if status != 200:
                    self.failed.append((path, status))

    def stop(self) -> None:
        self.stopping.set()
        self.join(60)


def canonical(base: str) -> str:
    """The address the served home page was built for (its canonical link): which build answers."""
    with urllib.request.urlopen(base + "/", timeout=30) as response:
        return re.search(r'<link rel="canonical" href="([^"]+)"', response.read().decode()).group(1)


def test_a_rebuild_beside_the_site_never_leaves_a_client_without_a_page(served, replays):
    site, base, cache = served
    client = Fetcher(base)
    client.start()
    try:
        for port in (2, 3):  # each rebuild is for another address, so the page shows which build answers
            done = serve.build_beside(site, lambda into: build_site([replays], into, cache_path=cache, seed=5,
                                                                    site_url=f"http://127.0.0.1:{port}/"))
            assert canonical(base) == f"http://127.0.0.1:{port}/"
            assert done.replay_games_rendered == 0  # the shards of the site served were kept
    finally:
        client.stop()
    assert client.fetched > len(FETCHED) and not client.failed
    assert not serve.next_folder(site).exists()


def test_a_rebuild_in_place_is_what_would_answer_404(served, replays):
    """The control: the same client during a build into the served folder itself sees pages missing."""
    site, base, cache = served
    client = Fetcher(base)
    client.start()
    try:
        build_site([replays], site, cache_path=cache, seed=5, site_url="http://127.0.0.1:4/")
    finally:
        client.stop()
    assert (("/replays/data/index.json", 404) in client.failed or ("/", 404) in client.failed), client.fetched


def test_a_site_built_beside_equals_one_built_in_place(replays, tmp_path):
    cache = tmp_path / "scores.sqlite"
    beside, in_place = tmp_path / "beside", tmp_path / "in-place"
    for _ in range(2):
        serve.build_beside(beside, lambda into: build_site([replays], into, cache_path=cache, seed=5))
    build_site([replays], in_place, seed=5)
    assert tree(beside) == tree(in_place)


def test_without_an_exchange_call_two_renames_switch_the_folders(tmp_path, monkeypatch):
    monkeypatch.setattr(serve, "exchange", lambda a, b: False)
    site, built = tmp_path / "site", tmp_path / ".site.next"
    for folder, text in ((site, "old"), (built, "new")):
        folder.mkdir()
        (folder / "index.html").write_text(text, encoding="utf-8")
    serve.switch(built, site)
    assert (site / "index.html").read_text(encoding="utf-8") == "new"
    assert (built / "index.html").read_text(encoding="utf-8") == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == [".site.next", "site"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="renameat2 is Linux's")
def test_the_exchange_swaps_two_folders_in_one_call(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    (a / "x").write_text("a", encoding="utf-8")
    assert serve.exchange(a, b)
    assert (b / "x").read_text(encoding="utf-8") == "a" and not (a / "x").exists()


def test_a_failed_build_leaves_the_site_as_it_was_and_nothing_beside_it(served):
    site, base, _ = served
    before = tree(site)

    def failing(into: Path) -> None:
        (into / "half.html").write_text("half", encoding="utf-8")
        raise BuildError("mkdocs build --strict failed")

    with pytest.raises(BuildError):
        serve.build_beside(site, failing)
    assert tree(site) == before and not serve.next_folder(site).exists()


def test_a_folder_beside_the_site_that_is_not_a_site_is_never_emptied(tmp_path):
    beside = serve.next_folder(tmp_path / "site")
    beside.mkdir()
    (beside / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(BuildError, match="refusing to replace"):
        serve.build_beside(tmp_path / "site", lambda into: None)
    assert (beside / "notes.txt").is_file()


def test_serve_refuses_a_site_folder_that_is_not_a_site(tmp_path):
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "notes.txt").write_text("mine", encoding="utf-8")
    done = CliRunner().invoke(cli.serve, [str(tmp_path), "--site", str(tmp_path / "site"), "--port", "0"])
    assert done.exit_code == 1 and "refusing to replace" in done.output and "Traceback" not in done.output
    assert (tmp_path / "site" / "notes.txt").is_file()


def drop_mid_download(port: int, path: str) -> int:
    """GET `path`, read a little of the body, then close with a reset (as a browser dropping a
    download does); the bytes read."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        got = sock.recv(4096)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    return len(got)


def test_serve_says_where_it_serves_from_and_lets_dropped_downloads_go(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<p>home</p>", encoding="utf-8")
    (site / "big.bin").write_bytes(os.urandom(1 << 20) * 24)  # far more than the sockets' buffers hold
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    process = subprocess.Popen([sys.executable, "-m", "runner", "serve", "--no-build", "--site", str(site),
                                "--port", "0"], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env=env)
    try:
        line = process.stdout.readline()
        assert line.startswith(f"serving {site.resolve()} at http://127.0.0.1:"), line
        port = int(re.search(r"127\.0\.0\.1:(\d+)/", line).group(1))
        for _ in range(5):
            assert drop_mid_download(port, "/big.bin") > 0
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as response:
            assert response.read() == b"<p>home</p>"  # still serving
        time.sleep(0.5)  # the server threads have met the dropped connections
    finally:
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
    assert "stopped" in out
    assert "Traceback" not in err and "Error" not in err, err
