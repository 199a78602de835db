"""No API key ever reaches a replay, a file under the output folder, stdout or stderr: not through
error messages that echo it back, not through the judge, the dry run or the validator."""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from runner.cli import main
from tests.llm.fakes import Answer, FakeOpenAI, Fault, Reply, chat_messages, rate_limited
from tests.llm.test_judge_ewavm import good_answer
from tests.llm.test_tournament_llm import FAST_RETRIES, legal_reply, model_table

GOOD_KEY = "sk-proj-SECRETgood0123456789abcdefXYZ"
BAD_KEY = "sk-proj-SECRETbad9876543210fedcbaQRS"
KEYS = (GOOD_KEY, BAD_KEY)


def leaks(text: str) -> list[str]:
    """The keys (or a telling piece of one) found in `text`."""
    return [key for key in KEYS if key in text or key[8:24] in text]


class Echoing:
    """A server that quotes the caller's credentials back in its errors: the first time it sees
    about two requests in nine, chosen by the request's content, so that games played at once
    cannot make one request's retries all land on failing calls (the call counter is shared)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.seen: Counter[str] = Counter()

    @staticmethod
    def fails(digest: str) -> bool:
        """Whether the first sight of the request of this digest is answered with an error."""
        return int(digest, 16) % 9 in (4, 7)

    @property
    def faulted(self) -> set[str]:
        """The requests that were answered with an error."""
        return {digest for digest in self.seen if self.fails(digest)}

    def __call__(self, body: dict[str, Any], call: int) -> Answer:
        auth = body.get("_auth", "")
        digest = hashlib.sha256(json.dumps({k: v for k, v in body.items() if k != "_auth"},
                                           sort_keys=True).encode()).hexdigest()
        with self.lock:
            self.seen[digest] += 1
            first = self.seen[digest] == 1
        if first and self.fails(digest):
            if int(digest, 16) % 9 == 4:
                return Fault(500, f"internal error while serving Authorization: Bearer {auth} for you")
            limited = rate_limited(0.01)
            return Fault(429, f"rate limit for key {auth}", headers=limited.headers)
        messages = chat_messages(body)
        asked = next((m["content"] for m in messages if "=== Your question about this game ===" in m["content"]), None)
        if asked is not None:  # the judge's questions (and their re-asks)
            return good_answer(asked)
        return legal_reply(body, call)


class KeyEcho(FakeOpenAI):
    """The fake OpenAI server, handing the request's key to the script so it can echo it."""

    def _answer(self, handler: Any, body: Any, call: int) -> None:
        if isinstance(body, dict):
            body = {**body, "_auth": handler.headers.get("authorization", "").removeprefix("Bearer ")}
        super()._answer(handler, body, call)

    def error_body(self, status: int, message: str, request: Any) -> dict[str, Any]:
        # Like the real API on a bad key: the key itself in the message.
        if status == 401 and isinstance(request, dict):
            message = f"Incorrect API key provided: {request.get('_auth')}."
        return super().error_body(status, message, request)


def test_no_key_in_replays_files_or_output(tmp_path):
    outputs: list[str] = []

    def invoke(*args: str) -> Any:
        result = CliRunner().invoke(main, list(args), env={"GOOD_KEY": GOOD_KEY, "BAD_KEY": BAD_KEY})
        outputs.append(result.output)
        return result

    echoing = Echoing()
    with KeyEcho(echoing) as good, KeyEcho(lambda body, n: Fault(401, "x")) as bad:
        agents = {"good": model_table("openai", good.base_url).replace("TEST_LLM_KEY", "GOOD_KEY"),
                  "bad": model_table("openai_compatible", bad.base_url).replace("TEST_LLM_KEY", "BAD_KEY")}
        plan = tmp_path / "plan.toml"
        plan.write_text(f'''name = "secrets"
seed = 2
{FAST_RETRIES}
[agents.good]
{agents["good"]}
[agents.bad]
{agents["bad"]}
[agents.judge]
{agents["good"]}
[[matchups]]
game = "werewolf"
games = 1
roles = {{ "*" = "good" }}
[[matchups]]
game = "chameleon"
games = 2
roles = {{ chameleon = "good", non_chameleon = "chameleon/trivial" }}
[[matchups]]
game = "public_good"
games = 1
lineup = ["bad", "good", "random"]
''', encoding="utf-8")
        out = tmp_path / "out"
        run = invoke("run", str(plan), "--out", str(out), "--parallel", "4")
        # The bad key stops the run (the game it was in is not written); the other three games,
        # already under way, finish and are kept.
        assert run.exit_code == 1, run.output
        assert "stopped: the provider failed, not the model" in run.output and "HTTP 401" in run.output
        assert invoke("run", str(plan), "--dry-run").exit_code == 0
        invoke("validate", str(out))
        judged = invoke("judge", str(out), "--judge", "judge", "--tournament", str(plan))
        assert judged.exit_code in (0, 1), judged.output
    assert echoing.faulted and bad.calls  # the keys were really echoed back by the servers
    # A request that met an error is sent again unchanged (and then answered), so which requests
    # fail does not depend on how the games' calls interleave. Not every one: the game the bad key
    # stopped drops its own.
    assert any(echoing.seen[digest] >= 2 for digest in echoing.faulted)

    files = [p for p in out.rglob("*") if p.is_file()]
    records = [json.loads(line) for p in files if p.suffix == ".jsonl" for line in p.read_text(encoding="utf-8").splitlines()]
    assert (out / "tournament.toml") in files  # the plan is written too, and checked for keys below
    assert any(r.get("type") == "judge" for r in records), judged.output
    assert len([p for p in files if p.suffix == ".jsonl"]) == 3  # no replay of the bad key's game
    assert not [(p.name, leaks(p.read_text(encoding="utf-8", errors="replace"))) for p in files
                if leaks(p.read_text(encoding="utf-8", errors="replace"))]
    assert not [o for o in outputs if leaks(o)]
    assert not leaks(json.dumps([r for r in records if r.get("type") == "header"]))
    messages = [m["content"] for r in good.requests if isinstance(r.body, dict) for m in chat_messages(r.body)]
    assert not [m for m in messages if leaks(m)]  # nor is a key ever put into a prompt


def one_model_game(folder: Path, name: str, agent: str, table: str, key_variable: str) -> Path:
    """A tournament file of one Prisoner's Dilemma game of a model reading its key from `key_variable`."""
    plan = folder / "plan.toml"
    plan.write_text(f'''name = "{name}"
seed = 3
{FAST_RETRIES}
[agents.{agent}]
{table.replace("TEST_LLM_KEY", key_variable)}
[[matchups]]
game = "prisoners_dilemma"
games = 1
lineup = ["{agent}", "prisoners_dilemma/tit_for_tat", "random"]
''', encoding="utf-8")
    return plan


def test_a_key_a_model_repeats_in_its_reply_or_thinking_is_never_stored(tmp_path):
    """A compromised or chatty endpoint that puts the caller's key into the reply text."""
    def tattler(body: dict[str, Any], call: int) -> Answer:
        auth = body.get("_auth", "")
        reply = legal_reply(body, call)
        return Reply(f"(my key is {auth})\n{reply}", reasoning=f"the key {auth} looked fine")

    with KeyEcho(tattler) as server:
        plan = one_model_game(tmp_path, "tattle", "good", model_table("openai", server.base_url), "GOOD_KEY")
        out = tmp_path / "out"
        result = CliRunner().invoke(main, ["run", str(plan), "--out", str(out)], env={"GOOD_KEY": GOOD_KEY})
    assert result.exit_code == 0, result.output
    text = "".join(p.read_text(encoding="utf-8") for p in out.glob("*.jsonl"))
    assert "(my key is [redacted])" in text and "the key [redacted] looked fine" in text
    assert not leaks(text) and not leaks(result.output)
    cached = "".join(p.read_text(encoding="utf-8") for p in Path(os.environ["GAMENIGHT_CACHE_DIR"]).rglob("*.json"))
    assert cached and not leaks(cached)


@pytest.mark.parametrize("placeholder", ["k", "x", "EMPTY", "ollama", "sk-no-key-required"])
def test_a_placeholder_key_changes_nothing_the_server_sent(tmp_path, placeholder):
    """Local servers take short placeholder keys. Masking one everywhere would rewrite the model's
    text ("<think>" with the key "k" became "<thin[redacted]>") and so the move read from it; a
    value that short is no secret, so the replay keeps every reply exactly as the server sent it."""
    def thinker(body: dict[str, Any], call: int) -> Answer:
        answer = legal_reply(body, call)
        # A draft answer inside a <think> block, then the real answer after it.
        return f"<think>\nLet me check the keys of this game.\nANSWER: {{\"draft\": 1}}\n</think>\n{answer}"

    sent: list[str] = []
    with KeyEcho(lambda body, n: sent.append(text := thinker(body, n)) or text) as server:
        plan = one_model_game(tmp_path, "placeholder", "local", model_table("openai_compatible", server.base_url),
                              "LOCAL_KEY")
        out = tmp_path / "out"
        result = CliRunner().invoke(main, ["run", str(plan), "--out", str(out), "--no-cache"],
                                    env={"LOCAL_KEY": placeholder})
        assert result.exit_code == 0, result.output
        assert {r.headers["authorization"] for r in server.requests} == {f"Bearer {placeholder}"}
    (replay,) = out.glob("*.jsonl")
    records = [json.loads(line) for line in replay.read_text(encoding="utf-8").splitlines()]
    calls = [c for r in records for c in (r.get("evidence") or {}).get("calls", [])]
    assert [c["reply"] for c in calls] == sent and "[redacted]" not in replay.read_text(encoding="utf-8")
    moves = [r for r in records if r.get("type") == "event" and r["kind"] == "action" and r["seat"] == 0]
    assert len(moves) == 5 and not any(r.get("attempts") for r in moves)  # the draft was never taken
