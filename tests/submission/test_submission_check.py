"""`gamenight submission-check` on temporary repositories: a base commit, then a pull request's commits."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from datetime import date
from html import unescape
from importlib.metadata import entry_points
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from submission_repos import (GitRepo, as_llm_game, base_repo, edit, llm_agent, play, pull_request, records,
                              replay_path, shipped_sample)

from site_builder import submission


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[bytes]]:
    """Small games played once for the whole module (`gamenight run --game ... --games 2`)."""
    out = tmp_path_factory.mktemp("played")
    return {
        "chameleon": play(out / "c", "chameleon", "--role", "*=chameleon/trivial",
                          "--role", "chameleon=chameleon/associative"),
        "prisoners_dilemma": play(out / "p", "prisoners_dilemma", "--lineup",
                                  "prisoners_dilemma/tit_for_tat,prisoners_dilemma/always_defect,random"),
    }


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> GitRepo:
    """The base branch, built once: a README and two shipped replays of each game."""
    return base_repo(tmp_path_factory.mktemp("template") / "repo")


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("cache") / "scores.sqlite"


@pytest.fixture
def repo(template: GitRepo, cache: Path, tmp_path: Path) -> GitRepo:
    return pull_request(template, tmp_path / "repo", cache)


def add(repo: GitRepo, *replays: bytes) -> list[str]:
    return [repo.write(replay_path(raw), raw) for raw in replays]


def html(markdown: str) -> str:
    """The report as GitHub would render it (CommonMark, GFM tables and strikethrough, raw HTML on)."""
    return MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(markdown)


def text(markdown: str) -> str:
    """What a reader sees: the rendered report without tags, entities decoded, zero-width spaces removed."""
    return unescape(re.sub(r"<[^>]+>", "", html(markdown))).replace("\u200b", "")


# -- a submission that passes ------------------------------------------------------------------

def test_valid_submission_passes_and_names_new_agents_and_games(repo, played):
    model = llm_agent("gpt4o-vanilla", "gpt-4o", "gpt-4o-2024-08-06", temperature=0.0, design="vanilla")
    llm_games = [as_llm_game(raw, model, seats=(0, 1))[1] for raw in played["chameleon"]]
    add(repo, *played["chameleon"], *played["prisoners_dilemma"], *llm_games)
    repo.commit("six new games")

    result, summary = repo.check()

    assert result.exit_code == 0, result.output
    assert result.output == summary  # the report on stdout is the one written for $GITHUB_STEP_SUMMARY
    assert "✅ accepted: 6 new replay(s)" in summary
    assert "| chameleon | 4 |" in summary and "| prisoners\\_dilemma | 2 |" in summary
    new_agents = summary.split("**New agents**")[1].split("**Agents with more games**")[0]
    assert "gpt4o-vanilla | llm | openai | gpt-4o | gpt-4o-2024-08-06 | vanilla | 2 |" in new_agents
    assert "| chameleon/trivial | builtin | — | chameleon/trivial | — | — | 4 |" in new_agents
    more = summary.split("**Agents with more games**")[1].split("###")[0]
    assert "| prisoners\\_dilemma/tit\\_for\\_tat | 1 | 3 |" in more and "gpt4o" not in more
    effect = summary.split("### Effect on the leaderboard")[1]
    assert "| overall | gpt4o-vanilla | 0 → 2 | — → " in effect
    assert "| chameleon | gpt4o-vanilla |" in effect
    assert "Scored the base corpus (12 games) and base + submission (18 games)" in effect


def test_a_pull_request_without_replays_is_not_a_submission(repo):
    repo.write("runner/new_feature.py", "print('hello')\n")
    repo.commit("code only")

    result, summary = repo.check()

    assert result.exit_code == 0, result.output
    assert "nothing to check" in summary and "not a replay submission" in summary


def test_only_what_the_pull_request_adds_is_checked_even_when_main_moved_on(repo, played):
    add(repo, played["chameleon"][0])
    repo.commit("submission")
    repo.git("checkout", "-q", "main")
    repo.write("docs/news.md", "main moved on\n")
    repo.git("rm", "-q", "--", *[p for p in shipped_sample() if "werewolf" in p])
    repo.commit("main moves on")
    repo.git("checkout", "-q", "pr")

    result, summary = repo.check()

    assert result.exit_code == 0, summary
    assert "1 changed file(s), 1 added" in summary


def test_the_check_scores_from_the_cache_the_second_time(repo, played, tmp_path):
    add(repo, *played["prisoners_dilemma"])
    repo.commit()
    repo.cache = tmp_path / "own-cache.sqlite"
    first, cold = repo.check()
    second, warm = repo.check()
    assert first.exit_code == second.exit_code == 0
    assert "14 replay(s) re-simulated" in cold  # the 12 of the base and the 2 new ones
    assert "0 replay(s) re-simulated" in warm


# -- refusals --------------------------------------------------------------------------------

def _outside_replays(repo, played):
    add(repo, played["prisoners_dilemma"][1])
    repo.write("runner/evil.py", "import os\n")
    return "runner/evil.py: outside replays/: a submission only adds replay files"


def _workflow_change(repo, played):
    add(repo, played["prisoners_dilemma"][1])
    repo.write(".github/workflows/steal.yml", "on: push\n")
    return ".github/workflows/steal.yml: outside replays/"


def _not_in_layout(repo, played):
    raw = played["chameleon"][0]
    repo.write("replays/loose.jsonl", raw)
    return "replays/loose.jsonl: does not follow the layout replays/<tournament>/<game_id>.jsonl"


def _nested_too_deep(repo, played):
    repo.write("replays/contrib/extra/game.jsonl", played["chameleon"][0])
    return "replays/contrib/extra/game.jsonl: does not follow the layout"


def _oversize(repo, played):
    repo.write("replays/contrib/contrib-chameleon-000000000000.jsonl", b"x" * (submission.MAX_FILE_BYTES + 1))
    return (f"replays/contrib/contrib-chameleon-000000000000.jsonl: the file is "
            f"{submission.MAX_FILE_BYTES + 1:,} bytes; a submitted replay may have at most")


def _copy_of_existing(repo, played):
    path, raw = next(iter(shipped_sample().items()))
    game_id = Path(path).stem
    repo.write(f"replays/mirror/{game_id}.jsonl", raw)
    return f"replays/mirror/{game_id}.jsonl: has the same bytes as {path}, already in the corpus"


def _copy_within(repo, played):
    raw = played["chameleon"][0]
    first = add(repo, raw)[0]
    second = first.replace("replays/contrib/", "replays/contrib2/")
    repo.write(second, raw)
    return f"{second}: has the same bytes as {first} in this submission"


def _game_id_reused(repo, played):
    path, raw = next(iter(shipped_sample().items()))
    game_id = Path(path).stem
    changed = edit(raw, lambda lines: lines[0].update(tournament="mirror", matchup="a copy"))
    repo.write(f"replays/mirror/{game_id}.jsonl", changed)
    return f"replays/mirror/{game_id}.jsonl:1: game_id: game id already used by {path}"


def _tampered_result(repo, played):
    raw = played["chameleon"][0]
    lines = records(raw)
    winners = lines[-1]["winners"]
    forged = [s for s in range(4) if s not in winners]
    path = add(repo, edit(raw, lambda ls: ls[-1].update(winners=forged)))[0]
    return f"{path}:{len(lines)}: winners: the claimed outcome differs from the rules"


def _illegal_move(repo, played):
    raw = played["prisoners_dilemma"][0]
    lines = records(raw)
    n = next(i for i, line in enumerate(lines) if line.get("kind") == "action")
    path = add(repo, edit(raw, lambda ls: ls[n]["data"].update(choice="betray")))[0]
    return f"{path}:{n + 1}: data"


def _wrong_file_name(repo, played):
    raw = played["chameleon"][0]
    repo.write("replays/contrib/some-other-name.jsonl", raw)
    return f"replays/contrib/some-other-name.jsonl:1: game_id: the file must be named {records(raw)[0]['game_id']}"


def _wrong_folder(repo, played):
    raw = played["chameleon"][0]
    header = records(raw)[0]
    repo.write(f"replays/elsewhere/{header['game_id']}.jsonl", raw)
    return "tournament: a replay of tournament 'contrib' goes in replays/contrib/"


def _modified_existing(repo, played):
    path, raw = next(iter(shipped_sample().items()))
    repo.write(path, edit(raw, lambda lines: lines[0].update(matchup="edited")))
    return f"{path}: changes a replay that is already in the corpus: replays are append-only"


def _deleted_existing(repo, played):
    path = next(iter(shipped_sample()))
    (repo.path / path).unlink()
    return f"{path}: deletes a replay: the corpus is append-only"


def _symlink(repo, played):
    target = repo.path / "replays/contrib/contrib-chameleon-111111111111.jsonl"
    target.parent.mkdir(parents=True)
    os.symlink("../../README.md", target)
    return "replays/contrib/contrib-chameleon-111111111111.jsonl: is a symbolic link"


def _missing_model_reported(repo, played):
    _, raw = as_llm_game(played["chameleon"][0], llm_agent(reported=None), evidence=False)
    path = add(repo, raw)[0]
    return f"{path}:1: players[0].agent.model_reported: missing: the model id the API reported"


def _model_reported_contradicts_calls(repo, played):
    _, raw = as_llm_game(played["chameleon"][0], llm_agent(reported="gpt-4o-2024-08-06"))
    raw = edit(raw, lambda lines: lines[0]["players"][1]["agent"].update(model_reported="gpt-5"))
    path = add(repo, raw)[0]
    return f"{path}:1: players[1].agent.model_reported: says 'gpt-5' but the recorded calls report 'gpt-4o-2024-08-06'"


def _missing_provider(repo, played):
    _, raw = as_llm_game(played["chameleon"][0], llm_agent(provider=""))
    path = add(repo, raw)[0]
    return f"{path}:1: players[0].agent.provider: missing: the API provider"


def _missing_runner_version(repo, played):
    raw = edit(played["chameleon"][0], lambda lines: lines[0]["provenance"].update(runner_version=" "))
    path = add(repo, raw)[0]
    return f"{path}:1: provenance.runner_version: the program and version that played the game are required"


def _future_date(repo, played):
    later = date.today().replace(year=date.today().year + 2).isoformat()
    raw = edit(played["chameleon"][0], lambda lines: lines[0]["provenance"].update(created=later))
    path = add(repo, raw)[0]
    return f"{path}:1: provenance.created: the game cannot have been played on {later}, after today"


def _unknown_builtin_strategy(repo, played):
    def rename(lines):
        lines[0]["players"][2]["agent"].update(strategy="chameleon/oracle", name="oracle")

    path = add(repo, edit(played["chameleon"][0], rename))[0]
    return f"{path}:1: players[2].agent.strategy: 'chameleon/oracle' is not a built-in strategy"


def _api_key(repo, played):
    key = "sk-proj-" + "A1b2C3d4" * 5

    def leak(lines):
        lines[0]["players"][0]["agent"] = llm_agent(base_url=f"https://api.example.org/v1?key={key}")

    raw = edit(as_llm_game(played["chameleon"][0], llm_agent())[1], leak)
    path = add(repo, raw)[0]
    return f"{path}:1: this line seems to hold an OpenAI or Anthropic API key (sk-...): remove it"


def _relabelled_copy_of_an_llm_game(repo, played):
    _, original = as_llm_game(played["chameleon"][0], llm_agent())
    first = add(repo, original)[0]
    _, copy = as_llm_game(original, llm_agent("claude", "claude-x", "claude-x-1"), tournament="zz-copy")
    copy = edit(copy, lambda lines: [line.get("evidence", {}).get("calls", [{}])[0].update(
        model_reported="claude-x-1") for line in lines[1:] if "evidence" in line])
    second = add(repo, copy)[0]
    return f"{second}: is the same game as {first} in this submission (same deal, moves and model replies)"


REFUSALS: dict[str, Callable[[GitRepo, dict[str, list[bytes]]], str]] = {
    "a file outside replays/": _outside_replays,
    "a workflow change": _workflow_change,
    "a replay outside the layout": _not_in_layout,
    "a folder too deep": _nested_too_deep,
    "an oversize file": _oversize,
    "a copy of a replay already in the corpus": _copy_of_existing,
    "the same file twice in the submission": _copy_within,
    "a game id already used": _game_id_reused,
    "a tampered result": _tampered_result,
    "an illegal move": _illegal_move,
    "a file not named after its game id": _wrong_file_name,
    "a replay in another tournament's folder": _wrong_folder,
    "a modified existing replay": _modified_existing,
    "a deleted existing replay": _deleted_existing,
    "a symbolic link": _symlink,
    "an LLM agent without model_reported": _missing_model_reported,
    "a model_reported its calls contradict": _model_reported_contradicts_calls,
    "an LLM agent without provider": _missing_provider,
    "no runner version": _missing_runner_version,
    "a date in the future": _future_date,
    "a built-in strategy that does not exist": _unknown_builtin_strategy,
    "an API key": _api_key,
    "an LLM game relabelled as another": _relabelled_copy_of_an_llm_game,
}


@pytest.mark.parametrize("case", list(REFUSALS))
def test_refused_with_a_clear_message(repo, played, case):
    expected = REFUSALS[case](repo, played)
    repo.commit(case)

    result, summary = repo.check()

    assert result.exit_code == 1, summary
    assert "❌ refused" in summary
    assert expected in text(summary), f"{expected!r} not in:\n{summary}"
    assert "Traceback" not in result.output


def test_a_key_is_never_repeated_in_the_report(repo, played):
    _api_key(repo, played)
    repo.commit()
    result, summary = repo.check()
    assert result.exit_code == 1
    assert "A1b2C3d4" not in summary


def test_every_file_of_a_mixed_submission_gets_its_verdict(repo, played):
    good = add(repo, played["prisoners_dilemma"][0])[0]
    repo.write("runner/evil.py", "import os\n")
    repo.commit()

    result, summary = repo.check()

    assert result.exit_code == 1
    assert f"| {good.replace('_', chr(92) + '_')} | ✅ OK |" in summary
    assert "runner/evil.py: outside replays/" in text(summary)
    assert "Counting only the files that passed every check." in summary
    assert "| prisoners\\_dilemma | 1 |" in summary


def test_a_submission_over_its_total_size_is_not_read(repo, played, monkeypatch):
    monkeypatch.setattr(submission, "MAX_SUBMISSION_BYTES", 1000)
    add(repo, *played["chameleon"])
    repo.commit()

    result, summary = repo.check()

    assert result.exit_code == 1
    assert "one submission may add at most 1,000: split it into several pull requests" in summary
    assert "not read (the submission is over its limits)" in summary


# -- hostile names are shown as text -----------------------------------------------------------

PAYLOADS = {
    "name": "<script>alert('name')</script> [click](javascript:alert(1)) @octocat",
    "model": "<img src=x onerror=alert(1)> ![img](https://evil.example/x.png) `code` | cell",
    "model_reported": "**bold**\n# heading\n<iframe src=//evil.example>",
}


def test_markdown_and_html_payloads_in_names_are_escaped(repo, played):
    agent = llm_agent(PAYLOADS["name"], PAYLOADS["model"], PAYLOADS["model_reported"])
    add(repo, as_llm_game(played["chameleon"][0], agent, seats=(0,))[1])
    script_name = "replays/x/<script>alert(1)</script>.jsonl"
    repo.write(script_name, b"{}\n")
    repo.commit("payloads")

    result, summary = repo.check()

    assert result.exit_code == 1  # the odd file name is refused; the model's game itself is valid
    rendered = html(summary)
    for tag in ("<script", "<img", "<iframe", "<a ", "<h1", "<strong>bold", "<code>code"):
        assert tag not in rendered, tag
    assert "&lt;script&gt;alert(1)&lt;/script&gt;.jsonl: does not follow the layout" in rendered
    assert "[click](javascript:alert(1))" in rendered  # shown as text, not a link
    assert "@\u200boctocat" in rendered  # no mention
    assert "\\x0a# heading" in text(summary)  # the newline is visible, no heading starts
    assert rendered.count("<tr>") == summary.count("\n|") - summary.count("\n| ---")  # no cell split by '|'


# -- the check itself cannot run ---------------------------------------------------------------

def test_an_unknown_revision_is_a_clear_error(repo):
    result, summary = repo.check(base="origin/does-not-exist")
    assert result.exit_code == 2
    assert "'origin/does-not-exist' is not a commit of the repository" in result.output
    assert "could not run" in summary
    assert "Traceback" not in result.output


def test_an_option_like_revision_is_refused(repo):
    with pytest.raises(submission.GitError, match="is not a revision"):
        submission.Repo(repo.path).commit("--output=/tmp/x")


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
    assert commands.get("submission-check") == "site_builder.submission_cli:submission_check"


# -- pieces ------------------------------------------------------------------------------------

def test_play_fingerprint_ignores_labels_but_not_play(played):
    raw = played["chameleon"][0]
    _, a = as_llm_game(raw, llm_agent())
    _, b = as_llm_game(a, llm_agent("other", "other-model", "gpt-4o-2024-08-06"), tournament="t2")
    lines_a, lines_b = records(a), records(b)
    assert submission.play_fingerprint(lines_a[0], lines_a) == submission.play_fingerprint(lines_b[0], lines_b)
    lines_b[3].setdefault("evidence", {"calls": []})["calls"].append({"messages": [], "reply": "x"})
    assert submission.play_fingerprint(lines_a[0], lines_a) != submission.play_fingerprint(lines_b[0], lines_b)
    scripted = records(raw)
    assert submission.play_fingerprint(scripted[0], scripted) is None  # scripted games may repeat


def test_the_layout_pattern():
    ok = ["replays/my-run/my-run-chameleon-0123456789ab.jsonl", "replays/a.b_c/x.jsonl"]
    bad = ["replays/x.jsonl", "replays/a/b/c.jsonl", "replays/a/x.json", "replays/-a/x.jsonl",
           "replays/a/.hidden.jsonl", "replays/a/x y.jsonl", "replays/../x/y.jsonl", "other/a/x.jsonl"]
    assert all(submission.REPLAY_PATH.match(p) for p in ok)
    assert not any(submission.REPLAY_PATH.match(p) for p in bad)


def test_report_lists_problems_as_file_line_field_message(repo, played):
    raw = played["chameleon"][0]
    path = add(repo, edit(raw, lambda lines: lines[0].update(version=3)))[0]
    repo.commit()
    result, summary = repo.check()
    assert result.exit_code == 1
    assert f"- {path.replace('_', chr(92) + '_')}:1: version: must be one of 1, 2; got 3" in summary
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
    problems = submission._secret_problems("f.jsonl", b"{}\n" + line + b"\n")
    what = SECRETS[line]
    assert [p.line for p in problems] == ([2] if what else [])
    if what:
        assert what in problems[0].message
