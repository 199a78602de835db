"""Replays whose every free-text field holds an HTML, script, template or Markdown payload.

They are played through the real rules engines by an agent that answers with payloads, so they
validate like any contributed replay; the site tests then check that every payload is shown
as literal text and none runs. Payloads either call alert() (the `page` fixture fails on any
dialog) or set `window.gnPwned` (the tests read it).

The site tests' corpus (these replays plus one shipped replay per game) and the site that
build_site makes of it, built once per test session, live here too.
"""

from __future__ import annotations

import asyncio
import random
import shutil
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from runner import games
from runner.agents.base import Agent, Decision, ProbeRequest, Request
from runner.play import Seating, play
from runner.replay.format import encode, lowest_version, write_atomic

#: Short payloads: they fit every bounded field (seat names and card words take 40 characters).
SHORT = (
    "</script><script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "javascript:alert(1)",
    "{{ 7*7 }}",
    "{% raw %}",
    "[a](javascript:alert(1))",
    "![b](x.png)",
    "<b>b</b>&amp;&lt;i&gt;",
)
#: Payloads that would set a flag if they ever ran as markup or script.
FLAGGING = (
    '<img src=x onerror="window.gnPwned=1">',
    "<script>window.gnPwned=1</script>",
    '<svg onload="window.gnPwned=1"></svg>',
    '"><iframe srcdoc="<script>parent.gnPwned=1</script>">',
    "</textarea></pre></code><script>window.gnPwned=1</script>",
    "{% endraw %}{{ 6*7 }}",
)
#: One line holding every payload (clues allow 30 words and 300 characters).
LINE = " ".join(SHORT[:6])
#: A long text: every payload, for statements, prompts, replies and errors.
TEXT = " ".join(SHORT + FLAGGING)

TOURNAMENT = "xss"
CREATED = "2026-01-02"

REPO = Path(__file__).resolve().parents[2]
BUILTIN = REPO / "replays" / "builtin"
#: One shipped replay per game, served beside the payload replays (the Chameleon one ends with
#: an accusation and a guess).
SAMPLES = {
    "chameleon": "builtin-chameleon-1b43192f4315",
    "undercover": "builtin-undercover-07051102fe2c",
    "werewolf": "builtin-werewolf-001df066adae",
    "cost_sharing": "builtin-cost_sharing-03643a3d844f",
    "prisoners_dilemma": "builtin-prisoners_dilemma-01006af207f6",
    "public_good": "builtin-public_good-00530b656057",
}
PAYLOAD_WEREWOLF = f"{TOURNAMENT}-werewolf-000000000001"
PAYLOAD_CHAMELEON = f"{TOURNAMENT}-chameleon-000000000002"
PAYLOAD_INVALID = f"{TOURNAMENT}-chameleon-000000000003"


def description(i: int) -> dict[str, Any]:
    """An LLM agent described entirely by payloads (its name becomes the agent's label)."""
    return {"name": f"{SHORT[i % len(SHORT)]} {SHORT[(i + 1) % len(SHORT)]} agent {i}", "kind": "llm",
            "provider": SHORT[1], "model": TEXT[:200], "design": SHORT[5], "prompt_version": f"{SHORT[3]} v{i}"}


def evidence(seat: int) -> dict[str, Any]:
    """One model call of payloads, as an LLM agent records it."""
    return {"calls": [{"messages": [{"role": "system", "content": f"system {seat}: {TEXT}"},
                                    {"role": "user", "content": f"user {seat}: {TEXT}"}],
                       "reply": f"reply {seat}: {TEXT}", "model_reported": SHORT[0], "finish_reason": "stop",
                       "input_tokens": 120, "output_tokens": 30, "latency_ms": 250.0, "error": SHORT[2],
                       "reasoning": f"thinking {seat}: {TEXT}"}]}


class PayloadAgent(Agent):
    """Answers with payloads: one refused try per decision (its error is a payload), then a
    legal move whose free text is a payload; every answer carries payload evidence."""

    def __init__(self, index: int, seed: int, *, stubborn: bool = False):
        self.description = description(index)
        self.rng = random.Random(seed)
        self.refused: set[tuple[str, int]] = set()
        self.stubborn = stubborn  # refuses every time: the game ends invalid

    async def act(self, request: Request) -> Decision:
        key = (request.phase, len(request.observation["log"]))
        if key not in self.refused or self.stubborn:
            self.refused.add(key)
            return Decision(None, raw=f"refused {request.seat}: {TEXT}", evidence=evidence(request.seat),
                            error=f"unreadable: {TEXT}")
        assert request.sample is not None
        action = dict(request.sample(self.rng))
        if request.game == "werewolf" and request.phase == "day":
            action = {"text": f"statement {request.seat}: {TEXT}"}
        elif request.game == "chameleon" and request.phase == "clue":
            action = {"clue": LINE}
        return Decision(action, raw=f"raw {request.seat}: {TEXT}", evidence=evidence(request.seat))

    async def probe(self, request: ProbeRequest) -> Decision | None:
        if request.kind != "suspect":
            return None
        others = [s for s in range(len(request.names)) if s != request.seat]
        return Decision({"seat": others[0]}, raw=TEXT, evidence=evidence(request.seat))


def _records(game_name: str, params: Mapping[str, Any], setup: Mapping[str, Any], seed: int,
             stubborn: int | None = None) -> list[dict[str, Any]]:
    game = games.get(game_name)
    params = game.params(params)
    n = game.players(params)
    agents = [PayloadAgent(seat % 3, seed + seat, stubborn=seat == stubborn) for seat in range(n)]
    seating = Seating(agents, game.seat_names(params, setup), [game.role_of(params, setup, s) for s in range(n)])
    game_play = play(game, params, setup, seating, seed=seed, game_id=f"{TOURNAMENT}-{game_name}-{seed:012x}",
                     tournament=TOURNAMENT, matchup=" ".join(SHORT)[:200], created=CREATED)
    # A thread of its own: Playwright's sync API keeps an event loop running in the test thread.
    with ThreadPoolExecutor(max_workers=1) as worker:
        return worker.submit(asyncio.run, game_play).result()


def werewolf_records(seed: int = 1) -> list[dict[str, Any]]:
    """A Werewolf game: payload seat names, statements, evidence, errors, and judge notes."""
    setup = {"roles": ["seer", "mason", "mason", "villager", "villager", "werewolf", "minion", "tanner"],
             "names": list(SHORT)}
    records = _records("werewolf", {}, setup, seed)
    spoken = next(r["n"] for r in records if r["type"] == "event" and r["phase"] == "day")
    judge = {"name": TEXT[:120], "kind": "llm", "provider": SHORT[1], "model": SHORT[0]}
    records.append({"type": "judge", "dimension": "engagement", "judge": judge, "round": None, "score": 7,
                    "mentions": None, "highlights": None})
    records.append({"type": "judge", "dimension": "memorability", "judge": judge, "round": None, "score": None,
                    "mentions": None, "highlights": [spoken]})
    # A second judge (another prompt version): suspicions, a round without mentions, a failed evaluation.
    second = {**judge, "prompt_version": SHORT[4]}
    empty = {"type": "judge", "judge": second, "score": None, "mentions": None, "highlights": None}
    records.append({**empty, "dimension": "suspicion", "round": 1, "suspects": [5, None, 0, 1, 1, 1, None, 2]})
    records.append({**empty, "dimension": "variation", "round": 1, "mentions": []})
    records.append({**empty, "dimension": "wonder", "round": None,
                    "failure": {"reason": "refused", "problem": TEXT[:200], "asks": 3}})
    records[0]["version"] = lowest_version(records)  # suspicion and failure are version 4
    return records


def chameleon_records(seed: int = 2) -> list[dict[str, Any]]:
    """A Chameleon game with sentence clues: a card of payload words and a payload topic."""
    words = list(SHORT[:7])
    setup = {"card": {"id": SHORT[0], "topic": SHORT[1], "words": words}, "secret": SHORT[1],
             "chameleon": 2, "order": [3, 0, 2, 1]}
    return _records("chameleon", {"players": 4, "words": 7, "clue": "sentence", "ties": "random"}, setup, seed)


def invalid_records(seed: int = 3) -> list[dict[str, Any]]:
    """A Chameleon game that ends invalid: the third seat to give a clue never gives a legal one."""
    setup = {"card": {"id": SHORT[0], "topic": SHORT[1], "words": list(SHORT[:7])}, "secret": SHORT[2],
             "chameleon": 0, "order": [1, 2, 3, 0]}
    return _records("chameleon", {"players": 4, "words": 7, "clue": "sentence", "ties": "random"}, setup, seed,
                    stubborn=3)


def write_payload_replays(folder: Path) -> list[Path]:
    """Write the payload replays into `folder` (as `<game id>.jsonl`); their paths."""
    paths = []
    for records in (werewolf_records(), chameleon_records(), invalid_records()):
        path = Path(folder) / f"{records[0]['game_id']}.jsonl"
        write_atomic(path, encode(records))
        paths.append(path)
    return paths


def write_test_corpus(folder: Path) -> Path:
    """The site tests' replays in `folder`: the shipped samples and the payload replays."""
    for game_id in SAMPLES.values():
        shutil.copy(BUILTIN / f"{game_id}.jsonl", folder)
    write_payload_replays(folder)
    return folder


_built: dict[Path, tuple[Path, str]] = {}


def built_site(tmp_path_factory: Any, serve: Any) -> tuple[Path, str]:
    """The site of the test corpus, built once per test session by build_site, and its address.

    The site is built after its server starts, with the server's address as `site_url`:
    Material's instant navigation only follows links listed in the sitemap, which needs it.
    """
    from site_builder.build import build_site

    key = tmp_path_factory.getbasetemp()
    if key not in _built:
        folder = write_test_corpus(tmp_path_factory.mktemp("replays"))
        site = tmp_path_factory.mktemp("site")
        base = serve(site)
        # The payload games are dealt by hand (payload names and card words): checked by the rules alone.
        build_site([folder], site, site_url=base + "/", derive=False)
        _built[key] = (site, base)
    return _built[key]
