"""A tournament of language-model games killed with SIGKILL mid-run and started again loses no
finished game, plays none twice, and (with the response cache, on by default) sends no request
twice: the calls of the games that were under way are answered from the cache."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time

from runner.rerun.validate import check_file
from tests.llm.fakes import FakeOpenAI
from tests.llm.test_tournament_llm import KEY, legal_reply

GAMES = 40
ROUNDS = 5  # calls per game: one per round for the one language-model seat
IN_FLIGHT = 8  # the endpoint's default max_concurrency: at most this many requests cut off by the kill


def _without_cache_marks(data: bytes) -> list[dict]:
    """A replay's records with the "answered from the cache" marks taken out of its calls (and the
    format version they raise: the mark is a version-2 field)."""
    records = [json.loads(line) for line in data.decode().splitlines()]
    records[0].pop("version")
    for record in records:
        for call in record.get("evidence", {}).get("calls", []):
            call.pop("cached", None)
    return records


def test_sigkill_mid_run_loses_no_finished_game_and_repeats_no_request(tmp_path):
    with FakeOpenAI(legal_reply, latency_s=0.05) as server:
        plan = tmp_path / "plan.toml"
        plan.write_text(f'''name = "killed"
seed = 4
created = "2026-11-21"
[agents.m]
provider = "openai"
model = "test-model"
base_url = "{server.base_url}"
api_key_env = "TEST_LLM_KEY"
temperature = 0.7
[[matchups]]
game = "prisoners_dilemma"
games = {GAMES}
rules = {{ rounds = {ROUNDS} }}
lineup = ["m", "prisoners_dilemma/tit_for_tat", "random"]
''', encoding="utf-8")
        out = tmp_path / "out"
        cmd = [sys.executable, "-m", "runner", "run", str(plan), "--out", str(out), "--parallel", "8"]
        env = {**os.environ, "TEST_LLM_KEY": KEY}
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 120

        def mid_run() -> bool:  # ten games written, and more calls answered than could be in flight
            written = len(list(out.glob("*.jsonl")))
            return written >= 10 and server.calls - written * ROUNDS > IN_FLIGHT

        # Waiting for calls as well as files: on a busy machine the tenth file can land while the
        # next games have made only a few calls, and the kill would then test little of the cache.
        while time.monotonic() < deadline and not mid_run() and proc.poll() is None:
            time.sleep(0.01)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        survivors = {f.name: f.read_bytes() for f in out.glob("*.jsonl")}
        assert 10 <= len(survivors) < GAMES, "the kill should land mid-run"
        assert all(check_file(out / name).ok for name in survivors)
        under_way = server.calls - len(survivors) * ROUNDS
        assert under_way > IN_FLIGHT  # games were under way, with calls already answered

        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300, check=False)
        calls_after = server.calls
        # Played again from scratch into another folder: every reply comes from the cache.
        again = subprocess.run([*cmd[:6], str(tmp_path / "again"), *cmd[7:]], env=env, capture_output=True,
                               text=True, timeout=300, check=False)
        calls_again = server.calls
    assert done.returncode == 0, done.stderr
    row = re.search(r"prisoners_dilemma\s+(\d+)\s+(\d+)\s+(\d+)", done.stdout)
    assert row and (int(row[1]), int(row[2]), int(row[3])) == (GAMES - len(survivors), len(survivors), 0)
    final = {f.name: f.read_bytes() for f in out.glob("*.jsonl")}
    assert len(final) == GAMES
    assert all(final[name] == data for name, data in survivors.items())  # kept byte for byte
    assert all(check_file(out / name).ok for name in final)
    assert not list(out.glob("*.tmp"))
    # No request answered before the kill was sent again: the only requests beyond the calls the
    # replays hold are those the kill cut off in flight, before their reply reached the cache.
    recorded = sum(len(r.get("evidence", {}).get("calls", [])) for data in final.values()
                   for r in map(json.loads, data.decode().splitlines()))
    assert recorded == GAMES * ROUNDS
    assert 0 <= calls_after - recorded <= IN_FLIGHT
    # The re-run reproduces every game from the cache, without a single request.
    assert again.returncode == 0, again.stderr
    assert calls_again == calls_after
    copies = {f.name: f.read_bytes() for f in (tmp_path / "again").glob("*.jsonl")}
    assert set(copies) == set(final)
    assert all(_without_cache_marks(copies[n]) == _without_cache_marks(final[n]) for n in final)
    assert all(call.get("cached") for data in copies.values() for r in map(json.loads, data.decode().splitlines())
               for call in r.get("evidence", {}).get("calls", []))
