"""Each ranked row's status (scoring/verification.py) and how the board counts it (scoring/ranked.py):
the maintainers' and the verified rows take places and tiers; a self-reported row is listed under
them with the place it would take; an inconsistent one apart. Computed from the games alone."""

from __future__ import annotations

import dataclasses
import json

import pytest

from site_builder.scoring import board as boards
from site_builder.scoring import ranked, verification
from site_builder.scoring.corpus import Corpus
from site_builder.scoring.model import AgentInfo
from tests.scoring.test_ranked import STAGE, deal

MODEL = json.dumps({"kind": "llm", "provider": "openai_compatible", "model": "m", "base_url": "http://127.0.0.1:8000/v1"},
                   sort_keys=True)
THEIRS = {"id": "id:1", "label": "@alice"}
#: Four stages of the two games of STAGE: deals won (True) and lost.
WINS = {"prisoners_dilemma": [True, True, False, True, True, True, False, True], "public_good": [True, False, True, True]}


def row(name: str, wins=WINS, candidate: str = MODEL):
    return [dataclasses.replace(g, trace={"replies": [f"{name}-{g.game}-{g.suite['deal']}"], "moves": ["a", "b"]})
            for game, results in wins.items() for i, w in enumerate(results)
            for g in [deal(name, game, i, w, candidate=candidate)]]


def verified(name: str, wins=WINS, *, replays: dict[str, list[int]] | None = None, candidate: str = MODEL,
             same_replies: bool = True):
    """The maintainers' verification of row `name`: held-out deals won as `wins` says, and the row's
    deals `replays` played again (with the row's replies, or other ones)."""
    games = []
    for game, results in wins.items():
        for i, won in enumerate(results):
            g = deal(f"verify-{name}", game, i, won, candidate=candidate)
            claim = {"row": name, "suite": "ranked", "version": 1, "stage": g.suite["stage"], "deal": i, "seat": 0,
                     "held_out": {"epoch": 1, "commitment": "0" * 64, "commit": "1" * 40}}
            games.append(dataclasses.replace(g, game_id=f"verify-{name}-{game}-h{i}", suite=None, verify=claim,
                                             trace={"replies": ["held"], "moves": []}))
    for game, indices in (replays or {}).items():
        for i in indices:
            won = WINS[game][i]
            g = deal(f"verify-{name}", game, i, won, candidate=candidate)
            reply = f"{name}-{game}-{i}" if same_replies else "something else"
            claim = {"row": name, "suite": "ranked", "version": 1, "stage": g.suite["stage"], "deal": i, "seat": 0}
            games.append(dataclasses.replace(g, game_id=f"verify-{name}-{game}-r{i}", suite=None, verify=claim,
                                             trace={"replies": [reply], "moves": ["a", "b"]}))
    return games


def ranked_board(games, evidence=(), owners=None):
    found = ranked.board(games, owners if owners is not None else {}, STAGE, seed=1, evidence=evidence)
    return {r["row"]: r for r in found["rows"]}, [r["row"] for r in found["rows"]], found


def maintainers_rows():
    return row("ranked-1-ours", {"prisoners_dilemma": [True, False, False, True], "public_good": [False, True]},
               candidate="bot-ours")


def test_a_row_without_verification_is_self_reported_and_listed_under_the_counted_rows():
    games = maintainers_rows() + row("ranked-1-a", {"prisoners_dilemma": [True] * 4, "public_good": [True] * 2})
    rows, order, found = ranked_board(games, owners={"ranked-1-a": THEIRS})
    mine = rows["ranked-1-a"]
    assert mine["status"] == {"state": "self-reported", "verification": None}
    assert order == ["ranked-1-ours", "ranked-1-a"]  # never above a counted row, though it scores higher
    assert mine["place"] == 1 and mine["tier"] is None  # the place it would take
    assert rows["ranked-1-ours"]["status"]["state"] == "maintainers" and found["claims"]["ranked-1"]["rows"] == 1


@pytest.mark.parametrize("evidence, state", [
    (lambda: verified("ranked-1-a"), "consistent"),
    (lambda: verified("ranked-1-a", replays={"prisoners_dilemma": [0, 1], "public_good": [0]}), "exact"),
    (lambda: verified("ranked-1-a", replays={"prisoners_dilemma": [0, 1]}, same_replies=False), "consistent"),
    (lambda: verified("ranked-1-a", {"prisoners_dilemma": [False] * 8, "public_good": [False] * 4}), "inconsistent"),
], ids=["held out alike", "played again alike", "other replies", "held out lost"])
def test_a_verification_decides_the_rows_status(evidence, state):
    games = maintainers_rows() + row("ranked-1-a")
    rows, order, found = ranked_board(games, evidence(), owners={"ranked-1-a": THEIRS})
    mine = rows["ranked-1-a"]
    assert mine["status"]["state"] == state
    figures = mine["status"]["verification"]
    assert figures["tournament"] == "verify-ranked-1-a" and figures["claimed"]["value"] == mine["score"]["value"]
    if state in verification.VERIFIED:
        assert mine["tier"] is not None and found["claims"]["ranked-1"]["rows"] == 2  # one table with theirs
        assert order[0] == "ranked-1-a"  # a verified row takes its place among them
    else:
        assert mine["tier"] is None and found["claims"]["ranked-1"]["rows"] == 1
    if state == "inconsistent":
        assert figures["p"] < figures["level"] and order[-1] == "ranked-1-a"
        assert figures["held_out"]["value"] == 0.0
    if state == "exact":
        assert figures["replays"] == {"games": 3, "matched": 3, "calls": 3, "calls_matched": 3, "moves": 6,
                                      "moves_agreed": 6}


def test_a_verification_of_another_model_or_in_another_tournament_is_no_evidence():
    games = maintainers_rows() + row("ranked-1-a")
    other = json.loads(MODEL) | {"model": "another"}
    evidence = verified("ranked-1-a", candidate=json.dumps(other, sort_keys=True))
    misplaced = [dataclasses.replace(g, tournament="verify-ranked-1-b") for g in verified("ranked-1-a")]
    for found in (evidence, misplaced):
        rows, _, _ = ranked_board(games, found, owners={"ranked-1-a": THEIRS})
        assert rows["ranked-1-a"]["status"]["state"] == "self-reported"


def test_the_servers_address_on_the_playing_machine_is_not_the_model():
    games = maintainers_rows() + row("ranked-1-a")
    moved = json.dumps(json.loads(MODEL) | {"base_url": "http://localhost:9000/v1"}, sort_keys=True)
    rows, _, _ = ranked_board(games, verified("ranked-1-a", candidate=moved), owners={"ranked-1-a": THEIRS})
    assert rows["ranked-1-a"]["status"]["state"] == "consistent"
    hosted = json.dumps(json.loads(MODEL) | {"base_url": "https://api.example.com/v1"}, sort_keys=True)
    rows, _, _ = ranked_board(games, verified("ranked-1-a", candidate=hosted), owners={"ranked-1-a": THEIRS})
    assert rows["ranked-1-a"]["status"]["state"] == "self-reported"


def test_the_board_keeps_verifications_off_every_other_board_and_takes_none_from_a_contributor():
    games = maintainers_rows() + row("ranked-1-a") + verified("ranked-1-a")
    agents = {MODEL: AgentInfo(MODEL, "m", json.loads(MODEL)), "bot-ours": AgentInfo("bot-ours", "ours", {}),
              **{f"bot{i}": AgentInfo(f"bot{i}", f"bot {i}", {"kind": "builtin"}) for i in (1, 2)}}
    corpus = Corpus(games=games, agents=agents, files=len(games), owners={g.game_id: "id:1" for g in games
                                                                           if g.tournament == "ranked-1-a"})
    split = boards.parts(corpus)
    assert [g.tournament for part in split for g in part.corpus.games if g.verify] == []
    assert len(split[0].evidence) == 12 and split[1].evidence == ()
    stolen = dataclasses.replace(corpus, owners={**corpus.owners, **{g.game_id: "id:1" for g in games if g.verify}})
    assert boards.parts(stolen)[0].evidence == ()  # a verification in a contributor's files is no evidence
