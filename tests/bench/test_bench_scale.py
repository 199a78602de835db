"""The publishing benchmark's model games: valid replays whose exchanges look like real ones."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from site_builder.bench import scale as bench
from site_builder.scoring.corpus import load

BUILTIN = Path(__file__).resolve().parents[2] / "replays" / "builtin"


def test_every_other_game_becomes_a_valid_model_game_with_realistic_exchanges(tmp_path):
    bots = tmp_path / "bots"
    bots.mkdir()
    for path in sorted(BUILTIN.glob("*.jsonl"))[:60]:
        shutil.copy(path, bots)
    made = bench.with_model_games(bots, tmp_path / "modelled")
    assert made == 30
    corpus = load([tmp_path / "modelled"], derive=False)
    assert not corpus.invalid_replays and len(corpus.games) == 60
    modelled = [g for g in corpus.games if any(u.get("calls") for u in g.usage)]
    assert len(modelled) == 30
    real = {m["content"] for folder in bench.MODEL_TEMPLATES for path in folder.glob("*.jsonl")
            for line in path.read_text(encoding="utf-8").splitlines()[1:]
            for call in (json.loads(line).get("evidence") or {}).get("calls", []) for m in call["messages"]}
    lengths, rewritten = [], 0
    for game in modelled:
        records = [json.loads(line) for line in Path(corpus.paths[game.game_id]).read_text(encoding="utf-8").splitlines()]
        for record in records[1:]:
            for call in (record.get("evidence") or {}).get("calls", []):
                assert call["reply"].endswith("ANSWER: " + json.dumps(record["data"], ensure_ascii=False))
                lengths += [len(m["content"]) for m in call["messages"]]
                rewritten += sum(m["content"] not in real for m in call["messages"])
    assert sum(lengths) / len(lengths) > 500  # prompts of a real model game's length
    assert rewritten > 0  # ... told with this game's deal


def test_site_figures_count_what_a_visitor_transfers(tmp_path):
    from site_builder.build import build_site

    bots = tmp_path / "bots"
    bots.mkdir()
    for path in sorted(BUILTIN.glob("*.jsonl"))[:40]:
        shutil.copy(path, bots)
    bench.with_model_games(bots, tmp_path / "modelled")
    build_site([tmp_path / "modelled"], tmp_path / "site", derive=False)
    figures = bench.site_figures(tmp_path / "site")
    assert figures["games"] == 40 and figures["model games"] == 20
    shell = figures["viewer page shell over the wire"]
    assert "viewer.js" in shell and "theme.css" in shell and "bundle." not in shell and "site.js" not in shell
    first_visit = figures["open one game, first visit: shell + manifest + data shard (median / largest)"]
    median, largest = (int(part.strip(" B").replace(",", "")) for part in first_visit.split("/"))
    assert median <= largest <= 60_000
    assert figures["exchange shards"].startswith("1 files") or figures["exchange shards"].startswith("2 files")


def test_modelled_needs_a_corpus_of_model_games(capsys):
    for argv in (["--modelled"], ["--modelled", "--corpus", "x", "--no-model-games"]):
        with pytest.raises(SystemExit):
            bench.main(argv)
        assert "--modelled describes a --corpus of model games" in capsys.readouterr().err


def test_first_visit_counts_each_file_the_viewer_page_loads_as_pages_sends_it(tmp_path):
    site = tmp_path / "site"
    page = site / "replays" / "viewer" / "index.html"
    page.parent.mkdir(parents=True)
    page.write_text('<link rel="stylesheet" href="../../a.css"><link rel="icon" href="../../i.png">'
                    '<script src="../../a.js?v=1"></script><script src="../../a.js"></script>'
                    '<link rel="prev" href="../">', encoding="utf-8")
    (site / "a.css").write_text("p{color:red}" * 100, encoding="utf-8")
    (site / "a.js").write_text("var a = 1;" * 100, encoding="utf-8")
    (site / "i.png").write_bytes(bytes(range(256)))
    (site / "replays" / "data").mkdir()
    (site / "replays" / "data" / "index.json").write_text('{"v": 2, "data": 2, "calls": 1}', encoding="utf-8")
    (site / "replays" / "data" / "1.jsonl.gz").write_bytes(b"\x1f\x8b" + bytes(98))
    from site_builder.viewer.shards import shard_hash
    game = next(f"g-{n}" for n in range(100) if shard_hash(f"g-{n}") % 2 == 1)
    counted = bench.first_visit(site, game)
    assert set(counted) == {"replays/viewer/index.html", "a.css", "i.png", "a.js", "replays/data/index.json",
                            "replays/data/1.jsonl.gz"}
    assert counted["a.css"] < 200 and counted["a.js"] < 200  # text: gzip-compressed on the way
    assert counted["i.png"] == 256 and counted["replays/data/1.jsonl.gz"] == 100  # as they are
