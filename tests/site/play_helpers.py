"""A `gamenight play` server run inside a test, and a scripted page that plays a seat over HTTP."""

from __future__ import annotations

import contextlib
import json
import threading
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from runner.table import Table
from site_builder.play.server import Session, links, start_server
from tests.people import belief, legal_answer


@contextlib.contextmanager
def playing(table: Table, out: Path, *, probes: bool = True) -> Iterator[tuple[Session, dict[int, str]]]:
    """A session of `table` served on a free local port; each person's seat's link."""
    session = Session(table, out, probes=probes)
    server = start_server(session)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    threading.Thread(target=session.run_game, daemon=True).start()
    try:
        yield session, links(session, server, "127.0.0.1")
    finally:
        server.shutdown()
        server.server_close()


def request(url: str, body: Any = None) -> tuple[int, bytes]:
    """(status, body) of a GET, or of a POST of `body` as JSON."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"} if data else {})
    try:
        with urllib.request.urlopen(req, timeout=60) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def page_answer(view: dict[str, Any]) -> Any:
    """What the scripted person answers to the view's question (moves legal, every probe answered)."""
    q = view["question"]
    question = SimpleNamespace(legal=q.get("legal", {}), probe=q.get("probe"), about=q.get("about"),
                               roles=tuple(q.get("roles", ())), seat=view["seat"],
                               observation={"public": view["public"]})
    return legal_answer(question) if q["kind"] == "move" else belief(question)


def play_seat(link: str, on_response: Callable[[dict[str, Any], bytes], None] = lambda view, body: None,
              first: Any = {}) -> dict[str, Any]:
    """Play one seat through its link to the end as the page does (poll, answer); every response
    received goes to `on_response`. The first move sent is `first` (refused by every game's rules)."""
    version = None
    while True:
        status, body = request(f"{link}/view" + ("" if version is None else f"?since={version}"))
        assert status == 200, status
        view = json.loads(body)
        on_response(view, body)
        version = view["version"]
        if view["outcome"] or view["failure"]:
            assert view["failure"] is None, view["failure"]
            return view
        question = view["question"]
        if question is None:
            continue
        if first is not None and question["kind"] == "move":
            answer, first = first, None
        else:
            answer = page_answer(view)
        status, reply = request(f"{link}/answer", {"id": question["id"], "answer": answer})
        assert status == 200, (status, reply)
