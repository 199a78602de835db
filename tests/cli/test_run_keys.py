"""The contributor's path: a key variable for any model (`--key-env`, `api_key_env`), the key and
the server checked before anything is dealt, played or written, and a row under a label of one's
own (`--label`), through click's CliRunner against the fake OpenAI-compatible server of
tests/llm/fakes.py made to require a key (the real openai SDK over real HTTP)."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from runner import suite
from runner.cli import main
from runner.tournament import load
from tests.llm.fakes import FakeOpenAI
from tests.llm.test_tournament_llm import legal_reply

#: Long enough to be masked as a secret (runner/llm/redact.py), shaped like no provider's key.
KEY = "fake-server-key-7c1e95b02d4a6f38"
VARIABLE = "MY_SERVER_KEY"


def invoke(*args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(main, list(args), env=env)


def ranked(model: str, out: Path, cache: Path, *extra: str, env: dict[str, str] | None = None) -> Result:
    return invoke("run", "--suite", "ranked", "--model", model, "--out", str(out), "--cache-dir", str(cache), *extra,
                  env=env)


def error_lines(result: Result) -> list[str]:
    return [line for line in result.output.splitlines() if line.startswith("Error:")]


def files_holding(root: Path, text: str) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and text.encode() in p.read_bytes()]


def test_a_ranked_stage_through_a_server_that_needs_a_key_never_writes_the_key(tmp_path):
    out, cache = tmp_path / "row", tmp_path / "cache"
    with FakeOpenAI(legal_reply, key=KEY) as server:
        model = f"openai_compatible:tiny@{server.base_url}"
        played = ranked(model, out, cache, "--key-env", VARIABLE, "--label", "tiny-alice", env={VARIABLE: KEY})
        keys_sent = {r.headers.get("authorization") for r in (*server.requests, *server.listings)}
    assert played.exit_code == 0, played.output
    assert "tournament ranked-1-tiny-alice: 23 games" in played.output
    assert len(list(out.glob("*.jsonl"))) == 23 and server.calls > 23
    assert keys_sent == {f"Bearer {KEY}"}  # every call, and the check before them, carried the key
    assert invoke("validate", str(out)).exit_code == 0
    # Nowhere: not in a replay, the plan beside them, the response cache, the record, or the output.
    assert files_holding(out, KEY) == [] and files_holding(cache, KEY) == [] and KEY not in played.output
    assert files_holding(out, VARIABLE) == [] and files_holding(cache, VARIABLE) == []
    assert suite.plan_problems(load(out / "tournament.toml")) == []  # the row the check expects


def test_the_key_variable_is_not_part_of_the_row(tmp_path):
    """The same row played with the key in two variables: the same plan, game ids and agents."""
    rows = {}
    with FakeOpenAI(legal_reply, key=KEY) as server:
        for variable in ("FIRST_SERVER_KEY", "SECOND_SERVER_KEY"):
            out = tmp_path / variable
            result = ranked(f"openai_compatible:tiny@{server.base_url}", out, tmp_path / f"cache-{variable}",
                            "--key-env", variable, env={variable: KEY})
            assert result.exit_code == 0, result.output
            rows[variable] = ((out / "tournament.toml").read_bytes(),
                              {p.name: json.loads(p.read_text(encoding="utf-8").split("\n", 1)[0])["players"]
                               for p in out.glob("*.jsonl")})
    assert rows["FIRST_SERVER_KEY"] == rows["SECOND_SERVER_KEY"]


def test_a_wrong_key_is_refused_before_anything_naming_the_variable(tmp_path):
    out = tmp_path / "row"
    with FakeOpenAI(legal_reply, key=KEY) as server:
        url = server.base_url
        wrong = ranked(f"openai_compatible:tiny@{url}", out, tmp_path / "cache", "--key-env", VARIABLE,
                       env={VARIABLE: "not-the-key-0123456789abcdef"})
        calls, listings = server.calls, len(server.listings)
    assert wrong.exit_code == 1 and "Traceback" not in wrong.output
    # What is waited for is said first (a slow server takes seconds to answer), then why it failed.
    assert wrong.stderr.splitlines()[0] == "checking the model's key and server ..."
    [line] = error_lines(wrong)
    assert line.startswith(f"Error: cannot start: openai_compatible model 'tiny' at {url}: the server refused the "
                           f"key in the environment variable {VARIABLE} (HTTP 401 authentication failed")
    assert "not-the-key" not in wrong.output
    assert calls == 0 and listings == 1  # one model list, no call, no game, not even the plan
    assert not out.exists()


def test_a_server_asking_for_a_key_none_was_sent_for_says_how_to_name_one(tmp_path):
    with FakeOpenAI(legal_reply, key=KEY) as server:
        result = ranked(f"openai_compatible:tiny@{server.base_url}", tmp_path / "row", tmp_path / "cache", env={})
    [line] = error_lines(result)
    assert "the server asks for a key and none was sent, as no key variable is named" in line
    assert "--key-env VAR" in line and 'api_key_env = "VAR"' in line and server.calls == 0


def test_a_server_that_is_down_is_named_with_its_url(tmp_path):
    with FakeOpenAI(legal_reply) as probe:
        port = probe.port  # free again once the server is gone
    url = f"http://127.0.0.1:{port}/v1"
    result = ranked(f"openai_compatible:tiny@{url}", tmp_path / "row", tmp_path / "cache", "--key-env", VARIABLE,
                    env={VARIABLE: KEY})
    [line] = error_lines(result)
    assert line == (f"Error: cannot start: openai_compatible model 'tiny': cannot connect to {url}: connection "
                    "refused (is the server running at that address?)")
    assert not (tmp_path / "row").exists()


def test_a_local_server_with_no_key_and_no_model_list_still_plays(tmp_path):
    """llama.cpp, vLLM or Ollama with no key: nothing to name; a server that lists no models (404) is
    left to the run's own calls."""
    with FakeOpenAI(legal_reply, models=False) as server:
        result = ranked(f"openai_compatible:tiny@{server.base_url}", tmp_path / "row", tmp_path / "cache",
                        "--stages", "1", env={})
        listed = [r.path for r in server.listings]
    assert result.exit_code == 0, result.output
    assert listed == ["/v1/models", "/v1/models"]  # before the stage is dealt, and as the run starts
    assert len(list((tmp_path / "row").glob("*.jsonl"))) == 23


def test_a_label_names_the_row_its_folder_and_its_agent(tmp_path):
    runner = CliRunner()
    with FakeOpenAI(legal_reply) as server, runner.isolated_filesystem(temp_dir=tmp_path) as here:
        model = f"openai_compatible:gemma-3-270m@{server.base_url}"
        result = runner.invoke(main, ["run", "--suite", "ranked", "--model", model, "--label", "gemma-alice",
                                      "--cache-dir", str(tmp_path / "cache")], env={})
        plain = suite.tournament_for(suite.find("ranked"), suite.candidate(suite.find("ranked"), model), 1)
    assert result.exit_code == 0, result.output
    assert "tournament ranked-1-gemma-alice: 23 games -> replays/ranked-1-gemma-alice" in result.output
    out = Path(here) / "replays" / "ranked-1-gemma-alice"  # the default folder: the row's own
    plan = tomllib.loads((out / "tournament.toml").read_text(encoding="utf-8"))
    assert plan["suite"]["model"] == "gemma-alice" and "gemma-alice" in plan["agents"]
    assert "gemma-3-270m" not in plan["agents"]
    ids = {p.stem for p in out.glob("*.jsonl")}
    assert len(ids) == 23 and not ids & {g.game_id for g in plain.plan()}  # games of its own
    assert suite.plan_problems(load(out / "tournament.toml")) == []


@pytest.mark.parametrize("args, message", [
    (("--game", "prisoners_dilemma", "--lineup", "random,random,random", "--label", "x"),
     "--label names a row of the suite: it goes with --suite and --model"),
    (("--suite", "ranked", "--model", "builtin:random", "--label", "mine"),
     "--label: --model builtin:random is a built-in row of the suite"),
    (("--suite", "ranked", "--model", "builtin:scripted", "--key-env", "K"),
     "--key-env: --model builtin:scripted is a built-in row of the suite"),
    (("--suite", "ranked", "--model", "openai:gpt-4o", "--label", "builtin-gpt"),
     "labels starting with builtin- name the suite's built-in rows"),
    (("--suite", "ranked", "--model", "openai:gpt-4o", "--label", "my row"), "--label 'my row': a label is a short slug"),
    (("--suite", "ranked", "--model", "openai:gpt-4o", "--key-env", "sk-proj-abcdef0123456789"),
     "--key-env: must be the NAME of an environment variable"),
    (("--game", "prisoners_dilemma", "--lineup", "random,random,random", "--key-env", "K"),
     "--key-env: no language model plays in this run"),
])
def test_bad_label_and_key_flags_get_one_clear_line(tmp_path, args, message):
    result = invoke("run", *args, "--out", str(tmp_path / "x"))
    assert result.exit_code == 1 and message in result.output and "Traceback" not in result.output
    assert "sk-proj-abcdef" not in result.output
    assert not (tmp_path / "x").exists()


def test_key_env_gives_a_tournament_files_models_their_key(tmp_path):
    with FakeOpenAI(legal_reply, key=KEY) as server:
        plan = tmp_path / "plan.toml"
        plan.write_text(f'name = "keyed"\nseed = 1\n[agents.m]\nprovider = "openai_compatible"\nmodel = "m"\n'
                        f'base_url = "{server.base_url}"\napi_key_env = "OLD_KEY"\n'
                        '[[matchups]]\ngame = "prisoners_dilemma"\ngames = 2\nrules = { rounds = 2 }\n'
                        'lineup = ["m", "random", "random"]\n', encoding="utf-8")
        out = tmp_path / "out"
        refused = invoke("run", str(plan), "--out", str(out), env={"OLD_KEY": "wrong-wrong-wrong-wrong"})
        played = invoke("run", str(plan), "--out", str(out), "--key-env", VARIABLE, env={VARIABLE: KEY})
    assert refused.exit_code == 1 and "refused the key in the environment variable OLD_KEY" in refused.output
    assert played.exit_code == 0, played.output  # --key-env wins over the file's api_key_env
    assert len(list(out.glob("*.jsonl"))) == 2 and files_holding(out, KEY) == []
    assert "OLD_KEY" not in (out / "tournament.toml").read_text(encoding="utf-8")


def test_key_env_refuses_one_key_for_two_servers(tmp_path):
    plan = tmp_path / "plan.toml"
    plan.write_text('name = "two"\n[agents.a]\nprovider = "openai"\nmodel = "gpt-4o"\n'
                    '[agents.b]\nprovider = "openai_compatible"\nmodel = "m"\nbase_url = "http://127.0.0.1:9/v1"\n'
                    '[[matchups]]\ngame = "prisoners_dilemma"\nlineup = ["a", "b", "random"]\n', encoding="utf-8")
    result = invoke("run", str(plan), "--key-env", VARIABLE, "--out", str(tmp_path / "x"))
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert ("--key-env MY_SERVER_KEY: the run's models reach 2 servers (openai at its own API, openai_compatible at "
            "http://127.0.0.1:9/v1)") in result.output
