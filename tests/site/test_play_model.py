"""A person plays a game against the real local model (Gemma 3 270M, llama-cpp-python) in Chromium.

Skipped when no model server answers (the CI has none). Started by hand, it also wrote the
shipped replay under replays/ (docs/play.md, "A game against a real model"):

    ~/llama/bin/python -m llama_cpp.server --model gemma-3-270m-q4_k_m.gguf --chat_format gemma \\
        --host 127.0.0.1 --port 8012 --n_ctx 8192
    python -m tests.site.test_play_model --out replays

The person sits at seat 0 of a Prisoner's Dilemma; the model at seat 1, a built-in tit-for-tat at
seat 2 (a short game: the machine has two cores). Every model call's time is read back from the
replay's evidence.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from runner.rerun.validate import check_file
from runner.table import Person, deal

MODEL_URL = os.environ.get("GAMENIGHT_MODEL_URL", "http://127.0.0.1:8012/v1")
#: The model's settings as the shipped local-cpu tournament gives them (replays/local-cpu/): a
#: bounded answer (the compact provider:model spec leaves max_tokens to the server, which lets
#: a small model ramble to the end of its context).
MODEL = {"provider": "openai_compatible", "model": "gemma-3-270m-q4_k_m", "base_url": MODEL_URL,
         "temperature": 0.7, "max_tokens": 160, "seed": 270, "structured_output": "json_object",
         "system_role": False}
AGAINST = ["gemma3-270m", "prisoners_dilemma/tit_for_tat"]
#: The plan seed of the shipped game.
SEED = 2024


def model_server_up(url: str = MODEL_URL) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/models", timeout=3) as response:
            return response.status == 200
    except OSError:
        return False


def model_turns(path: Path) -> dict[str, Any]:
    """The model's calls in a replay: how many, and their time (ms) from the recorded evidence."""
    times = []
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        evidence = record.get("evidence")
        for call in (evidence.get("calls", []) if isinstance(evidence, dict) else []):
            if isinstance(call, dict) and isinstance(call.get("latency_ms"), (int, float)):
                times.append(call["latency_ms"])
    return {"calls": len(times), "mean_ms": statistics.fmean(times) if times else None,
            "median_ms": statistics.median(times) if times else None, "max_ms": max(times, default=None)}


def play_against_model(browser: Any, out: Path, seed: int = SEED) -> Path:
    """Play the game in the browser as a person, to its end; the replay written under `out`."""
    from tests.site.play_helpers import playing
    from tests.site.test_play_browser import play_through, wait_for_turn

    from runner.tournament import from_dict

    agents = from_dict({"name": "model", "agents": {"gemma3-270m": MODEL}}, matchups_required=False).agents
    table = deal("prisoners_dilemma", {}, seed, [Person("Ann", seat=0)], AGAINST, agents=agents)
    context = browser.new_context(viewport={"width": 390, "height": 844})
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    with playing(table, out) as (session, links):
        tab.goto(links[0])
        wait_for_turn(tab, "")
        play_through({0: tab}, "prisoners_dilemma")
        session.done.wait(60)
    context.close()
    assert not errors, errors
    assert session.replay is not None, session.failure
    return Path(session.replay)


@pytest.mark.skipif(not model_server_up(), reason=f"no model server at {MODEL_URL} (see the module's docstring)")
def test_a_person_plays_the_real_model_in_the_browser(browser, tmp_path, monkeypatch):
    import tests.site.test_play_browser as helpers

    monkeypatch.setattr(helpers, "GAME_SECONDS", 1800)  # a small model on two cores takes its time
    path = play_against_model(browser, tmp_path, seed=SEED + 1)
    assert check_file(str(path)).ok
    header = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    assert [p["agent"]["kind"] for p in header["players"]] == ["human", "llm", "builtin"]
    assert model_turns(path)["calls"] > 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Play the shipped game against the local model in Chromium.")
    parser.add_argument("--out", type=Path, default=Path("replays"))
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args(argv)
    if not model_server_up():
        print(f"no model server at {MODEL_URL}", file=sys.stderr)
        return 1
    import tests.site.test_play_browser as helpers
    from playwright.sync_api import sync_playwright
    from tests.site.conftest import CHROMIUM, CHROMIUM_ARGS

    helpers.GAME_SECONDS = 3600
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        path = play_against_model(browser, args.out, args.seed)
        browser.close()
    print(path)
    print(json.dumps(model_turns(path)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
