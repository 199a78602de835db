"""Sections kept between scorings: a warm score after new games writes a cold score's results."""

from __future__ import annotations

import dataclasses
import functools
import json
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from site_builder.scoring import leaderboards, magic, ratings
from site_builder.scoring.corpus import Corpus, load
from site_builder.scoring.results import assemble, dumps
from site_builder.scoring.sections import Sections

CORPUS = Path(__file__).resolve().parents[2] / "replays"
pytestmark = pytest.mark.skipif(not (CORPUS / "builtin").is_dir(), reason="the shipped corpus is missing")


def copy_games(folder: Path, per_game: slice, source: Path = CORPUS / "builtin") -> Path:
    """Some shipped games of every kind (the same slice of each game's files, by name)."""
    folder.mkdir(parents=True, exist_ok=True)
    by_game: dict[str, list[Path]] = {}
    for f in sorted(source.glob("*.jsonl")):
        by_game.setdefault(f.name.split("-")[1], []).append(f)
    for paths in by_game.values():
        for f in paths[per_game]:
            shutil.copy(f, folder / f.name)
    return folder


@pytest.fixture(scope="module")
def corpora(tmp_path_factory) -> tuple[Path, Path, Path]:
    root = tmp_path_factory.mktemp("sections")
    base = copy_games(root / "base", slice(0, 12))
    # Two more Chameleon games and two more Werewolf games, as a pull request would add.
    added = root / "added"
    added.mkdir()
    for name in ("chameleon", "werewolf"):
        for f in sorted((CORPUS / "builtin").glob(f"builtin-{name}-*.jsonl"))[12:14]:
            shutil.copy(f, added / f.name)
    models = copy_games(root / "models", slice(0, 3), CORPUS / "local-cpu")
    return base, added, models


@pytest.fixture(scope="module")
def loaded(tmp_path_factory) -> Callable[[list[Path]], Corpus]:
    """loaded(folders) -> `load(folders)`, its re-simulations answered from one cache of the module.

    The tests are of the sections store (`kept`), not of loading: each of them loads the same
    shipped games again, and re-simulating them every time (twelve times the same games) was most
    of the module's time. A load answered from the cache decodes the very JSON a cold load makes
    (scoring/corpus.py), so each test still scores a corpus of its own, equal to a cold one.
    """
    cache = tmp_path_factory.mktemp("sections-load") / "scores.sqlite"
    return functools.partial(load, cache_path=cache)


def test_a_warm_score_after_new_games_is_a_cold_score_byte_for_byte(corpora, loaded, tmp_path):
    base, added, models = corpora
    kept = tmp_path / "sections.sqlite"
    first = assemble(loaded([base, models]), kept=kept)
    assert dumps(first) == dumps(assemble(loaded([base, models])))  # the store changes nothing
    assert dumps(assemble(loaded([base, models]), kept=kept)) == dumps(first)  # read back: the same
    warm = assemble(loaded([base, models, added]), kept=kept)
    assert dumps(warm) == dumps(assemble(loaded([base, models, added])))


def test_unchanged_sections_are_read_back_and_changed_ones_computed(corpora, loaded, tmp_path):
    base, added, models = corpora
    kept = tmp_path / "sections.sqlite"
    corpus = loaded([base, models])
    assemble(corpus, kept=kept)

    grown = loaded([base, models, added])  # new Chameleon and Werewolf games
    store = Sections(kept, grown.agents, grown.games, 2026)
    werewolves = [g for g in grown.games if g.game == "werewolf"]
    prisoners = [g for g in grown.games if g.game == "prisoners_dilemma"]
    marker = object()
    assert store.section("leaderboards/prisoners_dilemma", prisoners, lambda: marker) is not marker  # kept
    assert store.section("werewolf/ewavm", werewolves, lambda: {"made": 1}) == {"made": 1}  # new games: made
    assert (store.kept, store.computed) == (1, 1)
    store.close()


def test_a_renamed_seat_agent_another_seed_or_other_games_make_another_key(corpora, loaded, tmp_path):
    base, _, _ = corpora
    corpus = loaded([base])
    game = corpus.games[0]
    renamed = dataclasses.replace(game, seats=tuple(dataclasses.replace(s, agent=s.agent + "x") for s in game.seats))
    store = Sections(tmp_path / "s.sqlite", corpus.agents, [*corpus.games, renamed], 2026)
    other_seed = Sections(tmp_path / "t.sqlite", corpus.agents, corpus.games, 7)
    keys = {store.key("x", [game]), store.key("x", [renamed]), store.key("x", corpus.games[:2]),
            store.key("y", [game]), other_seed.key("x", [game])}
    assert len(keys) == 5
    assert store.key("x", [game]) == Sections(tmp_path / "u.sqlite", corpus.agents, corpus.games, 2026).key("x", [game])


def test_a_list_made_by_extending_another_has_the_key_of_the_list_made_whole(corpora, loaded, tmp_path):
    """`Sections.extended` (the history's growing lists) keys a list as `key` keys it from its games."""
    base, _, models = corpora
    corpus = loaded([base, models])
    grown = Sections(tmp_path / "s.sqlite", corpus.agents, corpus.games, 2026)
    whole = Sections(tmp_path / "t.sqlite", corpus.agents, corpus.games, 2026)
    before: list = []
    for cut in (3, 3, 10, len(corpus.games) - 2, len(corpus.games)):  # one step adds nothing
        games = before + corpus.games[len(before):cut]
        grown.extended(before, games)
        assert grown.key("x", games) == whole.key("x", list(games)), cut
        before = games
    again, longer = corpus.games[:5], corpus.games[:7]  # a list it did not see grow: made from its games
    grown.extended(again, longer)
    assert grown.key("x", longer) == whole.key("x", corpus.games[:7])


def test_a_damaged_store_is_replaced_and_unused_sections_are_dropped(corpora, loaded, tmp_path):
    base, added, models = corpora
    kept = tmp_path / "sections.sqlite"
    kept.write_bytes(b"this is not a database" * 100)
    corpus = loaded([base])
    results = assemble(corpus, kept=kept)
    assert dumps(results) == dumps(assemble(corpus))
    count = sqlite3.connect(kept).execute("SELECT count(*) FROM sections").fetchone()[0]
    assert count > 10
    smaller = loaded([copy_games(tmp_path / "few", slice(0, 2))])
    store = Sections(kept, smaller.agents, smaller.games, 2026)
    assert store.section("only", smaller.games, lambda: [1]) == [1]
    store.close()
    # Only what the last scoring used is left.
    assert sqlite3.connect(kept).execute("SELECT key FROM sections").fetchall() == \
        [(Sections(kept, smaller.agents, smaller.games, 2026).key("only", smaller.games),)]


def test_inner_sections_outlive_scorings_that_read_back_their_outer_one(corpora, loaded, tmp_path):
    """A section made of smaller ones (the MAgIC table of its agents' reports) is read back while
    nothing changed; its inner sections stay stored, so that when new games change the outer one
    later, the inner ones those games do not enter are still read back."""
    base, _, _ = corpora
    corpus = loaded([base])
    games = corpus.games
    kept = tmp_path / "sections.sqlite"

    def score(make_inner) -> Sections:
        store = Sections(kept, corpus.agents, games, 2026)
        store.section("outer", games, lambda: [store.section("inner", games[:2], make_inner)])
        store.close()
        return store

    assert (score(lambda: 1).computed, score(lambda: 2).kept) == (2, 1)  # the second read back the outer one only
    store = Sections(kept, corpus.agents, games, 2026)
    assert store.section("outer", games[1:], lambda: [store.section("inner", games[:2], lambda: 3)]) == [1]
    assert (store.kept, store.computed) == (1, 1)


def test_a_store_of_the_earlier_layout_is_emptied(corpora, loaded, tmp_path):
    base, _, _ = corpora
    corpus = loaded([base])
    kept = tmp_path / "sections.sqlite"
    old = sqlite3.connect(kept)
    old.execute("CREATE TABLE sections (key TEXT PRIMARY KEY, value TEXT)")
    old.execute("INSERT INTO sections VALUES ('k', '1')")
    old.commit()
    old.close()
    store = Sections(kept, corpus.agents, corpus.games, 2026)
    assert store.section("x", corpus.games, lambda: [4]) == [4]
    store.close()
    assert sqlite3.connect(kept).execute("SELECT count(*) FROM sections").fetchone()[0] == 1


def test_new_games_recompute_only_their_agents_magic_reports_and_leaderboard_rows(corpora, loaded, tmp_path):
    base, added, models = corpora
    kept = tmp_path / "sections.sqlite"
    before = loaded([base, models])
    assemble(before, kept=kept)
    assemble(before, kept=kept)  # nothing changed: the outer sections read back
    grown = loaded([base, models, added])
    # A new game's header may rename an agent (its label is what most of its games call it), which
    # rightly changes every section its games enter: the agents are kept as they were here.
    grown = dataclasses.replace(grown, agents={**grown.agents, **before.agents})
    new_ids = {json.loads(f.read_text(encoding="utf-8").splitlines()[0])["game_id"] for f in added.glob("*.jsonl")}
    # Of the new games, only the Chameleon ones are MAgIC games.
    newcomers = {s.agent for g in grown.games if g.game_id in new_ids and g.game == "chameleon" for s in g.seats}
    store = Sections(kept, grown.agents, grown.games, 2026)
    made: list[str] = []

    def recording(name, games, compute):
        return store.section(name, games, lambda: (made.append(name), compute())[1])

    magic.magic(grown.games, grown.agents, seed=2026, keep=recording)
    chameleons = [g for g in grown.games if g.game == "chameleon"]
    leaderboards.board("chameleon", chameleons, grown.agents, seed=2026, keep=recording)
    store.close()
    played = {s.agent for g in chameleons for s in g.seats}
    assert played - newcomers, "the test needs agents without new games"
    assert sorted(made) == sorted([f"magic/agent/{k}" for k in newcomers] + [f"leaderboards/chameleon/{k}" for k in newcomers])


def test_a_rating_fit_is_kept_under_its_patterns_so_games_adding_none_refit_nothing(corpora, loaded, tmp_path):
    base, _, models = corpora
    corpus = loaded([base, models])
    chameleons = [g for g in corpus.games if g.game == "chameleon"]
    tally = ratings.pattern_tally(chameleons)
    assert tally["patterns"], "the test needs rated games"
    kept = tmp_path / "sections.sqlite"

    def table(tallies, agents=corpus.agents):
        store = Sections(kept, agents, corpus.games, 2026)
        made: list[str] = []
        out = ratings.tallied_table(tallies, agents, seed=2026, game="chameleon",
                                    keep=lambda *a: store.derived(*a[:3], lambda: (made.append(a[0]), a[3]())[1]))
        store.close()
        return out, made

    first, made = table([tally])
    assert made == ["ratings/fit/chameleon"]
    assert first == ratings.tallied_table([tally], corpus.agents, seed=2026, game="chameleon")  # the store changes nothing
    # A self-play game adds no pattern, only a skipped game: the fit is read back, the count is new.
    self_play = {"patterns": [], "skipped": 1, "forfeits": 0}
    grown, made = table([tally, self_play])
    assert made == [] and grown["games_skipped"]["single_agent"] == first["games_skipped"]["single_agent"] + 1
    assert grown == ratings.tallied_table([tally, self_play], corpus.agents, seed=2026, game="chameleon")
    # One more game of a rated pattern changes the fit.
    game_, agents_, places, roles_, _ = tally["patterns"][0]
    _, made = table([tally, {"patterns": [[game_, agents_, places, roles_, 1]], "skipped": 0, "forfeits": 0}])
    assert made == ["ratings/fit/chameleon"]
    # So does a new label for an agent the table shows.
    renamed = {**corpus.agents, agents_[0]: dataclasses.replace(corpus.agents[agents_[0]], label="Someone else")}
    relabelled, made = table([tally], renamed)
    assert made == ["ratings/fit/chameleon"] and any(r["label"] == "Someone else" for r in relabelled["agents"])
