"""`gamenight serve`: a built site on 127.0.0.1, rebuilt beside itself and switched in at once.

A build replaces every file of its site folder (MkDocs empties the folder first), so a server
reading that folder meanwhile, this one or any other, answers 404 until the build is done. `serve`
builds into a folder beside the site instead (`.<name>.next`), then exchanges the two folders in
one step (Linux's renameat2 with RENAME_EXCHANGE, macOS's renamex_np with RENAME_SWAP): a request
finds the whole old site or the whole new one, never a half-built one. Where the system has no
such call, two renames leave the site folder missing for an instant.

The folder beside the site starts with hard links to the site's replay data, so the build keeps
the shards whose games did not change exactly as a rebuild in place does (viewer/write.py checks
that its manifest describes those very files). The server looks each file up by the site
folder's path, so the exchange reaches it without a restart, and a browser that drops a download
(a closed tab, a cancelled request) is not an error.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import http.server
import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

from site_builder.viewer.files import CALLS_DIR, DATA_DIR

#: What writing to a connection the browser has closed raises: the browser's choice, not an error.
DROPPED = (BrokenPipeError, ConnectionResetError, ConnectionAbortedError)
#: A file every site gamenight built holds (build.SITE_MARKER, without importing the builder).
SITE_MARKER = Path("assets") / "gamenight" / "site.js"


class _Handler(http.server.SimpleHTTPRequestHandler):
    """Static files of the site folder, looked up by its path on every request, without a log line each."""

    def log_message(self, format: str, *args) -> None:  # noqa: A002 - the standard library's name
        pass


class SiteServer(http.server.ThreadingHTTPServer):
    """A threaded static server that lets dropped connections go without a traceback."""

    def handle_error(self, request, client_address) -> None:  # noqa: ANN001 - the standard library's signature
        if isinstance(sys.exc_info()[1], DROPPED):
            return
        super().handle_error(request, client_address)


def make_server(folder: Path, port: int) -> SiteServer:
    """A static file server for `folder` on 127.0.0.1 (port 0: any free port)."""
    return SiteServer(("127.0.0.1", port), functools.partial(_Handler, directory=str(Path(folder).absolute())))


def next_folder(site: Path) -> Path:
    """Where the next build of `site` is made: a hidden folder beside it, on the same disk."""
    return site.parent / f".{site.name}.next"


def prepare_next(site: Path, folder: Path) -> None:
    """Empty `folder` (a site built before, or nothing) and give it hard links to the replay data
    of `site`, with the file that marks a built site, so the build there keeps unchanged shards."""
    from site_builder.build import BuildError, check_site_folder

    if folder.is_symlink():
        raise BuildError(f"refusing to replace {folder}: it is a symbolic link, not a folder this command made")
    check_site_folder(folder)  # empty, or a site built before: nothing else is emptied
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    if not (site / SITE_MARKER).is_file():
        return
    for rel in (DATA_DIR, CALLS_DIR):
        if (site / rel).is_dir():
            shutil.copytree(site / rel, folder / rel, copy_function=_link_or_copy)
    (folder / SITE_MARKER).parent.mkdir(parents=True)
    _link_or_copy(site / SITE_MARKER, folder / SITE_MARKER)


def _link_or_copy(source: str | Path, target: str | Path) -> None:
    """A hard link; a copy with the same times where the disk has none (the shards stay recognisable)."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def exchange(a: Path, b: Path) -> bool:
    """Swap two folders in one step; False if this system or disk cannot."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return False
    if sys.platform.startswith("linux") and hasattr(libc, "renameat2"):
        at_cwd, rename_exchange = -100, 2
        done = libc.renameat2(at_cwd, os.fsencode(a), at_cwd, os.fsencode(b), ctypes.c_uint(rename_exchange))
    elif sys.platform == "darwin" and hasattr(libc, "renamex_np"):
        rename_swap = 2
        done = libc.renamex_np(os.fsencode(a), os.fsencode(b), ctypes.c_uint(rename_swap))
    else:
        return False
    if done == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), str(b))


def switch(built: Path, site: Path) -> None:
    """Put the folder `built` where `site` is, in one step where the system allows; the old site,
    if any, is then at `built`'s path."""
    if not site.exists():
        built.rename(site)
        return
    if exchange(built, site):
        return
    aside = site.parent / f".{site.name}.old"
    if aside.exists():
        shutil.rmtree(aside)
    site.rename(aside)  # from here until the next rename the site folder is missing
    built.rename(site)
    aside.rename(built)


def build_beside(site: Path, build: Callable[[Path], object]) -> object:
    """Run `build(folder)` into the folder beside `site`, switch the result in, and remove the
    old site; returns what `build` returned. The site's folder is never half built."""
    folder = next_folder(site)
    prepare_next(site, folder)
    try:
        done = build(folder)
        switch(folder, site)
    finally:  # a failed or interrupted build leaves nothing half made beside the site
        shutil.rmtree(folder, ignore_errors=True)
    return done
