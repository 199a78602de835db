"""Tournaments with language-model agents, end to end: the real SDKs over real HTTP to the fake
servers of tests/llm/fakes.py, which answer gamenight's prompts legally by reading them.

Also here: the shipped LLM tournament files, `gamenight run --dry-run`, provider faults and
unreadable replies (re-asks recorded as attempts, exhausted games kept as invalid).
"""

from __future__ import annotations

import dataclasses

import asyncio
import json
import re
import tomllib
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from runner.cli import main
from runner.run import estimate, run
from runner.tournament import from_dict, load
from tests.llm.fakes import (Answer, FakeAnthropic, FakeOpenAI, chat_messages, find_secret, length_cut, malformed_json,
                             rate_limited, request_tokens, server_error, too_slow)

KEY = "sk-test-e2e-4d2c81f09a7b3e65"
ENV = {"TEST_LLM_KEY": KEY}

# -- a model that plays legally, by reading gamenight's prompts ---------------------------

_FORMAT = re.compile(r"^ANSWER: (\{.*\})", re.MULTILINE)
_CHOICES = re.compile(r"Choose (?:one|two) of(?: the card's words)?: (\".*?\")\.(?: |$)", re.MULTILINE)


def _names(system: str) -> list[str]:
    """Every player's name, from the first line of the rules."""
    seat_list = re.search(r"The players, in seat order, are (1\. .+?)\.\n", system)
    if seat_list:
        return [re.sub(r"^\d+\. ", "", part) for part in seat_list.group(1).split(", ")]
    listed = re.search(r"(?:The players(?:, in seat order,)? are |\()(.+?)(?:\.\n|\))", system)
    assert listed, system[:300]
    return [p.strip() for p in re.split(r", | and ", listed.group(1)) if p.strip()]


def _me(system: str) -> str:
    return re.match(r"You (?:are|represent) (.+?), one of", system).group(1)  # type: ignore[union-attr]


#: The answer as prompt set 4 on describes it in words, with no example to fill in.
_DESCRIBED = re.compile(r"(?:ANSWER: followed by|Reply with only) (a JSON object .*?)\.(?= Write nothing| Put one|$)",
                        re.DOTALL)


def legal_answer(messages: list[dict[str, str]]) -> dict[str, Any] | None:
    """The action (or belief) a cautious player would give; None for a call that wants prose."""
    system, prompt = messages[0]["content"], messages[1]["content"]  # a re-ask repeats the question
    described = _DESCRIBED.findall(prompt)
    if described:
        return described_answer(described[-1], system, prompt)
    formats = _FORMAT.findall(prompt)
    if not formats:
        return None  # the PGM belief analysis: free text
    shape = formats[-1]
    if shape.startswith('{"plan"'):
        return {"plan": "Stay calm and answer plainly."}
    if '"p": <0.01 to 1.00>' in shape:  # a Judgement of the players the question lists
        asked = re.search(r"For each of (.+?): which role", prompt).group(1)
        role = re.search(r'"role": "<(.+?) or ', shape).group(1)
        return {n.removesuffix(" (you)"): {"role": role, "p": 0.5} for n in asked.split(", ")}
    field = re.match(r'\{"(\w+)"', shape)
    choices = _CHOICES.findall(prompt)
    options = json.loads("[" + choices[-1] + "]") if choices else []
    if field and options:  # votes, looks, guesses, proposals, choices, beliefs, strategies
        name = field.group(1)
        return {name: options[:2]} if name == "look" else {name: options[-1]}
    names, me = _names(system), _me(system)
    if '"clue": [' in shape:
        words = json.loads("[" + re.search(r"card's \d+ words are: (.+?)\.\n", prompt).group(1) + "]")
        return {"clue": words[:1]}
    if '"clue"' in shape:
        return {"clue": "bright" if "one-word" in shape else "Something you might find at home"}
    if '"text"' in shape:
        return {"text": f"I am a Villager and I suspect {next(n for n in names if n != me)}."}
    if '"split"' in shape:
        return {"split": [40, 30, 30]}
    if '"contribution"' in shape:
        return {"contribution": int(re.search(r"whole number from (\d+)", shape).group(1))}
    return {}  # a favor update: no opinion yet


def described_answer(shape: str, system: str, prompt: str) -> dict[str, Any]:
    """`legal_answer` for a question whose answer is described in words (prompt set 4 on)."""
    if "a field for each other player you judge" in shape:
        asked = re.search(r"For each of (.+?): which role", prompt).group(1)
        role = re.search(r'"role", "([^"]+)"', shape).group(1)
        return {n.removesuffix(" (you)"): {"role": role, "p": 0.5} for n in asked.split(", ")}
    field = re.search(r'with one field, "(\w+)": (.*)', shape, re.DOTALL)
    if field is None:
        return {}  # a favor rating or a PGM update: no opinion yet
    name, value = field.groups()
    if name == "plan":
        return {"plan": "Stay calm and answer plainly."}
    choices = _CHOICES.findall(prompt)
    options = json.loads("[" + choices[-1] + "]") if choices else []
    if options:  # votes, looks, guesses, proposals, choices, beliefs
        return {name: options[:2]} if name == "look" else {name: options[-1]}
    names, me = _names(system), _me(system)
    if name == "clue" and value.startswith("a list of the card's words"):
        words = json.loads("[" + re.search(r"card's \d+ words are: (.+?)\.\n", prompt).group(1) + "]")
        return {"clue": words[:1]}
    if name == "clue":
        return {"clue": "bright" if "a single word" in value else "Something you might find at home"}
    if name == "text":
        return {"text": f"I am a Villager and I suspect {next(n for n in names if n != me)}."}
    if name == "split":
        return {"split": [40, 30, 30]}
    if name == "contribution":
        return {"contribution": int(re.search(r"whole number from (\d+)", value).group(1))}
    return {name: json.loads("[" + value + "]")[-1]} if value.startswith('"') else {}  # "a" or "b": the last


def legal_reply(body: dict[str, Any], call: int) -> Answer:
    """A fake server script: reasoning, then the legal answer line (prose alone for analyses)."""
    answer = legal_answer(chat_messages(body))
    if answer is None:
        return "As I see it, nobody has shown their hand yet."
    return f"Let me think about this carefully.\nANSWER: {json.dumps(answer, ensure_ascii=False)}"


# -- tournaments -------------------------------------------------------------------------

#: Retries at the speed of a test (the fakes answer in microseconds).
FAST_RETRIES = "".join(f"[providers.{p}]\nmax_retries = 2\nbackoff_base_s = 0.01\nbackoff_max_s = 0.05\n"
                       for p in ("openai", "anthropic", "openai_compatible"))


def six_games(agents: dict[str, str], *, games: int = 1, extra: str = "", limits: str = FAST_RETRIES) -> str:
    """A tournament of all six games (and both Chameleon variants) for the given agent tables."""
    tables = "\n".join(f"[agents.{name}]\n{body}" for name, body in agents.items())
    a, b, c = (list(agents) * 3)[:3]
    return f'''name = "e2e"
seed = 11
created = "2026-11-21"
{limits}
{extra}
{tables}
[[matchups]]
game = "chameleon"
games = {games}
roles = {{ chameleon = "{a}", non_chameleon = "{b}" }}
[[matchups]]
game = "chameleon"
games = {games}
rules = {{ players = 3, clue = "sentence", ties = "even" }}
roles = {{ chameleon = "{b}", non_chameleon = "{c}" }}
[[matchups]]
game = "chameleon"
games = {games}
rules = {{ players = 4, words = 20, clue = "subset" }}
roles = {{ "*" = "{a}" }}
[[matchups]]
game = "undercover"
games = {games}
rules = {{ players = 3 }}
roles = {{ undercover = "{a}", civilian = "{c}" }}
[[matchups]]
game = "cost_sharing"
games = {games}
rules = {{ rounds = 2 }}
lineup = ["{a}", "{b}", "{c}"]
[[matchups]]
game = "prisoners_dilemma"
games = {games}
rules = {{ rounds = 2 }}
lineup = ["{a}", "{b}", "{c}"]
[[matchups]]
game = "public_good"
games = {games}
rules = {{ rounds = 2 }}
lineup = ["{a}", "{b}", "{c}"]
[[matchups]]
game = "werewolf"
games = {games}
roles = {{ werewolf = "{a}", seer = "{b}", "*" = "werewolf/strategic" }}
'''


def model_table(provider: str, base_url: str, *, design: str = "vanilla", model: str = "test-model",
                extra: str = "") -> str:
    temperature = "" if provider == "anthropic" else "temperature = 0.0\n"  # Anthropic's API takes none
    return (f'provider = "{provider}"\nmodel = "{model}"\nbase_url = "{base_url}"\napi_key_env = "TEST_LLM_KEY"\n'
            f'{temperature}max_tokens = 300\ndesign = "{design}"\n{extra}')


def play(tmp_path: Path, toml: str, *args: str, env: dict[str, str] | None = None):
    plan = tmp_path / "plan.toml"
    plan.write_text(toml, encoding="utf-8")
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["run", str(plan), "--out", str(out), "--parallel", "8", *args],
                                env=ENV if env is None else env)
    return result, out


def replays(out: Path) -> list[dict[str, Any]]:
    """Every replay under `out` as {"path", "records"}."""
    return [{"path": p, "records": [json.loads(line) for line in p.read_text(encoding="utf-8").splitlines()]}
            for p in sorted(out.glob("*.jsonl"))]


def assert_all_valid(out: Path) -> None:
    result = CliRunner().invoke(main, ["validate", str(out)])
    assert result.exit_code == 0, result.output


def test_all_six_games_through_the_openai_protocol(tmp_path):
    with FakeOpenAI(legal_reply) as server:
        agents = {"gpt": model_table("openai", server.base_url),
                  "gpt-pgm": model_table("openai", server.base_url, design="pgm"),
                  "gpt-mix": model_table("openai_compatible", server.base_url, design="strategy")}
        result, out = play(tmp_path, six_games(agents, extra='[prices."test-model"]\ninput = 1.0\noutput = 2.0\n'))
    assert result.exit_code == 0, result.output
    games = replays(out)
    assert len(games) == 8
    assert_all_valid(out)
    assert all(g["records"][-1]["status"] == "complete" for g in games), [g["records"][-1] for g in games]
    for game in games:
        llm_seats = [p for p in game["records"][0]["players"] if p["agent"]["kind"] == "llm"]
        assert llm_seats and all(p["agent"]["model_reported"] == "test-model" for p in llm_seats)
        calls = [c for r in game["records"] for c in (r.get("evidence") or {}).get("calls", [])]
        assert calls and all(c["reply"] and c["input_tokens"] and c["latency_ms"] >= 0 for c in calls)
    designs = {p["agent"]["design"] for g in games for p in g["records"][0]["players"] if p["agent"]["kind"] == "llm"}
    assert designs == {"vanilla", "pgm", "strategy"}
    assert server.calls > 100 and "model calls in the games played now" in result.output
    line = next(x for x in result.output.splitlines() if x.strip().startswith("test-model"))
    assert f"{server.calls:,}" in line  # every call the server saw is in the totals
    assert re.search(r"test-model .* \d+\.\d\d$", line)  # and its cost from the price table
    request = server.requests[0]
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert len(find_secret(server, [KEY])) == server.calls  # only ever in that header
    assert request.body["temperature"] == 0.0 and request.body["model"] == "test-model"


def test_all_six_games_through_the_anthropic_protocol(tmp_path):
    with FakeAnthropic(legal_reply) as server:
        agents = {"claude": model_table("anthropic", server.base_url),
                  "claude-favor": model_table("anthropic", server.base_url, design="favor"),
                  "claude-b5p": model_table("anthropic", server.base_url, design="b5p")}
        result, out = play(tmp_path, six_games(agents))
    assert result.exit_code == 0, result.output
    games = replays(out)
    assert len(games) == 8 and all(g["records"][-1]["status"] == "complete" for g in games)
    assert_all_valid(out)
    assert {place.split(" ", 2)[2] for place in find_secret(server, [KEY])} <= {"header x-api-key",
                                                                               "header authorization"}
    assert len(find_secret(server, [KEY])) == server.calls  # the key travels once per call, in a header
    assert "system" in server.requests[0].body and server.requests[0].body["max_tokens"] == 300


def test_faults_are_survived_and_recorded(tmp_path):
    """429 with retry-after, 500, timeouts, malformed JSON, cut and prose-only replies."""
    def faulty(body: dict[str, Any], call: int) -> Answer:
        turn = call % 23
        if turn == 3:
            return rate_limited(0.05)
        if turn == 6:
            return server_error(500)
        if turn == 9 and call < 100:
            return too_slow(1.5)  # the client's timeout is 0.5 s
        if turn == 12:
            return malformed_json()
        if turn == 15:
            return length_cut("Let me think about this carefully, because the")
        if turn == 18:
            answer = legal_answer(chat_messages(body))
            word = next(iter(answer.values())) if answer else "nothing"
            return f"I would go with {json.dumps(word)} here, definitely {json.dumps(word)}."  # no ANSWER line
        if turn == 21:
            return f"{legal_reply(body, call)}\nThat is my move, good luck everyone."  # prose after the answer
        return legal_reply(body, call)

    limits = "[providers.openai]\nmax_retries = 4\nbackoff_base_s = 0.01\nbackoff_max_s = 0.1\n"
    with FakeOpenAI(faulty) as server:
        agents = {"gpt": model_table("openai", server.base_url, extra="timeout_s = 0.5\n")}
        result, out = play(tmp_path, six_games(agents, limits=limits))
    assert result.exit_code == 0, result.output
    assert_all_valid(out)
    games = replays(out)
    assert len(games) == 8
    events = [r for g in games for r in g["records"] if r["type"] == "event"]
    attempts = [a for e in events for a in e.get("attempts", [])]
    assert any("cut off by the length limit" in a["error"] for a in attempts)
    assert any("no ANSWER line" in a["error"] and "definitely" in a["raw"] for a in attempts)
    calls = [c for e in events for c in (e.get("evidence") or {}).get("calls", [])]
    refused = {a["raw"] for a in attempts}
    # Prose after the answer line is read: those replies were accepted, not refused.
    assert any("good luck everyone" in (c["reply"] or "") and c["reply"] not in refused for c in calls)
    # Provider trouble is retried inside the call; what reached the agent was a reply.
    assert all(c["error"] is None for e in events for c in (e.get("evidence") or {}).get("calls", []))
    assert server.calls > sum(len((e.get("evidence") or {}).get("calls", [])) for e in events)


def test_games_that_exhaust_their_attempts_end_invalid_and_are_kept(tmp_path):
    with FakeOpenAI(lambda body, n: "I really cannot decide what to do.") as server:
        toml = f'''name = "stubborn"
seed = 3
max_attempts = 2
[agents.mute]
{model_table("openai", server.base_url)}
[[matchups]]
game = "prisoners_dilemma"
games = 2
lineup = ["mute", "prisoners_dilemma/tit_for_tat", "random"]
'''
        result, out = play(tmp_path, toml)
    assert result.exit_code == 0, result.output
    games = replays(out)
    assert len(games) == 2 and all(g["records"][-1]["status"] == "invalid" for g in games)
    assert_all_valid(out)
    forfeit = next(r for r in games[0]["records"] if r["type"] == "event" and r["kind"] == "forfeit")
    assert len(forfeit["attempts"]) == 2 and all("no ANSWER line" in a["error"] for a in forfeit["attempts"])
    assert len(forfeit["evidence"]["calls"]) == 2
    assert re.search(r"prisoners_dilemma\s+2\s+0\s+2", result.output)  # played, kept, invalid


def test_a_missing_key_stops_the_run_before_any_game(tmp_path, monkeypatch):
    monkeypatch.delenv("TEST_LLM_KEY", raising=False)
    result, out = play(tmp_path, six_games({"gpt": model_table("openai", "http://127.0.0.1:9/v1")}), env={})
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert "environment variable TEST_LLM_KEY is not set" in result.output
    assert not list(out.glob("*.jsonl"))


def test_a_finished_tournament_resumes_without_its_key(tmp_path, monkeypatch):
    monkeypatch.delenv("TEST_LLM_KEY", raising=False)
    with FakeOpenAI(legal_reply) as server:
        toml = f'''name = "done"
[agents.m]
{model_table("openai", server.base_url)}
[[matchups]]
game = "prisoners_dilemma"
games = 2
lineup = ["m", "random", "random"]
'''
        first, out = play(tmp_path, toml)
        again, _ = play(tmp_path, toml, env={})
    assert first.exit_code == 0 and again.exit_code == 0, again.output
    assert re.search(r"prisoners_dilemma\s+0\s+2\s+0", again.output)  # nothing to play: no key needed


def test_one_connections_registry_per_run_closed_at_the_end(tmp_path, monkeypatch):
    from runner.llm import connections

    opened: list[Any] = []

    class Counting(connections.Connections):
        def __init__(self, *args: Any, **kwargs: Any):
            super().__init__(*args, **kwargs)
            self.closed = False
            opened.append(self)

        async def aclose(self) -> None:
            self.closed = True
            await super().aclose()

    monkeypatch.setattr(connections, "Connections", Counting)
    with FakeOpenAI(legal_reply) as server:
        tournament = from_dict({"name": "reg", "seed": 1, "agents": {
            "a": {"provider": "openai", "model": "m1", "base_url": server.base_url, "api_key_env": "K"},
            "b": {"provider": "openai", "model": "m2", "base_url": server.base_url, "api_key_env": "K"}},
            "matchups": [{"game": "prisoners_dilemma", "games": 3, "rules": {"rounds": 1},
                          "lineup": ["a", "b", "random"]}]})
        summary = asyncio.run(run(tournament, tmp_path, parallel=3, environ={"K": KEY}))
    assert summary.ok and summary.played["prisoners_dilemma"] == 3
    assert len(opened) == 1 and opened[0].closed
    assert set(summary.usage) == {"m1", "m2"} and summary.usage["m1"].calls == 3


# -- the shipped tournament files and the dry run -------------------------------------------

SHIPPED = ["chameleon-002.toml", "magic-003.toml", "magic-003-reference.toml", "local-openai-compatible.toml",
           "local-cpu.toml", "local-cpu-4.toml", "local-cpu-pgm-4.toml", "local-cpu-strategy-4.toml"]


def shipped(name: str) -> Path:
    return Path(str(resources.files("runner").joinpath("tournaments", name)))


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_llm_tournaments_load_and_dry_run_without_keys(name, monkeypatch):
    for variable in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.delenv(variable, raising=False)
    tournament = load(shipped(name))
    assert tournament.llm_agents()
    result = CliRunner().invoke(main, ["run", str(shipped(name)), "--dry-run"], env={})
    assert result.exit_code == 0, result.output
    assert f"dry run of tournament {tournament.name}: {len(tournament.plan()):,} games" in result.output
    assert "nothing is played and no API key is needed" in result.output


@pytest.mark.parametrize("old", ["local-cpu", "local-cpu-pgm", "local-cpu-strategy"])
def test_the_prompt_set_4_replays_are_the_shipped_model_plans_under_new_names(old):
    """The real model's games played again with prompt set 4 (docs/llm.md): the same agents,
    matchups and seed, under a name of their own so that they are new games beside the old ones
    (at most as many games per matchup: the CPU was shared while local-cpu-4 played)."""
    before, after = load(shipped(f"{old}.toml")), load(shipped(f"{old}-4.toml"))
    assert after.name == f"{old}-4" and after.seed == before.seed and after.max_attempts == before.max_attempts
    assert after.agents == before.agents
    assert [dataclasses.replace(m, games=1) for m in after.matchups] == \
        [dataclasses.replace(m, games=1) for m in before.matchups]
    assert all(1 <= a.games <= b.games for a, b in zip(after.matchups, before.matchups))
    assert {g.game_id for g in after.plan()}.isdisjoint(g.game_id for g in before.plan())


def test_chameleon_002_is_the_papers_design():
    tournament = load(shipped("chameleon-002.toml"))
    models = {a.spec["model"] for a in tournament.llm_agents()}
    assert len(models) == 5 and len(tournament.matchups) == 25
    pairs = {(m.roles["chameleon"].name, m.roles["non_chameleon"].name) for m in tournament.matchups}
    assert len(pairs) == 25
    assert all(m.games == 100 and m.rules == {"players": 4, "words": 16, "clue": "word", "ties": "pick"}
               for m in tournament.matchups)
    gemini = next(a for a in tournament.llm_agents() if "gemini" in a.spec["model"])
    assert gemini.spec["provider"] == "openai_compatible" and gemini.spec["base_url"]
    assert set(tournament.prices) == models


def test_magic_003_is_the_papers_design():
    tournament = load(shipped("magic-003.toml"))
    counts: dict[tuple[str, str], int] = {}
    for m in tournament.matchups:
        challenger = next(a.name for a in (*m.roles.values(), *m.lineup) if a.name.startswith("challenger"))
        counts[(m.game, challenger)] = counts.get((m.game, challenger), 0) + m.games
        assert all(a.name in (challenger, "gpt4-defender") for a in (*m.roles.values(), *m.lineup))
        if m.game in ("chameleon", "undercover"):
            assert m.rules["players"] == 3
    for challenger in ("challenger", "challenger-pgm"):
        assert counts[("chameleon", challenger)] == counts[("undercover", challenger)] == 40
        assert all(counts[(g, challenger)] == 21 for g in ("cost_sharing", "prisoners_dilemma", "public_good"))
    assert tournament.agents["challenger-pgm"].spec["design"] == "pgm"
    assert all(a.spec["temperature"] == 0.0 for a in tournament.llm_agents())


def test_magic_003_follows_the_paper_and_its_reference_twin_the_authors_code():
    paper, code = load(shipped("magic-003.toml")), load(shipped("magic-003-reference.toml"))
    # The paper's protocol is gamenight's defaults, which the variant does not record.
    assert all("probe_schedule" not in m.rules and "agreement" not in m.rules for m in paper.matchups)
    expected = {"chameleon": {"probe_schedule": "every_clue"}, "undercover": {"probe_schedule": "every_round"},
                "cost_sharing": {"agreement": "same_split"}, "prisoners_dilemma": {}, "public_good": {}}
    assert len(code.matchups) == len(paper.matchups)
    for mine, theirs in zip(code.matchups, paper.matchups):
        assert mine.rules == {**theirs.rules, **expected[mine.game]}
        assert (mine.games, mine.roles, mine.lineup) == (theirs.games, theirs.roles, theirs.lineup)
    assert code.agents == paper.agents and code.seed == paper.seed and code.name == "magic-003-reference"


def test_local_tournament_points_at_a_local_server():
    tournament = load(shipped("local-openai-compatible.toml"))
    assert {a.spec["base_url"] for a in tournament.llm_agents()} == {"http://127.0.0.1:8000/v1"}
    assert all(a.access["api_key_env"] is None for a in tournament.llm_agents())


def estimate_of(agent: dict[str, Any], matchup: dict[str, Any], **top: Any):
    tournament = from_dict({"name": "est", "seed": 1, "agents": {"m": {"provider": "openai", "model": "m", **agent}},
                            "matchups": [matchup], **top})
    return asyncio.run(estimate(tournament))[0]


CHAMELEON_4 = {"game": "chameleon", "games": 10, "roles": {"*": "m"}}


def test_dry_run_counts_follow_the_rules():
    # The Chameleon, 4 players, probes off: 4 clues + 4 votes + a guess when the chameleon is caught.
    quiet = estimate_of({}, CHAMELEON_4, probes=False)
    assert 8 * 10 <= quiet.total().calls <= 9 * 10
    # Probes at the vote: each non-chameleon answers suspect and suspect_of x 3, the chameleon
    # suspect_of x 3 and secret (nobody is asked the role it was told): 4 x 4 per game.
    probed = estimate_of({}, CHAMELEON_4)
    assert probed.total().calls == pytest.approx(quiet.total().calls + 4 * 4 * 10)
    # probe_schedule = "every_clue": the same questions after each of the 4 clues.
    each = estimate_of({}, {**CHAMELEON_4, "rules": {"probe_schedule": "every_clue"}})
    assert each.total().calls == pytest.approx(quiet.total().calls + 4 * 4 * 4 * 10)
    # Prisoner's Dilemma: 5 rounds x 1 choice, for the one LLM seat of 3; no probes in this game.
    pd = estimate_of({}, {"game": "prisoners_dilemma", "games": 21, "lineup": ["m", "random", "random"]})
    assert pd.total().calls == 5 * 21 and pd.games == 21
    # Werewolf, all 8 seats: 1 night look + 24 statements + 8 votes + 3 x 8 beliefs (seven
    # suspicions and the Werewolf's guess of whom the others suspect).
    ww = estimate_of({}, {"game": "werewolf", "games": 2, "roles": {"*": "m"}})
    assert ww.total().calls == 2 * (1 + 24 + 8 + 24)


PD_5 = {"game": "prisoners_dilemma", "games": 4, "lineup": ["m", "random", "random"]}


@pytest.mark.parametrize("design, calls_per_game", [
    ("vanilla", 5),    # one choice per round
    ("b5p", 5),        # a persona in the prompt, no extra call
    ("pgm", 9),        # an update of the expected moves after each of the first four rounds
    ("strategy", 10),  # a strategy before every choice
    ("favor", 9),      # a favor update whenever something happened since the last: rounds 2 to 5
])
def test_dry_run_counts_the_designs_extra_calls(design, calls_per_game):
    assert estimate_of({"design": design}, PD_5).total().calls == 4 * calls_per_game


ESTIMATE_PORT = 47_931
ESTIMATED = {
    "chameleon": {"game": "chameleon", "games": 8, "rules": {"players": 3, "clue": "sentence", "ties": "even"},
                  "roles": {"*": "m"}},
    "undercover": {"game": "undercover", "games": 8, "rules": {"players": 3}, "roles": {"*": "m"}},
    "prisoners_dilemma": {"game": "prisoners_dilemma", "games": 8, "rules": {"rounds": 3},
                          "lineup": ["m", "m", "prisoners_dilemma/tit_for_tat"]},
}


def _matchup_toml(matchup: dict[str, Any]) -> str:
    lines = ["[[matchups]]"]
    for key, value in matchup.items():
        if isinstance(value, dict):
            inner = ", ".join(f'"{k}" = {json.dumps(v)}' for k, v in value.items())
            lines.append(f"{key} = {{ {inner} }}")
        else:
            lines.append(f"{key} = {json.dumps(value)}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("design", ["vanilla", "pgm", "b5p", "favor", "strategy"])
@pytest.mark.parametrize("game", sorted(ESTIMATED))
def test_the_dry_run_estimates_what_a_server_counts(tmp_path, design, game):
    # A fixed port: the base URL is part of the agent, so of the game ids and deals; with any free
    # port the deals (and whether a chameleon is caught, one call more) would change from run to run.
    server = FakeOpenAI(legal_reply, port=ESTIMATE_PORT)
    try:
        server.start()
    except OSError as exc:
        pytest.skip(f"port {ESTIMATE_PORT} is taken ({exc}); this comparison needs fixed deals")
    try:
        toml = (f'name = "estimated"\nseed = 5\ncreated = "2026-11-21"\n{FAST_RETRIES}\n'
                f"[agents.m]\n{model_table('openai', server.base_url, design=design)}\n"
                + _matchup_toml(ESTIMATED[game]))
        predicted = asyncio.run(estimate(from_dict(tomllib.loads(toml))))[0].total()
        result, _ = play(tmp_path, toml)
        assert result.exit_code == 0, result.output
        counted = sum(request_tokens(r.body) for r in server.requests)  # what the server reported
        calls = server.calls
    finally:
        server.stop()
    # The same 8 deals; the moves differ (random in the estimate, the fake's in the run), so a
    # Chameleon caught or not changes a call or two.
    assert predicted.calls == pytest.approx(calls, rel=0.05), (predicted.calls, calls)
    assert predicted.input_tokens == pytest.approx(counted, rel=0.05), (predicted.input_tokens, counted)


def test_pgm_probes_share_the_analysis_of_their_point():
    # Changing the design deals other games (the ids follow the agents), so compare with and without probes.
    for design in ("vanilla", "pgm"):
        quiet = estimate_of({"design": design}, CHAMELEON_4, probes=False).total().calls
        probed = estimate_of({"design": design}, CHAMELEON_4).total().calls
        assert probed - quiet == pytest.approx(4 * 4 * 10), design


def test_dry_run_tokens_and_cost_follow_the_prices_and_max_tokens():
    matchup = {"game": "prisoners_dilemma", "games": 3, "lineup": ["m", "random", "random"]}
    capped = estimate_of({"max_tokens": 50}, matchup)
    assert capped.total().output_tokens == 50 * capped.total().calls
    full = estimate_of({}, matchup)
    assert full.total().output_tokens > capped.total().output_tokens
    assert full.total().input_tokens > 500 * full.total().calls  # the rules alone are hundreds of tokens
    result = CliRunner().invoke(main, ["run", "--game", "prisoners_dilemma", "--lineup", "random,random,random",
                                       "--dry-run"])
    assert result.exit_code == 0 and "0.00" in result.output  # scripted agents cost nothing


def test_dry_run_prints_matchups_totals_and_cost(tmp_path):
    plan = tmp_path / "t.toml"
    plan.write_text('''name = "priced"
[prices."gpt-4o"]
input = 2.5
output = 10.0
[agents.a]
provider = "openai"
model = "gpt-4o"
[agents.b]
provider = "anthropic"
model = "claude-x"
[[matchups]]
game = "public_good"
games = 7
lineup = ["a", "b", "random"]
[[matchups]]
game = "chameleon"
games = 3
roles = { chameleon = "a", non_chameleon = "chameleon/trivial" }
''', encoding="utf-8")
    result = CliRunner().invoke(main, ["run", str(plan), "--dry-run"], env={})
    assert result.exit_code == 0, result.output
    out = result.output
    assert "10 games in 2 matchup(s)" in out and "lineup: a, b, random" in out
    assert re.search(r"gpt-4o\s+[\d,]+\s+[\d,]+\s+[\d,]+\s+\d+\.\d\d", out)
    assert re.search(r"claude-x\s+[\d,]+\s+[\d,]+\s+[\d,]+\s+n/a\s+\(no \[prices\] table\)", out)
    total = next(line for line in out.splitlines() if line.strip().startswith("total"))
    assert re.search(r"≥\d+\.\d\d$", total)  # claude-x has no price: the total is a lower bound
    assert "Assumptions:" in out and not (tmp_path / "replays").exists()

