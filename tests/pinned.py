"""What a test pins so that a row played and committed in a test repository is the same, byte for
byte and commit for commit, on every run: a verification draws its held-out deals from the row's
merge commit id (runner/holdout.py), so whatever varies there varies the deals, and with them the
verdict a test asserts.

- **Commits**: every commit of a test repository with fixed names and e-mails, no user or system
  git configuration, and a fixed date (`commit_env`: PINNED_DAY at noon, a minute later for each
  commit already on HEAD, so that the history keeps its order).
- **The fake server's address**: a replay records the model's `base_url`, and the game ids derive
  from it, so the rows are played at fixed ports (`serving`), below the range the system hands out
  for port 0 (32768 and up on Linux), one per test module; a run of the same module elsewhere on
  the machine holding the port is waited for, never answered by another port.
- **The clock's readings** (`pin_clock_readings`): what the runner measures of the machine and
  not of the game, the wall time of each model call (`latency_ms`) and the day the game was played
  (the header's `provenance.created`; neither `run --suite` nor `verify` takes a plan's date), are
  set to fixed values before a replay is committed. No check derives either again: the replays stay
  valid (`gamenight validate`, the submission check).
"""

from __future__ import annotations

import datetime as dt
import errno
import json
import os
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from runner.replay.format import encode
from tests.llm.fakes import FakeOpenAI, Script

#: The day every pinned commit and replay is dated (the test epochs' own day).
PINNED_DAY = "2026-12-01"
#: The wall time every pinned model call is said to have taken.
PINNED_LATENCY_MS = 10.0
#: Fixed ports of the fake servers, one pair per test module that commits rows (2 workers run two
#: modules at once: each needs its own).
VERIFY_CLI_PORTS = (29431, 29432)
RANKED_STATUSES_PORT = 29433
#: How long a fixed port may be held elsewhere (the same module run by someone else) before a test fails.
PORT_WAIT_S = 900.0

#: Who commits in a test repository, and no git configuration but the repository's own.
GIT_IDENTITY = {"GIT_AUTHOR_NAME": "maintainers", "GIT_AUTHOR_EMAIL": "maintainers@example.org",
                "GIT_COMMITTER_NAME": "maintainers", "GIT_COMMITTER_EMAIL": "maintainers@example.org",
                "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}


def commit_env(repo: Path) -> dict[str, str]:
    """The author and committer dates of the next commit of `repo`: noon of PINNED_DAY, plus one
    minute per commit HEAD already has."""
    done = subprocess.run(["git", "-C", str(repo), "rev-list", "--count", "HEAD"], capture_output=True, text=True,
                          check=False)
    count = int(done.stdout) if done.returncode == 0 else 0  # no commit yet
    when = dt.datetime.fromisoformat(f"{PINNED_DAY}T12:00:00+00:00") + dt.timedelta(minutes=count)
    return {"GIT_AUTHOR_DATE": when.isoformat(), "GIT_COMMITTER_DATE": when.isoformat()}


@contextmanager
def serving(script: Script, port: int, *, wait_s: float = PORT_WAIT_S, **options: Any) -> Iterator[FakeOpenAI]:
    """A FakeOpenAI server at the fixed `port`, once the port is free (waiting up to `wait_s`)."""
    server = FakeOpenAI(script, port=port, **options)
    deadline = time.monotonic() + wait_s
    while True:
        try:
            server.start()
            break
        except OSError as exc:
            if exc.errno != errno.EADDRINUSE:
                raise
            if time.monotonic() > deadline:
                raise RuntimeError(f"port {port} of 127.0.0.1 stayed taken for {wait_s:g} s: the rows of this test are "
                                   "played at fixed ports (tests/pinned.py); is another run of it stuck?") from None
            time.sleep(0.5)
    try:
        yield server
    finally:
        server.stop()


def pin_clock_readings(folder: Path) -> None:
    """Every replay of `folder` with its calls' `latency_ms` set to PINNED_LATENCY_MS and its header's
    `provenance.created` to PINNED_DAY, written canonically as the runner writes it."""
    for path in sorted(folder.glob("*.jsonl")):
        raw = path.read_bytes()
        records = [json.loads(line) for line in raw.decode("utf-8").splitlines()]
        for record in records:
            if record.get("type") == "header":
                record["provenance"]["created"] = PINNED_DAY
            evidence = record.get("evidence")
            for call in (evidence.get("calls") or ()) if isinstance(evidence, dict) else ():
                call["latency_ms"] = PINNED_LATENCY_MS
        pinned = encode(records)
        if pinned != raw:
            path.write_bytes(pinned)
