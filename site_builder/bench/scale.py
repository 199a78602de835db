"""Scoring and site build benchmark: `python -m site_builder.bench`.

For the shipped corpus and a synthetic corpus of built-in games (the built-in tournament with
every matchup scaled up; `--games`, e.g. 10000 or 100000), measures in one run:

- the floor: reading every replay and parsing every line with orjson;
- `score` cold (empty cache) and warm (nothing changed); `build` cold and warm;
- "add ten replays": ten more games join the corpus, then a warm rebuild (and a warm re-score);
- the peak memory of each step (each runs in its own process; its worker processes included);
- whether a cold build and the warm incremental build of the same corpus give the same site,
  file for file, and the same results file byte for byte;
- what the cold-built site publishes (`site_figures`): bytes and files, bytes per game by kind,
  the largest file, and the bytes a visitor transfers to open one game and its model exchanges.

The synthetic corpus is half model games by default (`--no-model-games` for bots only): see
`with_model_games` for how they are made without a model, and why they are scored with the
re-derivation check off. `--skip-score` times the site builds only.

Times are printed as seconds and as ratios to the floor measured in the same run (the machine
is shared: ratios compare across runs, seconds do not). docs/benchmarks.md records a run.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
BUILTIN_TOURNAMENT = REPO / "runner" / "tournaments" / "builtin.toml"
SHIPPED = REPO / "replays"
#: Above this many games a site build is skipped unless asked for.
BUILD_UP_TO = 20_000


def scaled_tournament(games: int, source: Path = BUILTIN_TOURNAMENT, name: str = "synthetic") -> str:
    """The built-in tournament with every matchup's game count scaled so the total is about `games`."""
    text = source.read_text(encoding="utf-8")
    counts = [int(n) for n in re.findall(r"^games = (\d+)\s*$", text, re.MULTILINE)]
    if not counts:
        raise ValueError(f"{source}: no `games = N` lines to scale")
    factor = games / sum(counts)
    text = re.sub(r"^games = (\d+)\s*$", lambda m: f"games = {max(1, round(int(m.group(1)) * factor))}",
                  text, flags=re.MULTILINE)
    return re.sub(r'^name = "[^"]*"', f'name = "{name}"', text, count=1, flags=re.MULTILINE)


def run_runner(args: list[str]) -> None:
    subprocess.run([sys.executable, "-m", "runner", "run", *args], check=True, stdout=subprocess.DEVNULL)


def play_synthetic(games: int, out: Path, parallel: int) -> float:
    """Play the scaled built-in tournament into `out`; the seconds it took."""
    tournament = out.parent / f"{out.name}.toml"
    tournament.write_text(scaled_tournament(games), encoding="utf-8")
    started = time.perf_counter()
    run_runner([str(tournament), "--out", str(out), "--parallel", str(parallel)])
    return time.perf_counter() - started


def add_ten(out: Path, seed: int) -> None:
    """Ten new Chameleon games of the built-in `random` agent (a seed the corpus never used)."""
    run_runner(["--game", "chameleon", "--role", "*=random", "--games", "10", "--seed", str(seed),
                "--name", "added", "--out", str(out)])


def add_ten_werewolf(out: Path, seed: int) -> None:
    """Ten new Werewolf games, every seat the strategic bot (the Werewolf paper seats one design everywhere):
    the costliest games to add, with statements to embed and five summaries over all games."""
    run_runner(["--game", "werewolf", "--role", "*=werewolf/strategic", "--games", "10", "--seed", str(seed),
                "--name", "addedww", "--out", str(out)])


def floor_seconds(folders: list[Path], runs: int = 3) -> float:
    """Read every replay and parse every line with orjson: what any scorer must at least do.

    The best of `runs` passes, so the files are in the page cache as they are for a warm score.
    """
    import orjson

    from runner.replay.format import iter_replay_files

    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        for path in iter_replay_files(folders):
            for line in path.read_bytes().splitlines():
                orjson.loads(line)
        best = min(best, time.perf_counter() - started)
    return best


# -- model games without a model -------------------------------------------------------------
# A site's size is mostly model exchanges, so a benchmark of publishing needs model games. None
# can be played at this scale on 2 cores, so bot games are turned into model games: one seat of
# every other game is given a model agent (20 of them), and each of that seat's moves gets the
# exchanges of a real model decision of the same game (replays/local-cpu*), rewritten with this
# game's deal (its card words, topic, secret...) and ending with this move as the answer. Such a
# game does not follow from its seed with the model re-asked (its calls were not made by it),
# so a corpus of them is scored with the re-derivation check off (`derive=False`).

MODEL_TEMPLATES = [SHIPPED / "local-cpu", SHIPPED / "local-cpu-pgm", SHIPPED / "local-cpu-strategy"]
MODEL_AGENTS = 20


def _strings(value: Any, path: str = "") -> dict[str, str]:
    """Every string in a JSON value by its path."""
    if isinstance(value, str):
        return {path: value}
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    out: dict[str, str] = {}
    for key, item in items:
        out.update(_strings(item, f"{path}/{key}"))
    return out


def model_templates(folders: list[Path] = MODEL_TEMPLATES) -> dict[str, list[dict[str, Any]]]:
    """Per game: the real model games' agents, deals and decisions' exchanges (lists of calls)."""
    from runner.replay.format import agent_kind

    out: dict[str, list[dict[str, Any]]] = {}
    for folder in folders:
        for path in sorted(folder.glob("*.jsonl")):
            records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
            header = records[0]
            agent = next(p["agent"] for p in header["players"] if agent_kind(p["agent"]) == "llm")
            decisions = [r["evidence"]["calls"] for r in records[1:]
                         if isinstance(r.get("evidence"), dict) and r["evidence"].get("calls")]
            if decisions:
                out.setdefault(header["game"], []).append({"agent": agent, "setup": header["setup"],
                                                           "decisions": decisions})
    return out


def _rewrite(text: str, swap: dict[str, str], pattern: re.Pattern[str] | None) -> str:
    return pattern.sub(lambda m: swap[m.group()], text) if pattern else text


def as_model_game(lines: list[str], templates: list[dict[str, Any]], number: int) -> list[str]:
    """A bot game with one seat handed to model agent `number % MODEL_AGENTS`, its moves carrying
    a real model game's exchanges rewritten with this game's deal."""
    records = [json.loads(line) for line in lines]
    header = records[0]
    template = templates[number % len(templates)]
    seat = number % len(header["players"])
    agent = {**template["agent"], "name": f"synthetic-model-{number % MODEL_AGENTS:02d}",
             "model": f"synthetic-model-{number % MODEL_AGENTS:02d}"}
    header["players"][seat]["agent"] = agent
    header["version"] = max(header["version"], 2)  # model agents' fields need format 2
    theirs, ours = _strings(template["setup"]), _strings(header["setup"])
    swap = {theirs[k]: ours[k] for k in theirs.keys() & ours.keys() if len(theirs[k]) >= 3 and theirs[k] != ours[k]}
    pattern = re.compile("|".join(map(re.escape, sorted(swap, key=len, reverse=True)))) if swap else None
    decisions = template["decisions"]
    used = 0
    for record in records[1:]:
        if record.get("type") != "event" or record.get("seat") != seat or record.get("kind") != "action":
            continue
        calls = []
        for call in decisions[(number + used) % len(decisions)]:
            made = dict(call)
            made["messages"] = [{**m, "content": _rewrite(m["content"], swap, pattern)} for m in call["messages"]]
            reply = _rewrite(call["reply"] or "", swap, pattern).rsplit("\n", 1)[0]
            made["reply"] = f"{reply}\nANSWER: {json.dumps(record['data'], ensure_ascii=False)}"
            calls.append(made)
        record["evidence"] = {"calls": calls}
        used += 1
    return [json.dumps(r, ensure_ascii=False, separators=(",", ":")) for r in records]


def with_model_games(bots: Path, out: Path) -> int:
    """Copy a corpus of bot games into `out`, every other game made a model game; how many were."""
    templates = model_templates()
    out.mkdir(parents=True, exist_ok=True)
    made = 0
    for number, path in enumerate(sorted(bots.glob("*.jsonl"))):
        lines = path.read_text(encoding="utf-8").splitlines()
        game = json.loads(lines[0])["game"]
        if number % 2 and game in templates:
            lines = as_model_game(lines, templates[game], number // 2)
            made += 1
        (out / path.name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return made


# -- one step in its own process ------------------------------------------------------------

def step(kind: str, folders: list[Path], cache: Path, out: Path, derive: bool = True) -> dict[str, Any]:
    """Run `score` or `build` in a fresh process: its seconds, phases and peak memory (MB)."""
    command = [sys.executable, "-m", "site_builder.bench", "--step", kind, "--cache", str(cache), "--out", str(out),
               *([] if derive else ["--underived"]), *map(str, folders)]
    done = subprocess.run(command, check=True, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _run_step(kind: str, folders: list[str], cache: Path, out: Path, derive: bool = True) -> dict[str, Any]:
    started = time.perf_counter()
    phases: dict[str, float] = {}
    if kind == "score":
        from site_builder.scoring.corpus import load
        from site_builder.scoring.results import assemble, write
        from site_builder.scoring.sections import beside

        corpus = load(folders, cache, derive=derive)
        phases["load and re-simulate"] = time.perf_counter() - started
        tick = time.perf_counter()
        write(assemble(corpus, kept=beside(cache)), out)
        phases["aggregate and write"] = time.perf_counter() - tick
        games = len(corpus.games)
    else:
        from site_builder.build import build_site

        report = build_site(folders, out, cache_path=cache, derive=derive)
        phases = dict(report.phases)
        games = report.games
    seconds = time.perf_counter() - started
    # CPU seconds of this process and its workers: on a shared machine, what the step itself cost.
    cpu = sum(getattr(resource.getrusage(who), field) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
              for field in ("ru_utime", "ru_stime"))
    peak_kb = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                  resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    return {"seconds": seconds, "cpu_seconds": cpu, "phases": phases, "peak_mb": peak_kb / 1024, "games": games}


# -- a corpus --------------------------------------------------------------------------------

def same_tree(a: Path, b: Path) -> bool:
    """Whether two sites hold the same files with the same bytes (the gzip sitemap's time stamp aside)."""
    def files(root: Path) -> dict[str, bytes]:
        return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*")
                if p.is_file() and p.name != "sitemap.xml.gz"}
    return files(a) == files(b)


def site_figures(site: Path) -> dict[str, Any]:
    """What a built site publishes and what a visitor transfers to open one game.

    Transfers are counted as `first_visit` counts them (the same requests and bytes a browser
    makes on its first visit to a permalink, tests/site/test_transfer_browser.py checks it): the
    viewer page's shell, the shards' manifest and the game's data shard; the exchanges are one
    more shard, fetched when the visitor opens them.
    """
    from site_builder import hosting
    from site_builder.viewer.files import CALLS_DIR, DATA_DIR, LIST_DIR
    from site_builder.viewer.shards import MANIFEST, SHARD_SUFFIX, packed_ids

    figures = hosting.measure(site)
    games, model_games = len(packed_ids(site)), len(packed_ids(site, calls=True))
    sizes = {folder: sorted(p.stat().st_size for p in (site / folder).glob(f"*{SHARD_SUFFIX}"))
             for folder in (DATA_DIR, CALLS_DIR)}
    list_bytes = sum(p.stat().st_size for p in (site / LIST_DIR).iterdir())
    shell = viewer_shell(site)
    manifest = wire_bytes(site / MANIFEST)

    def median(values: list[int]) -> int:
        return values[len(values) // 2] if values else 0

    data, calls = sizes[DATA_DIR], sizes[CALLS_DIR]
    first_visit_median = sum(shell.values()) + manifest + median(data)
    first_visit_largest = sum(shell.values()) + manifest + (data[-1] if data else 0)
    return {
        "games": games, "model games": model_games, "site bytes": figures.bytes, "files": figures.files,
        "largest file": f"{figures.largest} ({figures.largest_bytes:,} B)",
        "data shards": f"{len(data):,} files, {sum(data):,} B: {sum(data) / max(games, 1):.0f} B per game",
        "exchange shards": f"{len(calls):,} files, {sum(calls):,} B: {sum(calls) / max(model_games, 1):.0f} B per model game",
        "replay list": f"{list_bytes:,} B: {list_bytes / max(games, 1):.0f} B per game",
        "everything else (pages, assets, downloads)": f"{figures.bytes - sum(data) - sum(calls) - list_bytes:,} B",
        "viewer page shell over the wire": f"{sum(shell.values()):,} B ({len(shell)} files: " +
                                           ", ".join(f"{Path(k).name} {v:,}" for k, v in shell.items()) + ")",
        "open one game, first visit: shell + manifest + data shard (median / largest)":
            f"{first_visit_median:,} / {first_visit_largest:,} B",
        "open one game, shell cached: manifest + data shard (median / largest)":
            f"{manifest + median(data):,} / {manifest + (data[-1] if data else 0):,} B",
        "its model exchanges: exchange shard (median / largest)": f"{median(calls):,} / {calls[-1] if calls else 0:,} B",
        "replay list, first screen of all games: index + counts + one shard (page shell aside)":
            f"{sum(list_first_screen(site).values()):,} B",
        "home page, first visit (its files and the sitemap)": f"{sum(home_first_visit(site).values()):,} B",
        "search, on its first use: index + worker": f"{sum(search_on_first_use(site).values()):,} B",
    }


def list_first_screen(site: Path) -> dict[str, int]:
    """Site path -> wire bytes of the list's data a first screen of "All games" fetches."""
    from site_builder.viewer.files import LIST_DIR
    from site_builder.viewer.listing import LIST_SHARD_SUFFIX

    names = ["index.json", "all.json", f"all-0{LIST_SHARD_SUFFIX}"]
    return {f"{LIST_DIR}/{name}": wire_bytes(site / LIST_DIR / name)
            for name in names if (site / LIST_DIR / name).is_file()}


#: What a page loads by itself: stylesheets, scripts and its icon (relative to the page).
PAGE_LOADS = re.compile(r'<(?:script[^>]*\ssrc|link[^>]*\srel="(?:stylesheet|icon)"[^>]*\shref)="([^"]+)"')


def page_shell(site: Path, page: Path) -> dict[str, int]:
    """A page and every file it loads by itself, by site path: wire bytes of each."""
    shell = {str(page.relative_to(site)): wire_bytes(page)}
    for ref in PAGE_LOADS.findall(page.read_text(encoding="utf-8")):
        target = (page.parent / ref.split("?")[0].split("#")[0]).resolve()
        shell.setdefault(str(target.relative_to(site.resolve())), wire_bytes(target))
    return shell


def viewer_shell(site: Path) -> dict[str, int]:
    """The viewer page and every file it loads by itself, by site path: wire bytes of each."""
    from site_builder.viewer.pages import VIEWER_PAGE

    return page_shell(site, site / VIEWER_PAGE.removesuffix(".md") / "index.html")


def home_first_visit(site: Path) -> dict[str, int]:
    """Site path -> wire bytes of every request a first visit to the home page makes: the page and
    what it loads, and the sitemap Material's bundle fetches for instant navigation. The search
    index and worker come when the search box is first used (search-on-demand.js): not counted."""
    return {**page_shell(site, site / "index.html"), "sitemap.xml": wire_bytes(site / "sitemap.xml")}


def search_on_first_use(site: Path) -> dict[str, int]:
    """Site path -> wire bytes of what the first use of the search box fetches: index and worker."""
    workers = sorted((site / "assets" / "javascripts" / "workers").glob("search.*.min.js"))
    return {str(p.relative_to(site)): wire_bytes(p) for p in [site / "search" / "search_index.json", *workers]}


def first_visit(site: Path, game_id: str) -> dict[str, int]:
    """Site path -> wire bytes of every request a first visit to the viewer's permalink of
    `game_id` makes: the page's shell, the shards' manifest and the game's data shard."""
    from site_builder.viewer.files import DATA_DIR
    from site_builder.viewer.shards import MANIFEST, shard_hash, shard_name

    manifest = json.loads((site / MANIFEST).read_text(encoding="utf-8"))
    shard = f"{DATA_DIR}/{shard_name(shard_hash(game_id) % manifest['data'])}"
    return {**viewer_shell(site), MANIFEST: wire_bytes(site / MANIFEST), shard: wire_bytes(site / shard)}


#: Files GitHub Pages compresses on the way (text); anything else, gzip shards included, goes as it is.
WIRE_GZIP = (".html", ".js", ".css", ".json", ".svg", ".xml", ".txt", ".map")


def wire_bytes(path: Path) -> int:
    """Bytes of a file over the wire as GitHub Pages serves it: text gzip-compressed (level 6
    here), anything else as it is."""
    import gzip

    raw = path.read_bytes()
    return len(gzip.compress(raw, compresslevel=6, mtime=0)) if path.suffix in WIRE_GZIP else len(raw)


def bench_corpus(label: str, corpus: Path, scratch: Path, build: bool, seed: int,
                 derive: bool = True, score: bool = True) -> list[dict[str, Any]]:
    """Every step on one corpus; rows of (step, seconds, ratio, peak MB, games, note).
    `score=False` leaves out the `score` steps (builds only)."""
    shutil.rmtree(scratch, ignore_errors=True)  # every cache and site of an earlier run: "cold" means cold
    scratch.mkdir(parents=True)
    rows: list[dict[str, Any]] = []
    floor = floor_seconds([corpus])
    rows.append({"step": "floor: read + orjson-parse every line (best of 3)", "seconds": floor, "peak_mb": None, "note": ""})
    cache = scratch / "cache.sqlite"
    for name, kind, out in [("score, cold cache", "score", scratch / "results.json"),
                            ("score, warm cache (nothing changed)", "score", scratch / "results.json")][:2 * score]:
        rows.append({"step": name, **step(kind, [corpus], cache, out, derive)})
    if build:
        site = scratch / "site"
        rows.append({"step": "build, cold cache", **step("build", [corpus], scratch / "build-cache.sqlite", site, derive)})
        print(f"{label}: the site as published")
        for name, value in site_figures(site).items():
            print(f"  {name}: {value:,}" if isinstance(value, int) else f"  {name}: {value}")
        rows.append({"step": "build, warm (nothing changed)",
                     **step("build", [corpus], scratch / "build-cache.sqlite", site, derive)})
    added = scratch / "added"
    add_ten(added, seed)
    if score:
        rows.append({"step": "add 10 replays: score, warm cache", **step("score", [corpus, added], cache,
                                                                        scratch / "results-added.json", derive)})
        cold_results = scratch / "results-added-cold.json"
        step("score", [corpus, added], scratch / "cold-cache.sqlite", cold_results, derive)
        identical = cold_results.read_bytes() == (scratch / "results-added.json").read_bytes()
        rows[-1]["note"] = ("results = cold re-score's, byte for byte" if identical
                            else "RESULTS DIFFER from a cold re-score")
        werewolves = scratch / "added-werewolf"
        add_ten_werewolf(werewolves, seed + 1)
        rows.append({"step": "then add 10 Werewolf replays: score, warm cache",
                     **step("score", [corpus, added, werewolves], cache, scratch / "results-added-ww.json", derive)})
        # Against a score that keeps nothing but the games' cached digests (no sections, no
        # sentence vectors): the new games' digests are made again, their statements embedded.
        from site_builder.scoring import sections, vectors

        for kept in (sections.beside(scratch / "cold-cache.sqlite"), vectors.beside(scratch / "cold-cache.sqlite")):
            kept.unlink(missing_ok=True)
        cold_results = scratch / "results-added-ww-cold.json"
        step("score", [corpus, added, werewolves], scratch / "cold-cache.sqlite", cold_results, derive)
        identical = cold_results.read_bytes() == (scratch / "results-added-ww.json").read_bytes()
        rows[-1]["note"] = ("results = a score keeping only per-game digests, byte for byte" if identical
                            else "RESULTS DIFFER from a score without kept sections and vectors")
    if build:
        rows.append({"step": "add 10 replays: build, warm cache",
                     **step("build", [corpus, added], scratch / "build-cache.sqlite", site, derive)})
        cold_site = scratch / "site-cold"
        step("build", [corpus, added], scratch / "cold-build-cache.sqlite", cold_site, derive)
        rows[-1]["note"] = ("site = cold build's, file for file" if same_tree(site, cold_site)
                            else "SITE DIFFERS from a cold build")
    for row in rows:
        row["ratio"] = row["seconds"] / floor
        row["corpus"] = label
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    lines = ["| corpus | step | games | seconds | × floor | CPU s | peak MB | of which | note |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- | --- |"]
    for r in rows:
        phases = ", ".join(f"{k} {v:.1f}" for k, v in (r.get("phases") or {}).items())
        peak = f"{r['peak_mb']:.0f}" if r.get("peak_mb") else ""
        cpu = f"{r['cpu_seconds']:.0f}" if r.get("cpu_seconds") else ""
        lines.append(f"| {r['corpus']} | {r['step']} | {r.get('games', '')} | {r['seconds']:.2f} | "
                     f"{r['ratio']:.1f} | {cpu} | {peak} | {phases} | {r.get('note', '')} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m site_builder.bench", description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000, help="size of the synthetic corpus (default 10000)")
    parser.add_argument("--corpus", type=Path, help="use these replays as the synthetic corpus (no playing)")
    parser.add_argument("--parallel", type=int, default=4, help="games played at once for the synthetic corpus")
    parser.add_argument("--build", action=argparse.BooleanOptionalAction, default=None,
                        help=f"also time site builds (default: with at most {BUILD_UP_TO:,} games)")
    parser.add_argument("--keep", type=Path, help="keep the corpora, caches and sites in this folder")
    parser.add_argument("--skip-shipped", action="store_true", help="only the synthetic corpus")
    parser.add_argument("--skip-synthetic", action="store_true", help="only the shipped corpus")
    parser.add_argument("--model-games", action=argparse.BooleanOptionalAction, default=True,
                        help="make every other synthetic game a model game (calls modelled on replays/local-cpu*; "
                             "such a corpus is scored without the re-derivation check)")
    parser.add_argument("--modelled", action="store_true",
                        help="the --corpus given already holds model games (made by an earlier run, kept with --keep): "
                             "used as it is, scored without the re-derivation check")
    parser.add_argument("--skip-score", action="store_true", help="only the site builds (no `score` steps)")
    parser.add_argument("--step", choices=["score", "build"], help=argparse.SUPPRESS)
    parser.add_argument("--underived", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--cache", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("folders", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.modelled and (args.corpus is None or not args.model_games):
        parser.error("--modelled describes a --corpus of model games")
    if args.step:  # one timed step, in the process the parent started for it
        print(json.dumps(_run_step(args.step, args.folders, args.cache, args.out, derive=not args.underived)))
        return 0

    print(f"machine: {os.cpu_count()} cores, Python {platform.python_version()}, {platform.platform()}")
    from site_builder.scoring import minilm
    absent = minilm.absent_reason()
    # With the model package, every build that digests Werewolf games embeds their statements.
    print(f"neural Text Distance: {minilm.NAME} " + (f"absent ({absent})" if absent else
                                                    f"installed ({minilm.package_version()}): builds embed statements"))
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="gamenight-bench-") as scratch_dir:
        root = args.keep or Path(scratch_dir)
        root.mkdir(parents=True, exist_ok=True)
        if not args.skip_shipped:
            rows += bench_corpus("shipped", SHIPPED, root / "shipped", build=args.build is not False, seed=910)
        if not args.skip_synthetic:
            corpus = args.corpus
            if corpus is None:
                corpus = root / f"synthetic-{args.games}"
                if not corpus.is_dir():
                    seconds = play_synthetic(args.games, corpus, args.parallel)
                    print(f"played {sum(1 for _ in corpus.glob('*.jsonl')):,} synthetic games in {seconds:.0f}s")
            if args.model_games and not args.modelled:
                modelled = root / f"{corpus.name}-half-model"
                if not modelled.is_dir():
                    started = time.perf_counter()
                    made = with_model_games(corpus, modelled)
                    print(f"made {made:,} of them model games in {time.perf_counter() - started:.0f}s")
                corpus = modelled
            games = sum(1 for _ in corpus.rglob("*.jsonl"))
            build = args.build if args.build is not None else games <= BUILD_UP_TO
            rows += bench_corpus(f"synthetic, {games:,} files" + (", half model" if args.model_games else ""),
                                 corpus, root / f"work-{corpus.name}", build=build, seed=911,
                                 derive=not args.model_games, score=not args.skip_score)
    print(table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
