"""The scorer never pools one model agent's games from two sources: a corpus merged by hand shows
them as two rows, each labelled by its source; built-in agents stay one row."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

from runner import games
from runner.agents.llm import make_llm_agent
from runner.play import Seating, rng_for
from runner.replay.format import encode
from site_builder.scoring.corpus import load
from site_builder.scoring.owners import Owner, separate
from site_builder.scoring.results import assemble
from tests.agents.llm.llm_fakes import legal_model
from tests.helpers import play_alone

SHIPPED = Path(__file__).resolve().parents[2] / "replays" / "builtin"


def play_llm(game_name: str, seed: int) -> list[dict]:
    """A game with the same model agent (a fake that answers legally) in every seat."""
    game = games.get(game_name)
    params = game.params({})
    setup = game.deal(params, rng_for(seed, "deal"))
    n = game.players(params)
    agents = [make_llm_agent({"provider": "openai", "model": "fake-model"}, legal_model(random.Random(seed + s)),
                             game=game_name, seat=s, rng=rng_for(seed, f"agent-{s}"), name=f"llm-{s}")
              for s in range(n)]
    seating = Seating(agents, game.seat_names(params, setup), [game.role_of(params, setup, s) for s in range(n)])
    return asyncio.run(play_alone(game, params, setup, seating, seed=seed, tournament="t", created="2026-11-21"))


def test_a_model_agent_of_two_sources_is_two_rows(tmp_path):
    files = []
    for seed in (1, 2, 3):
        records = play_llm("prisoners_dilemma", seed)
        path = tmp_path / f"{records[0]['game_id']}.jsonl"
        path.write_bytes(encode(records))
        files.append(str(path))
    corpus = load(files)
    (model,) = [k for k, a in corpus.agents.items() if a.kind == "llm"]
    owner_of = {files[0]: Owner("maintainers", "the maintainers", "2026-01-01"),
                files[1]: Owner("@mallory", "@mallory", "2026-02-01"),
                files[2]: Owner("maintainers", "the maintainers", "2026-03-01")}

    split = separate(corpus, owner_of)

    rows = {k: a for k, a in split.agents.items() if a.kind == "llm"}
    assert len(rows) == 2 and model in rows  # the owner of the oldest game keeps the key
    assert sorted(a.label for a in rows.values()) == ["llm-0", "llm-0 (@mallory)"]  # the first keeps its name
    games_of = {key: sum(1 for g in split.games if any(s.agent == key for s in g.seats)) for key in rows}
    assert games_of[model] == 2 and sorted(games_of.values()) == [1, 2]
    other = next(k for k in rows if k != model)
    mallorys = next(g for g in split.games if any(s.agent == other for s in g.seats))
    assert model not in str(mallorys.digest) or other in str(mallorys.digest)  # the digest follows the rename
    board = assemble(split, seed=1)["leaderboards"]
    assert board  # the results assemble with the split rows
    assert separate(corpus, {f: Owner("maintainers", "the maintainers") for f in files}) is corpus


def test_built_in_agents_are_never_split():
    shipped = sorted(SHIPPED.glob("builtin-prisoners_dilemma-*.jsonl"))[:2]
    corpus = load([str(p) for p in shipped])
    owner_of = {str(shipped[0]): Owner("maintainers", "the maintainers", "2026-01-01"),
                str(shipped[1]): Owner("@x", "@x", "2026-02-01")}
    assert separate(corpus, owner_of) is corpus
