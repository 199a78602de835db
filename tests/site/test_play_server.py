"""`gamenight play` on the wire: each seat's link gets what that seat may know, and nothing else.

Every response a page receives is inspected, before and after each move, for every game and role,
until the rules themselves reveal the hidden information (the vote, the end of the game).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from runner import games
from runner.cli import main as gamenight
from runner.rerun.validate import check_file
from runner.table import Person, deal
from site_builder.play.server import Session, _json
from tests.site.play_helpers import page_answer, play_seat, playing, request

#: Phases whose actions every player sees as they are made (the others are simultaneous or private).
PUBLIC_ACTIONS = {"clue", "day", "guess", "tie_pick"}
SEATS = [("chameleon", "chameleon"), ("chameleon", "non_chameleon"), ("undercover", "undercover"),
         ("undercover", "civilian"), *[("werewolf", r) for r in ("seer", "mason", "villager", "werewolf", "minion",
                                                                    "tanner")],
         ("cost_sharing", None), ("prisoners_dilemma", None), ("public_good", None)]


def leaks(table, seat: int, view: dict, body: bytes) -> list[str]:
    """What this response tells the seat that it may not know yet."""
    game = table.game.name
    phases = {s["p"] for s in view["steps"] if s["k"] != "probe"}
    facts = games.facts_of(game)
    roles_phase, setup_phase = facts.roles_public_at, facts.setup_public_at
    over = view["outcome"] is not None
    roles_out = over or roles_phase in phases or not table.game.reveal_phases
    setup_out = over or setup_phase in phases or not table.game.reveal_phases
    state = table.game.start(table.params, table.setup)
    own = state.private(seat)
    found = []
    if not setup_out:
        if view["setup"]:
            found.append("the setup")
        found += [f"seat {s}'s private deal" for s, p in enumerate(view["private"]) if s != seat and p]
    if not roles_out:
        known = {seat} if "role" in own else set()
        known |= {own["fellow_mason"]} if "fellow_mason" in own else set()
        found += [f"seat {s}'s role" for s, p in enumerate(view["players"]) if s not in known and p["role"] is not None]
    found += [f"seat {s['s']}'s {s['p']} move" for s in view["steps"]
              if s["k"] == "action" and s["s"] != seat and s["p"] not in PUBLIC_ACTIONS]
    found += [f"seat {s['s']}'s belief" for s in view["steps"] if s["k"] == "probe" and s["s"] != seat]
    # The card and what others said may hold any word; everything else must not name a secret.
    rest = json.dumps({k: v for k, v in view.items() if k not in ("steps", "public", "question")}) + \
        json.dumps({k: v for k, v in (view["question"] or {}).items() if k not in ("legal", "words", "roles")})
    if game == "chameleon" and not setup_out and table.roles[seat] == "chameleon":
        secret = table.setup["secret"]
        if f'"{secret}"' in rest or b'"secret":' in body:
            found.append("the secret word")
    if game == "chameleon" and not roles_out and table.roles[seat] != "chameleon" and b'"chameleon":' in body:
        found.append("who the chameleon is")
    if game == "undercover" and not setup_out:
        other = next(state.private(s)["word"] for s in range(table.players) if state.private(s)["word"] != own["word"])
        if f'"{other}"' in rest or b'"undercover":' in body:
            found.append("the other word or the undercover")
    if game == "werewolf" and not roles_out:
        if table.roles[seat] != "seer" and b'"werewolf_among"' in body:
            found.append("the Seer's finding")
        if '"roles": [' in rest:
            found.append("the roles")
    return found


@pytest.mark.parametrize("game, role", SEATS, ids=[f"{g}-{r or 'seat0'}" for g, r in SEATS])
def test_every_response_holds_only_what_the_seat_may_know(tmp_path, game, role):
    table = deal(game, {}, 5, [Person("Ann", role=role) if role else Person("Ann", seat=0)])
    seat = next(iter(table.people))
    seen = {"responses": 0, "refused": False}

    def inspect(view, body):
        seen["responses"] += 1
        assert view["seat"] == seat
        assert leaks(table, seat, view, body) == [], f"response {seen['responses']}"
        question = view["question"]
        seen["refused"] |= bool(question and question["refused"])

    with playing(table, tmp_path) as (session, links):
        final = play_seat(links[seat], inspect)
    assert seen["refused"], "the empty first move was refused with the rules' message and asked again"
    assert final["outcome"]["status"] == "complete" and seen["responses"] > 3
    replay = Path(final['replay'])
    assert check_file(str(replay)).ok


def test_no_token_or_a_wrong_one_gets_nothing(tmp_path):
    table = deal("werewolf", {}, 2, [Person("Ann", role="seer"), Person("Bob", role="werewolf")])
    ann, bob = (next(s for s, n in table.people.items() if n == name) for name in ("Ann", "Bob"))
    with playing(table, tmp_path) as (session, links):
        base = links[ann].rsplit("/seat/", 1)[0]
        token = links[ann].rsplit("/", 1)[-1]
        for path in ("/", "/seat/", "/seat//view", f"/seat/{token[:-1]}/view", f"/seat/{token}x/view",
                     f"/seat/{token.upper()}/view", "/seat/view", f"/view?token={token}", f"/seat/{token}/../view",
                     f"/seat/{token}/setup"):
            status, body = request(base + path)
            assert (status, body) == (404, b""), path
        status, body = request(base + "/seat/nobody/answer", {"id": 1, "answer": {}})
        assert (status, body) == (404, b"")
        # Ann's question cannot be answered through Bob's link.
        while True:
            status, body = request(links[ann] + "/view")
            view = json.loads(body)
            if view["question"]:
                break
        status, _ = request(links[bob] + "/answer", {"id": view["question"]["id"], "answer": {"look": [0, 1]}})
        assert status == 409
        assert json.loads(request(links[ann] + "/view")[1])["question"]["id"] == view["question"]["id"]


def test_an_unfinished_game_writes_nothing(tmp_path):
    table = deal("public_good", {}, 1, [Person("Ann", seat=0)])
    with playing(table, tmp_path) as (session, links):
        request(links[0] + "/view")
    assert not any(tmp_path.iterdir())


def test_the_command_refuses_a_bad_table_with_a_clear_message():
    from site_builder.play.cli import play

    result = CliRunner().invoke(play, ["--game", "chess", "--seat", "0", "--no-open"])
    assert result.exit_code == 1 and "unknown game 'chess'" in result.output
    result = CliRunner().invoke(play, ["--game", "chameleon", "--role", "king", "--no-open"])
    assert result.exit_code == 1 and "--role 'king'" in result.output
    result = CliRunner().invoke(play, ["--game", "chameleon", "--no-open"])
    assert result.exit_code == 1 and "nobody to play" in result.output


def test_a_model_that_cannot_be_reached_stops_the_game_and_writes_nothing(tmp_path):
    table = deal("prisoners_dilemma", {"rounds": 1}, 1, [Person("Ann", seat=0)],
                 against=["openai_compatible:nothing@http://127.0.0.1:9/v1"])
    with playing(table, tmp_path) as (session, links):
        version = None
        while True:
            view = json.loads(request(links[0] + "/view" + ("" if version is None else f"?since={version}"))[1])
            version = view["version"]
            if view["failure"] or view["outcome"]:
                break
            if view["question"]:
                request(links[0] + "/answer", {"id": view["question"]["id"], "answer": {"choice": "cooperate"}})
    assert "cannot connect" in view["failure"] and view["outcome"] is None
    assert not any(tmp_path.iterdir())


def _start_command(tmp_path, *args):
    import re
    import signal
    import subprocess
    import sys

    def ctrl_c_as_in_a_terminal() -> None:
        # A shell without job control starts background commands with SIGINT ignored, and a child
        # inherits that: Python then installs no KeyboardInterrupt handler. Ctrl-C in a terminal
        # always reaches the command, so the test gives it SIGINT's default disposition.
        signal.signal(signal.SIGINT, signal.SIG_DFL)

    process = subprocess.Popen([sys.executable, "-m", "runner", "play", "--no-open", "--out", str(tmp_path), *args],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=ctrl_c_as_in_a_terminal)
    lines = [process.stdout.readline() for _ in range(2)]
    link = re.search(r"http://127\.0\.0\.1:\d+/seat/\S+", lines[1])
    assert link, lines
    return process, link[0]


def test_the_command_serves_a_game_to_its_end_and_writes_the_replay(tmp_path):
    """After the end the finished game's page and view still answer (a reload works) until Ctrl-C,
    which then stops the command without undoing anything."""
    import signal

    process, link = _start_command(tmp_path, "--game", "public_good", "--name", "Ann", "--seed", "8",
                                   "--rule", "rounds=2")
    try:
        final = play_seat(link)
        wrote = process.stdout.readline()
        assert process.stdout.readline().startswith("the game is over; its pages stay up")
        time.sleep(1)
        assert process.poll() is None  # still serving
        page, view = request(link), request(link + "/view")
        assert page[0] == 200 and b"data-gn-play" in page[1]
        assert view[0] == 200 and json.loads(view[1])["outcome"] == final["outcome"]
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
    finally:
        process.kill()
    assert process.returncode == 0 and "stopped; the replay was written before" in err, err
    [replay] = list(tmp_path.rglob("*.jsonl"))
    assert wrote == f"wrote {replay}\n" and check_file(str(replay)).ok
    assert 'seats = "dealt"' in (replay.parent / "tournament.toml").read_text() and "practice" not in err
    validated = CliRunner().invoke(gamenight, ["validate", str(replay.parent)])
    assert validated.exit_code == 0, validated.output


def test_ctrl_c_mid_game_writes_nothing(tmp_path):
    import signal

    process, link = _start_command(tmp_path, "--game", "chameleon", "--seat", "0")
    try:
        assert request(link + "/view")[0] == 200
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
    finally:
        process.kill()
    assert process.returncode == 130 and "no replay is written" in err
    assert "a practice game (seats or roles chosen): a submission does not take it" in err
    assert not list(tmp_path.iterdir())


# -- every field of every view is a function of what the seat observed ------------------------------

class Recorded(Session):
    """A session played in the test's thread with a scripted person at every seat. After every change
    it records, for each seat, the view its page would be sent and a digest of everything that seat
    has observed so far (the rules' observation, its own questions and answers, the end): two
    moments with the same digest must give the same view, byte for byte, in any run."""

    def __init__(self, table, out, answer):
        super().__init__(table, out)
        self.answer_of = answer  # (seat, Question) -> what the scripted person answers
        self.state = None
        self.own = {seat: None for seat in table.people}  # the seat's question as the rules asked it
        self.beliefs = {seat: [] for seat in table.people}
        self.digests = {seat: "" for seat in table.people}
        self.seen = {seat: "" for seat in table.people}
        self.bodies: list[tuple[int, str, bytes]] = []  # (seat, digest, the view sent) at each change of either
        self.last: dict[int, tuple[str, bytes]] = {}
        self.logged: dict[int, int] = {}  # events of the seat's log already in its digest

    def watch(self, state):
        self.state = state
        super().watch(state)

    def post_question(self, seat, question, future):
        self.own[seat] = {"asked": _asked(question)}
        super().post_question(seat, question, future)
        answer = self.answer_of(seat, question)
        self.own[seat]["answered"] = [answer]
        assert self.answer(seat, self.questions[seat][0], answer)

    def clear_question(self, seat, future):
        self.own[seat] = None
        super().clear_question(seat, future)

    def own_belief(self, seat, probe, answer):
        self.beliefs[seat].append([probe, answer])
        super().own_belief(seat, probe, answer)

    def _bump(self):
        super()._bump()
        for seat in self.views:
            observed, log = self._observed(seat)
            if observed != self.seen[seat]:  # the seat's history grew: a new digest, chained to the old
                self.seen[seat] = observed
                new_events = json.dumps(log[self.logged.get(seat, 0):], sort_keys=True)
                self.logged[seat] = len(log)
                self.digests[seat] = hashlib.sha256(f"{self.digests[seat]}\n{observed}\n{new_events}".encode()
                                                    ).hexdigest()
            sent = (self.digests[seat], _json(self.view(seat)))
            if self.last.get(seat) != sent:
                self.last[seat] = sent
                self.bodies.append((seat, *sent))

    def _observed(self, seat):
        """What the seat may know now, from the rules and the script, never from the server's view
        (JSON, with the number of events it saw), and the events it saw."""
        if self.state is None:
            return "", []
        observation = dict(self.state.observe(seat))
        log = observation.pop("log")
        found = {"observation": observation, "events": len(log), "own": self.own[seat],
                 "beliefs": self.beliefs[seat], "failure": self.failure}
        if self.outcome is not None:  # the game is over: the rules show everything
            found["over"] = {"setup": self.state.setup, "outcome": self.outcome}
        return json.dumps(found, sort_keys=True), log


def _asked(question):
    """A question as the rules put it (its observation is the seat's, already in the digest)."""
    return {"kind": question.kind, "phase": question.phase, "legal": question.legal, "probe": question.probe,
            "about": question.about, "roles": list(question.roles), "refused": list(question.refused)}


def scripted(observed: int, varied: bool):
    """Every seat's scripted answers: the observed seat's, and everyone's public moves, always the same;
    with `varied`, the other seats' secret moves and beliefs differ (after a refused first try)."""
    def answer(seat, question):
        page = {"question": _asked(question), "public": question.observation["public"], "seat": seat}
        if seat == observed or not varied or question.phase in PUBLIC_ACTIONS:
            return page_answer(page)
        if not question.refused:
            return {}  # refused by every rule and probe, and asked again
        if question.kind == "probe":
            return None  # skipped
        legal = question.legal
        if legal.get("field") == "look":
            return {"look": legal["options"][-2:]}
        if "options" in legal:
            return {legal["field"]: legal["options"][0]}
        if legal.get("field") == "contribution":
            return {"contribution": legal["min"]}
        if legal.get("field") == "split":
            return {"split": [50, 25, 25]}
        return page_answer(page)
    return answer


def twins(table, seat: int, limit: int = 2) -> list[dict]:
    """Other deals that show `seat` exactly what this one does, the Werewolf Seer moved first."""
    game, params, setup = table.game, table.params, table.setup
    candidates = list(game.counterfactuals(params, setup, seat, random.Random(0)))
    if game.name == "werewolf":  # its counterfactuals keep the Seer put: move it to every other seat
        roles = setup["roles"]
        seer = roles.index("seer")
        for other in range(len(roles)):
            swapped = list(roles)
            swapped[seer], swapped[other] = roles[other], roles[seer]
            candidates.insert(0, {**setup, "roles": swapped})
    seen = game.start(params, setup).observe(seat)
    found = [c for c in candidates if c != setup and game.start(params, c).observe(seat) == seen]
    return found[:limit]


def recorded_runs(tmp_path, game: str, role: str | None) -> tuple[list[Recorded], int]:
    """The game played with a person at every seat, watched from a seat of `role`: the dealt game with
    two scripts, and deals that seat cannot tell from it (with the scripts in turn)."""
    n = games.get(game).players(games.get(game).params({}))
    table = deal(game, {}, 5, [Person(f"P{s}", seat=s) for s in range(n)])
    seat = next(s for s in range(n) if role is None or table.roles[s] == role)
    deals = [table.setup, table.setup, *twins(table, seat)]
    runs = []
    for i, setup in enumerate(deals):
        twin = dataclasses.replace(table, setup=setup, roles=[table.game.role_of(table.params, setup, s)
                                                              for s in range(n)])
        session = Recorded(twin, tmp_path, scripted(seat, varied=i % 2 == 1))
        session.run_game()
        assert session.failure is None and session.outcome is not None, session.failure
        runs.append(session)
    return runs, seat


def mismatches(runs: list[Recorded]) -> list[str]:
    """Fields of the views that differ at moments a seat cannot tell apart."""
    first: dict[tuple[int, str], bytes] = {}
    found = []
    for session in runs:
        for seat, digest, body in session.bodies:
            seen = first.setdefault((seat, digest), body)
            if seen != body:
                a, b = json.loads(seen), json.loads(body)
                found.append(f"seat {seat}: {sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))}")
    return sorted(set(found))


@pytest.mark.parametrize("game, role", SEATS, ids=[f"{g}-{r or 'seat0'}" for g, r in SEATS])
def test_every_field_of_every_view_follows_from_what_the_seat_observed(tmp_path, game, role):
    runs, seat = recorded_runs(tmp_path, game, role)
    assert mismatches(runs) == []
    # Not vacuous: the runs differ in what the seat cannot see, yet share moments it cannot tell apart.
    ours = [{digest for s, digest, _ in run.bodies if s == seat} for run in runs]
    shared = set.intersection(*ours)
    assert len(shared) > 3, len(shared)
    assert len({json.dumps([run.table.setup, [b for _, _, b in run.bodies]], default=str) for run in runs}) == len(runs)


def test_the_old_waiting_field_is_caught(tmp_path, monkeypatch):
    """The check finds the leak it was written for: naming whoever has a question open (the Seer at night)."""
    shown = Session._seat_json

    def leaky(self, seat):
        return {**shown(self, seat), "waiting": sorted(s for s in self.questions if s != seat)}

    monkeypatch.setattr(Session, "_seat_json", leaky)
    runs, _ = recorded_runs(tmp_path, "werewolf", "villager")
    assert any("'waiting'" in line for line in mismatches(runs))


def test_a_view_names_only_a_public_turn(tmp_path):
    runs, seat = recorded_runs(tmp_path, "werewolf", "villager")
    views = [json.loads(body) for s, _, body in runs[0].bodies if s == seat]
    night = [v for v in views if not v["steps"]]
    assert night and all(v["waiting"] == [] for v in night)
    assert all(v["waiting"] == [] for v in views if v["question"] and v["question"]["kind"] == "probe")
    named = {tuple(v["waiting"]) for v in views if v["waiting"]}
    # Each other seat's day statements, but the first of each round: it follows the night (round 1)
    # or the belief probes (rounds 2 and 3), and is not named.
    assert named == {(s,) for s in range(1, 8) if s != seat}


@pytest.mark.parametrize(("game", "person"), [("chameleon", Person("Ann", role="chameleon")),
                                              ("werewolf", Person("Ann", role="tanner")),
                                              ("undercover", Person("Ann", seat=0))])
def test_a_seat_is_given_its_goal_and_the_rules_a_model_in_it_reads(tmp_path, game, person):
    from runner.agents.llm.render import Scene, system_prompt

    table = deal(game, {}, 3, [person])
    seat = next(iter(table.people))
    with playing(table, tmp_path) as (session, links):
        view = json.loads(request(links[seat] + "/view?since=0")[1])
        status, page = request(links[seat] + "/rules")
        first = session.views[seat]
    role = table.game.role_of(table.params, table.setup, seat)
    goals = games.facts_of(game).goals
    assert view["goal"] == (goals[None] if game == "undercover" else goals[role])  # a role it is told
    observation = session.table.game.start(table.params, table.setup).observe(seat)
    prompt = system_prompt(Scene(game, seat, tuple(table.names), observation), None)
    assert view["rules"] and prompt.startswith(view["rules"]) and first["rules"] == view["rules"]
    assert status == 200 and b"Rules as implemented" in page and b"<script" not in page
    assert view["rules_page"] is True


def test_every_role_of_every_game_has_a_goal_on_the_page():
    from site_builder.play.server import goal

    for name in games.available():
        assert all(goal(name, role) for role in (*games.get(name).roles, None)), name


def test_the_browser_is_opened_only_when_a_graphical_one_exists(monkeypatch):
    import webbrowser

    from site_builder.play import cli as play_cli

    opened = []

    class Graphical(webbrowser.BackgroundBrowser):
        def open(self, url, new=0, autoraise=True):
            opened.append(url)
            return True

    monkeypatch.setattr(webbrowser, "get", lambda: Graphical("x"))
    assert play_cli.open_in_browser("http://127.0.0.1:1/seat/t") and opened == ["http://127.0.0.1:1/seat/t"]
    monkeypatch.setattr(webbrowser, "get", lambda: webbrowser.GenericBrowser("lynx"))  # would take the terminal
    assert not play_cli.open_in_browser("http://127.0.0.1:1/seat/t") and len(opened) == 1

    def nothing():
        raise webbrowser.Error("could not locate runnable browser")

    monkeypatch.setattr(webbrowser, "get", nothing)
    assert not play_cli.open_in_browser("http://127.0.0.1:1/seat/t")
