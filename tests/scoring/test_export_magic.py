"""`gamenight export magic`: the reference script's folder layout and keys, from hand-built games."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner
from test_magic import AGENTS, B, KX, X, chameleon, cost_sharing, prisoners, public_good, undercover

from runner.cli import main
from site_builder.export_magic import GAMES, export, exported
from site_builder.scoring.corpus import full_games, load

BUILTIN = Path(__file__).resolve().parents[2] / "replays" / "builtin"


def test_files_follow_the_scripts_layout_and_keys(tmp_path):
    probes = [(0, "suspect", {"seat": 2}), (1, "suspect", {"seat": 0}), (0, "suspect_of", {"of": 1, "seat": 0}),
              (1, "suspect_of", {"of": 0, "seat": 2}), (1, "suspect_of", {"of": 2, "seat": 0})]
    games = [chameleon("c1", [X, X, B], "chameleon_guessed", probes),
             undercover("u1", [B, X, B], "even_vote", [(1, "self_role", {"role": "undercover"}),
                                                       (0, "self_role", {"role": "civilian"}),
                                                       (2, "self_role", {"role": "undercover"})]),
             prisoners("p1", [X, B, B], [["defect", "cooperate", "cooperate"]]),
             public_good("g1", [B, X, B], [[5, 0, 7]]),
             cost_sharing("k1", [B, B, X], [2, 2, 2]),
             chameleon("c2", [X, B, X], "even_vote")]  # X holds one of two non-chameleon seats
    done = export(games, AGENTS, tmp_path)
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    name = next(n for n, e in manifest["agents"].items() if e["agent"] == KX)
    assert manifest["agents"][name]["games"] == {"airportfee": 1, "as_non_chameleon": 1, "as_undercover": 1,
                                                 "prisoner": 1, "public_good": 1}
    results = tmp_path / name / "results"
    c = json.loads((results / "chameleon" / f"{name}_competition_as_non_chameleon_vs_gpt4" / "0.json").read_text())
    assert c["chameleon"] == "Player 3" and c["win_flag"] == 1 and c["result"] == "chameleon"
    assert c["player_votes"] == {"Player 1": "Player 3", "Player 2": "Player 3", "Player 3": "Player 1"}
    # Seat 0 names the chameleon (gold 1); seat 1 does not. Seat 0's guesses: about 1, 0 (1 said 0:
    # right), about 2 missing = 0 (the chameleon's empty row, 0: right) -> 1. Seat 1's: about 0, 2
    # (0 said 2: right), about 2, 0 (empty row 0: right) -> 1. The chameleon's own row is empty
    # (argmax 0, not 2): gold 0; its empty guesses about 0 (said 2) miss -> inter 0.
    assert c["pgm_metric"] == {"0": {"gold": [1, 0, 0], "inter": [1, 1, 0]}}
    assert c["consistency_metric"] == {}
    u = json.loads((results / "undercover" / f"{name}_competition_as_undercover_vs_gpt4" / "0.json").read_text())
    assert u["undercover"] == "Player 2" and u["win_flag"] == 2 and "player_vote" in u
    assert u["consistency_metric"] == {"0": {"Player 1": 1, "Player 2": 1, "Player 3": 0}}
    p = json.loads((results / "prisoner" / f"{name}_competition_prisoner_vs_gpt4" / "0.json").read_text())
    assert p["test_player_name"] == "Player 1" and p["result"] in ("win", "lose")
    assert [m["content"] for m in p["history"]] == ["I choose to defect.", "I choose to cooperate.",
                                                    "I choose to cooperate."]
    g = json.loads((results / "public_good" / f"{name}_competition_public_good_vs_gpt4" / "0.json").read_text())
    assert g["test_player_name"] == "Player 2" and [m["content"] for m in g["history"]][1] == "I contribute 0."
    k = json.loads((results / "airportfee" / f"{name}_competition_airportfee_vs_gpt4" / "0.json").read_text())
    assert k["result"] == "agree" and k["vote"]["Player 1"] == "Player 3"
    assert k["proposal"]["Player 3"] == {"Player 1": "50%", "Player 2": "25%", "Player 3": "25%"}
    assert {"game_id": "c2", "agent": KX,
            "reason": "holds 1 of the 2 non_chameleon seats: the script evaluates every seat of a role as the "
                      "challenger"} in done.skipped
    # The folder names carry no word the script reads as a role ("chameleon", "prisoner", ...).
    assert all(n.startswith("a") and n[1:].isdigit() for n in manifest["agents"])


def test_the_command_refuses_a_folder_that_is_not_empty(tmp_path):
    (tmp_path / "old.json").write_text("{}")
    result = CliRunner().invoke(main, ["export", "magic", str(tmp_path), str(tmp_path)])
    assert result.exit_code == 1 and "is not empty" in result.output


def files_of(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_the_command_answers_from_the_scorers_cache_and_says_how_far_it_is(tmp_path):
    replays = tmp_path / "replays"
    replays.mkdir()
    for path in sorted(BUILTIN.glob("*.jsonl"))[:40]:
        shutil.copy(path, replays)
    cache = tmp_path / "cache" / "scores.sqlite"
    runs = {}
    for name, options in (("cold", ["--cache", str(cache)]), ("warm", ["--cache", str(cache)]), ("none", ["--no-cache"])):
        result = CliRunner().invoke(main, ["export", "magic", str(tmp_path / name), str(replays), *options])
        assert result.exit_code == 0, result.output
        runs[name] = result.stderr.splitlines()
    # Not a terminal: plain lines (runner/progress.py), the first at once, then counts of the files and games.
    games = sum(1 for g in load([replays]).games if exported(g))
    for name, run in runs.items():
        assert run[0] == (f"export magic: checking the replays under {replays} "
                          + ("(no cache)" if name == "none" else f"(cache {cache})")), name
        assert run[1] == "checking replays: 0/40 replays (0%)", name
        assert run[2].startswith("checking replays: 40/40 replays, done in "), name
        assert run[3] == f"reading the moves of the MAgIC games: 0/{games:,} games (0%)", name
        assert run[4].startswith(f"reading the moves of the MAgIC games: {games:,}/{games:,} games, done in "), name
        assert len(run) == 5, name
    assert files_of(tmp_path / "cold") == files_of(tmp_path / "warm") == files_of(tmp_path / "none")
    assert json.loads((tmp_path / "warm" / "manifest.json").read_text())["files"] > 0


def test_full_games_reads_the_wanted_games_and_leaves_out_a_file_changed_since(tmp_path):
    first, second = sorted(BUILTIN.glob("builtin-chameleon-*.jsonl"))[:2]
    for path in (first, second):
        shutil.copy(path, tmp_path)
    corpus = load([tmp_path])
    shutil.copy(second, tmp_path / first.name)  # another valid replay under the first one's name
    heard = []
    full = full_games(corpus, lambda g: g.game in GAMES, progress=lambda done, total: heard.append((done, total)))
    assert [g.game_id for g in full] == [second.stem] and heard == [(1, 2), (2, 2)]
    assert full[0].events and full[0].content_hash == corpus.games[1].content_hash
