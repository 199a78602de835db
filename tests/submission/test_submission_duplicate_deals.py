"""Duplicate deals and the submission check: every row of the ranked suite plays the same deals
against the same built-in opponents, so two models may well play a deal the same way. The check
tells games apart by what only the model that played can have produced (its recorded calls), so
both rows are accepted, while a row made of another row's games relabelled is still refused; and
no ordinary tournament may play a suite's deal, so nobody can squat the suite.

The rows are played once for the module with `gamenight run --suite ranked`, each against a fake
OpenAI-compatible server of its own:
- alpha and beta: two models that always cooperate in the Prisoner's Dilemma and cannot answer a
  Public Good question (they forfeit there, at the first decision), each in its own words;
- copier: alpha's stage again, answered by a server that sends alpha's recorded replies, model id
  and token counts, under another label and sampling seed (a relabelled copy);
- squat: an ordinary tournament playing stage 1's three Prisoner's Dilemma deals with the suite's
  seeds and seating, as beta plays them, written by a runner without the reservation (an older
  gamenight, or a patched one).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import tomli_w
from click.testing import CliRunner
from submission_repos import (
    TEST_KEY,
    GitRepo,
    play_suite,
    play_tournament,
    pull_request,
    records,
    verdict,
)

from runner import suite, tournament
from runner.cli import main as gamenight
from runner.rerun.identity import game_identity
from site_builder.git import Repo
from site_builder.submission.base_index import index_base
from tests.llm.fakes import FakeOpenAI, Reply, Script, chat_messages
from tests.llm.test_tournament_llm import legal_answer

REPLAYS = Path(__file__).resolve().parents[2] / "replays"
ALICE = "alice <1234+alice@users.noreply.github.com>"
MALLORY = "mallory <666+mallory@users.noreply.github.com>"
ALPHA, BETA, COPIER = "ranked-1-alpha-llm", "ranked-1-beta-llm", "ranked-1-copier"


def cooperating(wording: str) -> Script:
    """A model that answers every question legally in its own words, except that it always
    cooperates in the Prisoner's Dilemma and cannot say what it gives in a Public Good."""
    def script(body: dict, call: int) -> str:
        answer = legal_answer(chat_messages(body))
        if answer is None:
            return f"{wording} Nobody has shown their hand yet."
        if "contribution" in answer:
            return f"{wording} I cannot decide how much to give."
        if answer.get("choice") == "defect":
            answer = {"choice": "cooperate"}
        return f"{wording}\nANSWER: {json.dumps(answer)}"
    return script


def replaying(files: dict[str, bytes]) -> Script:
    """A server that answers each prompt with the reply another row recorded for it, with its model
    id and token counts: what a copier's files hold."""
    recorded = {json.dumps(call["messages"]): call for raw in games_of(files).values() for record in records(raw)
                for call in (record.get("evidence") or {}).get("calls", ())}

    def script(body: dict, n: int) -> Reply:
        call = recorded[json.dumps(chat_messages(body))]
        return Reply(call["reply"], model=call["model_reported"], input_tokens=call["input_tokens"],
                     output_tokens=call["output_tokens"])
    return script


def squat_table(base_url: str) -> dict:
    """An ordinary tournament of stage 1's Prisoner's Dilemma deals: the suite's seeds, rules and
    seating, a model of one's own in the candidate's seat."""
    ranked = suite.find("ranked")
    matchups = []
    for deal in suite.deals(ranked, 1):
        if deal.game.game != "prisoners_dilemma":
            continue
        lineup = ["squatter"] * deal.game.players
        for offset, opponent in enumerate(deal.game.opponents, start=1):
            lineup[(deal.seat + offset) % deal.game.players] = opponent.name
        matchups.append({"game": "prisoners_dilemma", "rules": dict(deal.game.rules), "seed": deal.seed,
                         "lineup": lineup})
    agent = {"provider": "openai_compatible", "model": "squat-llm", "base_url": base_url,
             "api_key_env": "TEST_LLM_KEY", "temperature": 0.0, "max_tokens": 300}
    return {"name": "squat", "seed": 7, "created": "2026-11-25", "agents": {"squatter": agent}, "matchups": matchups}


@pytest.fixture(scope="module")
def rows(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, bytes]]:
    out = tmp_path_factory.mktemp("rows")
    played = {}
    for folder, wording in ((ALPHA, "Alpha weighs it up."), (BETA, "Beta has a think.")):
        with FakeOpenAI(cooperating(wording)) as server:
            model = folder.removeprefix("ranked-1-")
            played[folder] = play_suite(out / folder, f"openai_compatible:{model}@{server.base_url}")
    with FakeOpenAI(replaying(played[ALPHA])) as server:
        agents = out / "copier.toml"
        agents.write_text(f'name = "copier"\n[agents.copier]\nprovider = "openai_compatible"\nmodel = "alpha-llm"\n'
                          f'base_url = "{server.base_url}"\nseed = 99\n', encoding="utf-8")
        played[COPIER] = play_suite(out / COPIER, f"{agents}#copier")
    return played


@pytest.fixture(scope="module")
def squat(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """The squatter's files, written by a runner that lets any tournament name any seed."""
    out = tmp_path_factory.mktemp("squat")
    with FakeOpenAI(cooperating("Squatting here.")) as server, pytest.MonkeyPatch.context() as patch:
        patch.setattr(tournament, "_check_reserved_seeds", lambda *args: None)
        return play_tournament(out / "squat", tomli_w.dumps(squat_table(server.base_url)))


def games_of(files: dict[str, bytes]) -> dict[str, bytes]:
    return {path: raw for path, raw in files.items() if path.endswith(".jsonl")}


def merged(repo: GitRepo, files: dict[str, bytes], message: str, author: str) -> None:
    """`files` squash-merged into main while the pull request is open."""
    repo.git("checkout", "-q", "main")
    repo.write_all(files)
    repo.commit(message, author=author)
    repo.git("checkout", "-q", "-b", "next")


def by_deal(files: dict[str, bytes], game: str = "") -> dict[tuple[str, int], list[dict]]:
    """The games of a suite row (or of the squat) by game and seed."""
    found = {}
    for raw in games_of(files).values():
        lines = records(raw)
        if lines[0]["game"].startswith(game):
            found[(lines[0]["game"], lines[0]["seed"])] = lines
    return found


def moves(lines: list[dict]) -> list:
    """What the rules and the scorer see of a game: every input and belief, with its refused tries."""
    return [(r.get("kind"), r.get("phase"), r.get("seat"), r.get("data"), r.get("probe"), r.get("answer"),
             r.get("about"), len(r.get("attempts") or ()))
            for r in lines[1:] if r["type"] == "probe" or r.get("kind") in ("action", "chance", "forfeit")]


def replies(lines: list[dict]) -> list:
    return [call["reply"] for r in lines for call in (r.get("evidence") or {}).get("calls", ())]


@pytest.fixture(scope="module")
def honest_pair(rows, template, cache, tmp_path_factory) -> tuple[int, str]:
    """beta's stage 1 submitted by bob after alice's alpha was merged: the check's exit code and report."""
    repo = pull_request(template, tmp_path_factory.mktemp("pair") / "repo", cache)
    merged(repo, rows[ALPHA], f"Add {ALPHA} stage 1 (#7)", ALICE)
    repo.write_all(rows[BETA])
    return verdict(repo, "bob")


def test_two_honest_rows_that_play_the_prisoners_dilemma_alike_are_both_accepted(rows, honest_pair):
    alpha, beta = by_deal(rows[ALPHA], "prisoners_dilemma"), by_deal(rows[BETA], "prisoners_dilemma")
    assert len(alpha) == 3 and alpha.keys() == beta.keys()
    for deal, lines in alpha.items():  # the same deal played alike, in other words by another model
        assert moves(lines) == moves(beta[deal]) and replies(lines) != replies(beta[deal])
        assert {c["data"]["choice"] for c in lines if c.get("kind") == "action" and c["seat"] == lines[0]["suite"]["seat"]
                } == {"cooperate"}
    code, summary = honest_pair
    assert code == 0 and "✅ accepted: 23 new replay(s), every check passed" in summary, summary


def test_two_models_that_forfeit_at_the_same_decision_are_both_accepted(rows, honest_pair):
    alpha, beta = by_deal(rows[ALPHA], "public_good"), by_deal(rows[BETA], "public_good")
    assert len(alpha) == 3
    for deal, lines in alpha.items():
        forfeits = [(r["n"], r["seat"]) for r in lines if r.get("kind") == "forfeit"]
        assert forfeits == [(r["n"], r["seat"]) for r in beta[deal] if r.get("kind") == "forfeit"]
        assert forfeits and forfeits[0][1] == lines[0]["suite"]["seat"] and moves(lines) == moves(beta[deal])
    code, summary = honest_pair
    assert code == 0 and "same game" not in summary, summary


@pytest.mark.parametrize("original", ["on main", "in the same pull request"])
def test_a_relabelled_copy_of_another_rows_stage_is_refused(repo, rows, original):
    """The copier's row: another tournament, label and agent (its own server and sampling seed),
    every reply, model id and token count alpha's: each of its 23 games is refused as alpha's."""
    copy, alpha = by_deal(rows[COPIER]), by_deal(rows[ALPHA])
    assert copy.keys() == alpha.keys() and len(copy) == 23
    for deal, lines in copy.items():
        seat = lines[0]["suite"]["seat"]
        assert lines[0]["tournament"] == COPIER and lines[0]["players"][seat]["agent"]["seed"] == 99
        assert replies(lines) == replies(alpha[deal])
    if original == "on main":
        merged(repo, rows[ALPHA], f"Add {ALPHA} stage 1 (#7)", ALICE)
    else:
        repo.write_all(rows[ALPHA])
    repo.write_all(rows[COPIER])
    code, summary = verdict(repo, "bob")
    where = "" if original == "on main" else " in this submission"
    reason = (f"{where} (the same deal, and every model call with the same reply, reported model id and token "
              "counts) under other labels: a game counts once")
    assert code == 1 and summary.count(f"is the same game as replays/{ALPHA}/") == 23, summary
    assert reason in summary and "same bytes" not in summary, summary


def test_the_squat_is_refused_naming_the_file_the_matchup_and_why(repo, squat):
    repo.write_all(squat)
    code, summary = verdict(repo, "mallory")
    seed = squat_table("http://x")["matchups"][0]["seed"]
    assert code == 1, summary
    assert (f"replays/squat/tournament.toml: matchups[0].seed: {seed} is the seed of prisoners_dilemma deal 0 "
            "(stage 1) of the suite ranked-1: a suite's deals are played only in its rows") in summary, summary
    assert summary.count("not read: the tournament's plan replays/squat/tournament.toml has problems") == 3, summary


def test_an_honest_row_after_the_squat_is_accepted(repo, squat, rows):
    """Even with the squat on main (merged before deals were reserved), beta's games are beta's: the
    squatter played beta's deals exactly as beta does, but in other words."""
    squatted, beta = by_deal(squat), by_deal(rows[BETA], "prisoners_dilemma")
    assert squatted.keys() == beta.keys() and len(squatted) == 3
    assert all(moves(lines) == moves(beta[deal]) for deal, lines in squatted.items())
    merged(repo, squat, "Add the squat tournament (#6)", MALLORY)
    repo.write_all(rows[BETA])
    code, summary = verdict(repo, "bob")
    assert code == 0 and "✅ accepted: 23 new replay(s), every check passed" in summary, summary


def test_gamenight_run_refuses_the_squat(tmp_path):
    plan = tmp_path / "squat.toml"
    plan.write_text(tomli_w.dumps(squat_table("http://127.0.0.1:9/v1")), encoding="utf-8")
    result = CliRunner().invoke(gamenight, ["run", str(plan), "--out", str(tmp_path / "out")],
                                env={"TEST_LLM_KEY": TEST_KEY})
    assert result.exit_code == 1 and "Traceback" not in result.output
    [line] = result.output.strip().splitlines()
    assert f"{plan}: matchups[0].seed: " in line and "of the suite ranked-1" in line, line
    assert not (tmp_path / "out").exists()


def test_the_shipped_corpus_counts_every_game_once(tmp_path):
    """The index of main over the shipped corpus, as the check reads it from git: 25 games of one
    folder play a deal exactly as a game of another does (the same model on the same seeds with
    prompt sets 2 and 4, and the two reference rows of the suite once), and all of them are
    honest, so every game is its own. So are the 8 deals of the Gemma row its verification played
    again, reply for reply: the same deal, moves and calls, told apart by the verification's claim."""
    repo = GitRepo(tmp_path / "repo")
    shutil.copytree(REPLAYS, repo.path / "replays")
    repo.commit("the shipped corpus")
    index = index_base(Repo(repo.path), "HEAD")
    files = sorted(REPLAYS.glob("*/*.jsonl"))
    alike: dict[tuple, list[Path]] = {}
    for path in files:
        lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        header = lines[0]
        alike.setdefault((header["game"], header["seed"], json.dumps(header["setup"]), json.dumps(moves(lines))),
                         []).append(path)
        assert index.by_identity[game_identity(header, lines)] == f"replays/{path.parent.name}/{path.name}"
    shared = [paths for paths in alike.values() if len({p.parent for p in paths}) > 1]
    again = [paths for paths in shared if any(p.parent.name.startswith("verify-") for p in paths)]
    assert len(again) == 8 and all({p.parent.name for p in paths} == {"ranked-1-gemma3-270m",
                                                                       "verify-ranked-1-gemma3-270m"}
                                   for paths in again)
    assert len(shared) - len(again) == 25 and len(index.by_identity) == len(files)
