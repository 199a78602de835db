"""The replay viewer and the replay list of the site: their pages, their assets, and their data.

The site build (`site_builder.build`) asks this module for two Markdown pages, for the scripts
and styles those pages load, and, once MkDocs has built the site, to write the data the pages
fetch: every replay's compact JSON and the language-model exchanges of those that have any,
packed into gzip shards found by a hash of the game id, and a sharded index of every replay for
the list page.

Nothing from a replay is ever written into a page. The pages carry only our own markup; the
browser fetches the JSON files and inserts replay text as text (`textContent`).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import posixpath
import re
import shutil
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path, PurePosixPath
from typing import Any

import jinja2

from runner import games as registry
from runner.replay.format import parse_lines
from site_builder.parallel import map_on_cores
from site_builder.scoring import digest
from site_builder.scoring.corpus import Corpus
from site_builder.scoring.model import AgentInfo, ScoredGame

#: Version of the data files below; the viewer refuses versions it does not know.
DATA_VERSION = 2
#: The Markdown pages this module renders, relative to the MkDocs docs_dir.
INDEX_PAGE = "replays/index.md"
VIEWER_PAGE = "replays/viewer.md"
#: Where the data goes in the built site: one file per replay, LLM exchanges, the list's index.
DATA_DIR = "replays/data"
CALLS_DIR = "replays/calls"
LIST_DIR = "replays/list"
#: Where the scripts and styles go, relative to docs_dir (and so to the built site).
ASSETS_DIR = "assets/viewer"
#: The viewer page's stylesheet: the part of Material's stylesheets that page can use (write_styles).
VIEWER_STYLES = f"{ASSETS_DIR}/theme.css"
#: The scripts that draw the viewer page, besides its HTML (their strings name the classes it uses).
VIEWER_SCRIPTS = (f"{ASSETS_DIR}/common.js", f"{ASSETS_DIR}/pov.js", f"{ASSETS_DIR}/viewer.js",
                  "assets/gamenight/fit.js", "assets/gamenight/palette-toggle.js")

HERE = Path(__file__).parent
TEMPLATES = HERE / "templates" / "viewer"
ASSETS = HERE / "assets" / "viewer"

#: A game id as the replay format allows it (checked again here: it becomes a file name).
GAME_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,159}\Z")

#: For games with hidden roles: the phase whose first event makes every role public, and the
#: phase whose first event makes the whole setup public (the Chameleon's secret comes last).
REVEALS: dict[str, tuple[str, str]] = {
    "chameleon": ("accusation", "end"),
    "undercover": ("vote_result", "vote_result"),
    "werewolf": ("result", "result"),
}
#: Private fields that name another seat whose role the holder knows (it shares the role).
PARTNER_FIELDS = ("fellow_mason",)

def _words_for(field: str, words: Mapping[Any, str]) -> Callable[[Mapping[str, Any]], str]:
    """The outcome read from one result field through a table of words."""
    return lambda result: words.get(result.get(field), str(result.get(field)))


def _winner_count(result: Mapping[str, Any]) -> str:
    return "shared win" if result.get("strict_winner") is None else "single winner"


#: The outcome of a complete game in a few words, by game (the list page filters on these).
OUTCOME_WORDS: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "chameleon": _words_for("magic_outcome", {"non_chameleons_win": "non-chameleons win",
                                              "chameleon_wins": "chameleon not caught",
                                              "chameleon_guessed": "chameleon guessed the word",
                                              "even_vote": "even vote"}),
    "undercover": _words_for("magic_outcome", {"civilians_win": "civilians win", "undercover_wins": "undercover wins",
                                               "even_vote": "even vote"}),
    "werewolf": _words_for("winning_team", {"village": "village wins", "werewolf": "werewolf team wins",
                                            "tanner": "tanner wins"}),
    "cost_sharing": _words_for("success", {True: "agreement", False: "no agreement"}),
    "prisoners_dilemma": _winner_count,
    "public_good": _winner_count,
}


class ReplayDataError(ValueError):
    """A replay that cannot be turned into viewer data; the message names the file and why."""


# -- pages and assets -------------------------------------------------------------------------

def pages(context: Mapping[str, Any]) -> dict[str, str]:
    """The replay list and viewer pages: relative Markdown path -> text.

    Reads only `use_directory_urls` (MkDocs' setting, default true) from `context`, to write the
    pages' relative links. Replay strings (agent labels...) are never put into the pages.
    """
    directory_urls = bool(context.get("use_directory_urls", True))
    env = _environment()
    return {page: env.get_template(template).render(**page_urls(page, directory_urls))
            for page, template in ((INDEX_PAGE, "index.md.j2"), (VIEWER_PAGE, "viewer.md.j2"))}


def assets() -> list[tuple[Path, str]]:
    """(source file, path relative to docs_dir) of every script and style the two pages load."""
    return [(path, f"{ASSETS_DIR}/{path.name}") for path in sorted(ASSETS.iterdir())
            if path.suffix in (".js", ".css")]


def page_urls(page: str, directory_urls: bool = True) -> dict[str, str]:
    """Links from `page` to the assets, the data folders and both pages, relative to its URL."""
    here = _page_dir(page, directory_urls)
    viewer = "replays/viewer/" if directory_urls else "replays/viewer.html"
    index = "replays/" if directory_urls else "replays/index.html"
    targets = {"assets": ASSETS_DIR + "/", "data": DATA_DIR + "/", "calls": CALLS_DIR + "/",
               "list": LIST_DIR + "/", "viewer": viewer, "index": index}
    return {name: _relative(target, here) for name, target in targets.items()}


def _page_dir(page: str, directory_urls: bool) -> str:
    """The folder of a page's URL: replays/viewer.md is served at replays/viewer/ or replays/viewer.html."""
    path = PurePosixPath(page).with_suffix("")
    return str(path.parent if path.name == "index" or not directory_urls else path)


def _relative(target: str, here: str) -> str:
    """The site path `target` (a folder ends with "/") relative to the folder `here`."""
    text = posixpath.relpath(target, here)
    if target.endswith("/"):
        text = "./" if text == "." else text + "/"
    return text


@cache
def _environment() -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True,
                              undefined=jinja2.StrictUndefined, keep_trailing_newline=True)


def write_styles(site_dir: str | os.PathLike[str]) -> Path:
    """Write the viewer page's stylesheet into a built site: Material's main and palette
    stylesheets cut to the rules whose classes the page's HTML and scripts can hold
    (site_builder.css_subset), so a first visit by a permalink does not fetch 23 KB of styles
    for search, code and admonitions. Only that page (templates/overrides/viewer.html) loads it."""
    from site_builder import css_subset

    site = Path(site_dir)
    html = (site / VIEWER_PAGE.removesuffix(".md") / "index.html").read_text(encoding="utf-8")
    scripts = [(site / path).read_text(encoding="utf-8") for path in VIEWER_SCRIPTS]
    sheets = []
    for pattern in ("main.*.min.css", "palette.*.min.css"):
        found = sorted((site / "assets" / "stylesheets").glob(pattern))
        if len(found) != 1:
            raise ReplayDataError(f"{site}: expected one Material stylesheet {pattern}, found {len(found)}")
        sheets.append(found[0].read_text(encoding="utf-8"))
    others = [(site / "assets" / "gamenight" / name).read_text(encoding="utf-8") for name in ("site.css", "fit.css")]
    others.append((site / ASSETS_DIR / "viewer.css").read_text(encoding="utf-8"))
    classes = css_subset.page_classes(html, scripts)
    # Each sheet keeps the custom properties read by the page's other sheets, scripts and HTML.
    text = "\n".join(css_subset.subset(sheet, classes, [*sheets[:i], *sheets[i + 1:], *others, *scripts, html])
                     for i, sheet in enumerate(sheets))
    target = site / VIEWER_STYLES
    target.write_text(text + "\n", encoding="utf-8")
    return target


# -- data files -------------------------------------------------------------------------------
# A game's viewer data and its model exchanges are packed with other games' into gzip shards.
# The shard is found from the game id alone: shard_hash(id) modulo a power-of-two bucket count
# written to a tiny manifest (MANIFEST) the viewer fetches first; common.js computes the same
# hash. A shard is text lines "<id>\t<json>\n" sorted by id, gzip-compressed with no time stamp,
# so a shard's bytes depend on its games only.

#: The manifest of the shards: bucket counts of the data and calls shards.
MANIFEST = f"{DATA_DIR}/index.json"
SHARD_SUFFIX = ".jsonl.gz"
#: At most this many games per shard on average (the bucket count is the smallest power of two
#: that keeps to it): packed, a game's data is ~0.3 KB and a model game's exchanges ~0.8 KB
#: compressed, so shards stay near 10 KB, well under the transfer a visitor should wait for.
GAMES_PER_DATA_SHARD = 32
GAMES_PER_CALLS_SHARD = 16
GZIP_LEVEL = 9


def shard_hash(game_id: str) -> int:
    """FNV-1a (32 bits) over the id's UTF-8 bytes, then murmur3's finaliser so the low bits used
    as the bucket depend on every byte; common.js computes the same."""
    if not GAME_ID.match(game_id):
        raise ReplayDataError(f"game id {game_id!r} is not a slug of letters, digits, '.', '_' or '-'")
    h = 0x811C9DC5
    for byte in game_id.encode("utf-8"):
        h = ((h ^ byte) * 0x01000193) & 0xFFFFFFFF
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & 0xFFFFFFFF
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & 0xFFFFFFFF
    return h ^ (h >> 16)


def bucket_count(games: int, per_shard: int) -> int:
    """The smallest power of two of buckets holding `games` at most `per_shard` to a bucket on average."""
    buckets = 1
    while games > buckets * per_shard:
        buckets *= 2
    return buckets


def shard_name(bucket: int) -> str:
    return f"{bucket:x}{SHARD_SUFFIX}"


def pack(lines: Mapping[str, str]) -> bytes:
    """A shard: the lines of its games by id, gzip-compressed with no time stamp."""
    text = "".join(f"{game_id}\t{lines[game_id]}\n" for game_id in sorted(lines))
    return gzip.compress(text.encode("utf-8"), compresslevel=GZIP_LEVEL, mtime=0)


def unpack(raw: bytes) -> dict[str, str]:
    """The lines of a shard by game id."""
    out = {}
    for line in gzip.decompress(raw).decode("utf-8").splitlines():
        game_id, _, text = line.partition("\t")
        out[game_id] = text
    return out


def read_packed(site: str | os.PathLike[str], game_id: str, calls: bool = False) -> dict[str, Any] | None:
    """A game's viewer data (or its exchanges) as the viewer finds it in a built site; None if absent."""
    site = Path(site)
    counts = json.loads((site / MANIFEST).read_text(encoding="utf-8"))
    folder, buckets = (CALLS_DIR, counts["calls"]) if calls else (DATA_DIR, counts["data"])
    path = site / folder / shard_name(shard_hash(game_id) % buckets)
    text = unpack(path.read_bytes()).get(game_id) if path.is_file() else None
    return json.loads(text) if text is not None else None


def packed_ids(site: str | os.PathLike[str], calls: bool = False) -> list[str]:
    """The ids of every game in a built site's data (or exchange) shards, sorted."""
    folder = Path(site) / (CALLS_DIR if calls else DATA_DIR)
    return sorted(game_id for path in folder.glob(f"*{SHARD_SUFFIX}") for game_id in unpack(path.read_bytes()))


@dataclass
class DataWritten:
    """What `write_data` did: files in the site's replay folders, how many it (re)wrote, and how
    many games it made data for (the others were taken from the last build's shards)."""

    files: int
    written: int
    rendered: int = 0


@dataclass
class _Entry:
    """A game to be packed: what it is made of, and whether the last build's lines may be reused."""

    game: ScoredGame
    path: str
    source: Mapping[str, Any] | None
    key: str
    hash: int
    reuse: bool
    old_calls: bool


def write_data(corpus: Corpus, site_dir: str | os.PathLike[str],
               sources: Mapping[str, Mapping[str, Any]] | None = None, *,
               previous: Path | None = None, manifest: Path | None = None) -> DataWritten:
    """Write the viewer data of every valid replay of `corpus` into the built site.

    Writes the data shards under `replays/data/` with their manifest, the exchange shards under
    `replays/calls/`, and the list's index and shards under `replays/list/`. With `previous`
    (the data and calls folders of the last build, moved aside) and `manifest` (what each game's
    lines were made from, and the bucket counts), a shard whose games are all unchanged is kept
    as it was, and an unchanged game's lines are copied from the old shards instead of made again.
    """
    site = Path(site_dir)
    for folder in (DATA_DIR, CALLS_DIR, LIST_DIR):
        shutil.rmtree(site / folder, ignore_errors=True)
        (site / folder).mkdir(parents=True)
    old = _read_manifest(manifest, site) if previous is not None else {}
    old_games: dict[str, dict[str, Any]] = old.get("games", {})
    labels = {key: info.label for key, info in corpus.agents.items()}
    entries: list[_Entry] = []
    for game in corpus.games:
        source = sources.get(game.game_id) if sources else None
        key = _data_key(game, labels, source)
        was = old_games.get(game.game_id)
        reuse = was is not None and was["key"] == key
        entries.append(_Entry(game, corpus.paths[game.game_id], source, key, shard_hash(game.game_id), reuse,
                              bool(was and was["calls"])))
    data_buckets = bucket_count(len(entries), GAMES_PER_DATA_SHARD)
    calls_buckets = bucket_count(sum(_plays_a_model(e.game) for e in entries), GAMES_PER_CALLS_SHARD)
    kept = _unchanged_shards(entries, old, old_games, data_buckets, calls_buckets, previous)
    # A job is the coarser of the two bucketings: every game of a calls shard and of a data shard
    # is in the same job (the counts are powers of two), so workers never share a shard.
    jobs_count = min(data_buckets, calls_buckets)
    jobs: dict[int, list[_Entry]] = {}
    for entry in entries:
        jobs.setdefault(entry.hash % jobs_count, []).append(entry)
    todo = []
    for job, members in sorted(jobs.items()):
        shards = {(DATA_DIR, e.hash % data_buckets) for e in members} | \
                 {(CALLS_DIR, e.hash % calls_buckets) for e in members}
        if not shards <= kept:
            todo.append(_Job(members, {s for s in shards if s not in kept}, data_buckets, calls_buckets,
                             old.get("data"), old.get("calls"), str(previous) if previous else None,
                             {s.agent: labels.get(s.agent, s.agent) for e in members for s in e.game.seats},
                             str(site)))
    calls_of: dict[str, bool] = {e.game.game_id: e.old_calls for e in entries}
    written = rendered = 0
    for done in map_on_cores(_pack_job, todo, chunksize=4):
        calls_of.update(done.calls)
        written += done.written
        rendered += done.rendered
    moved = 0
    for folder, bucket in sorted(kept):  # kept shards move over once no job reads the old ones
        old_file = previous / Path(folder).name / shard_name(bucket) if previous else None
        if old_file is not None and old_file.is_file():  # (a kept calls bucket may have no games with calls)
            old_file.rename(site / folder / shard_name(bucket))
            moved += 1
    written += _write_json(site / MANIFEST, {"v": DATA_VERSION, "hash": "fnv1a32-fmix32",
                                             "data": data_buckets, "calls": calls_buckets})
    written += write_list(site, replay_index(corpus.games, corpus.agents))
    if manifest is not None:
        manifest.parent.mkdir(parents=True, exist_ok=True)
        games = {e.game.game_id: {"key": e.key, "calls": calls_of[e.game.game_id]} for e in entries}
        manifest.write_text(json.dumps({"version": DATA_VERSION, "site": str(site.resolve()), "data": data_buckets,
                                        "calls": calls_buckets, "games": games}, sort_keys=True), encoding="utf-8")
    return DataWritten(files=moved + written, written=written, rendered=rendered)


def _plays_a_model(game: ScoredGame) -> bool:
    """Whether a game has model exchanges (its seats' usage counts calls): sizes the calls buckets."""
    return any((usage.get("calls") or 0) > 0 for usage in game.usage)


def _unchanged_shards(entries: Sequence[_Entry], old: Mapping[str, Any], old_games: Mapping[str, Any],
                      data_buckets: int, calls_buckets: int, previous: Path | None) -> set[tuple[str, int]]:
    """The shards of the last build that can stay as they are: same bucket count, the very same
    games, none changed, and the file there."""
    if previous is None:
        return set()
    kept: set[tuple[str, int]] = set()
    for folder, buckets, has in ((DATA_DIR, data_buckets, lambda g: True),
                                 (CALLS_DIR, calls_buckets, lambda g: bool(old_games[g]["calls"]))):
        if old.get("data" if folder == DATA_DIR else "calls") != buckets:
            continue
        now: dict[int, set[str]] = {}
        changed: set[int] = set()
        for e in entries:
            bucket = e.hash % buckets
            now.setdefault(bucket, set()).add(e.game.game_id)
            if not e.reuse:
                changed.add(bucket)
        before: dict[int, set[str]] = {}
        for game_id in old_games:
            before.setdefault(shard_hash(game_id) % buckets, set()).add(game_id)
        for bucket, ids in now.items():
            if bucket in changed or before.get(bucket) != ids:
                continue
            if any(has(g) for g in ids):
                if (previous / Path(folder).name / shard_name(bucket)).is_file():
                    kept.add((folder, bucket))
            else:
                kept.add((folder, bucket))  # no file then, none now
    return kept


@dataclass
class _Job:
    """The games of one job, the shards of theirs to write, and where the last build's shards are."""

    entries: list[_Entry]
    shards: set[tuple[str, int]]
    data_buckets: int
    calls_buckets: int
    old_data_buckets: int | None
    old_calls_buckets: int | None
    previous: str | None
    labels: dict[str, str]
    site: str


@dataclass
class _JobDone:
    calls: dict[str, bool]
    written: int
    rendered: int


def _pack_job(job: _Job) -> _JobDone:
    """Make (or copy from the old shards) every line of the job's games and write its shards."""
    old_shards: dict[tuple[str, int], dict[str, str]] = {}

    def old_line(folder: str, buckets: int | None, entry: _Entry) -> str | None:
        if buckets is None or job.previous is None:
            return None
        where = (folder, entry.hash % buckets)
        if where not in old_shards:
            path = Path(job.previous) / Path(folder).name / shard_name(where[1])
            try:
                old_shards[where] = unpack(path.read_bytes())
            except (OSError, ValueError, EOFError):
                old_shards[where] = {}
        return old_shards[where].get(entry.game.game_id)

    lines: dict[tuple[str, int], dict[str, str]] = {shard: {} for shard in job.shards}
    calls_of: dict[str, bool] = {}
    rendered = 0
    for entry in job.entries:
        game_id = entry.game.game_id
        data_line = old_line(DATA_DIR, job.old_data_buckets, entry) if entry.reuse else None
        calls_line = old_line(CALLS_DIR, job.old_calls_buckets, entry) if entry.reuse and entry.old_calls else None
        if data_line is None or (entry.old_calls and calls_line is None):
            data_line, calls_line = _game_lines(entry, job.labels)
            rendered += 1
        calls_of[game_id] = calls_line is not None
        for folder, buckets, line in ((DATA_DIR, job.data_buckets, data_line),
                                      (CALLS_DIR, job.calls_buckets, calls_line)):
            shard = (folder, entry.hash % buckets)
            if line is not None and shard in lines:
                lines[shard][game_id] = line
    written = 0
    for (folder, bucket), members in sorted(lines.items()):
        if members:
            (Path(job.site) / folder / shard_name(bucket)).write_bytes(pack(members))
            written += 1
    return _JobDone(calls_of, written, rendered)


def _game_lines(entry: _Entry, labels: Mapping[str, str]) -> tuple[str, str | None]:
    """A game's viewer data and its exchanges (None if it has none) as JSON text."""
    data, calls = replay_data(entry.game, read_records(entry.path, entry.game.content_hash), labels)
    if entry.source is not None:
        data["source"] = entry.source
    return to_json(data), (to_json(calls) if calls is not None else None)


def _data_key(game: ScoredGame, labels: Mapping[str, str], source: Mapping[str, Any] | None) -> str:
    """What a replay's data is made of: the replay, its agents' labels, its source, the format."""
    made_of = [DATA_VERSION, game.content_hash, [labels.get(s.agent, s.agent) for s in game.seats], source]
    return hashlib.sha256(json.dumps(made_of, sort_keys=True).encode()).hexdigest()


def _read_manifest(path: Path | None, site: Path) -> dict[str, Any]:
    """The previous build's bucket counts and game keys for this site folder; none (so everything
    is made again) if unreadable, of another format or written for another site folder."""
    try:
        data = json.loads(path.read_text(encoding="utf-8")) if path is not None else {}
        usable = data.get("version") == DATA_VERSION and data.get("site") == str(site.resolve()) \
            and isinstance(data.get("games"), dict) and isinstance(data.get("data"), int) \
            and isinstance(data.get("calls"), int)
        return data if usable else {}
    except (OSError, ValueError, AttributeError):
        return {}


def read_records(path: str | Path, content_hash: str) -> list[dict[str, Any]]:
    """The records of a replay file, checked to be the very file the scorer validated."""
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise ReplayDataError(f"{path}: cannot read the replay: {exc.strerror or exc}") from None
    if hashlib.sha256(raw).hexdigest() != content_hash:
        raise ReplayDataError(f"{path}: the file changed after it was scored; build the site again")
    records, problems = parse_lines(str(path), raw)
    if problems:  # impossible for a file with the validated hash, but never guess
        raise ReplayDataError(str(problems[0]))
    return [record.data for record in records]


def replay_data(game: ScoredGame, records: Sequence[Mapping[str, Any]],
                labels: Mapping[str, str]) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The viewer's data for one validated replay, and its LLM-exchange sidecar (None if none).

    Steps are the replay's events and probes in file order; a probe becomes a step of kind
    "probe" seen only by its seat. Step i of the list is step i + 1 of the viewer (step 0 is the
    deal, the last step the outcome). Exchanges are keyed by the list index of their step.
    """
    header = records[0]
    end = next(i for i, r in enumerate(records) if r["type"] == "outcome")
    engine = registry.get(game.game)
    setup = header["setup"]  # the whole deal (a scored game keeps only what the metrics read)
    state = engine.start(game.variant, setup)
    seats = range(len(game.seats))
    private = [state.private(seat) for seat in seats]
    steps: list[dict[str, Any]] = []
    exchanges: dict[str, list[dict[str, Any]]] = {}
    texts = _Texts()
    for record in records[1:end]:
        step = _step(record)
        calls = (record.get("evidence") or {}).get("calls") or []
        if calls:
            step["c"] = _usage(calls)
            exchanges[str(len(steps))] = [_call(call, texts) for call in calls]
        steps.append(step)
    data = {
        "v": DATA_VERSION, "id": game.game_id, "game": game.game, "title": engine.title,
        "variant": game.variant, "tournament": game.tournament, "matchup": header["matchup"],
        "created": game.created, "seed": str(header["seed"]),  # beyond 2**53 in JavaScript
        "players": [_player(p, game.seats[p["seat"]].agent, labels) for p in header["players"]],
        "setup": setup, "public": state.public(), "private": private,
        "knows": [_known_seats(seat, private[seat]) for seat in seats],
        "reveal": _reveal_steps(engine, game.game, steps),
        "steps": steps,
        "outcome": {"status": game.status, "winners": list(game.winners), "result": game.result,
                    "summary": outcome_summary(game)},
        "judge": [_judgement(r) for r in records[end + 1:]],
        "llm": bool(exchanges),
    }
    calls_data = {"v": DATA_VERSION, "id": game.game_id, "texts": texts.items, "steps": exchanges}
    return data, (calls_data if exchanges else None)


def _step(record: Mapping[str, Any]) -> dict[str, Any]:
    """One event or probe in the viewer's compact form (k kind, p phase, s seat, d data, v vis)."""
    if record["type"] == "probe":
        answer = record["answer"]
        if answer is None:  # kept for its model calls: what went wrong instead of a belief
            answer = {"unanswered": record["error"], **({"of": record["about"]} if "about" in record else {})}
        probe = {"k": "probe", "p": record["probe"], "s": record["seat"], "d": answer, "v": [record["seat"]]}
        beliefs = _beliefs(record)
        return {**probe, "b": beliefs} if beliefs is not None else probe
    step = {"n": record["n"], "k": record["kind"], "p": record["phase"], "s": record["seat"],
            "d": record["data"], "v": record["vis"]}
    if record.get("attempts"):
        step["a"] = [{"action": a["action"], "raw": a["raw"], "error": a["error"]} for a in record["attempts"]]
    beliefs = _beliefs(record)
    if beliefs is not None:
        step["b"] = beliefs
    plan = _plan(record)
    if plan is not None:
        step["st"] = plan
    return step


def _plan(record: Mapping[str, Any]) -> dict[str, Any] | None:
    """The Strategy Decision's Judgement and plan, or Favor's Judgement and levels, recorded with a
    decision or probe (None if none)."""
    notes = (record.get("evidence") or {}).get("notes")
    if not isinstance(notes, Mapping) or notes.get("design") not in ("strategy", "favor"):
        return None
    if notes["design"] == "favor":
        levels = notes.get("levels")
        shown = [round(v) if _number(v) else None for v in levels] if isinstance(levels, list) else None
        return {"favor": shown, "judgement": _judged(notes.get("judgement"))}
    plan = notes.get("plan")
    return {"plan": plan if isinstance(plan, str) else None, "judgement": _judged(notes.get("judgement")),
            "cut": notes.get("cut") is True}


def _judged(judged: Any) -> list[list[Any]] | None:
    """A recorded Judgement as [seat, role, p] rows (None if there was none)."""
    if not isinstance(judged, list):
        return None
    return [[e["seat"], e["role"], round(float(e["p"]), 3)] for e in judged
            if isinstance(e, Mapping) and isinstance(e.get("seat"), int) and isinstance(e.get("role"), str)
            and _number(e.get("p"))]


def _beliefs(record: Mapping[str, Any]) -> dict[str, Any] | None:
    """The PGM design's suspicion views recorded with a decision or probe (None if none): what
    they are about, the views after its updates, the target, and which moves were rated."""
    notes = (record.get("evidence") or {}).get("notes")
    if not isinstance(notes, Mapping) or notes.get("design") != "pgm":
        return None
    if notes.get("about") == "next move":
        return _expected_moves(notes)
    views = notes.get("views")
    if not (isinstance(views, list) and all(isinstance(v, list) and all(_number(p) for p in v) for v in views)):
        return None  # free-form notes of another shape: nothing the viewer can draw
    updates = [u for u in notes.get("updates") or () if isinstance(u, Mapping)]
    return {"about": str(notes.get("about", "")), "aim": notes.get("aim") if isinstance(notes.get("aim"), int) else None,
            "views": [[round(p, 3) for p in v] for v in views],
            "rated": len(updates), "unread": sum(1 for u in updates if u.get("read") is False)}


def _expected_moves(notes: Mapping[str, Any]) -> dict[str, Any] | None:
    """The PGM expectations of a game-theory game: per view and player, the likeliest next move
    and its probability (None for a player's own move, or a shape the viewer cannot draw)."""
    moves, views = notes.get("moves"), notes.get("views")
    if not (isinstance(moves, list) and all(isinstance(m, str) for m in moves) and isinstance(views, list)):
        return None
    shown = []
    for view in views:
        if not isinstance(view, list):
            return None
        row = []
        for dist in view:
            if isinstance(dist, list) and len(dist) == len(moves) and all(_number(p) for p in dist):
                best = max(range(len(moves)), key=lambda a: (dist[a], -a))
                row.append([moves[best], round(float(dist[best]), 3)])
            else:
                row.append(None)
        shown.append(row)
    updates = [u for u in notes.get("updates") or () if isinstance(u, Mapping)]
    return {"about": "next move", "moves": moves, "expected": shown, "rated": len(updates),
            "unread": sum(1 for u in updates if u.get("read") is False)}


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _usage(calls: Iterable[Mapping[str, Any]]) -> list[int]:
    """[calls, input tokens, output tokens, milliseconds] of one decision's model calls."""
    calls = list(calls)
    total = [len(calls), 0, 0, 0]
    for call in calls:
        total[1] += call.get("input_tokens") or 0
        total[2] += call.get("output_tokens") or 0
        total[3] += call.get("latency_ms") or 0
    total[3] = round(total[3])
    return total


class _Texts:
    """A table of message texts: prompts repeat from call to call, so each is stored once."""

    def __init__(self) -> None:
        self.items: list[str] = []
        self._index: dict[str, int] = {}

    def ref(self, text: str) -> int:
        if text not in self._index:
            self._index[text] = len(self.items)
            self.items.append(text)
        return self._index[text]


def _call(call: Mapping[str, Any], texts: _Texts) -> dict[str, Any]:
    """One model call: messages as [role, text index] pairs, the reply and the call's figures."""
    out: dict[str, Any] = {"m": [[m["role"], texts.ref(m["content"])] for m in call["messages"]],
                           "r": call["reply"]}
    for key in ("model_reported", "finish_reason", "input_tokens", "output_tokens", "latency_ms", "error",
                "reasoning", "structured", "cached"):
        if call.get(key) is not None:
            out[key] = call[key]
    return out


def _player(player: Mapping[str, Any], key: str, labels: Mapping[str, str]) -> dict[str, Any]:
    """A seat: display name, role, agent label (as on the leaderboard) and what the agent is."""
    agent = player["agent"]
    if agent.get("kind") == "human":
        about = "a person"
    elif agent.get("kind") == "llm":
        about = f"{agent.get('provider', '')}/{agent.get('model', '')}".strip("/")
        if agent.get("design"):
            about += f" ({agent['design']})"
    else:
        params = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}"
                           for k, v in sorted(agent.get("params", {}).items()))
        about = f"{agent.get('strategy', '')}" + (f" ({params})" if params else "")
    return {"name": player["name"], "role": player["role"], "agent": labels.get(key, agent.get("name", "")),
            "kind": agent.get("kind", ""), "about": about}


def _known_seats(seat: int, private: Mapping[str, Any]) -> list[int]:
    """Seats whose role `seat` knows from its deal: itself if told its role, and partners."""
    known = [seat] if "role" in private else []
    known += [private[f] for f in PARTNER_FIELDS if isinstance(private.get(f), int)]
    return sorted(set(known))


def _reveal_steps(engine: Any, game: str, steps: Sequence[Mapping[str, Any]]) -> dict[str, int | None]:
    """Viewer steps from which every role, and the whole setup, are public (None: never).

    Games without hidden information are public from the deal (step 0). A game with hidden
    information but no known reveal phase is treated as revealing nothing before the outcome.
    """
    if not engine.reveal_phases:
        return {"roles": 0, "setup": 0}
    outcome_step = len(steps) + 1
    roles_phase, setup_phase = REVEALS.get(game, (None, None))

    def first(phase: str | None) -> int | None:
        if phase is None:
            return outcome_step
        return next((i + 1 for i, s in enumerate(steps) if s["k"] != "probe" and s["p"] == phase), None)

    return {"roles": first(roles_phase), "setup": first(setup_phase)}


def _judgement(record: Mapping[str, Any]) -> dict[str, Any]:
    """An LLM judge's annotation, without its exchanges: the judge by name, model and prompt
    version (records of two prompt versions are two judges), the value of its dimension, and the
    reason of a failed evaluation."""
    judge = record["judge"]
    failure = record.get("failure")
    return {"dimension": record["dimension"], "judge": judge.get("name", ""), "model": judge.get("model", ""),
            "prompts": judge.get("prompt_version"), "round": record["round"], "score": record["score"],
            "mentions": record["mentions"], "highlights": record["highlights"], "suspects": record.get("suspects"),
            "failed": failure.get("reason") if isinstance(failure, Mapping) else None}


def outcome_summary(game: ScoredGame) -> str:
    """The outcome in a few words: "village wins", "no agreement", "invalid"..."""
    if not game.valid:
        return "invalid"
    summary = OUTCOME_WORDS.get(game.game)
    return summary(game.result) if summary else f"{len(game.winners)} winner(s)"


# -- the replay list --------------------------------------------------------------------------
# The list page shows 50 rows at a time, so it must not fetch every row of a 100,000-game board.
# Its rows are kept in *streams*, each sorted newest first and cut into gzip shards of SHARD_ROWS
# rows: "all" (every game), "g-<game>" (one game's) and "a<i>" (the games an agent label played,
# i the label's place in the index's `labels`). A filter reads the one stream that holds all its
# rows (the agent's if one is chosen, else the game's, else "all"); the rest of the filter (the
# game, the outcome) is applied to the rows read. For that, each stream has a small file of
# counts: per shard, how many of its rows fall under each (game, outcome) key. From them the
# page works out the number of matching rows and which shards hold the rows of the page shown,
# and fetches only those (one shard for a first screen).

#: Version of the list's files (independent of the viewer data's DATA_VERSION).
LIST_VERSION = 3
#: Rows per list shard: 500 rows are ~6 KB over the wire, ten pages of the list.
SHARD_ROWS = 500
#: The suffix of a list shard: gzip-compressed JSON, read with the browser's DecompressionStream.
LIST_SHARD_SUFFIX = ".json.gz"


@dataclass(frozen=True)
class ListedGame:
    """One row of the replay list, with the agents as keys (labels come from the agents table)."""

    game_id: str
    game: str
    created: str
    agents: tuple[str, ...]
    roles: tuple[str, ...]
    winners: tuple[int, ...]
    outcome: str
    valid: bool
    moves: int | None

    @classmethod
    def of(cls, game: ScoredGame) -> ListedGame:
        return cls(game.game_id, game.game, game.created, tuple(s.agent for s in game.seats),
                   tuple(s.role for s in game.seats), tuple(game.winners), outcome_summary(game), game.valid,
                   digest.moves(game))


def replay_index(played: Sequence[ScoredGame], agents: Mapping[str, AgentInfo]) -> dict[str, Any]:
    """The list page's files, by name: `index.json`, each stream's counts and its shards."""
    return list_files([ListedGame.of(g) for g in played], {key: info.label for key, info in agents.items()})


def list_files(listed: Sequence[ListedGame], labels: Mapping[str, str]) -> dict[str, Any]:
    """The list page's files, by name (a `.json.gz` shard's value is gzipped when written).

    `index.json`: the games (title, count, outcomes, roles, agents seen), the agents' labels, the
    distinct labels (their streams) and the (game, outcome) keys. A row is [game id, date, agent
    per seat (index into `agents`), winning seats, outcome (index into its game's `outcomes`),
    invalid (0 or 1), role per seat (index into its game's `roles`), moves, game (index into
    `games`)]. `<stream>.json`: {"keys": [the key indices present in the stream], "shards": [per
    shard, its rows under each of those keys, in that order]}.
    """
    keys = sorted(labels, key=lambda k: (labels[k], k))
    agent_index = {key: i for i, key in enumerate(keys)}
    distinct = sorted({labels[k] for k in keys})
    label_index = {label: i for i, label in enumerate(distinct)}
    order = {name: i for i, name in enumerate(registry.available())}
    names = sorted({g.game for g in listed}, key=lambda g: (order.get(g, len(order)), g))
    games = []
    for name in names:
        mine = [g for g in listed if g.game == name]
        roles = list(registry.get(name).roles)
        roles += sorted({r for g in mine for r in g.roles} - set(roles))
        games.append({"game": name, "title": registry.get(name).title, "count": len(mine),
                      "outcomes": sorted({g.outcome for g in mine}), "roles": roles,
                      "agents": sorted({agent_index[a] for g in mine for a in g.agents})})
    game_index = {g["game"]: i for i, g in enumerate(games)}
    outcome_keys = [(i, o) for i, g in enumerate(games) for o in range(len(g["outcomes"]))]
    key_of = {k: n for n, k in enumerate(outcome_keys)}
    newest_first = sorted(sorted(listed, key=lambda g: g.game_id), key=lambda g: g.created, reverse=True)
    streams: dict[str, list[tuple[list[Any], int]]] = {"all": []}
    for g in newest_first:
        info = games[game_index[g.game]]
        row = [g.game_id, g.created[:10], [agent_index[a] for a in g.agents], list(g.winners),
               info["outcomes"].index(g.outcome), 0 if g.valid else 1, [info["roles"].index(r) for r in g.roles],
               g.moves, game_index[g.game]]
        key = key_of[(game_index[g.game], row[4])]
        streams["all"].append((row, key))
        streams.setdefault(f"g-{g.game}", []).append((row, key))
        for label in sorted({labels[a] for a in g.agents}):
            streams.setdefault(f"a{label_index[label]}", []).append((row, key))
    files: dict[str, Any] = {}
    for stream, rows in streams.items():
        present = sorted({key for _, key in rows})  # the keys of this stream, in the counts' order
        column = {key: i for i, key in enumerate(present)}
        counts = []
        for start in range(0, len(rows), SHARD_ROWS):
            chunk = rows[start:start + SHARD_ROWS]
            tally = [0] * len(present)
            for _, key in chunk:
                tally[column[key]] += 1
            counts.append(tally)
            files[f"{stream}-{start // SHARD_ROWS}{LIST_SHARD_SUFFIX}"] = {"v": LIST_VERSION,
                                                                          "rows": [row for row, _ in chunk]}
        files[f"{stream}.json"] = {"v": LIST_VERSION, "keys": present, "shards": counts}
    files["index.json"] = {"v": LIST_VERSION, "total": len(listed), "rows": SHARD_ROWS,
                           "agents": [labels[k] for k in keys], "labels": distinct, "games": games,
                           "keys": [list(k) for k in outcome_keys]}
    return files


def write_list(site_dir: str | os.PathLike[str], files: Mapping[str, Any]) -> int:
    """Write the list's files (list_files) into the site's list folder; the number written."""
    folder = Path(site_dir) / LIST_DIR
    folder.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        if name.endswith(LIST_SHARD_SUFFIX):
            raw = gzip.compress(to_json(content).encode("utf-8"), compresslevel=GZIP_LEVEL, mtime=0)
            (folder / name).write_bytes(raw)
        else:
            _write_json(folder / name, content)
    return len(files)


# -- writing ----------------------------------------------------------------------------------

def to_json(value: Any) -> str:
    """Compact JSON with <, > and & escaped, so no file can read as markup even if opened as a page."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _write_json(path: Path, value: Any) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(to_json(value), encoding="utf-8")
    return 1
