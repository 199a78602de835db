"""`gamenight judge`: 004's EWAVM evaluations appended to Werewolf replays by an LLM judge
served over real HTTP (tests/llm/fakes.py), read strictly, resumable, never touching the game."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from runner.cli import main
from runner.judge import (HIGHLIGHTS, GameToJudge, Task, Unreadable, answer_object, read_game, read_highlights,
                          read_mentions, read_score)
from runner.replay.validate import check_file
from tests.llm.fakes import FakeAnthropic, FakeOpenAI, Reply, chat_messages, server_error

KEY = "sk-test-judge-7f3a9c1e5b2d4068"
SHIPPED = Path(__file__).resolve().parents[2] / "replays" / "builtin"


def werewolf_replays(folder: Path, count: int = 2) -> list[Path]:
    """Copies of shipped Werewolf replays, plus one Chameleon replay that must be left alone."""
    folder.mkdir(parents=True, exist_ok=True)
    # Shipped games the local judge has not judged: these tests count every judge line they see.
    unjudged = [p for p in sorted(SHIPPED.glob("builtin-werewolf-*.jsonl")) if b'"type":"judge"' not in p.read_bytes()]
    chosen = unjudged[:count]
    chosen.append(min(SHIPPED.glob("builtin-chameleon-*.jsonl")))
    return [Path(shutil.copy(p, folder / p.name)) for p in chosen]


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
    """What a careful judge would answer to one of gamenight's EWAVM prompts."""
    if '"highlights"' in prompt:
        numbers = [int(n) for n in re.findall(r"^\[#(\d+)\]", prompt, re.MULTILINE)]
        return f"The Seer claims stand out.\nANSWER: {json.dumps({'highlights': numbers[:HIGHLIGHTS]})}"
    if '"mentions"' in prompt:
        speakers = re.findall(r"^\[#\d+\] (\w+): (\".*\")$", prompt, re.MULTILINE)
        names = [name for name, _ in speakers]
        mentions = []
        for name, quoted in speakers:
            for target in names:
                if target != name and re.search(rf"\b(suspect|vote for) {target}\b", json.loads(quoted)):
                    mentions.append({"speaker": name, "target": target, "role": "Werewolf"})
        mentions.append({"speaker": names[0], "target": names[0], "role": "villager"})  # a self-claim
        return f"Going through the statements.\nANSWER: {json.dumps({'mentions': mentions})}"
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
        assert path.read_bytes().startswith(before[path])  # the game lines, byte for byte
        assert check_file(path).ok
        lines = judge_lines(path)
        assert [(j["dimension"], j["round"]) for j in lines] == [
            ("engagement", None), ("wonder", None), ("attraction", None),
            ("variation", 1), ("variation", 2), ("variation", 3), ("memorability", None)]
        assert {j["score"] for j in lines[:3]} == {6.5}
        assert all(m["by"] != m["about"] and m["role"] == "werewolf" for j in lines[3:6] for m in j["mentions"])
        assert len(lines[6]["highlights"]) == HIGHLIGHTS
        judge_agent = lines[0]["judge"]
        assert judge_agent["kind"] == "llm" and judge_agent["model"] == "judge-model"
        assert judge_agent["model_reported"] == "judge-model" and "api_key_env" not in judge_agent
        assert all(j["judge"] == judge_agent for j in lines)  # one judge, grouped as one by the scorer
        assert all(len(j["evidence"]["calls"]) == 1 for j in lines)
    assert files[2].read_bytes() == before[files[2]]  # the Chameleon game is not judged
    assert "a chameleon game; only Werewolf games are judged" in result.output
    assert "judged 2 of 3 replay(s)" in result.output and "2 engagement, 2 wonder" in result.output
    assert server.calls == 2 * 7 and "calls" in result.output and "judge-model" in result.output
    assert KEY not in result.output and all(KEY not in p.read_text(encoding="utf-8") for p in files)


def test_the_scorer_reads_the_judgements(tmp_path):
    from site_builder.scoring import corpus
    from site_builder.scoring.werewolf import ewavm

    werewolf_replays(tmp_path / "r")
    with FakeOpenAI(judging_script) as server:
        assert judge([tmp_path / "r"], tournament_file(tmp_path, server.base_url)).exit_code == 0
    loaded = corpus.load([tmp_path / "r"])
    result = ewavm(loaded.games, loaded.agents, seed=1)["all"]
    assert result["engagement"]["raw"] == pytest.approx(6.5)
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
    assert "7 evaluation(s) already there" in again.output


def test_only_missing_dimensions_are_asked(tmp_path):
    files = werewolf_replays(tmp_path / "r", count=1)
    with FakeOpenAI(judging_script) as server:
        toml = tournament_file(tmp_path, server.base_url)
        first = judge(files, toml, "--dimension", "wonder", "--dimension", "variation")
        assert first.exit_code == 0, first.output
        assert [j["dimension"] for j in judge_lines(files[0])] == ["wonder"] + ["variation"] * 3
        rest = judge(files, toml)
    assert rest.exit_code == 0 and server.calls == 7
    assert sorted(j["dimension"] for j in judge_lines(files[0])) == sorted(
        ["engagement", "wonder", "attraction", "memorability"] + ["variation"] * 3)
    assert check_file(files[0]).ok


def test_unreadable_replies_are_asked_again_then_counted_per_game_with_why(tmp_path):
    files = werewolf_replays(tmp_path / "r", count=1)

    def script(body, call):
        messages = chat_messages(body)
        system, prompt = messages[0]["content"], messages[1]["content"]
        if "fun-loving" in system:  # engagement: right at the second ask
            return "ANSWER: {\"score\": 8}" if len(messages) > 2 else "I would say 8 out of 10."
        if '"highlights"' in prompt:  # memorability: never a usable list
            return "ANSWER: {\"highlights\": [1, 2]}\nThat is all."
        if "critical reader" in system:  # wonder: always cut off
            return Reply("It is a long story and", finish="length")
        return Reply("I'm sorry, but I can't help with judging deception games.", refusal=True)  # attraction

    with FakeOpenAI(script) as server:
        result = judge(files, tournament_file(tmp_path, server.base_url), "--dimension", "engagement",
                       "--dimension", "wonder", "--dimension", "attraction", "--dimension", "memorability")
    assert result.exit_code == 1
    lines = {j["dimension"]: j for j in judge_lines(files[0])}
    assert lines["engagement"]["score"] == 8 and len(lines["engagement"]["evidence"]["calls"]) == 2
    assert set(lines) == {"engagement"}
    assert "memorability: [1] are not statement numbers" in result.output
    assert "wonder: the reply was cut off by the length limit" in result.output
    assert "attraction: the model declined to answer" in result.output
    assert f"{files[0]}: 1 of 4 evaluations recorded; not recorded: 1 cut off, 1 refused, 1 unparseable" \
        in result.output
    assert "3 evaluation(s) not recorded (1 cut off, 1 refused, 1 unparseable)" in result.output
    assert server.calls == 2 + 3 + 3 + 3  # engagement twice; the others up to the bound of three asks
    assert check_file(files[0]).ok


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
        names = props["mentions"]["items"]["properties"]["speaker"]["enum"]
        answer["mentions"] = [{"speaker": names[0], "target": names[1], "role": "seer"}]
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
    assert server.calls == 7 and f"{files[0]}: 7 of 7 evaluations recorded" in result.output
    assert all(f["type"] == "json_object" for f in sent)
    game = read_game(files[0])
    names = [p["name"] for p in json.loads(files[0].read_text().splitlines()[0])["players"]]
    mentions = next(f["schema"] for f in sent if "mentions" in f["schema"]["properties"])
    assert mentions["properties"]["mentions"]["items"]["properties"]["target"]["enum"] == names
    score = next(f["schema"] for f in sent if "score" in f["schema"]["properties"])
    assert score["properties"]["score"]["enum"][:3] == [1, 1.5, 2]  # llama.cpp ignores minimum/maximum
    highlights = next(f["schema"] for f in sent if "highlights" in f["schema"]["properties"])
    assert highlights["properties"]["highlights"]["minItems"] == HIGHLIGHTS
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
    assert len(lines) == 6 and "memorability" not in {j["dimension"] for j in lines}
    assert all("reasoning" not in j for j in lines) and lines[0]["judge"]["structured_reasoning"] == 200
    assert f"{files[0]}: 6 of 7 evaluations recorded; not recorded: 1 cut off" in result.output
    assert server.calls == 6 + 3 and check_file(files[0]).ok


def test_provider_failures_are_reported_not_raised(tmp_path):
    files = werewolf_replays(tmp_path / "r", count=1)
    before = files[0].read_bytes()
    with FakeOpenAI(lambda body, n: server_error(503)) as server:
        result = judge(files, tournament_file(tmp_path, server.base_url), "--dimension", "attraction")
    assert result.exit_code == 1 and "Traceback" not in result.output
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


def test_highlights_are_exactly_k_distinct_statement_numbers(game):
    numbers = [s.n for s in game.statements]
    assert read_highlights({"highlights": numbers[:HIGHLIGHTS]}, game) == {"highlights": numbers[:HIGHLIGHTS]}
    for bad, problem in [(numbers[:HIGHLIGHTS - 1], "exactly 10"), (numbers[:9] + numbers[:1], "repeat"),
                         (numbers[:9] + [0], "not statement numbers"), ("1,2,3", "list of statement numbers")]:
        with pytest.raises(Unreadable, match=problem):
            read_highlights({"highlights": bad}, game)


def test_variation_prompts_hide_roles_and_score_prompts_show_them(game):
    from runner.judge import prompt

    variation = prompt(game, Task("variation", 2))[1].content
    engagement = prompt(game, Task("engagement"))[1].content
    assert "really the" not in variation and "Round 2:" in variation and "Round 1:" not in variation
    assert sum(line.startswith("[#") for line in variation.splitlines()) == 8
    assert "(really the werewolf)" in engagement
    assert sum(line.startswith("[#") for line in engagement.splitlines()) == 24


def test_judge_lines_with_version_2_fields_raise_the_files_version(tmp_path):
    """A prompt-cache hit (OpenAI's cached_tokens) is a version-2 call field: the file's header says
    version 2 afterwards, and only that line of the game changed."""
    files = werewolf_replays(tmp_path / "r")
    before = files[0].read_bytes()
    assert json.loads(before.splitlines()[0])["version"] == 1

    def cached(body, call):
        return Reply(good_answer(chat_messages(body)[-1]["content"]), cached_input_tokens=512)

    with FakeOpenAI(cached) as server:
        result = judge([files[0]], tournament_file(tmp_path, server.base_url))
    assert result.exit_code == 0, result.output
    assert check_file(files[0]).ok
    after = files[0].read_bytes()
    header = json.loads(after.splitlines()[0])
    assert header["version"] == 2 and {**header, "version": 1} == json.loads(before.splitlines()[0])
    assert after.split(b"\n", 1)[1].startswith(before.split(b"\n", 1)[1])  # every other game line as it was
    assert len(judge_lines(files[0])) == 7
    assert all(c["cached_input_tokens"] == 512 for j in judge_lines(files[0]) for c in j["evidence"]["calls"])


def test_the_shipped_local_judge_file_defines_a_structured_judge():
    from runner.tournament import load

    path = Path(__file__).resolve().parents[2] / "runner" / "judges" / "local-cpu.toml"
    agent = load(path, matchups_required=False).agents["gemma3-270m-judge"]
    assert agent.is_llm and agent.spec["structured_output"] == "json_object" and agent.spec["max_tokens"] >= 300
