"""`gamenight submission-check` on temporary repositories: a base history, then a pull request's commits.

The games are played for real: `gamenight run` with a language model served by a fake
OpenAI-compatible server that answers gamenight's prompts legally (tests/llm/fakes.py). The base
history holds a sample of the shipped built-in corpus and a model tournament of the maintainers
("house"), then a tournament alice submitted (squash-merged as #5), then a replay the maintainers
deleted.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from collections.abc import Callable
from datetime import date
from html import unescape
from importlib.metadata import entry_points
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from submission_repos import (GitRepo, edit, model_table, play_tournament, records, shipped_sample,
                              tournament_file)

from runner.agents.llm import PROMPT_VERSION
from runner.tournament import from_dict
from site_builder.submission import cli as submission_cli
from site_builder.git import GitError, Repo
from site_builder.submission import check as checking
from site_builder.submission.check import MAX_NEW_PEOPLE, MAX_PLAYED_GAMES, has_non_bot_seat
from site_builder.submission.layout import MAX_FILE_BYTES, PLAN_PATH, REPLAY_PATH
from site_builder.submission.secret_scan import secret_problems
from tests.llm.fakes import FakeOpenAI
from tests.llm.test_tournament_llm import legal_reply

ALICE = "alice <1234+alice@users.noreply.github.com>"
SHIPPED_BUILTIN = Path(__file__).resolve().parents[2] / "replays" / "builtin"
#: alice's GitHub account number, from her no-reply address: her rows are the account's, whatever its login.
ALICE_ID = "1234"
#: The shipped replay the maintainers deleted in the base history.
DELETED = sorted(p for p in shipped_sample() if "prisoners_dilemma" in p)[0]


def contrib_matchups(model: str) -> list[str]:
    """Five games of a model against built-in agents, among them `assoc` and `werewolf/strategic`,
    which the maintainers' own tournament uses too."""
    return [f'game = "chameleon"\ngames = 2\nroles = {{ chameleon = "{model}", "*" = "assoc" }}',
            f'game = "prisoners_dilemma"\ngames = 2\nlineup = ["{model}", "prisoners_dilemma/tit_for_tat", "random"]',
            f'game = "werewolf"\ngames = 1\nroles = {{ werewolf = "{model}", "*" = "werewolf/strategic" }}']


ASSOC = '[agents.assoc]\nbuiltin = "chameleon/associative"\n'


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, bytes]]:
    """Every tournament the tests submit, played once for the module against one fake server (so
    that a model's base_url, part of its identity, is the same in all of them)."""
    out = tmp_path_factory.mktemp("played")
    with FakeOpenAI(legal_reply) as server:
        url = server.base_url
        house = model_table("house-model", url, "house-llm")
        mine = model_table("my-model", url)
        tables = {
            "house": tournament_file("house", house, [
                'game = "prisoners_dilemma"\ngames = 2\nlineup = ["house-model", "random", "prisoners_dilemma/tit_for_tat"]']),
            "contrib": tournament_file("contrib", mine + ASSOC, contrib_matchups("my-model")),
            "contrib-two": tournament_file("contrib-two", mine + ASSOC, contrib_matchups("my-model"), seed=8),
            "newcomer": tournament_file("newcomer", model_table("new-model", url, "new-llm") + ASSOC,
                                        contrib_matchups("new-model")),
            # the maintainers' model table copied verbatim into a tournament of one's own
            "intruder": tournament_file("intruder", house, [
                'game = "prisoners_dilemma"\ngames = 2\nlineup = ["house-model", "random", "prisoners_dilemma/tit_for_tat"]'],
                seed=99),
            "builtin": tournament_file("builtin", mine, [
                'game = "public_good"\ngames = 1\nlineup = ["my-model", "random", "public_good/free_rider"]']),
            "lookalike": tournament_file("lookalike", model_table("house-rnodel", url, "other-llm"), [
                'game = "prisoners_dilemma"\ngames = 1\nlineup = ["house-rnodel", "random", "random"]']),
            # a digit for a letter (issue 41: `l0cal-cpu` passed beside `local-cpu`)
            "zero-for-o": tournament_file("zero-for-o", model_table("h0use-model", url, "other-llm"), [
                'game = "prisoners_dilemma"\ngames = 1\nlineup = ["h0use-model", "random", "random"]']),
            # the maintainers' agent and tournament names again, in other case and separators
            "shouting": tournament_file("shouting", model_table("HOUSE_MODEL", url, "other-llm"), [
                'game = "prisoners_dilemma"\ngames = 1\nlineup = ["HOUSE_MODEL", "random", "random"]']),
            "Contrib": tournament_file("Contrib", mine, [
                'game = "prisoners_dilemma"\ngames = 1\nlineup = ["my-model", "random", "random"]']),
            "builtin_": tournament_file("builtin_", mine, [
                'game = "public_good"\ngames = 1\nlineup = ["my-model", "random", "public_good/free_rider"]']),
            "payload": tournament_file("payload", model_table(
                "odd", url, "<img src=x onerror=alert(1)> ![img](https://evil.example/x.png) `code` | cell"), [
                'game = "prisoners_dilemma"\ngames = 1\nlineup = ["odd", "random", "random"]']),
            "renamed-bot": tournament_file("renamed-bot", model_table("new-model", url, "new-llm")
                                           + '[agents.house-model]\nbuiltin = "prisoners_dilemma/tit_for_tat"\n', [
                'game = "prisoners_dilemma"\ngames = 3\nlineup = ["new-model", "house-model", "random"]']),
            "bots": tournament_file("bots", "", [
                'game = "prisoners_dilemma"\ngames = 2\nlineup = ["random", "prisoners_dilemma/tit_for_tat", "random"]']),
        }
        return {name: play_tournament(out / name, toml) for name, toml in tables.items()}


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory, played) -> GitRepo:
    """The base branch's history, built once (see the module's docstring)."""
    repo = GitRepo(tmp_path_factory.mktemp("template") / "repo")
    repo.write("README.md", "# gamenight\n")
    repo.write_all(shipped_sample())
    repo.write_all(played["house"])
    repo.commit("base")
    repo.write_all(played["contrib"])
    repo.commit("Add the contrib tournament of my-model (#5)", author=ALICE)
    repo.git("rm", "-q", "--", DELETED)
    repo.commit("Remove a replay")
    return repo


def games_of(files: dict[str, bytes]) -> dict[str, bytes]:
    return {path: raw for path, raw in files.items() if path.endswith(".jsonl")}


def first_game(files: dict[str, bytes], game: str = "") -> tuple[str, bytes]:
    return next((p, r) for p, r in sorted(games_of(files).items()) if f"-{game}" in p)


def model_seat(raw: bytes) -> int:
    """The seat a language model holds in a game (lineups rotate the seats from game to game)."""
    return next(p["seat"] for p in records(raw)[0]["players"] if p["agent"]["kind"] == "llm")


def html(markdown: str) -> str:
    """The report as GitHub would render it (CommonMark, GFM tables and strikethrough, raw HTML on)."""
    return MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(markdown)


def text(markdown: str) -> str:
    """What a reader sees: the rendered report without tags, entities decoded, zero-width spaces removed."""
    return unescape(re.sub(r"<[^>]+>", "", html(markdown))).replace("\u200b", "")


def refused(repo: GitRepo, expected: str, author: str | None = "bob") -> str:
    repo.commit("submission")
    result, summary = repo.check(author=author)
    assert result.exit_code == 1, summary
    assert "❌ refused" in summary and "Traceback" not in result.output
    assert expected in text(summary), f"{expected!r} not in:\n{summary}"
    return summary


# -- submissions that pass ---------------------------------------------------------------------

def test_an_honest_tournament_of_a_new_model_passes(repo, played):
    """A whole tournament with its plan; it adds games to built-in agents the maintainers use too
    (assoc, werewolf/strategic), which anybody may."""
    repo.write_all(played["newcomer"])
    repo.commit("newcomer")

    result, summary = repo.check(author="bob")

    assert result.exit_code == 0, summary
    assert result.stdout == summary  # the report on stdout is the one written for $GITHUB_STEP_SUMMARY
    assert "✅ accepted: 5 new replay(s)" in summary and "submitted by @bob" in text(summary)
    assert "| chameleon | 2 |" in summary and "| prisoners\\_dilemma | 2 |" in summary
    new_agents = summary.split("**New agents**")[1].split("**Agents with more games**")[0]
    assert "| new-model | llm | openai\\_compatible | new-llm | new-llm | vanilla | 5 |" in new_agents
    more = summary.split("**Agents with more games**")[1].split("###")[0]
    assert "| assoc |" in more and "| werewolf/strategic |" in more
    owners = summary.split("### Who owns the rows it touches")[1].split("###")[0]
    assert "| tournament newcomer | @&#8203;bob (new) |" in owners and "| agent new-model | @&#8203;bob (new) |" in owners
    assert ("| agent werewolf/strategic | the maintainers' row: its numbers come from their games alone; in yours it "
            "is an opponent, every move derived again from the seed |") in owners
    effect = summary.split("### Effect on the leaderboard")[1]
    assert "| new-model | not ranked (played 3 of the 5 rated games) | " in effect  # the exhibition board's words


def test_a_report_too_long_for_the_summary_is_cut_there_and_whole_in_the_full_report(repo, played, monkeypatch):
    """GitHub shows no step summary over 1 MiB: the summary is cut (here at 3,000 bytes), the whole
    report goes to stdout and to --full-report, which the workflow uploads as an artifact."""
    monkeypatch.setattr(submission_cli, "SUMMARY_LIMIT_BYTES", 3000)
    repo.write_all(played["newcomer"])
    repo.commit("newcomer")
    full = repo.path.parent / "full-report.md"
    result, summary = repo.check("--full-report", str(full), author="bob")
    assert result.exit_code == 0, summary
    whole = full.read_text(encoding="utf-8")
    assert whole == result.stdout and len(whole.encode("utf-8")) > 3000
    assert len(summary.encode("utf-8")) <= 3000 and whole.startswith(summary.split("\n> ✂ ")[0])
    assert "The report is cut here" in summary and "in the file full-report.md" in text(summary)
    assert f"artifact {submission_cli.REPORT_ARTIFACT}" in text(summary)


def test_a_submission_with_judge_lines_of_format_version_4_passes(repo, played):
    """Judged Werewolf games (suspicions and a failed evaluation, format version 4) are checked
    like any replay and accepted."""
    files = dict(played["newcomer"])
    path, raw = first_game(files, "werewolf")
    lines = [json.loads(line) for line in raw.splitlines()]
    judge = {"name": "j", "kind": "llm", "provider": "openai_compatible", "model": "judge-model",
             "model_reported": "judge-model", "prompt_version": "ewavm-3"}
    base = {"type": "judge", "judge": judge, "score": None, "mentions": None, "highlights": None}
    lines[0]["version"] = 4
    lines += [{**base, "dimension": "suspicion", "round": 1, "suspects": [1, 0, None, 0, 0, 1, 1, 0]},
              {**base, "dimension": "memorability", "round": None,
               "failure": {"reason": "unparseable", "problem": "give exactly 10 different statement numbers, not 3",
                           "asks": 3}}]
    files[path] = b"".join(json.dumps(line, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"
                           for line in lines)
    repo.write_all(files)
    repo.commit("newcomer, judged")
    result, summary = repo.check(author="bob")
    assert result.exit_code == 0, summary
    assert "✅ accepted: 5 new replay(s)" in summary


def test_the_owner_adds_another_tournament_of_her_model(repo, played):
    repo.write_all(played["contrib-two"])
    repo.commit("contrib-two")
    result, summary = repo.check("--author-id", ALICE_ID, author="Alice")  # logins are case-insensitive
    assert result.exit_code == 0, summary
    assert "since pull request #5 by @alice" in text(summary)


def test_a_renamed_login_keeps_its_rows(repo, played):
    """alice renamed her account: the same account number, a new login. Her rows are still hers,
    shown with the login she has now."""
    repo.write_all(played["contrib-two"])
    repo.commit("contrib-two")
    result, summary = repo.check("--author-id", ALICE_ID, author="alice-renamed")
    assert result.exit_code == 0, summary
    owners = text(summary).split("Who owns the rows it touches")[1].split("Effect on the leaderboard")[0]
    assert "agent my-model\n@alice-renamed (since pull request #5 by @alice)" in owners
    assert "submitted by @alice-renamed" in text(summary)


def test_a_freed_login_taken_by_another_account_gets_none_of_its_rows(repo, played):
    """After alice renamed, another account took the login "alice": it is not her."""
    repo.write_all(played["contrib-two"])
    repo.commit("submission")
    result, summary = repo.check("--author-id", "98765", author="alice")
    assert result.exit_code == 1, summary
    assert (f"the agent 'my-model' (openai_compatible, my-model, prompts {PROMPT_VERSION}) belongs to @alice "
            "(GitHub account 1234), who first added games for it (pull request #5 by @alice); this submission is "
            "by @alice (GitHub account 98765)") in text(summary)


def test_without_the_account_number_a_login_owns_no_numbered_rows(repo, played):
    repo.write_all(played["contrib-two"])
    refused(repo, "this submission is by @alice (no account number given: run the check with --author-id)",
            author="alice")


def test_an_account_number_that_is_not_one_is_a_clear_error(repo, played):
    repo.write_all(played["newcomer"])
    repo.commit()
    for bad in ("12x", "-1", "0", "1" * 21):
        result, _ = repo.check("--author-id", bad, author="bob")
        assert result.exit_code == 2 and "is not a GitHub account's number" in result.output, result.output
    result, _ = repo.check("--author-id", "5", author=None)
    assert result.exit_code == 2 and "--author-id needs --author" in result.output


def test_a_pull_request_without_replays_is_not_a_submission(repo):
    repo.write("runner/new_feature.py", "print('hello')\n")
    repo.commit("code only")
    result, summary = repo.check()
    assert result.exit_code == 0, result.output
    assert "nothing to check" in summary and "not a replay submission" in summary


def test_only_what_the_pull_request_adds_is_checked_even_when_main_moved_on(repo, played):
    repo.write_all(played["newcomer"])
    repo.commit("submission")
    repo.git("checkout", "-q", "main")
    repo.write("docs/news.md", "main moved on\n")
    repo.git("rm", "-q", "--", *[p for p in shipped_sample() if "werewolf" in p])
    repo.commit("main moves on")
    repo.git("checkout", "-q", "pr")
    result, summary = repo.check(author="bob")
    assert result.exit_code == 0, summary
    assert "6 changed file(s), 6 added" in summary


def test_the_check_scores_from_the_cache_the_second_time(repo, played, tmp_path):
    repo.write_all(played["newcomer"])
    repo.commit()
    repo.cache = tmp_path / "own-cache.sqlite"
    first, cold = repo.check(author="bob")
    second, warm = repo.check(author="bob")
    assert first.exit_code == second.exit_code == 0, cold
    assert "0 replay(s) re-simulated" in warm and "0 replay(s) re-simulated" not in cold


def test_the_check_says_its_progress_on_stderr_with_counts_and_the_report_on_stdout(repo, played, tmp_path):
    """Not a terminal (a CI log): plain lines, the first before the check loads, then the base's
    replays read, the submitted files checked and both scorings, each counted."""
    repo.write_all(played["newcomer"])
    repo.commit()
    repo.cache = tmp_path / "own-cache.sqlite"
    result, summary = repo.check(author="bob")
    assert result.exit_code == 0, result.output
    said = result.stderr.splitlines()
    base_files = len(list((repo.path / "replays").rglob("*.jsonl"))) - 5  # the head adds 5 replays
    base_blobs = int(next(line for line in said if line.startswith("reading the base's replays")
                          and ", done in " in line).split(": ")[1].split("/")[0])
    assert 0 < base_blobs <= base_files
    ended = [line for line in said if ", done in " in line or ": done in " in line]
    assert [line for line in said if line not in ended] == [
        f"submission check: what HEAD adds to main in {repo.path}",
        "reading the base's replays and who owns them (git) ...",
        "checking the submitted replays: 0/5 files (0%)",
        f"scoring the base: checking replays: 0/{base_files} replays (0%)",
        "scoring the base: the boards ...",
        f"scoring the base and the submission: checking replays: 0/{base_files + 5} replays (0%)",
        "scoring the base and the submission: the boards ...",
    ], result.stderr
    for done in ("checking the submitted replays: 5/5 files", f"scoring the base: checking replays: "
                 f"{base_files}/{base_files} replays", "scoring the base and the submission: checking replays: "
                 f"{base_files + 5}/{base_files + 5} replays"):
        assert any(line.startswith(done + ", done in ") for line in ended), (done, result.stderr)
    assert result.stdout == summary and not any(line in result.stdout for line in said)


# -- the attacks of issue 22 -----------------------------------------------------------------------

def test_a_tournament_of_the_maintainers_cannot_be_joined(repo, played):
    """Games of one's own model into the maintainers' folder and tournament name `builtin`."""
    repo.write_all(played["builtin"])
    refused(repo, "tournament 'builtin' belongs to the maintainers, who first added games for it (the maintainers); "
                  "this submission is by @bob")


def test_a_path_main_deleted_is_never_taken_again(repo, played):
    """After the maintainers delete a replay, a new game at that path would inherit its place."""
    path, raw = first_game(played["newcomer"], "prisoners_dilemma")
    repo.write(DELETED, raw)
    refused(repo, f"{DELETED}: main once held a file at this path and deleted it")


def test_a_model_of_the_maintainers_cannot_gain_a_strangers_games(repo, played):
    """The maintainers' model table copied verbatim, played against a fake server, in one's own tournament."""
    repo.write_all(played["intruder"])
    refused(repo, f"the agent 'house-model' (openai_compatible, house-llm, prompts {PROMPT_VERSION}) belongs to the maintainers, "
                  "who first added games for it (the maintainers); this submission is by @bob")


def test_a_contributors_model_takes_games_only_from_her(repo, played):
    repo.write_all(played["contrib-two"])
    refused(repo, f"the agent 'my-model' (openai_compatible, my-model, prompts {PROMPT_VERSION}) belongs to @alice, who first added "
                  "games for it (pull request #5 by @alice); this submission is by @bob")


def test_without_an_author_nothing_on_the_board_is_yours(repo, played):
    repo.write_all(played["contrib-two"])
    refused(repo, "belongs to @alice", author=None)


def test_one_game_counts_once_however_it_is_labelled(repo, played):
    """Alice's merged tournament again under a new name: the same deals, and every model call
    with the same reply, model id and token counts (the ids follow from the new name, so the plan
    holds them). A copy whose replies are reworded is another game to any check (docs/submit.md)."""
    plan = played["contrib"]["replays/contrib/tournament.toml"].replace(b'name = "contrib"', b'name = "contrib-again"')
    # The tournament's name is not part of its seeds: the renamed plan plans the same deals.
    planned = {g.seed: g.game_id for g in from_dict(tomllib.loads(plan.decode())).plan()}
    copies = {"replays/contrib-again/tournament.toml": plan}
    for raw in games_of(played["contrib"]).values():
        raw = edit(raw, lambda lines: lines[0].update(game_id=planned[lines[0]["seed"]], tournament="contrib-again"))
        copies[f"replays/contrib-again/{planned[records(raw)[0]['seed']]}.jsonl"] = raw
    repo.write_all(copies)
    summary = refused(repo, "is the same game as replays/contrib/", author="alice")
    assert ("(the same deal, and every model call with the same reply, reported model id and token counts) under "
            "other labels: a game counts once") in text(summary)


def test_a_flood_of_copies_of_a_bot_game_is_refused_unread(repo, played):
    """Copies of one built-in game under fresh ids (the check refuses them from their paths alone;
    the benchmark times 5,000 of them)."""
    path, raw = next(iter(shipped_sample().items()))
    for i in range(300):
        repo.write(f"replays/flood/flood-prisoners_dilemma-{i:012x}.jsonl", raw)
    summary = refused(repo, "not read: replays/flood/ has no tournament.toml")
    assert summary.count("✅ OK") == 0


def test_games_without_a_model_are_not_taken_from_submissions(repo, played):
    repo.write_all(played["bots"])
    refused(repo, "matchups[0]: plans 2 game(s) of prisoners_dilemma in which no seat is a language model")


def test_chosen_seeds_are_refused_a_tournament_comes_whole(repo, played):
    """Keep the games a model won, drop the rest: the plan says which games there are."""
    files = dict(played["newcomer"])
    dropped = [p for p in files if p.endswith(".jsonl")][:2]
    for path in dropped:
        del files[path]
    repo.write_all(files)
    summary = refused(repo, "replays/newcomer/tournament.toml: plans 5 games; 2 of them are missing")
    assert "not read: its tournament is not whole" in text(summary)


def test_a_game_the_plan_does_not_hold_is_refused(repo, played):
    files = dict(played["newcomer"])
    path, raw = first_game(files, "chameleon")
    stray = edit(raw, lambda lines: lines[0].update(game_id="newcomer-chameleon-0123456789ab"))
    files["replays/newcomer/newcomer-chameleon-0123456789ab.jsonl"] = stray
    repo.write_all(files)
    refused(repo, "replays/newcomer/newcomer-chameleon-0123456789ab.jsonl: game_id: is not a game of the plan "
                  "replays/newcomer/tournament.toml")


def test_prompts_are_derived_again_like_moves(repo, played):
    """A recorded prompt that the claimed prompt set does not render is refused at its call."""
    files = dict(played["newcomer"])
    path, raw = first_game(files, "prisoners_dilemma")
    lines = records(raw)
    n = next(i for i, line in enumerate(lines) if line.get("evidence"))

    def reword(ls):
        ls[n]["evidence"]["calls"][0]["messages"][-1]["content"] += " Always defect."

    files[path] = edit(raw, reword)
    repo.write_all(files)
    refused(repo, f"{path}:{n + 1}: evidence.calls[0].messages[1].content: is not the prompt gamenight renders here")


def redescribed(repo: GitRepo, played, **change: str) -> tuple[str, int]:
    """The honest tournament with one game's model description changed; (its path, the model's seat)."""
    files = dict(played["newcomer"])
    path, raw = first_game(files, "prisoners_dilemma")
    seat = model_seat(raw)
    files[path] = edit(raw, lambda ls: ls[0]["players"][seat]["agent"].update(change))
    repo.write_all(files)
    return path, seat


def test_a_prompt_version_the_prompts_did_not_come_from_is_refused(repo, played):
    path, seat = redescribed(repo, played, prompt_version="1.f4a372105e")
    refused(repo, f"{path}:1: players[{seat}].agent.prompt_version: this agent cannot be made again: '1.f4a372105e' is "
                  "not a released prompt set")


def test_a_name_that_looks_like_an_agent_on_the_board_is_refused(repo, played):
    repo.write_all(played["lookalike"])
    refused(repo, "the name 'house-rnodel' looks like 'house-model', an agent already on the board (the maintainers)")


def test_a_digit_written_for_a_letter_is_refused_in_a_name(repo, played):
    repo.write_all(played["zero-for-o"])
    refused(repo, "the name 'h0use-model' looks like 'house-model', an agent already on the board (the maintainers)")


def test_a_name_that_differs_only_in_case_and_separators_is_refused(repo, played):
    repo.write_all(played["shouting"])
    refused(repo, "the name 'HOUSE_MODEL' looks like 'house-model', an agent already on the board (the maintainers): "
                  "choose a name that cannot be mistaken for it")


def test_a_tournament_name_that_differs_only_in_separators_is_refused(repo, played):
    repo.write_all(played["builtin_"])
    refused(repo, "tournament 'builtin_' looks like 'builtin', which belongs to the maintainers (the maintainers): "
                  "choose a name that cannot be mistaken for it")


def test_even_the_owner_may_not_name_a_tournament_like_her_own(repo, played):
    """Two tournaments on the board never look alike, whoever owns them."""
    repo.write_all(played["Contrib"])
    repo.commit("submission")
    result, summary = repo.check("--author-id", ALICE_ID, author="alice")
    assert result.exit_code == 1, summary
    assert ("tournament 'Contrib' looks like 'contrib', which belongs to @alice (pull request #5 by @alice)"
            in text(summary))


def on_main(repo: GitRepo, files: dict[str, bytes], subject: str, author: str) -> None:
    """Files squash-merged into main while the pull request is open: its base moves on."""
    repo.git("checkout", "-q", "main")
    repo.write_all(files)
    repo.commit(subject, author=author)
    repo.git("checkout", "-q", "pr")


@pytest.mark.parametrize("name", ["ann", "ANN", "A-nn"])
def test_a_person_named_like_a_person_on_the_board_is_refused(repo, tmp_path, name):
    """People are agents of kind "human", each name its own row: one that differs only in case or
    separators from a person on the board would pass for them."""
    on_main(repo, person_played(tmp_path / "carol", "Ann", seed=3), "Ann plays (#6)",
            "carol <4321+carol@users.noreply.github.com>")
    repo.write_all(person_played(tmp_path / "dana", name, seed=4))
    refused(repo, f"the name '{name}' looks like 'Ann', an agent already on the board (@carol)", author="dana")


def test_the_same_person_plays_again_under_the_same_name(repo, tmp_path):
    """A name repeats exactly for its owner, as before."""
    on_main(repo, person_played(tmp_path / "first", "Ann", seed=3), "Ann plays (#6)",
            "carol <4321+carol@users.noreply.github.com>")
    repo.write_all(person_played(tmp_path / "again", "Ann", seed=4))
    repo.commit("Ann plays again")
    result, summary = repo.check("--author-id", "4321", author="carol")
    assert result.exit_code == 0, summary


# -- other refusals -----------------------------------------------------------------------------

def _outside_replays(repo, played):
    repo.write_all(played["newcomer"])
    repo.write("runner/evil.py", "import os\n")
    return "runner/evil.py: outside replays/: a submission only adds replay files"


def _workflow_change(repo, played):
    repo.write_all(played["newcomer"])
    repo.write(".github/workflows/steal.yml", "on: push\n")
    return ".github/workflows/steal.yml: outside replays/"


def _not_in_layout(repo, played):
    repo.write("replays/loose.jsonl", first_game(played["newcomer"])[1])
    return "replays/loose.jsonl: does not follow the layout replays/<tournament>/<game_id>.jsonl"


def _nested_too_deep(repo, played):
    repo.write("replays/newcomer/extra/game.jsonl", first_game(played["newcomer"])[1])
    return "replays/newcomer/extra/game.jsonl: does not follow the layout"


def _oversize(repo, played):
    files = dict(played["newcomer"])
    path = first_game(files)[0]
    files[path] = b"x" * (MAX_FILE_BYTES + 1)
    repo.write_all(files)
    return f"{path}: the file is {MAX_FILE_BYTES + 1:,} bytes; a submitted replay may have at most"


def _copy_of_existing(repo, played):
    path, raw = next(iter(shipped_sample().items()))
    repo.write(f"replays/mirror/{Path(path).stem}.jsonl", raw)
    return f"replays/mirror/{Path(path).stem}.jsonl: not read: replays/mirror/ has no tournament.toml"


def _tampered_result(repo, played):
    files = dict(played["newcomer"])
    path, raw = first_game(files, "prisoners_dilemma")
    lines = records(raw)
    forged = [s for s in range(3) if s not in lines[-1]["winners"]]
    files[path] = edit(raw, lambda ls: ls[-1].update(winners=forged))
    repo.write_all(files)
    return f"{path}:{len(lines)}: winners: the claimed outcome differs from the rules"


def _illegal_move(repo, played):
    files = dict(played["newcomer"])
    path, raw = first_game(files, "prisoners_dilemma")
    n = next(i for i, line in enumerate(records(raw)) if line.get("kind") == "action")
    files[path] = edit(raw, lambda ls: ls[n]["data"].update(choice="betray"))
    repo.write_all(files)
    return f"{path}:{n + 1}: data"


def _moved_to_another_name(repo, played):
    files = dict(played["newcomer"])
    path, raw = first_game(files, "chameleon")
    del files[path]
    files["replays/newcomer/some-other-name.jsonl"] = raw
    repo.write_all(files)
    return "replays/newcomer/some-other-name.jsonl: game_id: is not a game of the plan"


def _modified_existing(repo, played):
    path, raw = next(iter(shipped_sample().items()))
    repo.write(path, edit(raw, lambda lines: lines[0].update(matchup="edited")))
    return f"{path}: changes a replay that is already in the corpus: replays are append-only"


def _deleted_existing(repo, played):
    path = next(iter(shipped_sample()))
    (repo.path / path).unlink()
    return f"{path}: deletes a replay: the corpus is append-only"


def _symlink(repo, played):
    target = repo.path / "replays/newcomer/newcomer-chameleon-111111111111.jsonl"
    target.parent.mkdir(parents=True)
    os.symlink("../../README.md", target)
    return "replays/newcomer/newcomer-chameleon-111111111111.jsonl: is a symbolic link"


def _model_reported_contradicts_calls(repo, played):
    path, seat = redescribed(repo, played, model_reported="gpt-5")
    return (f"{path}:1: players[{seat}].agent.model_reported: the recorded calls first report the model \"new-llm\", "
            "the header says \"gpt-5\"")


def _missing_runner_version(repo, played):
    files = dict(played["newcomer"])
    path, raw = first_game(files)
    files[path] = edit(raw, lambda lines: lines[0]["provenance"].update(runner_version=" "))
    repo.write_all(files)
    return f"{path}:1: provenance.runner_version: the program and version that played the game are required"


def _future_date(repo, played):
    later = date.today().replace(year=date.today().year + 2).isoformat()
    files = dict(played["newcomer"])
    path, raw = first_game(files)
    files[path] = edit(raw, lambda lines: lines[0]["provenance"].update(created=later))
    repo.write_all(files)
    return f"{path}:1: provenance.created: the game cannot have been played on {later}, after today"


def _unknown_builtin_strategy(repo, played):
    files = dict(played["newcomer"])
    path, raw = first_game(files, "chameleon")
    # The seats follow from the deal, and the deal from the seed, which the fake server's port
    # (part of the model's base_url) changes from run to run: find a built-in seat.
    seat = next(p["seat"] for p in records(raw)[0]["players"] if p["agent"]["kind"] == "builtin")
    files[path] = edit(raw, lambda lines: lines[0]["players"][seat]["agent"].update(strategy="chameleon/oracle"))
    repo.write_all(files)
    return f"{path}:1: players[{seat}].agent.strategy: 'chameleon/oracle' is not a built-in strategy"


def _api_key(repo, played):
    key = "sk-proj-" + "A1b2C3d4" * 5
    files = dict(played["newcomer"])
    path, raw = first_game(files, "prisoners_dilemma")
    files[path] = edit(raw, lambda lines: lines[-1]["result"].update(note=f"my key is {key}"))
    repo.write_all(files)
    return f"{path}:{len(records(raw))}: this line seems to hold an OpenAI or Anthropic API key (sk-...): remove it"


def _broken_plan(repo, played):
    files = dict(played["newcomer"])
    files["replays/newcomer/tournament.toml"] += b"\n[[matchups]]\ngame = \"chess\"\n"
    repo.write_all(files)
    return "replays/newcomer/tournament.toml: matchups[3]: game: unknown game"


def _plan_of_another_name(repo, played):
    files = dict(played["newcomer"])
    files["replays/newcomer/tournament.toml"] = files["replays/newcomer/tournament.toml"].replace(
        b'name = "newcomer"', b'name = "elsewhere"')
    repo.write_all(files)
    return "replays/newcomer/tournament.toml: name: plans tournament 'elsewhere', but it is in replays/newcomer/"


def _hostile_plan(body: str, expected: str = "") -> Callable[[GitRepo, dict[str, dict[str, bytes]]], str]:
    def case(repo, played):
        repo.write("replays/hostile/tournament.toml", 'name = "hostile"\n' + body)
        return "replays/hostile/tournament.toml:" + expected
    return case


def _a_built_in_under_another_name(repo, played):
    """Anyone may play the built-in agents, but not rename their rows (a built-in tit-for-tat called
    like the maintainers' model would put that name on the bot's row)."""
    repo.write_all(played["renamed-bot"])
    return ("the built-in agent 'prisoners_dilemma/tit_for_tat' with these parameters is on the board as "
            "'prisoners_dilemma/tit_for_tat': name it so in your tournament file, not 'house-model'")


REFUSALS: dict[str, Callable[[GitRepo, dict[str, dict[str, bytes]]], str]] = {
    "a file outside replays/": _outside_replays,
    "a workflow change": _workflow_change,
    "a replay outside the layout": _not_in_layout,
    "a folder too deep": _nested_too_deep,
    "an oversize file": _oversize,
    "a copy of a replay already in the corpus": _copy_of_existing,
    "a tampered result": _tampered_result,
    "an illegal move": _illegal_move,
    "a file not named after its game id": _moved_to_another_name,
    "a modified existing replay": _modified_existing,
    "a deleted existing replay": _deleted_existing,
    "a symbolic link": _symlink,
    "a model_reported its calls contradict": _model_reported_contradicts_calls,
    "no runner version": _missing_runner_version,
    "a date in the future": _future_date,
    "a built-in strategy that does not exist": _unknown_builtin_strategy,
    "an API key": _api_key,
    "a plan that cannot be played": _broken_plan,
    "a plan in another tournament's folder": _plan_of_another_name,
    "a plan naming a list for a strategy": _hostile_plan('[agents.a]\nbuiltin = ["x"]\n[[matchups]]\n'
                                                         'game = "prisoners_dilemma"\nlineup = ["a", "random", "random"]\n'),
    "a plan that cannot be dealt": _hostile_plan('[agents.m]\nprovider = "openai"\nmodel = "x"\n[[matchups]]\n'
                                                 'game = "chameleon"\nrules = { words = 5 }\n'
                                                 'roles = { chameleon = "m", "*" = "random" }\n'),
    "a plan of too many games": _hostile_plan('[agents.m]\nprovider = "openai"\nmodel = "x"\n' + "".join(
        '[[matchups]]\ngame = "prisoners_dilemma"\ngames = 100000\nlineup = ["m", "random", "random"]\n'
        for _ in range(3))),
    "a plan nested 100,000 arrays deep": _hostile_plan("a = " + "[" * 100_000 + "]" * 100_000 + "\n",
                                                       "2: not read: arrays or inline tables nested more than 32 deep"),
    "a plan nested 50,000 inline tables deep": _hostile_plan("a = " + "{b=" * 50_000 + "1" + "}" * 50_000 + "\n",
                                                             "2: not read: arrays or inline tables nested more than"),
    "a plan with a number of 5,000 digits": _hostile_plan("seed = " + "9" * 5000 + "\n",
                                                          "2: not read: a number of more than 4,300 digits"),
    "a built-in agent under another agent's name": _a_built_in_under_another_name,
}


@pytest.mark.parametrize("case", list(REFUSALS))
def test_refused_with_a_clear_message(repo, played, case):
    expected = REFUSALS[case](repo, played)
    refused(repo, expected)


def test_a_key_is_never_repeated_in_the_report(repo, played):
    _api_key(repo, played)
    repo.commit()
    result, summary = repo.check(author="bob")
    assert result.exit_code == 1
    assert "A1b2C3d4" not in summary


def test_every_file_of_a_mixed_submission_gets_its_verdict(repo, played):
    paths = repo.write_all(played["newcomer"])
    repo.write("runner/evil.py", "import os\n")
    repo.commit()
    result, summary = repo.check(author="bob")
    assert result.exit_code == 1
    good = next(p for p in paths if p.endswith(".jsonl"))
    assert f"| {good.replace('_', chr(92) + '_')} | ✅ OK |" in summary
    assert "runner/evil.py: outside replays/" in text(summary)
    assert "Counting only the files that passed every check." in summary


def test_a_submission_over_its_total_size_is_not_read(repo, played, monkeypatch):
    monkeypatch.setattr(checking, "MAX_SUBMISSION_BYTES", 1000)
    repo.write_all(played["newcomer"])
    repo.commit()
    result, summary = repo.check(author="bob")
    assert result.exit_code == 1
    assert "one submission may add at most 1,000: submit a smaller tournament" in summary
    assert "not read (the submission is over its limits)" in summary


def test_no_row_of_another_owner_moves(repo, played):
    """Containment: the new games of built-in agents (everyone plays them) and of the new model
    move no other row; the report compares every row of others before and after and says so."""
    repo.write_all(played["newcomer"])
    repo.commit()
    result, summary = repo.check(author="bob")
    assert result.exit_code == 0, summary
    effect = summary.split("### Effect on the leaderboard")[1]
    compared = re.search(r"Rows of others compared, before and after: ([0-9,]+); changed: ([0-9,]+)\.", effect)
    assert compared and int(compared[1].replace(",", "")) > 10 and compared[2] == "0", effect
    rows = [line for line in effect.splitlines() if line.startswith("| ") and "| rank |" not in line
            and not line.startswith("| ---")]
    assert rows and all("| new-model |" in line for line in rows)  # the submitter's rows, nothing else
    assert "⚠" not in effect and "Every other number of the results (the results file without your rows): " \
        "identical." in effect
    # Its place on a game's board is the one it takes among the maintainers' rows, as the game's page shows it.
    # A contributor's place is marked * (as the pages mark it); a row without one says why not.
    placed = [line for line in rows if "not ranked" not in line and "provisional" not in line]
    assert all(re.search(r"\| (\d+)\* \((\d+)(-\d+)?\) \|", line) for line in placed), rows


# -- hostile names are shown as text -----------------------------------------------------------

def test_markdown_and_html_payloads_in_names_are_escaped(repo, played):
    repo.write_all(played["payload"])
    repo.write("replays/x/<script>alert(1)</script>.jsonl", b"{}\n")
    repo.commit("payloads")
    result, summary = repo.check(author="bob")
    assert result.exit_code == 1  # the odd file name is refused; the model's game itself is valid
    rendered = html(summary)
    for tag in ("<script", "<img", "<iframe", "<a ", "<h1", "<code>code"):
        assert tag not in rendered, tag
    assert "&lt;script&gt;alert(1)&lt;/script&gt;.jsonl: does not follow the layout" in rendered
    assert "![img](https:" in text(summary)  # shown as text, not an image
    assert rendered.count("<tr>") == summary.count("\n|") - summary.count("\n| ---")  # no cell split by '|'


# -- the check itself cannot run ---------------------------------------------------------------

def test_an_unknown_revision_is_a_clear_error(repo):
    full = repo.path.parent / "full-report.md"
    result, summary = repo.check("--full-report", str(full), base="origin/does-not-exist")
    assert result.exit_code == 2
    assert "'origin/does-not-exist' is not a commit of the repository" in result.output
    assert "could not run" in summary and full.read_text(encoding="utf-8") == summary
    assert "Traceback" not in result.output


def test_an_author_that_is_not_a_login_is_a_clear_error(repo, played):
    repo.write_all(played["newcomer"])
    repo.commit()
    result, _ = repo.check(author="@bob; rm -rf /")
    assert result.exit_code == 2 and "is not a GitHub login" in result.output


def test_a_shallow_clone_cannot_tell_owners(repo, played, tmp_path):
    repo.write_all(played["newcomer"])
    repo.commit()
    shallow = tmp_path / "shallow"
    repo.git("clone", "-q", "--depth", "2", "--no-single-branch", f"file://{repo.path}", str(shallow))
    clone = GitRepo.__new__(GitRepo)
    clone.path, clone.cache = shallow, repo.cache
    result, _ = clone.check(base="origin/main", head="origin/pr", author="bob")
    assert result.exit_code == 2 and "fetch the whole history" in result.output


def test_an_option_like_revision_is_refused(repo):
    with pytest.raises(GitError, match="is not a revision"):
        Repo(repo.path).commit("--output=/tmp/x")


def test_unrelated_histories_are_a_clear_error(repo, tmp_path):
    other = GitRepo(tmp_path / "other")
    other.write("x.txt", "x")
    sha = other.commit()
    repo.git("fetch", "-q", str(other.path), "main")
    result, _ = repo.check(base=sha)
    assert result.exit_code == 2
    assert "have no common history here" in result.output


def test_the_command_is_registered_with_gamenight():
    commands = {ep.name: ep.value for ep in entry_points(group="gamenight.commands")}
    assert commands.get("submission-check") == "site_builder.submission.cli:submission_check"


# -- pieces ------------------------------------------------------------------------------------

def test_the_layout_patterns():
    ok = ["replays/my-run/my-run-chameleon-0123456789ab.jsonl", "replays/a.b_c/x.jsonl"]
    bad = ["replays/x.jsonl", "replays/a/b/c.jsonl", "replays/a/x.json", "replays/-a/x.jsonl",
           "replays/a/.hidden.jsonl", "replays/a/x y.jsonl", "replays/../x/y.jsonl", "other/a/x.jsonl"]
    assert all(REPLAY_PATH.match(p) for p in ok)
    assert not any(REPLAY_PATH.match(p) for p in bad)
    assert PLAN_PATH.match("replays/my-run/tournament.toml")
    assert not PLAN_PATH.match("replays/tournament.toml")
    assert not PLAN_PATH.match("replays/a/b/tournament.toml")


def test_report_lists_problems_as_file_line_field_message(repo, played):
    files = dict(played["newcomer"])
    path, raw = first_game(files)
    files[path] = edit(raw, lambda lines: lines[0].update(version=99))
    repo.write_all(files)
    repo.commit()
    result, summary = repo.check(author="bob")
    assert result.exit_code == 1
    assert f"- {path.replace('_', chr(92) + '_')}:1: version: must be one of 1, 2, 3, 4, 5, 6, 7; got 99" in summary
    assert json.loads(json.dumps(summary))  # plain text, no binary


SECRETS = {
    b'"base_url":"https://api.example.org/v1?key=sk-proj-A1b2C3d4E5f6G7h8I9j0K1"': "an OpenAI or Anthropic API key",
    b'"content":"Authorization: Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9x"': "a bearer token",
    b'"reply":"AKIAIOSFODNN7EXAMPLE"': "an AWS access key",
    b'"reply":"ghp_abcdefghijklmnopqrstuvwxyz0123456789"': "a GitHub token",
    b'"base_url":"https://me:hunter2@llm.example.org/v1"': "a password in a URL",
    b'"reply":"I use sk-learn-compatible-estimators-and-pipelines"': None,
    b'"reply":"The bearer of bad news always arrives too late"': None,
    b'"reply":"see https://example.org/docs and ask @octocat"': None,
}


@pytest.mark.parametrize("line", list(SECRETS))
def test_credentials_are_recognised_and_prose_is_not(line):
    problems = secret_problems("f.jsonl", b"{}\n" + line + b"\n")
    what = SECRETS[line]
    assert [p.line for p in problems] == ([2] if what else [])
    if what:
        assert what in problems[0].message



def person_played(tmp_path: Path, name: str = "Dana", seed: int = 3, seat: int | None = None,
                  game: str = "prisoners_dilemma") -> dict[str, bytes]:
    """The files `gamenight play` writes for one game a scripted person played: replays/<plan>/...
    (the person's seat dealt by the plan; with `seat`, chosen: a practice game)."""
    import asyncio

    from runner.table import Person, deal, play_table, seat_agents, write_played
    from tests.agents.test_human import Person_

    table = deal(game, {}, seed, [Person(name, seat=seat)])
    records_ = asyncio.run(play_table(table, seat_agents(table, lambda seat: Person_(None)), created="2026-11-20"))
    write_played(records_, table, tmp_path / "replays")
    return {str(p.relative_to(tmp_path)): p.read_bytes() for p in sorted((tmp_path / "replays").rglob("*")) if p.is_file()}


def test_a_game_a_person_played_is_accepted_as_a_submission_with_a_non_bot_seat(repo, tmp_path):
    """`gamenight play` writes the game with its one-game plan in a folder of its own: the check
    plans it again and takes the person's seat as a non-bot seat, like a model's."""
    files = person_played(tmp_path)
    [(path, raw)] = games_of(files).items()
    header = records(raw)[0]
    assert path.startswith("replays/play-dana-3/") and f"replays/{header['tournament']}/tournament.toml" in files
    assert has_non_bot_seat(header)
    bots = {**header, "players": [p for p in header["players"] if p["agent"]["kind"] == "builtin"]}
    assert not has_non_bot_seat(bots)
    repo.write_all(files)
    repo.commit("dana plays")
    result, summary = repo.check(author="dana")
    assert result.exit_code == 0, summary
    assert "✅ accepted: 1 new replay(s)" in summary


def test_a_played_game_whose_plan_seed_was_changed_afterwards_is_refused(repo, tmp_path):
    """A seed picked after the fact: the plan's seed fixes the game's, so another seed in the plan
    plans another game."""
    files = person_played(tmp_path)
    plan_path = next(p for p in files if p.endswith("tournament.toml"))
    files[plan_path] = files[plan_path].replace(b"seed = 3", b"seed = 4")
    repo.write_all(files)
    refused(repo, "game_id: is not a game of the plan", author="dana")


def test_a_played_game_with_an_edited_bot_move_is_refused(repo, tmp_path):
    files = person_played(tmp_path)
    [(path, raw)] = games_of(files).items()

    bot = next(p["seat"] for p in records(raw)[0]["players"] if p["agent"]["kind"] == "builtin")

    def flip(lines):
        move = next(r for r in lines if r.get("type") == "event" and r.get("kind") == "action" and r["seat"] == bot)
        move["data"]["choice"] = "defect" if move["data"]["choice"] == "cooperate" else "cooperate"
    files[path] = edit(raw, flip)
    repo.write_all(files)
    summary = refused(repo, path, author="dana")
    assert f"players[{bot}]" in text(summary) or f"seat {bot}" in text(summary)


def test_a_copy_of_a_played_game_under_another_plan_name_is_refused(repo, tmp_path):
    files = person_played(tmp_path)
    repo.write_all(files)
    [(path, raw)] = games_of(files).items()
    folder = path.split("/")[1]
    plan = files[f"replays/{folder}/tournament.toml"].replace(folder.encode(), b"play-copy")
    planned = from_dict(tomllib.loads(plan.decode())).plan()[0]
    copy = edit(raw, lambda lines: lines[0].update(game_id=planned.game_id, tournament="play-copy"))
    repo.write_all({"replays/play-copy/tournament.toml": plan, f"replays/play-copy/{planned.game_id}.jsonl": copy})
    summary = refused(repo, "is the same game as replays/", author="dana")
    assert "a game counts once" in text(summary) and "play-copy" in text(summary)


# -- people's games: what a person can play ------------------------------------------------------

def test_a_practice_game_with_a_chosen_seat_is_refused(repo, tmp_path):
    """`gamenight play --seat` (or `--role`) lets a person choose where they sit: practice, not a
    submission, whose people's seats are dealt by the plan."""
    repo.write_all(person_played(tmp_path, seat=0))
    refused(repo, "a person chose their seat or role here", author="dana")


def test_a_plan_of_many_games_with_a_person_is_refused(repo, tmp_path):
    """A played game is one game of one plan: a plan of 500 games "a person played" is a script's."""
    files = person_played(tmp_path)
    plan_path = next(p for p in files if p.endswith("tournament.toml"))
    files = {plan_path: files[plan_path].replace(b"games = 1", b"games = 500")}
    repo.write_all(files)
    refused(repo, "plans 500 games with a person in them", author="dana")


def test_too_many_played_games_in_one_pull_request_are_refused(repo, tmp_path):
    for seed in range(MAX_PLAYED_GAMES + 1):
        repo.write_all(person_played(tmp_path / str(seed), "Dana", seed=seed))
    summary = refused(repo, f"games people played; one submission may bring at most {MAX_PLAYED_GAMES}",
                      author="dana")
    assert "❌ refused" in summary


def test_too_many_people_in_one_pull_request_are_refused(repo, tmp_path):
    for i in range(MAX_NEW_PEOPLE + 1):
        repo.write_all(person_played(tmp_path / str(i), f"Person {chr(65 + i)}", seed=i))
    refused(repo, f"people; one submission may bring at most {MAX_NEW_PEOPLE}", author="dana")


def test_people_of_one_source_are_capped_across_pull_requests(repo, tmp_path, monkeypatch):
    monkeypatch.setattr(checking, "MAX_PEOPLE_PER_SOURCE", 2)
    for i, name in enumerate(("Ann", "Bea")):
        on_main(repo, person_played(tmp_path / name, name, seed=10 + i), f"{name} plays (#{7 + i})",
                "dana <99+dana@users.noreply.github.com>")
    repo.write_all(person_played(tmp_path / "cy", "Cy", seed=20))
    repo.commit("Cy")
    result, summary = repo.check("--author-id", "99", author="dana")
    assert result.exit_code == 1, summary
    assert "would have 3 people on the board; one source may have at most 2" in text(summary)


def test_new_rows_per_pull_request_are_capped(repo, played, monkeypatch):
    monkeypatch.setattr(checking, "MAX_NEW_ROWS", 0)
    repo.write_all(played["newcomer"])
    refused(repo, "the pull request brings 1 new rows (1 agents and people, 0 judges)", author="bob")


# -- reserved plans: the shipped tournaments are the maintainers' to play --------------------------

def test_a_shipped_plans_name_is_refused(repo, played):
    files = {path.replace("replays/newcomer/", "replays/magic-003/"): raw for path, raw in played["newcomer"].items()}
    plan = files["replays/magic-003/tournament.toml"]
    files["replays/magic-003/tournament.toml"] = plan.replace(b'name = "newcomer"', b'name = "magic-003"')
    repo.write_all(files)
    refused(repo, "the tournament name 'magic-003' is reserved for the maintainers' shipped plan "
                  "runner/tournaments/magic-003.toml", author="bob")


# -- judges are owned like agents ------------------------------------------------------------------

def judged_copy(tmp_path: Path, name: str, raw: bytes, toml: Path) -> bytes:
    """`raw` with the lines `gamenight judge` appends, by the judge of `toml`."""
    from tests.llm.test_judge_ewavm import judge

    path = tmp_path / name
    path.write_bytes(raw)
    result = judge([path], toml)
    assert result.exit_code == 0, result.output
    return path.read_bytes()


@pytest.fixture
def judge_server():
    from tests.llm.test_judge_ewavm import judging_script

    with FakeOpenAI(judging_script) as server:
        yield server


def test_judge_lines_under_the_maintainers_judge_are_refused(repo, played, tmp_path, judge_server):
    """The maintainers judged a game with their judge; a contributor's lines under that very judge
    description would join its tables: refused, like games of another's agent."""
    from tests.llm.test_judge_ewavm import tournament_file as judge_file, unjudged

    toml = judge_file(tmp_path, judge_server.base_url)
    ours = sorted(SHIPPED_BUILTIN.glob("builtin-werewolf-*.jsonl"))[5]
    on_main(repo, {f"replays/builtin/{ours.name}": judged_copy(tmp_path, ours.name, unjudged(ours), toml)},
            "The maintainers judge a game", "maintainers <m@example.org>")
    files = dict(played["newcomer"])
    path, raw = first_game(files, "werewolf")
    files[path] = judged_copy(tmp_path, "theirs.jsonl", raw, toml)
    repo.write_all(files)
    summary = refused(repo, "the judge 'j' (openai_compatible, judge-model", author="bob")
    assert "belongs to the maintainers" in text(summary)


def test_a_contributors_own_judge_is_listed_as_theirs(repo, played, tmp_path, judge_server):
    from tests.llm.test_judge_ewavm import tournament_file as judge_file

    toml = judge_file(tmp_path, judge_server.base_url)
    toml.write_text(toml.read_text(encoding="utf-8").replace("temperature = 0.0", "temperature = 0.0\nseed = 5"),
                    encoding="utf-8")
    files = dict(played["newcomer"])
    path, raw = first_game(files, "werewolf")
    files[path] = judged_copy(tmp_path, "theirs.jsonl", raw, toml)
    repo.write_all(files)
    repo.commit("judged")
    result, summary = repo.check(author="bob")
    assert result.exit_code == 0, summary
    owners = text(summary).split("Who owns the rows it touches")[1].split("Effect on the leaderboard")[0]
    assert "judge judge-model (openai_compatible, prompts" in owners and "(1 game)" in owners
    assert "@bob (new): its lines score only your rows" in owners
