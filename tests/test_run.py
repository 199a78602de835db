"""Running tournaments: replays on disk, resuming, and surviving a hard kill."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from runner.rerun.validate import check_file
from runner.run import replay_path, run
from runner.tournament import from_dict

LINEUP = ["prisoners_dilemma/tit_for_tat", "prisoners_dilemma/always_defect", "random"]


def tournament(games: int = 6, name: str = "rt"):
    return from_dict({"name": name, "seed": 1, "created": "2026-11-21",
                      "matchups": [{"game": "prisoners_dilemma", "games": games, "lineup": LINEUP}]})


def test_every_planned_game_becomes_one_valid_replay(tmp_path):
    t = tournament()
    summary = asyncio.run(run(t, tmp_path, parallel=3))
    assert summary.ok and summary.played["prisoners_dilemma"] == 6
    files = sorted(tmp_path.glob("*.jsonl"))
    assert [f.name for f in files] == sorted(f"{p.game_id}.jsonl" for p in t.plan())
    assert all(check_file(f).ok for f in files)


def test_parallelism_does_not_change_the_bytes(tmp_path):
    asyncio.run(run(tournament(), tmp_path / "serial", parallel=1))
    asyncio.run(run(tournament(), tmp_path / "parallel", parallel=8))
    for f in (tmp_path / "serial").glob("*.jsonl"):
        assert f.read_bytes() == (tmp_path / "parallel" / f.name).read_bytes()


def test_resume_keeps_finished_games_and_plays_only_the_rest(tmp_path):
    t = tournament()
    asyncio.run(run(tournament(games=2), tmp_path))
    before = {f.name: f.stat().st_mtime_ns for f in tmp_path.glob("*.jsonl")}
    (tmp_path / ".rt-x.jsonl.abc.tmp").write_text("half a game", encoding="utf-8")
    summary = asyncio.run(run(t, tmp_path))
    assert summary.skipped["prisoners_dilemma"] == 2 and summary.played["prisoners_dilemma"] == 4
    after = {f.name: f.stat().st_mtime_ns for f in tmp_path.glob("*.jsonl")}
    assert all(after[name] == mtime for name, mtime in before.items())
    assert len(after) == 6 and not list(tmp_path.glob("*.tmp"))


def test_a_crashing_agent_loses_only_its_own_game(tmp_path, monkeypatch):
    import runner.run as run_module

    real = run_module.play_planned

    async def flaky(planned, *args):
        if planned.index == 1:
            raise RuntimeError("agent exploded")
        return await real(planned, *args)

    monkeypatch.setattr(run_module, "play_planned", flaky)
    summary = asyncio.run(run(tournament(games=3), tmp_path))
    assert len(summary.failures) == 1 and "agent exploded" in summary.failures[0]
    assert summary.played["prisoners_dilemma"] == 2


def test_sigkill_mid_run_loses_no_finished_game_and_repeats_none(tmp_path):
    plan_file = tmp_path / "big.toml"
    plan_file.write_text(
        'name = "kill"\nseed = 5\ncreated = "2026-11-21"\n'
        '[[matchups]]\ngame = "prisoners_dilemma"\ngames = 1500\n'
        f'lineup = {LINEUP!r}\n'.replace("'", '"'), encoding="utf-8")
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "runner", "run", str(plan_file), "--out", str(out), "--parallel", "2"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(list(out.glob("*.jsonl"))) < 100:
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    survivors = {f.name: f.read_bytes() for f in out.glob("*.jsonl")}
    assert 100 <= len(survivors) < 1500, "the kill should land mid-run"
    assert all(check_file(out / name).ok for name in survivors)

    done = subprocess.run(cmd, capture_output=True, text=True, check=True)
    assert f"{len(survivors)}" in done.stdout  # reported as kept
    final = {f.name: f.read_bytes() for f in out.glob("*.jsonl")}
    assert len(final) == 1500
    assert all(final[name] == data for name, data in survivors.items())
    assert not list(out.glob("*.tmp"))


def test_replay_path_is_the_game_id(tmp_path):
    planned = tournament().plan()[0]
    assert replay_path(tmp_path, planned) == Path(tmp_path, f"{planned.game_id}.jsonl")
