"""The replay viewer's data: one small JSON file per valid replay, the LLM-exchange sidecars,
the sharded replay list, and the two pages with their assets."""

from __future__ import annotations

import dataclasses
import gzip
import json
import re
import shutil
from pathlib import Path

import pytest

from runner.replay.format import read_file
from site_builder.scoring.corpus import load
from site_builder.viewer import listing
from site_builder.viewer import pages as viewer_pages
from site_builder.viewer.data import DATA_VERSION, _step, outcome_summary
from site_builder.viewer.files import CALLS_DIR, DATA_DIR, LIST_DIR, ReplayDataError
from site_builder.viewer.listing import (LIST_SHARD_SUFFIX, LIST_VERSION, ListedGame, list_files, replay_index,
                                        write_list)
from site_builder.viewer.shards import (MANIFEST, SHARD_SUFFIX, bucket_count, pack, read_packed, shard_hash,
                                       shard_name, unpack)
from site_builder.viewer.write import write_data
from tests.site import payloads
from tests.site.payloads import (
    BUILTIN,
    PAYLOAD_CHAMELEON,
    PAYLOAD_INVALID,
    PAYLOAD_WEREWOLF,
    SAMPLES,
)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A corpus of the samples, the payload replays and one broken replay, written as site data."""
    folder = payloads.write_test_corpus(tmp_path_factory.mktemp("replays"))
    broken = (BUILTIN / f"{SAMPLES['prisoners_dilemma']}.jsonl").read_text(encoding="utf-8")
    broken = broken.replace(SAMPLES["prisoners_dilemma"], "broken-game")
    broken = broken.replace('"strict_winner":null', '"strict_winner":1')  # a claim the rules refute
    (folder / "broken-game.jsonl").write_text(broken, encoding="utf-8")
    corpus = load([folder], derive=False)  # the payload games are dealt by hand (payload card words)
    site = tmp_path_factory.mktemp("site")
    (site / DATA_DIR).mkdir(parents=True)
    (site / DATA_DIR / "stale.json").write_text("{}")
    count = write_data(corpus, site).files
    return corpus, site, count, folder


def data_of(site: Path, game_id: str) -> dict:
    return read_packed(site, game_id)


def calls_of(site: Path, game_id: str) -> dict:
    return read_packed(site, game_id, calls=True)


def shard_lines(site: Path, folder: str) -> dict[str, str]:
    """Every game's line in the shards of a folder, by game id."""
    lines: dict[str, str] = {}
    for path in sorted((site / folder).glob(f"*{SHARD_SUFFIX}")):
        lines.update(unpack(path.read_bytes()))
    return lines


def records_of(folder: Path, game_id: str) -> list[dict]:
    records, problems = read_file(folder / f"{game_id}.jsonl")
    assert not problems
    return [r.data for r in records]


def written_files(site: Path) -> list[Path]:
    return [p for folder in (DATA_DIR, CALLS_DIR, LIST_DIR)
            for p in (site / folder).rglob("*") if p.is_file()]


def test_every_valid_replay_is_in_the_shard_its_id_names(built):
    corpus, site, count, _ = built
    assert len(corpus.games) == len(SAMPLES) + 3 and len(corpus.invalid_replays) == 1
    manifest = json.loads((site / MANIFEST).read_text(encoding="utf-8"))
    buckets = manifest["data"]
    names = sorted(p.name for p in (site / DATA_DIR).iterdir())
    assert names == sorted({shard_name(shard_hash(g.game_id) % buckets) for g in corpus.games}
                           | {"index.json"})
    for path in (site / DATA_DIR).glob(f"*{SHARD_SUFFIX}"):
        for game_id in unpack(path.read_bytes()):
            assert path.name == shard_name(shard_hash(game_id) % buckets)
    assert sorted(shard_lines(site, DATA_DIR)) == sorted(g.game_id for g in corpus.games)
    assert "stale.json" not in names
    assert count == len(written_files(site))


def test_a_game_that_ended_invalid_is_shown(built):
    site = built[1]
    data = data_of(site, PAYLOAD_INVALID)
    assert data["outcome"]["status"] == "invalid" and data["outcome"]["summary"] == "invalid"
    assert data["steps"][-1]["k"] == "forfeit" and data["steps"][-1]["s"] == 3
    assert data["reveal"] == {"roles": None, "setup": None}


def test_llm_exchanges_go_to_a_sidecar_only_for_replays_that_have_them(built):
    corpus, site, _, _ = built
    with_calls = sorted(shard_lines(site, CALLS_DIR))
    assert with_calls == sorted([PAYLOAD_WEREWOLF, PAYLOAD_CHAMELEON, PAYLOAD_INVALID])
    for game in corpus.games:
        assert data_of(site, game.game_id)["llm"] is (game.game_id in with_calls)


@pytest.mark.parametrize("game_id", [*SAMPLES.values(), PAYLOAD_WEREWOLF, PAYLOAD_CHAMELEON])
def test_steps_are_the_events_and_probes_in_order_with_their_vis(built, game_id):
    _, site, _, folder = built
    records = records_of(folder, game_id)
    body = [r for r in records if r["type"] in ("event", "probe")]
    steps = data_of(site, game_id)["steps"]
    assert len(steps) == len(body)
    for step, record in zip(steps, body):
        if record["type"] == "probe":
            assert (step["k"], step["p"], step["s"], step["d"], step["v"]) == (
                "probe", record["probe"], record["seat"], record["answer"], [record["seat"]])
        else:
            assert (step["n"], step["k"], step["p"], step["s"], step["d"], step["v"]) == (
                record["n"], record["kind"], record["phase"], record["seat"], record["data"], record["vis"])
            assert ("a" in step) == bool(record.get("attempts"))
            assert ("c" in step) == bool(record.get("evidence"))


@pytest.mark.parametrize("game", list(SAMPLES))
def test_header_players_setup_and_outcome(built, game):
    corpus, site, _, folder = built
    scored = next(g for g in corpus.games if g.game_id == SAMPLES[game])
    header = records_of(folder, scored.game_id)[0]
    data = data_of(site, scored.game_id)
    assert (data["v"], data["id"], data["game"], data["variant"], data["setup"]) == (
        DATA_VERSION, scored.game_id, game, header["variant"], header["setup"])
    assert (data["tournament"], data["matchup"], data["created"], data["seed"]) == (
        "builtin", header["matchup"], header["provenance"]["created"], str(header["seed"]))
    assert [(p["name"], p["role"], p["agent"]) for p in data["players"]] == [
        (p["name"], p["role"], corpus.agents[s.agent].label) for p, s in zip(header["players"], scored.seats)]
    assert data["outcome"]["winners"] == list(scored.winners) and data["outcome"]["result"] == scored.result


def test_refused_attempts_and_exchanges_are_filed_under_the_seat_that_made_them(built):
    _, site, _, folder = built
    data, calls = data_of(site, PAYLOAD_WEREWOLF), calls_of(site, PAYLOAD_WEREWOLF)
    body = [r for r in records_of(folder, PAYLOAD_WEREWOLF) if r["type"] in ("event", "probe")]
    assert set(calls["steps"]) == {str(i) for i, s in enumerate(data["steps"]) if "c" in s}
    for index, exchanges in calls["steps"].items():
        step, record = data["steps"][int(index)], body[int(index)]
        seat = step["s"]
        texts = [calls["texts"][ref] for call in exchanges for _, ref in call["m"]]
        assert texts and all(t.startswith((f"system {seat}:", f"user {seat}:")) for t in texts)
        assert [c["r"] for c in exchanges] == [c["reply"] for c in record["evidence"]["calls"]]
        assert step["c"] == [len(exchanges), 120 * len(exchanges), 30 * len(exchanges), 250 * len(exchanges)]
    refused = [s for s in data["steps"] if "a" in s]
    assert refused and all(a["raw"].startswith(f"refused {s['s']}:") for s in refused for a in s["a"])


def test_prompts_repeated_across_calls_are_stored_once(built):
    _, site, _, _ = built
    calls = calls_of(site, PAYLOAD_WEREWOLF)
    messages = sum(len(call["m"]) for exchanges in calls["steps"].values() for call in exchanges)
    assert len(calls["texts"]) == len(set(calls["texts"])) == 16  # a system and a user text per seat
    assert messages > 10 * len(calls["texts"])


@pytest.mark.parametrize(("game", "seat", "private", "knows"), [
    ("chameleon", 1, {"role": "chameleon"}, [1]),                                      # not told the secret
    ("chameleon", 0, {"role": "non_chameleon", "secret": "<secret>"}, [0]),
    ("undercover", 0, {"word": "<word>"}, []),                                         # not told its role
    ("werewolf", 2, {"role": "mason", "team": "village", "fellow_mason": 7}, [2, 7]),  # knows its partner
    ("werewolf", 4, {"role": "seer", "team": "village"}, [4]),
    ("prisoners_dilemma", 0, {}, []),
])
def test_each_seat_knows_what_the_rules_deal_it(built, game, seat, private, knows):
    _, site, _, _ = built
    data = data_of(site, SAMPLES[game])
    setup = data["setup"]
    filled = {k: {"<secret>": setup.get("secret"), "<word>": (setup.get("pair") or {}).get("civilian")}.get(v, v)
              for k, v in private.items()}
    assert data["private"][seat] == filled
    assert data["knows"][seat] == knows


@pytest.mark.parametrize(("game_id", "roles_phase", "setup_phase"), [
    (SAMPLES["chameleon"], "accusation", "end"),
    (SAMPLES["undercover"], "vote_result", "vote_result"),
    (SAMPLES["werewolf"], "result", "result"),
    (SAMPLES["cost_sharing"], None, None),
    (SAMPLES["public_good"], None, None),
])
def test_roles_and_setup_become_public_at_the_rules_reveal(built, game_id, roles_phase, setup_phase):
    _, site, _, _ = built
    data = data_of(site, game_id)

    def step_of(phase):  # viewer steps count from 1 for the first event; 0 is the deal
        return 0 if phase is None else 1 + next(i for i, s in enumerate(data["steps"]) if s["p"] == phase)

    assert data["reveal"] == {"roles": step_of(roles_phase), "setup": step_of(setup_phase)}


def scored_like(game, **changes):
    return dataclasses.replace(game, **changes)


@pytest.mark.parametrize(("game", "result", "status", "summary"), [
    ("chameleon", {"magic_outcome": "non_chameleons_win"}, "complete", "non-chameleons win"),
    ("chameleon", {"magic_outcome": "chameleon_guessed"}, "complete", "chameleon guessed the word"),
    ("chameleon", {"magic_outcome": "even_vote"}, "complete", "even vote"),
    ("undercover", {"magic_outcome": "undercover_wins"}, "complete", "undercover wins"),
    ("werewolf", {"winning_team": "tanner"}, "complete", "tanner wins"),
    ("cost_sharing", {"success": False}, "complete", "no agreement"),
    ("prisoners_dilemma", {"strict_winner": 2}, "complete", "single winner"),
    ("public_good", {"strict_winner": None}, "complete", "shared win"),
    ("werewolf", {"forfeit": {"seat": 0, "phase": "day", "reason": "x"}}, "invalid", "invalid"),
])
def test_outcome_summary(built, game, result, status, summary):
    corpus = built[0]
    sample = next(g for g in corpus.games if g.game_id == SAMPLES[game])
    assert outcome_summary(scored_like(sample, result=result, status=status)) == summary


def test_replay_list_rows_and_shards(built, monkeypatch):
    corpus = built[0]
    monkeypatch.setattr(listing, "SHARD_ROWS", 2)
    files = replay_index(corpus.games, corpus.agents)
    index = files["index.json"]
    assert index["v"] == LIST_VERSION and index["rows"] == 2
    assert index["total"] == len(corpus.games)
    assert index["agents"] == sorted(a.label for a in corpus.agents.values())
    assert index["labels"] == sorted(set(index["agents"]))
    assert [g["game"] for g in index["games"]] == ["chameleon", "undercover", "cost_sharing", "prisoners_dilemma",
                                                  "public_good", "werewolf"]
    chameleon_at = next(i for i, g in enumerate(index["games"]) if g["game"] == "chameleon")
    chameleon = index["games"][chameleon_at]
    assert chameleon["count"] == 3 and chameleon["roles"] == ["chameleon", "non_chameleon"]
    assert files["g-chameleon.json"]["shards"] and len(files["g-chameleon.json"]["shards"]) == 2  # 3 rows, 2 a shard

    def stream(name):
        return [row for n in range(len(files[f"{name}.json"]["shards"]))
                for row in files[f"{name}-{n}{LIST_SHARD_SUFFIX}"]["rows"]]

    rows = stream("g-chameleon")
    by_id = {row[0]: row for row in rows}
    sample = next(g for g in corpus.games if g.game_id == SAMPLES["chameleon"])
    row = by_id[sample.game_id]
    assert row[1] == sample.created[:10]
    assert [index["agents"][a] for a in row[2]] == [corpus.agents[s.agent].label for s in sample.seats]
    assert row[3] == list(sample.winners)
    assert chameleon["outcomes"][row[4]] == outcome_summary(sample) and row[5] == 0
    assert [chameleon["roles"][r] for r in row[6]] == [s.role for s in sample.seats]
    moves = sum(1 for line in Path(corpus.paths[sample.game_id]).read_text(encoding="utf-8").splitlines()
                if '"type":"event"' in line.replace(" ", "") and '"kind":"action"' in line.replace(" ", ""))
    assert row[7] == moves > 0 and row[8] == chameleon_at
    assert by_id[PAYLOAD_INVALID][5] == 1 and chameleon["outcomes"][by_id[PAYLOAD_INVALID][4]] == "invalid"

    # "all" holds every game once, newest first; a game's stream and an agent's hold theirs, in that order.
    everything = stream("all")
    assert sorted(r[0] for r in everything) == sorted(g.game_id for g in corpus.games)
    newest = sorted(sorted(corpus.games, key=lambda g: g.game_id), key=lambda g: g.created, reverse=True)
    assert [r[0] for r in everything] == [g.game_id for g in newest]
    assert rows == [r for r in everything if r[8] == chameleon_at]
    for i, label in enumerate(index["labels"]):
        assert stream(f"a{i}") == [r for r in everything if label in {index["agents"][a] for a in r[2]}]
    # The counts say how many rows of each shard fall under each (game, outcome) key.
    keys = [tuple(k) for k in index["keys"]]
    for name in ["all", "g-chameleon"] + [f"a{i}" for i in range(len(index["labels"]))]:
        counts = files[f"{name}.json"]
        every = [keys.index((r[8], r[4])) for r in stream(name)]
        assert counts["keys"] == sorted(set(every))
        for n, tally in enumerate(counts["shards"]):
            shard = files[f"{name}-{n}{LIST_SHARD_SUFFIX}"]["rows"]
            assert tally == [sum(1 for r in shard if keys.index((r[8], r[4])) == k) for k in counts["keys"]]
            assert 0 < len(shard) <= 2


def test_list_shards_are_gzip_and_the_counts_plain_json(tmp_path):
    listed = [ListedGame(f"g-{i}", "undercover", f"2026-01-{1 + i:02d}T00:00:00Z", ("x", "y", "y"),
                                 ("undercover", "civilian", "civilian"), (0,), "undercover wins", True, 5)
              for i in range(3)]
    written = write_list(tmp_path, list_files(listed, {"x": "bot <x>", "y": "bot y"}))
    folder = tmp_path / LIST_DIR
    assert written == len(list(folder.iterdir()))
    shard = json.loads(gzip.decompress((folder / f"all-0{LIST_SHARD_SUFFIX}").read_bytes()))
    assert [r[0] for r in shard["rows"]] == ["g-2", "g-1", "g-0"]
    index = (folder / "index.json").read_text(encoding="utf-8")
    assert "bot \\u003cx\\u003e" in index and "<" not in index  # never markup, even opened as a page
    assert json.loads((folder / "a0.json").read_text(encoding="utf-8")) == {"v": LIST_VERSION, "keys": [0],
                                                                           "shards": [[3]]}


def test_data_files_are_small(built):
    _, site, _, _ = built
    lines = shard_lines(site, DATA_DIR)
    for game_id in SAMPLES.values():
        raw = lines[game_id].encode("utf-8")
        assert len(raw) < 12_000 and len(gzip.compress(raw)) < 2_500, game_id


def test_written_json_never_holds_markup_characters(built):
    _, site, _, _ = built
    for path in written_files(site):
        if path.name.endswith(SHARD_SUFFIX):
            texts = list(unpack(path.read_bytes()).values())
        elif path.name.endswith(LIST_SHARD_SUFFIX):
            texts = [gzip.decompress(path.read_bytes()).decode("utf-8")]
        else:
            texts = [path.read_text(encoding="utf-8")]
        for text in texts:
            assert not set("<>&") & set(text), path
            json.loads(text)
    assert payloads.SHORT[1] in json.dumps(data_of(site, PAYLOAD_WEREWOLF), ensure_ascii=False)


def test_a_file_changed_after_scoring_is_refused(tmp_path):
    shutil.copy(BUILTIN / f"{SAMPLES['undercover']}.jsonl", tmp_path)
    corpus = load([tmp_path])
    path = tmp_path / f"{SAMPLES['undercover']}.jsonl"
    path.write_bytes(path.read_bytes() + b" ")
    with pytest.raises(ReplayDataError, match=re.escape(str(path)) + ".*changed after it was scored"):
        write_data(corpus, tmp_path / "site")


def _reference_hash(game_id: str) -> int:
    """FNV-1a 32 then murmur3's finaliser, written out from their definitions (common.js must agree:
    tests/site/test_viewer_browser.py runs its shardHash over the shipped ids)."""
    h = 2166136261
    for byte in game_id.encode():
        h = (h ^ byte) * 16777619 % 2**32
    if game_id == "a":
        assert h == 0xE40C292C  # FNV-1a's published value for "a"
    for shift, factor in ((16, 0x85EBCA6B), (13, 0xC2B2AE35)):
        h = (h ^ (h >> shift)) * factor % 2**32
    return h ^ (h >> 16)


@pytest.mark.parametrize("game_id", ["a", "builtin-chameleon-0a35552f9541", "My.Tour_1-x", "my.tour_1-x"])
def test_the_shard_hash_is_fnv1a_with_a_finaliser(game_id):
    assert shard_hash(game_id) == _reference_hash(game_id)
    assert shard_hash("My.Tour_1-x") != shard_hash("my.tour_1-x")  # ids are case-sensitive


def test_the_shard_hash_spreads_sequential_ids_evenly():
    counts = [0] * 16
    for i in range(16_000):
        counts[shard_hash(f"tour-chameleon-{i:06d}") % 16] += 1
    assert max(counts) < 1_150 and min(counts) > 850


@pytest.mark.parametrize(("games", "per_shard", "buckets"), [(0, 32, 1), (32, 32, 1), (33, 32, 2), (100_000, 32, 4096),
                                                           (50_000, 16, 4096)])
def test_bucket_counts_are_the_smallest_power_of_two_that_fits(games, per_shard, buckets):
    assert bucket_count(games, per_shard) == buckets


def test_a_shard_is_the_same_bytes_for_the_same_games():
    lines = {"b": '{"v":2}', "a": '{"v":2,"x":1}'}
    assert pack(lines) == pack(dict(reversed(list(lines.items()))))
    assert unpack(pack(lines)) == lines


@pytest.mark.parametrize("game_id", ["", "../x", ".x", "a/b", "a b", "x" * 161, "a\\b", "é"])
def test_ids_that_are_not_slugs_are_refused(game_id):
    with pytest.raises(ReplayDataError, match="not a slug"):
        shard_hash(game_id)


@pytest.mark.parametrize(("directory_urls", "index_assets", "viewer_assets", "viewer_link"), [
    (True, "../assets/viewer/", "../../assets/viewer/", "viewer/"),
    (False, "../assets/viewer/", "../assets/viewer/", "viewer.html"),
])
def test_pages_link_relatively_and_carry_no_replay_text(directory_urls, index_assets, viewer_assets, viewer_link):
    hostile = {"label": payloads.SHORT[1], "display": payloads.SHORT[0], "slug": "a", "page": "agents/a.md"}
    declared = viewer_pages.pages({"site_name": payloads.SHORT[3], "use_directory_urls": directory_urls,
                                   "games": [{"name": "chameleon", "title": payloads.SHORT[0], "games": 1}],
                                   "agents": {"k": hostile}})
    assert [p.nav for p in declared] == [("Replays", "Replay index"), ("Replays", "Replay viewer")]
    rendered = {p.path: p.text for p in declared}
    assert sorted(rendered) == ["replays/index.md", "replays/viewer.md"]
    index, viewer = rendered["replays/index.md"], rendered["replays/viewer.md"]
    assert f'<script src="{index_assets}index.js"></script>' in index
    assert f'data-viewer="{viewer_link}"' in index
    assert f'<script src="{viewer_assets}viewer.js"></script>' in viewer
    for text in rendered.values():
        assert "<script>" not in text and "{{" not in text and "{%" not in text
        assert not any(p in text for p in (payloads.SHORT[0], payloads.SHORT[1]))


def test_assets_are_the_files_the_pages_load():
    shipped = {rel: Path(source) for source, rel in viewer_pages.assets()}
    assert sorted(shipped) == ["assets/viewer/common.js", "assets/viewer/index.js", "assets/viewer/pov.js",
                               "assets/viewer/viewer.css", "assets/viewer/viewer.js"]
    loaded = set()
    for text in (p.text for p in viewer_pages.pages({})):
        loaded |= {m.split("assets/viewer/")[1] for m in re.findall(r'(?:src|href)="([^"]+)"', text) if "assets/" in m}
    assert {f"assets/viewer/{name}" for name in loaded} == set(shipped)
    assert all(path.is_file() for path in shipped.values())


@pytest.mark.parametrize("pattern", [r"\.innerHTML", r"\.outerHTML", r"insertAdjacentHTML", r"document\.write",
                                     r"\beval\(", r"new Function", r"setAttribute\(\s*['\"](on|href|src)"])
def test_scripts_never_write_markup(pattern):
    for source, _ in viewer_pages.assets():
        if str(source).endswith(".js"):
            assert not re.search(pattern, Path(source).read_text(encoding="utf-8")), (source, pattern)


@pytest.mark.parametrize("notes, shown", [
    ({"design": "pgm", "about": "chameleon", "aim": 1, "views": [[0.0, 0.5, 0.5], [0.25, 0.0, 0.75], [0.5, 0.5, 0.0]],
      "updates": [{"after": 0, "read": True}, {"after": 1, "read": False}]},
     {"about": "chameleon", "aim": 1, "views": [[0.0, 0.5, 0.5], [0.25, 0.0, 0.75], [0.5, 0.5, 0.0]],
      "rated": 2, "unread": 1}),
    ({"design": "pgm", "views": [["<b>", 1]]}, None),       # not numbers: nothing to draw
    ({"design": "pgm", "views": "x"}, None),
    ({"design": "favor", "levels": [1, 2]}, None),         # not PGM views
    ({"design": "pgm", "about": "next move", "moves": ["cooperate", "defect"],
      "views": [[None, [0.6, 0.4]], [[0.25, 0.75], None]], "updates": [{"after": 3, "read": True}]},
     {"about": "next move", "moves": ["cooperate", "defect"], "expected": [[None, ["cooperate", 0.6]],
                                                                           [["defect", 0.75], None]],
      "rated": 1, "unread": 0}),
])
def test_design_notes_reach_the_viewer_only_in_a_shape_it_draws(notes, shown):
    record = {"type": "event", "n": 0, "kind": "action", "phase": "clue", "seat": 0, "data": {"clue": "x"},
              "vis": "all", "evidence": {"calls": [], "notes": notes}}
    assert _step(record).get("b") == shown


@pytest.mark.parametrize("notes, shown", [
    ({"design": "strategy", "phase": "day", "plan": "Claim villager.", "cut": False,
      "judgement": [{"seat": 1, "role": "werewolf", "p": 0.85}, {"seat": 2, "role": "<b>", "p": "x"}]},
     {"plan": "Claim villager.", "judgement": [[1, "werewolf", 0.85]], "cut": False}),
    ({"design": "strategy", "plan": None, "judgement": None, "cut": False},
     {"plan": None, "judgement": None, "cut": False}),
    ({"design": "pgm", "views": "x"}, None),
    ({"design": "favor", "updated": True, "levels": [None, 41.2, 77.9], "judgement": None},
     {"favor": [None, 41, 78], "judgement": None}),
])
def test_strategy_notes_reach_the_viewer_as_judgement_rows_and_a_plan(notes, shown):
    record = {"type": "event", "n": 0, "kind": "action", "phase": "day", "seat": 0, "data": {"text": "x"},
              "vis": "all", "evidence": {"calls": [], "notes": notes}}
    assert _step(record).get("st") == shown
