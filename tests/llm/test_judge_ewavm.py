"""`gamenight judge`: 004's EWAVM evaluations and per-round suspicions appended to Werewolf
replays by an LLM judge served over real HTTP (tests/llm/fakes.py), read strictly, failures
recorded with why, resumable, never touching the game."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from runner.cli import main
from runner.judge import (HIGHLIGHTS, GameToJudge, Task, Unreadable, answer_object, answer_schema, read_game,
                          read_highlights, read_mentions, read_score, read_suspects)
from runner.replay.format import encode, lowest_version
from runner.rerun.validate import check_file
from tests.llm.fakes import FakeAnthropic, FakeOpenAI, Reply, chat_messages, server_error

KEY = "sk-test-judge-7f3a9c1e5b2d4068"
SHIPPED = Path(__file__).resolve().parents[2] / "replays" / "builtin"


#: Evaluations of one game: three scores, variation and suspicion for each of three rounds, memorability.
PER_GAME = 10


def unjudged(path: Path) -> bytes:
    """A shipped replay without its judge lines, its header at the version the rest needs."""
    records = [json.loads(line) for line in path.read_bytes().splitlines()]
    game = [r for r in records if r["type"] != "judge"]
    game[0]["version"] = lowest_version(game)
    return encode(game)


def werewolf_replays(folder: Path, count: int = 2) -> list[Path]:
    """Unjudged copies of shipped Werewolf replays (these tests count every judge line they see),
    plus one Chameleon replay that must be left alone."""
    folder.mkdir(parents=True, exist_ok=True)
    chosen = [p for p in sorted(SHIPPED.glob("builtin-werewolf-*.jsonl")) if b'"status":"complete"' in p.read_bytes()]
    copies = []
    for path in chosen[:count]:
        copy = folder / path.name
        copy.write_bytes(unjudged(path))
        copies.append(copy)
    chameleon = min(SHIPPED.glob("builtin-chameleon-*.jsonl"))
    return [*copies, Path(shutil.copy(chameleon, folder / chameleon.name))]


def question(prompt: str) -> str:
    """The part of a judge prompt after the shared dialog: what this call asks."""
    return prompt.split("=== Your question about this game ===", 1)[1]


def statements_of(prompt: str, round_: int | None = None) -> list[tuple[int, str, str]]:
    """(number, speaker, text) of the dialog in a judge prompt, of one round or all."""
    dialog = prompt.split("=== Your question about this game ===", 1)[0]
    out, current = [], 0
    for line in dialog.splitlines():
        if re.fullmatch(r"Round \d+:", line):
            current = int(line.split()[1].rstrip(":"))
        found = re.fullmatch(r"\[#(\d+)\] (\w+): (\".*\")", line)
        if found and (round_ is None or current == round_):
            out.append((int(found[1]), found[2], json.loads(found[3])))
    return out


def accused(text: str, names: list[str], speaker: str) -> str | None:
    return next((n for n in names if n != speaker and re.search(rf"\b(suspect|vote for) {n}\b", text)), None)


def tournament_file(folder: Path, base_url: str) -> Path:
    path = folder / "judges.toml"
    path.write_text(f'''name = "judging"
[providers."{base_url}"]
max_retries = 2
backoff_base_s = 0.01
backoff_max_s = 0.05
[prices."judge-model"]
input = 2.0
output = 8.0
[agents.j]
provider = "openai_compatible"
base_url = "{base_url}"
model = "judge-model"
api_key_env = "JUDGE_KEY"
temperature = 0.0
[agents.scripted]
builtin = "random"
''', encoding="utf-8")  # a judge's file needs no matchups
    return path


def good_answer(prompt: str) -> str:
    """What a careful judge would answer to one of gamenight's judge prompts."""
    asked = question(prompt)
    round_ = re.search(r"Read only round (\d+)", asked)
    said = statements_of(prompt, int(round_[1]) if round_ else None)
    names = [name for _, name, _ in said]
    if '"highlights"' in asked:
        numbers = [n for n, _, _ in said]
        return f"The Seer claims stand out.\nANSWER: {json.dumps({'highlights': numbers[:HIGHLIGHTS]})}"
    if '"mentions"' in asked:
        mentions = [{"speaker": name, "target": target, "role": "Werewolf"}
                    for _, name, text in said if (target := accused(text, names, name))]
        mentions.append({"speaker": names[0], "target": names[0], "role": "villager"})  # a self-claim
        return f"Going through the statements.\nANSWER: {json.dumps({'mentions': mentions})}"
    if '"suspects"' in asked:
        suspects = {name: accused(text, names, name) or "nobody" for _, name, text in said}
        return f"One by one.\nANSWER: {json.dumps({'suspects': suspects})}"
    return "Lively enough, if samey.\nANSWER: {\"score\": 6.5}"


def judging_script(body, call):
    return good_answer(chat_messages(body)[-1]["content"])


def judge(paths, toml: Path, *extra: str, key: str = KEY):
    return CliRunner().invoke(main, ["judge", *map(str, paths), "--judge", "j", "--tournament", str(toml), *extra],
                              env={"JUDGE_KEY": key})


def judge_lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if json.loads(line)["type"] == "judge"]


def test_every_dimension_is_appended_valid_and_the_game_is_untouched(tmp_path):
    files = werewolf_replays(tmp_path / "r")
    before = {p: p.read_bytes() for p in files}
    with FakeOpenAI(judging_script) as server:
        result = judge([tmp_path / "r"], tournament_file(tmp_path, server.base_url))
    assert result.exit_code == 0, result.output
    for path in files[:2]:
        header, rest = path.read_bytes().split(b"\n", 1)
        old_header, old_rest = before[path].split(b"\n", 1)
        assert rest.startswith(old_rest)  # the game lines, byte for byte
        assert {**json.loads(header), "version": 1} == json.loads(old_header)  # only the version raised
        assert check_file(path).ok
        lines = judge_lines(path)
        assert [(j["dimension"], j["round"]) for j in lines] == [
            ("engagement", None), ("wonder", None), ("attraction", None),
            ("variation", 1), ("variation", 2), ("variation", 3), ("memorability", None),
            ("suspicion", 1), ("suspicion", 2), ("suspicion", 3)]
        assert {j["score"] for j in lines[:3]} == {6.5}
        assert all(m["by"] != m["about"] and m["role"] == "werewolf" for j in lines[3:6] for m in j["mentions"])
        assert len(lines[6]["highlights"]) == HIGHLIGHTS
        assert all(len(j["suspects"]) == 8 and "failure" not in j for j in lines[7:])
        assert all("suspects" not in j for j in lines[:7])
        assert json.loads(path.read_bytes().splitlines()[0])["version"] == 4  # the suspicion lines need it
        judge_agent = lines[0]["judge"]
        assert judge_agent["kind"] == "llm" and judge_agent["model"] == "judge-model"
        assert judge_agent["model_reported"] == "judge-model" and "api_key_env" not in judge_agent
        assert all(j["judge"] == judge_agent for j in lines)  # one judge, grouped as one by the scorer
        assert all(len(j["evidence"]["calls"]) == 1 for j in lines)
    assert files[2].read_bytes() == before[files[2]]  # the Chameleon game is not judged
    assert "a chameleon game; only Werewolf games are judged" in result.output
    assert "judged 2 of 3 replay(s)" in result.output and "2 engagement, 2 wonder" in result.output
    assert server.calls == 2 * PER_GAME and "calls" in result.output and "judge-model" in result.output
    assert KEY not in result.output and all(KEY not in p.read_text(encoding="utf-8") for p in files)


def test_the_scorer_reads_the_judgements(tmp_path):
    from site_builder.scoring import corpus
    from site_builder.scoring.werewolf import ewavm

    werewolf_replays(tmp_path / "r")
    with FakeOpenAI(judging_script) as server:
        assert judge([tmp_path / "r"], tournament_file(tmp_path, server.base_url)).exit_code == 0
    loaded = corpus.load([tmp_path / "r"])
    judges = ewavm(loaded.games, loaded.agents, seed=1)["all"]["judges"]
    assert len(judges) == 1  # one judge, one prompt version: one measurement
    result = next(iter(judges.values()))
    assert result["games"] == 2 and result["engagement"]["raw"] == pytest.approx(6.5)
    assert result["variation"] is not None and result["memorability"] is not None


def test_a_second_run_asks_nothing_and_changes_nothing(tmp_path):
    files = werewolf_replays(tmp_path / "r", count=1)
    with FakeOpenAI(judging_script) as server:
        toml = tournament_file(tmp_path, server.base_url)
        assert judge(files, toml).exit_code == 0
        after_first = files[0].read_bytes()
        calls = server.calls
        again = judge(files, toml)
    assert again.exit_code == 0 and server.calls == calls
    assert files[0].read_bytes() == after_first
    assert f"{PER_GAME} evaluation(s) already there" in again.output


def test_only_missing_dimensions_are_asked(tmp_path):
    files = werewolf_replays(tmp_path / "r", count=1)
    with FakeOpenAI(judging_script) as server:
        toml = tournament_file(tmp_path, server.base_url)
        first = judge(files, toml, "--dimension", "wonder", "--dimension", "variation")
        assert first.exit_code == 0, first.output
        assert [j["dimension"] for j in judge_lines(files[0])] == ["wonder"] + ["variation"] * 3
        rest = judge(files, toml)
    assert rest.exit_code == 0 and server.calls == PER_GAME
    assert sorted(j["dimension"] for j in judge_lines(files[0])) == sorted(
        ["engagement", "wonder", "attraction", "memorability"] + ["variation"] * 3 + ["suspicion"] * 3)
    assert check_file(files[0]).ok


def failing_script(body, call):
    """Engagement right at the second ask; memorability never a usable list; wonder always cut
    off; attraction refused; suspicion names a player who is not there."""
    messages = chat_messages(body)
    asked = question(messages[1]["content"])
    if "fun-loving" in asked:
        return "ANSWER: {\"score\": 8}" if len(messages) > 2 else "I would say 8 out of 10."
    if '"highlights"' in asked:
        return "ANSWER: {\"highlights\": [1, 2]}\nThat is all."
    if "critical reader, who rewards" in asked:
        return Reply("It is a long story and", finish="length")
    if '"suspects"' in asked:
        return 'ANSWER: {"suspects": {"Nobody Here": "nobody"}}'
    return Reply("I'm sorry, but I can't help with judging deception games.", refusal=True)


def test_unreadable_replies_are_asked_again_then_recorded_as_failed_with_why(tmp_path):
    files = werewolf_replays(tmp_path / "r", count=1)
    with FakeOpenAI(failing_script) as server:
        result = judge(files, tournament_file(tmp_path, server.base_url), "--dimension", "engagement",
                       "--dimension", "wonder", "--dimension", "attraction", "--dimension", "memorability")
    assert result.exit_code == 1
    lines = {j["dimension"]: j for j in judge_lines(files[0])}
    assert lines["engagement"]["score"] == 8 and len(lines["engagement"]["evidence"]["calls"]) == 2
    assert "failure" not in lines["engagement"]
    failures = {d: j["failure"] for d, j in lines.items() if "failure" in j}
    assert {d: f["reason"] for d, f in failures.items()} == {
        "wonder": "cut_off", "attraction": "refused", "memorability": "unparseable"}
    assert all(f["asks"] == 3 and len(lines[d]["evidence"]["calls"]) == 3 for d, f in failures.items())
    assert "[1] are not statement numbers" in failures["memorability"]["problem"]
    assert all(lines[d][k] is None for d in failures for k in ("score", "mentions", "highlights"))
    assert "memorability: [1] are not statement numbers" in result.output
    assert "wonder: the reply was cut off by the length limit" in result.output
    assert "attraction: the model declined to answer" in result.output
    assert f"{files[0]}: 1 of 4 evaluations recorded; not recorded: 1 cut off, 1 refused, 1 unparseable" \
        in result.output
    assert "3 evaluation(s) not recorded (1 cut off, 1 refused, 1 unparseable), 3 of them recorded as failed" \
        in result.output
    assert server.calls == 2 + 3 + 3 + 3  # engagement twice; the others up to the bound of three asks
    checked = check_file(files[0])
    assert checked.ok, [str(p) for p in checked.problems]
    assert json.loads(files[0].read_bytes().splitlines()[0])["version"] == 4  # failures are version 4


def test_failed_evaluations_are_not_asked_again_unless_retried(tmp_path):
    files = werewolf_replays(tmp_path / "r", count=1)
    with FakeOpenAI(failing_script) as server:
        toml = tournament_file(tmp_path, server.base_url)
        first = judge(files, toml, "--dimension", "suspicion")
        assert first.exit_code == 1 and server.calls == 9
        assert [j["failure"]["reason"] for j in judge_lines(files[0])] == ["unparseable"] * 3
        assert "is not a player" in judge_lines(files[0])[0]["failure"]["problem"]
        again = judge(files, toml, "--dimension", "suspicion")
        assert again.exit_code == 0 and server.calls == 9
        assert "0 of 3 evaluations recorded (3 failed before, not asked again)" in again.output
    with FakeOpenAI(judging_script) as server:
        retried = judge(files, tournament_file(tmp_path, server.base_url), "--dimension", "suspicion",
                        "--retry-failed")
    assert retried.exit_code == 0 and server.calls == 3, retried.output
    lines = judge_lines(files[0])
    assert [("failure" in j, j["round"]) for j in lines] == [(True, 1), (True, 2), (True, 3),
                                                             (False, 1), (False, 2), (False, 3)]
    assert check_file(files[0]).ok


def test_the_scorer_ignores_failed_evaluations_and_counts_them(tmp_path):
    from site_builder.scoring import corpus
    from site_builder.scoring.werewolf import ewavm

    files = werewolf_replays(tmp_path / "r", count=1)
    with FakeOpenAI(failing_script) as server:
        judge(files, tournament_file(tmp_path, server.base_url), "--dimension", "engagement", "--dimension", "wonder")
    loaded = corpus.load([tmp_path / "r"])
    (result,) = ewavm(loaded.games, loaded.agents, seed=1)["all"]["judges"].values()
    assert result["engagement"]["raw"] == 8 and result["wonder"] is None and result["games"] == 1
    assert result["failed"] == {"wonder": {"cut_off": 1}}


def structured_tournament(folder: Path, base_url: str, provider: str = "openai_compatible",
                          mode: str = "json_object", reasoning: int = 0) -> Path:
    path = folder / "structured.toml"
    extra = f"structured_reasoning = {reasoning}\n" if reasoning else ""
    key = "" if provider == "openai_compatible" else 'api_key_env = "JUDGE_KEY"\n'
    path.write_text(f'''name = "judging"
[providers."{base_url}"]
max_retries = 0
[agents.j]
provider = "{provider}"
base_url = "{base_url}"
model = "judge-model"
{key}max_tokens = 300
structured_output = "{mode}"
{extra}''', encoding="utf-8")
    return path


def schema_answer(schema: dict, prompt: str) -> dict:
    """What constrained decoding lets a model write under one of the judge's schemas."""
    props = schema["properties"]
    answer: dict = {"reasoning": "Short thoughts."} if "reasoning" in props else {}
    if "highlights" in props:
        answer["highlights"] = props["highlights"]["items"]["enum"][:props["highlights"]["minItems"]]
    elif "mentions" in props:
        first = props["mentions"]["items"]["anyOf"][0]["properties"]  # one alternative per speaker
        answer["mentions"] = [{"speaker": first["speaker"]["enum"][0], "target": first["target"]["enum"][0],
                               "role": "seer"}]
    elif "suspects" in props:
        answer["suspects"] = {name: value["enum"][0] for name, value in props["suspects"]["properties"].items()}
    else:
        answer["score"] = 7
    return answer


def test_a_structured_judge_sends_a_schema_per_question_and_reads_replies_as_real_models_write_them(tmp_path):
    """llama-cpp-python's json_object with a schema: the schema names the game's players, roles and
    statement numbers; replies come fenced, after a <think> block, or bare, and all are read."""
    files = werewolf_replays(tmp_path / "r", count=1)
    sent = []

    def script(body, call):
        schema = body["response_format"]["schema"]
        sent.append(body["response_format"])
        answer = json.dumps(schema_answer(schema, chat_messages(body)[-1]["content"]))
        shape = call % 3
        if shape == 0:
            return f"```json\n{answer}\n```"
        if shape == 1:
            return f"<think>The dialog is lively; the Seer claim is the twist.</think>\n{answer}"
        return answer

    with FakeOpenAI(script, strict_schemas=False) as server:
        result = judge(files, structured_tournament(tmp_path, server.base_url))
    assert result.exit_code == 0, result.output
    assert server.calls == PER_GAME and f"{files[0]}: {PER_GAME} of {PER_GAME} evaluations recorded" in result.output
    assert all(f["type"] == "json_object" for f in sent)
    game = read_game(files[0])
    names = [p["name"] for p in json.loads(files[0].read_text().splitlines()[0])["players"]]
    mentions = next(f["schema"] for f in sent if "mentions" in f["schema"]["properties"])
    speakers = mentions["properties"]["mentions"]["items"]["anyOf"]
    assert [a["properties"]["speaker"]["enum"] for a in speakers] == [[n] for n in names]
    assert all(a["properties"]["target"]["enum"] == [m for m in names if m != n] for a, n in zip(speakers, names))
    score = next(f["schema"] for f in sent if "score" in f["schema"]["properties"])
    assert score["properties"]["score"]["enum"][:3] == [1, 1.5, 2]  # llama.cpp ignores minimum/maximum
    highlights = next(f["schema"] for f in sent if "highlights" in f["schema"]["properties"])
    assert highlights["properties"]["highlights"]["minItems"] == HIGHLIGHTS
    suspects = next(f["schema"] for f in sent if "suspects" in f["schema"]["properties"])
    per_player = suspects["properties"]["suspects"]["properties"]
    assert list(per_player) == names and all(per_player[n]["enum"] == [m for m in names if m != n] + ["nobody"]
                                             for n in names)
    lines = judge_lines(files[0])
    assert {j["score"] for j in lines[:3]} == {7}
    assert lines[0]["judge"]["structured_output"] == "json_object"
    assert all(c["structured"] == "json_object" for j in lines for c in j["evidence"]["calls"])
    assert check_file(files[0]).ok and isinstance(game, GameToJudge)


def test_anthropic_judge_with_a_reasoning_field_and_truncated_replies(tmp_path):
    """Anthropic's json_schema output format: the reasoning field is set aside; a reply cut off
    at max_tokens is asked again and counted as cut off when it never finishes."""
    files = werewolf_replays(tmp_path / "r", count=1)

    def script(body, call):
        schema = body["output_config"]["format"]["schema"]
        if "highlights" in schema["properties"]:
            return Reply('{"reasoning": "The Seer claim in round one, then', finish="length")
        return json.dumps(schema_answer(schema, ""))

    with FakeAnthropic(script) as server:
        result = judge(files, structured_tournament(tmp_path, server.base_url, "anthropic", "json_schema", 200))
    assert result.exit_code == 1
    lines = judge_lines(files[0])
    failed = [j for j in lines if "failure" in j]
    assert len(lines) == PER_GAME and [j["dimension"] for j in failed] == ["memorability"]
    assert failed[0]["failure"]["reason"] == "cut_off" and len(failed[0]["evidence"]["calls"]) == 3
    assert all("reasoning" not in j for j in lines) and lines[0]["judge"]["structured_reasoning"] == 200
    assert f"{files[0]}: {PER_GAME - 1} of {PER_GAME} evaluations recorded; not recorded: 1 cut off" in result.output
    assert server.calls == PER_GAME - 1 + 3 and check_file(files[0]).ok


def test_provider_failures_are_reported_not_raised(tmp_path):
    files = werewolf_replays(tmp_path / "r", count=1)
    before = files[0].read_bytes()
    with FakeOpenAI(lambda body, n: server_error(503)) as server:
        result = judge(files, tournament_file(tmp_path, server.base_url), "--dimension", "attraction")
    assert result.exit_code == 1 and "Traceback" not in result.output
    # A failed call is the provider's trouble, not the judge's answer: nothing is recorded, and the
    # next run asks again.
    assert "HTTP 503" in result.output and files[0].read_bytes() == before


@pytest.mark.parametrize("args, env, message", [
    (["--judge", "nobody"], {"JUDGE_KEY": KEY}, "'nobody' is not an agent"),
    (["--judge", "scripted"], {"JUDGE_KEY": KEY}, "'scripted' is not a language-model agent"),
    (["--judge", "j"], {}, "environment variable JUDGE_KEY is not set"),
])
def test_bad_judge_settings_give_a_clear_error(tmp_path, monkeypatch, args, env, message):
    monkeypatch.delenv("JUDGE_KEY", raising=False)
    files = werewolf_replays(tmp_path / "r", count=1)
    toml = tournament_file(tmp_path, "http://127.0.0.1:9/v1")
    result = CliRunner().invoke(main, ["judge", str(files[0]), *args, "--tournament", str(toml)], env=env)
    assert result.exit_code != 0 and message in result.output and "Traceback" not in result.output


def test_the_judge_reads_its_key_from_key_env_and_is_checked_before_it_judges(tmp_path):
    files = werewolf_replays(tmp_path / "r", count=1)
    before = files[0].read_bytes()
    with FakeOpenAI(judging_script, key=KEY) as server:
        toml = tournament_file(tmp_path, server.base_url)
        args = ["judge", str(files[0]), "--judge", "j", "--tournament", str(toml), "--key-env", "OTHER_JUDGE_KEY"]
        wrong = CliRunner().invoke(main, args, env={"JUDGE_KEY": KEY, "OTHER_JUDGE_KEY": "not-it-0123456789abcdef"})
        refused_calls, untouched = server.calls, files[0].read_bytes() == before
        right = CliRunner().invoke(main, args, env={"OTHER_JUDGE_KEY": KEY})
    assert wrong.exit_code == 1 and refused_calls == 0 and untouched
    assert "refused the key in the environment variable OTHER_JUDGE_KEY" in wrong.output
    assert right.exit_code == 0, right.output
    assert len(judge_lines(files[0])) == PER_GAME and KEY.encode() not in files[0].read_bytes()


def test_invalid_replays_are_skipped_with_the_reason(tmp_path):
    files = werewolf_replays(tmp_path / "r", count=1)
    broken = tmp_path / "r" / files[0].name
    broken.write_bytes(broken.read_bytes().replace(b'"type":"outcome","status":"complete"',
                                                   b'"type":"outcome","status":"invalid"'))
    with FakeOpenAI(judging_script) as server:
        result = judge([broken], tournament_file(tmp_path, server.base_url))
    assert result.exit_code == 0 and server.calls == 0
    assert "not a valid replay" in result.output and "gamenight validate" in result.output


# -- strict reading of the judge's replies ------------------------------------------------

@pytest.fixture(scope="module")
def game(tmp_path_factory) -> GameToJudge:
    loaded = read_game(werewolf_replays(tmp_path_factory.mktemp("game"), count=1)[0])
    assert isinstance(loaded, GameToJudge)
    return loaded


@pytest.mark.parametrize("reply, finish, kind, problem", [
    ("Fine.\nANSWER: {\"score\": 7}", "stop", None, None),
    ("ANSWER: {\"score\": 7}   \n\n", "stop", None, None),
    ("**ANSWER:** {\"score\": 7}\nHope this helps.", "stop", None, None),
    ("```json\n{\"score\": 7}\n```", "stop", None, None),
    ("<think>A 9? No.\nANSWER: {\"score\": 9}</think>\nANSWER: {\"score\": 7}", "stop", None, None),
    ("<think>It was lively, so ANSWER: {\"score\": 9}", "stop", "unparseable", "unclosed <think> block"),
    ("I give it a 7.", "stop", "unparseable", "no ANSWER line"),
    ("ANSWER: {\"score\": 7}\nANSWER: {\"score\": 8}", "stop", "unparseable", "2 different ANSWER lines"),
    ("ANSWER: {score: 7}", "stop", "unparseable", "not valid JSON"),
    ("ANSWER: [7]", "stop", "unparseable", "must be a JSON object"),
    ("Thinking about the dialog", "length", "cut_off", "cut off by the length limit"),
    ("ANSWER: {\"score\": 7}", "length", "cut_off", "cut off by the length limit"),
    ("I'm sorry, but I can't evaluate this.", "stop", "refused", "declined"),
    ("", "refusal", "refused", "declined"),
    ("", "stop", "unparseable", "empty"),
])
def test_answers_are_read_as_the_players_are(reply, finish, kind, problem):
    if problem is None:
        assert answer_object(reply, finish) == {"score": 7}
    else:
        with pytest.raises(Unreadable, match=re.escape(problem)) as caught:
            answer_object(reply, finish)
        assert caught.value.kind == kind


def test_a_structured_answers_reasoning_is_set_aside():
    assert answer_object('{"reasoning": "ANSWER: 3", "score": 7}', "stop", structured=True) == {"score": 7}


@pytest.mark.parametrize("answer, problem", [
    ({"score": 1}, None), ({"score": 9.5}, None), ({"score": 10}, None),
    ({"score": 0.5}, "from 1 to 10"), ({"score": 11}, "from 1 to 10"), ({"score": "8"}, "from 1 to 10"),
    ({"score": True}, "from 1 to 10"), ({"score": 7, "why": "fun"}, "exactly one field"), ({}, "exactly one field"),
])
def test_scores_are_numbers_from_1_to_10(game, answer, problem):
    if problem is None:
        assert read_score(answer, game) == answer
    else:
        with pytest.raises(Unreadable, match=problem):
            read_score(answer, game)


def test_mentions_map_names_to_seats_case_insensitively_and_drop_self_claims(game):
    a, b = game.names[0], game.names[1]
    read = read_mentions({"mentions": [{"speaker": a.upper(), "target": b, "role": " Werewolf "},
                                       {"speaker": a, "target": a, "role": "seer"}]}, game)
    assert read == {"mentions": [{"by": 0, "about": 1, "role": "werewolf"}]}
    assert read_mentions({"mentions": []}, game) == {"mentions": []}


@pytest.mark.parametrize("mention, problem", [
    ({"speaker": "Nobody", "target": "{b}", "role": "seer"}, "is not a player"),
    ({"speaker": "{a}", "target": "{b}", "role": "wizard"}, "is not one of seer"),
    ({"speaker": "{a}", "target": "{b}"}, "exactly speaker, target and role"),
    ({"speaker": "{a}", "target": 3, "role": "seer"}, "is not a player"),
])
def test_bad_mentions_are_refused(game, mention, problem):
    filled = {k: v.format(a=game.names[0], b=game.names[1]) if isinstance(v, str) else v for k, v in mention.items()}
    with pytest.raises(Unreadable, match=problem):
        read_mentions({"mentions": [filled]}, game)


def test_highlights_are_k_statement_numbers_a_repeat_kept_once(game):
    """Gemma 3 270M repeated a number in most lists, the same way at every re-ask (a schema cannot
    forbid it to llama.cpp): the repeat is dropped; too few different statements are refused."""
    numbers = [s.n for s in game.statements]
    assert read_highlights({"highlights": numbers[:HIGHLIGHTS]}, game) == {"highlights": numbers[:HIGHLIGHTS]}
    repeated = [numbers[9], numbers[20], *numbers[2:9], numbers[9]]
    assert read_highlights({"highlights": repeated}, game) == {"highlights": repeated[:-1]}
    for bad, problem in [(numbers[:4], "exactly 10 different statement numbers, not 4"),
                         (numbers[:4] * 2 + numbers[:2], "not 4 \\(of 10 given\\)"),
                         (numbers[:HIGHLIGHTS + 1], "exactly 10 different"),
                         (numbers[:9] + [0], "not statement numbers"), ("1,2,3", "list of statement numbers")]:
        with pytest.raises(Unreadable, match=problem):
            read_highlights({"highlights": bad}, game)


def test_every_question_of_a_game_starts_with_the_same_text_and_only_some_name_roles(game):
    """The shared start (system prompt, rules, the whole dialog without roles) is what a server's
    prompt cache reuses between a game's questions; the question comes after it."""
    from runner.judge import DIMENSIONS, prompt, wanted_tasks

    asked = {task: prompt(game, task) for task in wanted_tasks(game, DIMENSIONS)}
    assert len(asked) == PER_GAME
    systems = {messages[0].content for messages in asked.values()}
    starts = {messages[1].content.split("=== Your question about this game ===")[0] for messages in asked.values()}
    assert len(systems) == 1 and len(starts) == 1
    start = starts.pop()
    assert sum(line.startswith("[#") for line in start.splitlines()) == 24 and "true roles" not in start
    werewolf = game.names[game.roles.index("werewolf")]
    for task, messages in asked.items():
        tail = question(messages[1].content)
        shows_roles = f"{werewolf} the werewolf" in tail
        assert shows_roles == (task.dimension in ("engagement", "wonder", "attraction", "memorability")), task
        if task.round is not None:
            numbers = [s.n for s in game.statements if s.round == task.round]
            assert f"Read only round {task.round}, statements #{numbers[0]} to #{numbers[-1]}." in tail


@pytest.mark.parametrize("answer, expected", [
    ({"{a}": "{b}", "{b}": "nobody"}, [1, None]),
    ({"{a}": " {B} ", "{b}": "Nobody"}, [1, None]),
])
def test_suspects_map_names_to_seats_and_nobody_to_null(game, answer, expected):
    a, b = game.names[0], game.names[1]
    filled = {k.format(a=a, b=b): v.format(a=a, b=b, B=b.upper()) for k, v in answer.items()}
    rest = {name: "nobody" for name in game.names[2:]}
    assert read_suspects({"suspects": {**filled, **rest}}, game) == {"suspects": expected + [None] * 6}


@pytest.mark.parametrize("answer, problem", [
    ({"{a}": "{a}"}, "cannot point at themself"),
    ({"{a}": "Zed Nobody"}, "is not a player"),
    ({"Zed": "nobody"}, "is not a player"),
    ({"{a}": "{b}"}, "missing: "),
])
def test_bad_suspects_are_refused(game, answer, problem):
    a, b = game.names[0], game.names[1]
    filled = {k.format(a=a): v.format(a=a, b=b) for k, v in answer.items()}
    if problem != "missing: ":
        filled.update({name: "nobody" for name in game.names[1:]})
    with pytest.raises(Unreadable, match=problem):
        read_suspects({"suspects": filled}, game)
    with pytest.raises(Unreadable, match="one entry per player"):
        read_suspects({"suspects": ["nobody"] * 8}, game)


def test_a_suspicion_schema_allows_no_self_and_every_player_once(game):
    schema = answer_schema(game, Task("suspicion", 1))
    inner = schema["properties"]["suspects"]
    assert inner["required"] == game.names and inner["additionalProperties"] is False
    assert all(game.names[seat] not in inner["properties"][game.names[seat]]["enum"] for seat in range(8))


def test_judge_lines_with_version_2_fields_raise_the_files_version(tmp_path):
    """A prompt-cache hit (OpenAI's cached_tokens) is a version-2 call field: the file's header says
    version 2 afterwards, and only that line of the game changed."""
    files = werewolf_replays(tmp_path / "r")
    before = files[0].read_bytes()
    assert json.loads(before.splitlines()[0])["version"] == 1

    def cached(body, call):
        return Reply(good_answer(chat_messages(body)[-1]["content"]), cached_input_tokens=512)

    with FakeOpenAI(cached) as server:  # no suspicion: its lines would need version 4
        result = judge([files[0]], tournament_file(tmp_path, server.base_url), "--dimension", "engagement",
                       "--dimension", "variation")
    assert result.exit_code == 0, result.output
    assert check_file(files[0]).ok
    after = files[0].read_bytes()
    header = json.loads(after.splitlines()[0])
    assert header["version"] == 2 and {**header, "version": 1} == json.loads(before.splitlines()[0])
    assert after.split(b"\n", 1)[1].startswith(before.split(b"\n", 1)[1])  # every other game line as it was
    assert len(judge_lines(files[0])) == 4
    assert all(c["cached_input_tokens"] == 512 for j in judge_lines(files[0]) for c in j["evidence"]["calls"])


def test_the_shipped_local_judge_file_defines_a_structured_judge():
    from runner.tournament import load

    path = Path(__file__).resolve().parents[2] / "runner" / "judges" / "local-cpu.toml"
    agent = load(path, matchups_required=False).agents["gemma3-270m-judge"]
    assert agent.is_llm and agent.spec["structured_output"] == "json_object" and agent.spec["max_tokens"] >= 300


def test_suspicions_read_as_real_models_write_them_and_failures_reach_the_scorer(tmp_path):
    """Judgement Variation's LLM reading end to end over HTTP: round 1 answered in a code fence
    after a <think> block, round 2 cut off at every ask, round 3 refused; the scorer reads round 1
    alone, and a game whose every reading failed says so."""
    from site_builder.scoring import corpus
    from site_builder.scoring.werewolf import ALL_FAILED, judgement_variation_llm

    files = werewolf_replays(tmp_path / "r", count=2)
    first = read_game(files[0])
    assert isinstance(first, GameToJudge)
    werewolf = first.names[first.roles.index("werewolf")]

    def script(body, call):
        messages = chat_messages(body)
        prompt = messages[1]["content"]
        round_ = int(re.search(r"Read only round (\d+)", question(prompt))[1])
        if first.statements[0].quoted in prompt and round_ == 1:
            names = [name for _, name, _ in statements_of(prompt, 1)]
            suspects = {n: werewolf if n != werewolf else "nobody" for n in names}
            return f"<think>Everyone eyes {werewolf}.</think>\n```json\n{json.dumps({'suspects': suspects})}\n```"
        if round_ == 2:
            return Reply('{"suspects": {"' + first.names[0] + '": "', finish="length")
        return Reply("I'm sorry, but I can't help with that.", refusal=True)

    with FakeOpenAI(script) as server:
        result = judge(files[:2], tournament_file(tmp_path, server.base_url), "--dimension", "suspicion")
    assert result.exit_code == 1
    lines = judge_lines(files[0])
    assert [(j["round"], (j.get("failure") or {}).get("reason")) for j in lines] == [
        (1, None), (2, "cut_off"), (3, "refused")]
    seat = first.roles.index("werewolf")
    assert lines[0]["suspects"] == [seat if s != seat else None for s in range(8)]
    assert all(check_file(f).ok for f in files[:2])
    loaded = corpus.load([tmp_path / "r"])
    reading = judgement_variation_llm(loaded.games, loaded.agents, seed=2)["all"]
    (judged_by,) = reading["judges"]
    assert json.loads(judged_by)["prompt_version"] == "ewavm-3"
    # Seven words on the Werewolf in the one round read: all on one card, J = 1 / sigma defined.
    assert reading["judges"][judged_by]["J"]["n"] == 1
    assert reading["unread"] == {ALL_FAILED: 1} and reading["games"] == 2
