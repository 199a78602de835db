"""The contributor's path, measured: a ranked stage through a server that wants a key, and how fast a
wrong key and a server that is down are refused, as fresh `gamenight` processes.

    python -m tests.llm.bench_keys [--repeat 5]

Serves the fake OpenAI-compatible server of tests/llm/fakes.py (real HTTP, the real openai SDK in
the runner) requiring a key, then times, `--repeat` times each and interleaved: the floor, a fresh
`gamenight --version` (the command line's start-up, the same for every command); `run --suite
ranked` with a wrong key in `--key-env`; and the same against a port nothing listens on; and the
wrong key again through click's CliRunner in this process (the start-up paid once). Then it
plays stage 1 (23 games) with the right key, validates it, and looks for the key and the variable's
name in every file of the output folder and the cache folder. Wall times are medians (min-max), and
the refusals are also given as the time they add to the floor.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.llm.fakes import FakeOpenAI
from tests.llm.test_tournament_llm import legal_reply

KEY = "bench-server-key-5f0c2a9e71d4b836"
VARIABLE = "BENCH_SERVER_KEY"


def gamenight(*args: str, env: dict[str, str]) -> tuple[float, subprocess.CompletedProcess[str]]:
    """Run `python -m runner ARGS` in a fresh process: (wall seconds, the finished process)."""
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "runner", *args], capture_output=True, text=True,
                          env={**os.environ, **env}, check=False)
    return time.monotonic() - started, done


def shown(times: list[float]) -> str:
    return f"{statistics.median(times):.2f} s ({min(times):.2f}-{max(times):.2f})"


def holding(root: Path, text: str) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and text.encode() in p.read_bytes()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    repeat = parser.parse_args().repeat
    with tempfile.TemporaryDirectory() as scratch, FakeOpenAI(legal_reply, key=KEY) as server:
        root = Path(scratch)
        with FakeOpenAI(legal_reply) as gone:
            down_url = gone.base_url  # nothing listens there once it is closed
        suite = ["run", "--suite", "ranked", "--label", "bench-row", "--key-env", VARIABLE,
                 "--cache-dir", str(root / "cache")]
        floor, wrong, down, lines = [], [], [], {}
        for _ in range(repeat):
            seconds, _ = gamenight("--version", env={})
            floor.append(seconds)
            seconds, done = gamenight(*suite, "--model", f"openai_compatible:tiny@{server.base_url}", "--out",
                                      str(root / "wrong"), env={VARIABLE: "not-the-key-0123456789abcdef"})
            assert done.returncode == 1 and not (root / "wrong").exists(), done.stderr
            wrong.append(seconds)
            lines["wrong key"] = done.stderr.strip()
            seconds, done = gamenight(*suite, "--model", f"openai_compatible:tiny@{down_url}", "--out",
                                      str(root / "down"), env={VARIABLE: KEY})
            assert done.returncode == 1 and not (root / "down").exists(), done.stderr
            down.append(seconds)
            lines["server down"] = done.stderr.strip()
        from click.testing import CliRunner

        from runner.cli import main as command  # loaded once: what a refusal costs beyond the start-up

        inside = []
        for _ in range(repeat):
            started = time.monotonic()
            result = CliRunner().invoke(command, [*suite, "--model", f"openai_compatible:tiny@{server.base_url}",
                                                  "--out", str(root / "wrong")],
                                        env={VARIABLE: "not-the-key-0123456789abcdef"})
            inside.append(time.monotonic() - started)
            assert result.exit_code == 1 and VARIABLE in result.output
        calls_before_stage = server.calls
        out = root / "row"
        seconds, played = gamenight(*suite, "--model", f"openai_compatible:tiny@{server.base_url}", "--out", str(out),
                                    env={VARIABLE: KEY})
        assert played.returncode == 0, played.stderr
        _, valid = gamenight("validate", "-q", str(out), env={})
        games = len(list(out.glob("*.jsonl")))
        print(f"floor, gamenight --version:        {shown(floor)}")
        print(f"wrong key refused:                 {shown(wrong)}; over the floor "
              f"{statistics.median(w - f for w, f in zip(wrong, floor)):+.2f} s; "
              f"ratio {statistics.median(w / f for w, f in zip(wrong, floor)):.2f}")
        print(f"server that is down refused:       {shown(down)}; over the floor "
              f"{statistics.median(d - f for d, f in zip(down, floor)):+.2f} s; "
              f"ratio {statistics.median(d / f for d, f in zip(down, floor)):.2f}")
        print(f"wrong key refused, in one process: {shown(inside)} (the command line already loaded)")
        print(f"model calls made by the refusals:  {calls_before_stage} (model lists asked: "
              f"{len(server.listings)})")
        for what, line in lines.items():
            print(f"  {what}: {line}")
        print(f"stage 1 with the right key:        {games} games in {seconds:.1f} s, {server.calls - calls_before_stage}"
              f" calls; validate exit {valid.returncode}")
        for name, text in (("the key", KEY), ("the variable's name", VARIABLE)):
            found = holding(out, text) + holding(root / "cache", text)
            print(f"files holding {name}: {len(found)} of {sum(1 for p in root.rglob('*') if p.is_file())} "
                  f"under the output and cache folders {[str(p) for p in found]}")
        print(f"the key in the commands' output: {KEY in played.stdout + played.stderr}")
        print(f"load average at the end: {os.getloadavg()[0]:.2f} (2 cores)")


if __name__ == "__main__":
    main()
