"""A tournament of language-model games killed with SIGKILL mid-run and started again loses no
finished game and plays none twice."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time

from runner.replay.validate import check_file
from tests.llm.fakes import FakeOpenAI
from tests.llm.test_tournament_llm import KEY, legal_reply

GAMES = 40
ROUNDS = 3  # calls per game: one per round for the one language-model seat


def test_sigkill_mid_run_loses_no_finished_game_and_repeats_none(tmp_path):
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
        while time.monotonic() < deadline and len(list(out.glob("*.jsonl"))) < 10 and proc.poll() is None:
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        survivors = {f.name: f.read_bytes() for f in out.glob("*.jsonl")}
        assert 10 <= len(survivors) < GAMES, "the kill should land mid-run"
        assert all(check_file(out / name).ok for name in survivors)

        calls_before = server.calls
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300, check=False)
        calls_after = server.calls
    assert done.returncode == 0, done.stderr
    row = re.search(r"prisoners_dilemma\s+(\d+)\s+(\d+)\s+(\d+)", done.stdout)
    assert row and (int(row[1]), int(row[2]), int(row[3])) == (GAMES - len(survivors), len(survivors), 0)
    final = {f.name: f.read_bytes() for f in out.glob("*.jsonl")}
    assert len(final) == GAMES
    assert all(final[name] == data for name, data in survivors.items())  # kept byte for byte
    assert all(check_file(out / name).ok for name in final)
    assert calls_after - calls_before == (GAMES - len(survivors)) * ROUNDS  # no finished game replayed
    assert not list(out.glob("*.tmp"))
