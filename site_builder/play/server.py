"""`gamenight play`: a local web server where people take seats of a game, in the browser.

The game runs in a thread of its own (an asyncio loop playing runner.table); each person's seat is
a `HumanAgent` whose channel is a question waiting here for an answer from the page. The page
polls its seat's view, which is built from the rules' own observation of that seat and nothing
else: what the seat was dealt, what everyone knows, the events it could see, the question it is
asked now, whose public turn it is. Its version and question ids count that seat's own changes
only, so not even the moment a poll returns tells it of a change it cannot see (another seat's
secret move or question). Every address is under a seat's secret token; anything else gets an
empty 404.
Nothing is written until the game is over; then the replay goes under replays/play/ like a run's.
"""

from __future__ import annotations

import asyncio
import copy
import hmac
import json
import mimetypes
import secrets
import threading
from collections.abc import Mapping
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import jinja2
import markupsafe

from runner import games
from runner.agents.human import Question
from runner.games.base import State
from runner.table import Table, play_table, seat_agents, write_played
from site_builder.viewer.data import known_seats, reveal_steps

PACKAGE = Path(__file__).resolve().parents[1]  # site_builder/, where the assets and templates are
#: The scripts and styles the play page loads, by the address it asks for them at.
ASSETS = {
    "/assets/common.js": PACKAGE / "assets" / "viewer" / "common.js",
    "/assets/pov.js": PACKAGE / "assets" / "viewer" / "pov.js",
    "/assets/viewer.css": PACKAGE / "assets" / "viewer" / "viewer.css",
    "/assets/play.js": PACKAGE / "assets" / "play" / "play.js",
    "/assets/fit.js": PACKAGE / "assets" / "gamenight" / "fit.js",
    "/assets/fit.css": PACKAGE / "assets" / "gamenight" / "fit.css",
    "/assets/play.css": PACKAGE / "assets" / "play" / "play.css",
}
#: Largest answer accepted from a page (a Werewolf statement is at most a few hundred characters).
MAX_BODY = 16 * 1024
#: How long a poll waits for something new before answering "nothing new".
POLL_SECONDS = 20.0
#: Fields of a move whose options are seats (shown as the seats' names).
SEAT_FIELDS = frozenset(("vote", "look", "accuse", "proposal"))
VIEW_VERSION = 1
_HEADERS = {
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",  # the token is in the address
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
                               "connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'",
}


#: The page of each game's rules in the project's docs (served at <link>/rules when present).
RULES_DOCS = "games/{game}.md"


def goal(game: str, role: str | None) -> str:
    """The seat's goal: its role's, else the game's (a role the seat is not told is None; runner/games/facts.py)."""
    goals = games.facts_of(game).goals
    return goals.get(role) or goals.get(None) or " ".join(dict.fromkeys(goals.values()))


def rules_text(game: str, seat: int, names: tuple[str, ...], observation: Mapping[str, Any]) -> str:
    """The rules as a language model in this seat reads them: the current prompt set's rules
    template, rendered from the seat's own observation (runner/agents/llm/prompts/)."""
    from runner.agents.llm.render import Scene

    return Scene(game, seat, names, observation).render(f"rules/{game}.j2")


def rules_page(game: str, title: str) -> str | None:
    """The game's rules page of the docs as a standalone HTML page, or None without the docs."""
    import markdown

    from site_builder.pages.methodology import docs_folder, unlink_missing

    source = docs_folder() / RULES_DOCS.format(game=game)
    if not source.is_file():
        return None
    body = markdown.markdown(unlink_missing(source.read_text(encoding="utf-8"), source.name, set()),
                             extensions=["tables", "fenced_code"])
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(PACKAGE / "templates" / "play"), autoescape=True)
    return env.get_template("rules.html.j2").render(title=title, body=markupsafe.Markup(body))


class PersonChannel:
    """The channel of one person's seat: a question waits here until the page answers it."""

    def __init__(self, session: "Session", seat: int):
        self.session = session
        self.seat = seat

    async def ask(self, question: Question) -> Any:
        future = asyncio.get_running_loop().create_future()
        self.session.post_question(self.seat, question, future)
        try:
            return await future
        finally:
            self.session.clear_question(self.seat, future)

    def accepted(self, question: Question, answer: Any) -> None:
        """A belief the rules took: it joins the person's own history (a refused one never does)."""
        if question.kind == "probe":
            self.session.own_belief(self.seat, question.probe, answer)


class Session:
    """One table being played: its seats' views, questions and tokens, shared by the game thread
    and the server's request threads (under `changed`, a condition notified on every change)."""

    def __init__(self, table: Table, out: Path, *, probes: bool = True):
        self.table = table
        self.out = out
        self.probes = probes
        self.tokens = {seat: secrets.token_urlsafe(18) for seat in table.people}
        self.changed = threading.Condition()
        self.views: dict[int, dict[str, Any]] = {seat: {"steps": [], "seen": 0, "waiting": []}
                                                 for seat in table.people}
        # Each seat's view as last sent (JSON text) and its version: moved only when that text changes.
        self.shown: dict[int, str] = {seat: "" for seat in table.people}
        self.versions: dict[int, int] = {seat: 0 for seat in table.people}
        self.questions: dict[int, tuple[int, dict[str, Any], asyncio.Future[Any]]] = {}
        self.asked: dict[int, int] = {seat: 0 for seat in table.people}  # questions put to each seat so far
        self.loop: asyncio.AbstractEventLoop | None = None
        self.outcome: dict[str, Any] | None = None
        self.replay: Path | None = None
        self.failure: str | None = None
        self.done = threading.Event()
        self.rules_html = rules_page(table.game.name, table.game.title)
        self.has_rules_page = self.rules_html is not None

    # -- the game thread --------------------------------------------------------------------
    def run_game(self) -> None:
        """Play the table to its end and write the replay (runs in its own thread)."""
        try:
            asyncio.run(self._play())
        except Exception as exc:  # noqa: BLE001 - shown to the players and the console, not a traceback
            with self.changed:
                self.failure = f"{type(exc).__name__}: {exc}"
                self._bump()
        finally:
            self.done.set()

    async def _play(self) -> None:
        self.loop = asyncio.get_running_loop()
        async with SeatedAgents(self.table, lambda seat: PersonChannel(self, seat)) as agents:
            records = await play_table(self.table, agents, probes=self.probes, watch=self.watch)
        path = write_played(records, self.table, self.out)
        with self.changed:
            self.outcome = {k: records[-1][k] for k in ("status", "winners", "result")}
            self.replay = path
            for seat in self.views:
                self.views[seat]["reveal_all"] = True
            self._bump()

    def watch(self, state: State) -> None:
        """After every change of the game: each person's seat's newly visible events, as the rules
        show them to that seat (its observation), and everything once the game is over."""
        with self.changed:
            for seat, view in self.views.items():
                observation = state.observe(seat)
                log = observation["log"]
                for event in log[view["seen"]:]:
                    view["steps"].append({"n": len(view["steps"]), "k": event["kind"], "p": event["phase"],
                                          "s": event["seat"], "d": copy.deepcopy(event["data"]), "v": "all"})
                view["seen"] = len(log)
                if "rules" not in view:  # what a model's system prompt says, from the same observation
                    view["rules"] = rules_text(self.table.game.name, seat, tuple(self.table.names), observation)
                view["private"] = copy.deepcopy(observation["private"])
                view["public"] = copy.deepcopy(observation["public"])
                view["roles"] = [state.game.role_of(state.params, state.setup, s) for s in range(self.table.players)]
                # Only a turn the rules make public: never who acts unseen (the Seer at night); and
                # nobody while everyone answers the belief probes, which come before that turn.
                turn = () if self.probes and state.probes() else state.public_turn(seat)
                view["waiting"] = [s for s in turn if s != seat]
                # Kept for the moment the rules reveal them to this seat, never sent before.
                view["all_private"] = [copy.deepcopy(state.private(s)) for s in range(self.table.players)]
            self._bump()

    def post_question(self, seat: int, question: Question, future: asyncio.Future[Any]) -> None:
        with self.changed:
            self.asked[seat] += 1
            if question.kind == "probe":
                self.views[seat]["private"] = copy.deepcopy(question.observation["private"])
            self.questions[seat] = (self.asked[seat], _question_json(question), future)
            self._bump()

    def clear_question(self, seat: int, future: asyncio.Future[Any]) -> None:
        with self.changed:
            current = self.questions.get(seat)
            if current is not None and current[2] is future:
                del self.questions[seat]
            self._bump()

    def own_belief(self, seat: int, probe: str | None, answer: Any) -> None:
        with self.changed:
            steps = self.views[seat]["steps"]
            steps.append({"n": len(steps), "k": "probe", "p": probe, "s": seat, "d": copy.deepcopy(answer),
                          "v": [seat]})
            self._bump()

    def _bump(self) -> None:
        """After any change: each seat whose view now reads differently gets its next version."""
        for seat in self.views:
            text = json.dumps(self._seat_json(seat), sort_keys=True)
            if text != self.shown[seat]:
                self.shown[seat] = text
                self.versions[seat] += 1
        self.changed.notify_all()

    # -- the request threads ----------------------------------------------------------------
    def seat_of(self, token: str) -> int | None:
        """The seat whose token this is (compared in constant time), or None."""
        found = None
        for seat, expected in self.tokens.items():
            if hmac.compare_digest(expected.encode(), token.encode()):
                found = seat
        return found

    def view(self, seat: int, since: int | None = None, wait: float = POLL_SECONDS) -> dict[str, Any]:
        """What `seat` may know now (after waiting up to `wait` seconds for news of it past `since`):
        a copy, as the view stood at its version."""
        with self.changed:
            if since is not None:
                self.changed.wait_for(lambda: self.versions[seat] > since, timeout=wait)
            if not self.shown[seat]:
                self._bump()  # nothing has changed since the start: the first view
            return {**json.loads(self.shown[seat]), "version": self.versions[seat]}

    def answer(self, seat: int, question_id: Any, answer: Any) -> bool:
        """Hand the person's answer to the waiting agent; False if that question is no longer asked."""
        with self.changed:
            current = self.questions.get(seat)
            if current is None or current[0] != question_id or current[2].done() or self.loop is None:
                return False
            future = current[2]
            self.loop.call_soon_threadsafe(lambda: future.done() or future.set_result(answer))
            current[1]["sent"] = True
            self._bump()
            return True

    def _seat_json(self, seat: int) -> dict[str, Any]:
        """The seat's view, all but its version: a function of what the rules let the seat observe."""
        table = self.table
        view = self.views[seat]
        steps = view["steps"]
        reveal = {"roles": None, "setup": None} if view.get("reveal_all") is None else {"roles": 0, "setup": 0}
        if view.get("reveal_all") is None:
            reveal = reveal_steps(table.game, steps)
        private = view.get("private", {})
        setup_known = reveal["setup"] is not None
        roles_known = reveal["roles"] is not None
        known = known_seats(table.game.name, seat, private)
        roles = view.get("roles", [])
        players = []
        for s in range(table.players):
            agent = ({"agent": table.people[s], "kind": "human", "about": "a person"} if s in table.people else
                     {"agent": table.others[s].name, "kind": "llm" if table.others[s].is_llm else "builtin",
                      "about": _about(table.others[s].spec)})
            role = roles[s] if roles and (s in known or roles_known) else None
            players.append({"name": table.names[s], "role": role, **agent})
        question = self.questions.get(seat)
        return {
            "v": VIEW_VERSION, "game": table.game.name, "title": table.game.title, "variant": table.params,
            "goal": goal(table.game.name, private.get("role")), "rules": view.get("rules", ""),
            "rules_page": self.has_rules_page,
            "seat": seat, "players": players, "public": view.get("public", {}),
            "private": [view["all_private"][s] if setup_known and "all_private" in view else
                        (private if s == seat else {}) for s in range(table.players)],
            "setup": table.setup if setup_known else {},
            "knows": [known if s == seat else [] for s in range(table.players)],
            "reveal": reveal, "steps": steps,
            "question": None if question is None or question[1].get("sent") else {"id": question[0], **question[1]},
            "waiting": view["waiting"],
            "outcome": self.outcome, "replay": str(self.replay) if self.replay else None,
            "failure": self.failure,
        }


class SeatedAgents:
    """The agents of a table, with the language-model connections opened and closed around the game."""

    def __init__(self, table: Table, channel_for: Any):
        self.table, self.channel_for = table, channel_for
        self.connections: Any = None

    async def __aenter__(self) -> list[Any]:
        from runner.run import Seats, connections_for

        models = [spec for spec in self.table.others.values() if spec.is_llm]
        self.connections = connections_for(models, {})
        connections = await self.connections.__aenter__()
        return seat_agents(self.table, self.channel_for, Seats(connections))

    async def __aexit__(self, *exc: Any) -> None:
        await self.connections.__aexit__(*exc)


def _about(spec: Mapping[str, Any]) -> str:
    if "provider" in spec:
        return f"{spec['provider']}/{spec['model']}"
    return str(spec.get("builtin", ""))


def _question_json(question: Question) -> dict[str, Any]:
    """A question as the page gets it: the rules' legal moves, or the probe and what it may name."""
    found: dict[str, Any] = {"kind": question.kind, "phase": question.phase, "refused": list(question.refused)}
    if question.kind == "move":
        legal = copy.deepcopy(dict(question.legal))
        legal["seats"] = legal.get("field") in SEAT_FIELDS
        found["legal"] = legal
    else:
        found.update(probe=question.probe, about=question.about, roles=list(question.roles))
        if question.probe == "secret":
            found["words"] = list(question.observation["public"].get("words", []))
    return found


class _Handler(BaseHTTPRequestHandler):
    session: Session
    page: str
    server_version = "gamenight-play"
    sys_version = ""

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass  # addresses hold the tokens: never logged

    def do_GET(self) -> None:  # noqa: N802 - the base class's name
        url = urlsplit(self.path)
        if url.path == "/favicon.ico":  # browsers ask; there is none
            self._send(HTTPStatus.NO_CONTENT, b"", "text/plain")
            return
        if url.path in ASSETS:
            path = ASSETS[url.path]
            self._send(HTTPStatus.OK, path.read_bytes(), mimetypes.guess_type(path.name)[0] or "text/plain")
            return
        seat, rest = self._seat(url.path)
        if seat is None:
            return
        if rest == "":
            self._send(HTTPStatus.OK, self.page.encode(), "text/html; charset=utf-8")
        elif rest == "rules" and self.session.rules_html is not None:
            self._send(HTTPStatus.OK, self.session.rules_html.encode(), "text/html; charset=utf-8")
        elif rest == "view":
            since = parse_qs(url.query).get("since", [None])[0]
            wait = since is not None and since.isdigit()
            view = self.session.view(seat, int(since) if wait else None)
            self._send(HTTPStatus.OK, _json(view), "application/json")
        else:
            self._nothing()

    def do_POST(self) -> None:  # noqa: N802
        seat, rest = self._seat(urlsplit(self.path).path)
        if seat is None:
            return
        if rest != "answer":
            self._nothing()
            return
        length = self.headers.get("Content-Length", "")
        if not length.isdigit() or int(length) > MAX_BODY:
            self._send(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, _json({"error": "the answer is too long"}),
                       "application/json")
            return
        try:
            body = json.loads(self.rfile.read(int(length)))
            question_id, answer = body["id"], body["answer"]
        except (ValueError, KeyError, TypeError):
            self._send(HTTPStatus.BAD_REQUEST, _json({"error": "an answer is {\"id\": ..., \"answer\": ...}"}),
                       "application/json")
            return
        if not self.session.answer(seat, question_id, answer):
            self._send(HTTPStatus.CONFLICT, _json({"error": "that question is no longer asked"}), "application/json")
            return
        self._send(HTTPStatus.OK, _json({"ok": True}), "application/json")

    def _seat(self, path: str) -> tuple[int | None, str]:
        """The seat of a `/seat/<token>[/<rest>]` address; anything else gets an empty 404."""
        parts = path.split("/")
        if len(parts) in (3, 4) and parts[0] == "" and parts[1] == "seat":
            seat = self.session.seat_of(parts[2])
            if seat is not None:
                return seat, parts[3] if len(parts) == 4 else ""
        self._nothing()
        return None, ""

    def _nothing(self) -> None:
        self._send(HTTPStatus.NOT_FOUND, b"", "text/plain")

    def _send(self, status: HTTPStatus, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in _HEADERS.items():
            self.send_header(name, value)
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the page went away (reloaded, closed) while its poll waited: nothing to tell it


def _json(value: Any) -> bytes:
    # `</` escaped as in the site's embedded JSON, though the page only ever reads it with fetch.
    return json.dumps(value, ensure_ascii=False).replace("</", "<\\/").encode("utf-8")


def play_page() -> str:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(PACKAGE / "templates" / "play"), autoescape=True)
    return env.get_template("play.html.j2").render()


def start_server(session: Session, host: str = "127.0.0.1", port: int = 0) -> ThreadingHTTPServer:
    """A server for `session` (not yet serving: call serve_forever); port 0 picks a free port."""
    handler = type("Handler", (_Handler,), {"session": session, "page": play_page()})
    server = ThreadingHTTPServer((host, port), handler)
    server.daemon_threads = True
    return server


def links(session: Session, server: ThreadingHTTPServer, host: str) -> dict[int, str]:
    """Each person's seat's link (host as given, so another machine can reach an explicit --host)."""
    port = server.server_address[1]
    shown = f"[{host}]" if ":" in host else host
    return {seat: f"http://{shown}:{port}/seat/{token}" for seat, token in session.tokens.items()}
