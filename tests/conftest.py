"""Settings every test shares."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _private_response_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """`gamenight run` caches model replies (docs/llm.md): each test gets its own cache folder, so
    no test reads another's replies and none writes into the user's ~/.cache."""
    monkeypatch.setenv("GAMENIGHT_CACHE_DIR", str(tmp_path_factory.mktemp("response-cache")))


#: The shipped replays (the repository's replays/ folder).
SHIPPED = Path(__file__).resolve().parents[1] / "replays"
#: How long a worker waits for another to check the shipped replays (minutes of a loaded machine).
SHIPPED_WAIT_SECONDS = 3600.0


def _shared_folder(tmp_path_factory: pytest.TempPathFactory, name: str) -> Path:
    """A folder every xdist worker of this run sees (their base folders' parent), or this
    process's own when it runs alone."""
    base = tmp_path_factory.getbasetemp()
    return (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / name


def _made_once(folder: Path, make: Callable[[Path], None]) -> Path:
    """`folder`, filled by `make(folder)` in exactly one process of the run: the first to create
    the folder (an atomic mkdir: the lock) makes it; the others wait for its `ready` file, which
    says whether it was made."""
    ready = folder / "ready"
    try:
        folder.mkdir(parents=True)
    except FileExistsError:
        waited = 0.0
        while not ready.exists():
            if waited > SHIPPED_WAIT_SECONDS:
                pytest.fail(f"{folder} was not made in {SHIPPED_WAIT_SECONDS:.0f} s by the worker making it")
            time.sleep(1.0)
            waited += 1.0
        if (said := ready.read_text(encoding="utf-8")) != "ok":
            pytest.fail(f"the worker making {folder} failed: {said}")
        return folder
    try:
        make(folder)
    except BaseException as exc:
        ready.write_text(f"{type(exc).__name__}: {exc}", encoding="utf-8")
        raise
    ready.write_text("ok", encoding="utf-8")
    return folder


def _check_shipped(folder: Path) -> None:
    from site_builder.scoring.corpus import load

    load([SHIPPED], folder / "scores.sqlite")


@pytest.fixture(scope="session")
def shipped_scores(tmp_path_factory: pytest.TempPathFactory) -> Callable[[Path], Path]:
    """shipped_scores(folder) -> a scores cache (in `folder`, a copy of its own) that already holds
    the check of every shipped replay (validated and re-simulated from its seed, as `load` does).

    Re-simulating the 1,500 shipped replays is most of the time of the tests that read them all
    (the viewer walk's site, the MAgIC oracle's export): it is done once for the whole run, by the
    first worker that needs it, and the others wait for it. A cache answers with the very JSON a
    check makes (site_builder/scoring/corpus.py), so what they build is what a cold build gives.
    Each caller gets a copy, so that no two processes write one SQLite file.
    """
    shared = _made_once(_shared_folder(tmp_path_factory, "shipped-scores"), _check_shipped)

    def copy(folder: Path) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        for path in shared.iterdir():
            if path.name != "ready":
                (shutil.copytree if path.is_dir() else shutil.copy2)(path, folder / path.name)
        return folder / "scores.sqlite"

    return copy
