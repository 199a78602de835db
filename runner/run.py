"""Running a tournament: play the planned games concurrently, write each replay atomically, resume."""

from __future__ import annotations

import asyncio
import datetime as dt
import itertools
import json
import os
import random
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from runner import games, tomlfile
from runner.agents.base import Agent
from runner.agents.builtin import make
from runner.errors import ProviderError
from runner.llm.cache import CachedChatModel, ResponseCache
from runner.llm.prompt_cache import CacheUse, SimulatedCache
from runner.llm.providers import find
from runner.llm.types import Completion, ConfigError, ProviderLimits
from runner.plan import AgentSpec, PlannedGame, Price, Tournament
from runner.play import Seating, play, rng_for
from runner.replay.format import encode, write_atomic
from runner.tournament import MAX_FILE_BYTES
from runner.written import RECORD, Written, adders, by_source, git_user_email


@dataclass
class Usage:
    """Model calls and tokens of one model, as the replays' evidence reports them."""

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    failed_calls: int = 0    # calls recorded with an error (only in replays of runner 0.1)
    cached_input_tokens: int = 0  # of input_tokens, read from the provider's prompt cache
    cache_write_input_tokens: int = 0  # of input_tokens, written to the provider's prompt cache
    reasoning_tokens: int = 0     # of output_tokens, spent thinking
    #: Calls answered from the runner's response cache: recorded, but not paid for again now.
    replayed_calls: int = 0
    replayed: "Usage | None" = None

    def add_call(self, call: Mapping[str, Any]) -> None:
        self.calls += 1
        self.input_tokens += call.get("input_tokens") or 0
        self.output_tokens += call.get("output_tokens") or 0
        self.cached_input_tokens += call.get("cached_input_tokens") or 0
        self.cache_write_input_tokens += call.get("cache_write_input_tokens") or 0
        self.reasoning_tokens += call.get("reasoning_tokens") or 0
        self.failed_calls += 1 if call.get("error") else 0
        if call.get("cached"):
            self.replayed_calls += 1
            if self.replayed is None:
                self.replayed = Usage()
            self.replayed.add_call({k: v for k, v in call.items() if k != "cached"})

    def cost(self, price: Price | None, caching: bool = True) -> float | None:
        """USD of the calls made now: the recorded tokens, less those answered from the response cache.
        `caching=False`: what they would have cost without the provider's prompt cache (every input
        token at the input price)."""
        if price is None:
            return None
        paid = (price.cost(self.input_tokens, self.output_tokens, self.cached_input_tokens,
                           self.cache_write_input_tokens) if caching
                else price.cost(self.input_tokens, self.output_tokens))
        return paid - (self.replayed.cost(price, caching) or 0.0) if self.replayed else paid


@dataclass
class Summary:
    """What a run did, for the closing report."""

    played: Counter = field(default_factory=Counter)       # game name -> games played now
    skipped: Counter = field(default_factory=Counter)      # game name -> already on disk
    invalid: Counter = field(default_factory=Counter)      # game name -> ended invalid
    appearances: Counter = field(default_factory=Counter)  # (game, agent) -> seats played
    wins: Counter = field(default_factory=Counter)         # (game, agent) -> seats that won
    failures: list[str] = field(default_factory=list)      # "game_id: error" for crashed games
    usage: dict[str, Usage] = field(default_factory=dict)  # model -> calls and tokens of the games played now
    #: Games abandoned because a provider could not answer (not written; a later run plays them).
    not_played: list[tuple[str, str]] = field(default_factory=list)  # (game_id, provider error)
    #: The failure no retry can heal that stopped the run early (None if it ran to the end).
    stopped: str | None = None
    #: Games never started because the run stopped early.
    never_started: int = 0
    #: Replays an older runner wrote as forfeits for provider failures, played again now.
    replaced: int = 0
    #: Per model: the calls the providers answered in this run and their tokens, including those
    #: of games that were abandoned (and so are in no replay).
    spent: dict[str, dict[str, int]] = field(default_factory=dict)
    #: Kept replays (file names) that no run on this machine wrote, by the record (runner/written.py).
    foreign: list[str] = field(default_factory=list)
    #: The same, grouped by who added them: (the commit, or why none is known; file names).
    foreign_sources: list[tuple[str, list[str]]] = field(default_factory=list)
    #: Games written now whose note in the record could not be written (a later run will not know them).
    unrecorded: int = 0

    @property
    def ok(self) -> bool:
        return not self.failures and not self.not_played and self.stopped is None


class Seats:
    """Builds the agent of each seat: a built-in strategy, or a language model from the run's
    one `Connections` registry (one shared, rate-limited client per endpoint), answering from the
    response cache first when the run has one."""

    def __init__(self, connections: Any = None, cache: ResponseCache | None = None,
                 prompt_version: str | None = None):
        self.connections = connections
        self.cache = cache
        #: The released prompt set the models are prompted with (None: the current one); a
        #: verification plays a row's deals again with the row's own (runner/verify.py).
        self.prompt_version = prompt_version

    def agent(self, spec: AgentSpec, game: str, seat: int, rng: random.Random, game_id: str = "") -> Agent:
        if not spec.is_llm:
            return make(spec.spec["builtin"], spec.spec["params"], rng, spec.name, game)
        from runner.agents.llm import make_llm_agent

        if self.connections is None:
            raise RuntimeError(f"agent {spec.name} is a language model but the run has no connections")
        model = self.connections.model(spec.settings())
        if self.cache is not None:
            model = CachedChatModel(model, self.cache, f"{game_id}/seat-{seat}")
        return make_llm_agent(dict(spec.spec), model, game=game, seat=seat, rng=rng, name=spec.name,
                              prompt_version=self.prompt_version)


class CannotStart(Exception):
    """The run cannot begin: a model's settings or key are unusable (the message names which)."""


@asynccontextmanager
async def connections_for(agents: Iterable[AgentSpec], providers: Mapping[str, Mapping[str, Any]],
                          environ: Mapping[str, str] | None = None) -> AsyncIterator[Any]:
    """One `runner.llm.Connections` registry for a run (None when no agent is a language model),
    closed at the end.

    Every model is set up before anything is played, and every endpoint asked once for its model
    list (`Connections.check`), so a missing key variable, a key the server refuses or a server that
    is not there stops the run at once (CannotStart naming the variable or the address) instead of
    failing every game.
    """
    agents = list(agents)
    if not agents:
        yield None
        return
    from runner.llm.connections import Connections  # the provider layer: only for a run with models

    connections = None
    try:
        connections = Connections({name: ProviderLimits(**table) for name, table in providers.items()}, environ)
        for agent in agents:
            connections.model(agent.settings())
        await connections.check()
    except ConfigError as exc:
        if connections is not None:
            await connections.aclose()
        raise CannotStart(str(exc)) from None
    try:
        yield connections
    finally:
        await connections.aclose()


async def check_models(agents: Iterable[AgentSpec], providers: Mapping[str, Mapping[str, Any]],
                       environ: Mapping[str, str] | None = None) -> None:
    """CannotStart unless every language model among `agents` has its key and its server answers
    (the check `connections_for` makes), before a run prices or plays anything."""
    async with connections_for(agents, providers, environ):
        pass


def default_cache_dir() -> Path:
    """Where `gamenight run` caches model replies: $GAMENIGHT_CACHE_DIR, else
    $XDG_CACHE_HOME/gamenight/responses, else ~/.cache/gamenight/responses."""
    if os.environ.get("GAMENIGHT_CACHE_DIR"):
        return Path(os.environ["GAMENIGHT_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "gamenight" / "responses"


#: The tournament's plan beside its replays (Tournament.plan_file): what a submission carries.
PLAN_FILE = "tournament.toml"


def write_plan(tournament: Tournament, out: Path) -> None:
    """Write the tournament's plan into `out` (replacing the plan of an earlier run of the same
    tournament, which may have had fewer games); CannotStart if `out` holds another tournament's
    plan, whose replays would be mixed with this one's."""
    check_plan_folder(tournament, out)
    write_atomic(out / PLAN_FILE, tournament.plan_file().encode("utf-8"))


def check_plan_folder(tournament: Tournament, out: Path) -> None:
    """CannotStart if `out` holds another tournament's plan (or one that cannot be read); reads only."""
    path = out / PLAN_FILE
    try:
        with open(path, "rb") as handle:
            old = tomlfile.parse(handle.read(MAX_FILE_BYTES + 1), MAX_FILE_BYTES, os.fstat(handle.fileno()).st_size)
    except FileNotFoundError:
        old = None
    except (OSError, tomlfile.TomlError) as exc:
        why = exc.strerror or exc if isinstance(exc, OSError) else f"line {exc.line}: {exc}" if exc.line else exc
        raise CannotStart(f"{path}: cannot read the tournament plan there ({why}); move it away or "
                          "write this tournament into its own folder with --out") from None
    if old is not None and old.get("name") != tournament.name:
        other = tomlfile.one_line(repr(old.get("name")), 80)
        raise CannotStart(f"{out} holds the replays of another tournament ({other}, by its "
                          f"{PLAN_FILE}): write {tournament.name!r} into its own folder with --out")


def replay_path(out: Path, planned: PlannedGame) -> Path:
    return out / f"{planned.game_id}.jsonl"


def remove_stray_temporaries(out: Path) -> int:
    """Delete temporary files left by a crash mid-write; they never count as replays."""
    removed = 0
    if out.is_dir():
        for tmp in out.glob(".*.jsonl.*.tmp"):
            tmp.unlink(missing_ok=True)
            removed += 1
    return removed


async def play_planned(planned: PlannedGame, max_attempts: int, probes: bool, created: str,
                       seats: Seats | None = None) -> list[dict]:
    """Deal, seat the agents and play one planned game; its replay records."""
    seats = seats or Seats()
    matchup = planned.matchup
    game = games.get(matchup.game)
    params = dict(matchup.rules)
    setup = game.deal(params, rng_for(planned.seed, "deal"))
    n = game.players(params)
    roles = [game.role_of(params, setup, seat) for seat in range(n)]
    agents = [seats.agent(planned.agent_for(seat, roles[seat]), game.name, seat,
                          rng_for(planned.seed, f"agent-{seat}"), planned.game_id)
              for seat in range(n)]
    seating = Seating(agents, game.seat_names(params, setup), roles)
    return await play(game, params, setup, seating, seed=planned.seed, game_id=planned.game_id,
                      tournament=planned.tournament, matchup=matchup.label, created=created,
                      max_attempts=max_attempts, probes=probes, suite=planned.suite_header(),
                      verify=planned.verify_header())


async def run(tournament: Tournament, out: Path, parallel: int = 4,
              on_done: Callable[[PlannedGame, str], None] | None = None,
              environ: Mapping[str, str] | None = None, cache_dir: Path | None = None, *,
              record: Path | None = None, only_mine: bool = False,
              on_foreign: Callable[[Summary], None] | None = None, prompt_version: str | None = None) -> Summary:
    """Play every planned game not already on disk under `out`, `parallel` at a time.

    Language models get their keys from `environ` (default: the process environment); a missing
    key variable, a key the server refuses or a server that is not there, of a model that still has
    games to play, raises CannotStart before anything is written.
    With `cache_dir`, model replies are kept there and answered from there when asked again
    (runner/llm/cache.py); without it every call goes to the provider.

    With `record` (a cache folder), every game written is noted there (runner/written.py), and kept
    games no run of this machine wrote are listed in `summary.foreign` with who added them;
    `on_foreign` hears of them before any game starts, and `only_mine` refuses to keep them
    (CannotStart naming them). `prompt_version`: the released prompt set to prompt the models with
    (default: the current one).
    """
    summary = Summary()
    check_plan_folder(tournament, out)  # nothing is written before the models are checked
    written = Written(record) if record is not None else None
    to_play = []
    for planned in tournament.plan():
        path = replay_path(out, planned)
        raw = _read(path)
        if raw is not None and not forfeited(raw):
            summary.skipped[planned.matchup.game] += 1
            if written is not None and not written.wrote(raw):
                summary.foreign.append(path.name)
            if on_done:
                on_done(planned, "skipped")
        else:
            summary.replaced += raw is not None
            to_play.append(planned)
    if summary.foreign:
        summary.foreign_sources = by_source(summary.foreign, adders(out, summary.foreign))
        if only_mine:
            raise CannotStart(foreign_refusal(out, summary))
        if on_foreign:
            on_foreign(summary)
    models = {a.name: a for p in to_play for a in (*p.matchup.roles.values(), *p.matchup.lineup) if a.is_llm}
    cache = None
    if cache_dir is not None and models:
        cache = ResponseCache(cache_dir)
    async with connections_for(models.values(), tournament.providers, environ) as connections:
        out.mkdir(parents=True, exist_ok=True)
        write_plan(tournament, out)
        remove_stray_temporaries(out)
        try:
            seats = Seats(connections, cache, prompt_version)
            await _play_all(tournament, to_play, out, parallel, on_done, seats, summary, written)
        finally:
            summary.spent = connections.spent() if connections is not None else {}
    return summary


def _read(path: Path) -> bytes | None:
    """A replay's bytes, or None if there is none; one that cannot be read is kept for `validate`."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError:
        return b""


def foreign_refusal(out: Path, summary: Summary) -> str:
    """Why --only-mine refuses to run: the kept games no run here wrote, and who added them."""
    count = len(summary.foreign)
    listed = ", ".join(summary.foreign[:MAX_NAMED]) + (f" and {count - MAX_NAMED:,} more" if count > MAX_NAMED else "")
    sources = "; ".join(f"{len(names):,} {label}" for label, names in summary.foreign_sources)
    return (f"{out} holds {count:,} finished game{'s' if count != 1 else ''} that no run on this machine wrote "
            f"({listed}): {sources}. With --only-mine nothing is kept that this machine did not write: move "
            f"{'them' if count != 1 else 'it'} out of the folder to play {'them' if count != 1 else 'it'} here, "
            "or run without --only-mine to keep them")


def others_replays(out: Path, record: Path) -> tuple[list[str], list[tuple[str, list[str]]]]:
    """The replays in `out` that are someone else's, as far as this machine can tell, and who added
    them: those no run on this machine wrote (by the record in `record`) that no commit of this
    checkout's git user (`git config user.email`) added either."""
    if not out.is_dir():
        return [], []
    written = Written(record)
    names = [path.name for path in sorted(out.glob("*.jsonl")) if not written.wrote(_read(path) or b"")]
    if not names:
        return [], []
    added = adders(out, names)
    me = git_user_email(out)
    theirs = [name for name in names if not (me and added and (adder := added.get(name)) is not None
                                             and adder.email.casefold() == me)]
    return theirs, by_source(theirs, added)


def row_refusal(tournament: Tournament, out: Path, record: Path) -> str | None:
    """Why a suite's row may not be played into `out`, or None: the folder holds replays of another
    owner (`others_replays`), such as a maintainers' row checked out from git. A row grows only by its
    owner's stages, so the candidate plays under a label of its own instead."""
    theirs, sources = others_replays(out, record)
    if not theirs:
        return None
    ref = tournament.suite
    suite = f"{ref.name}-{ref.version}" if ref is not None else "<suite>-<version>"
    count = len(theirs)
    said = "; ".join(f"{len(names):,} {label}" for label, names in sources)
    return (f"{out} holds {count:,} replay{'s' if count != 1 else ''} of another owner ({said}): no run on this "
            f"machine wrote {'them' if count != 1 else 'it'} (by its record in {Path(record) / RECORD}) and no "
            f"commit of this checkout's git user.email added {'them' if count != 1 else 'it'}. A suite's row grows "
            f"only by its owner's stages: play your model under a label of your own, --label NAME (it writes "
            f"replays/{suite}-NAME/), or into a folder of your own with --out")


#: Replays named one by one in a refusal before "and N more".
MAX_NAMED = 5


def _write_game(path: Path, data: bytes, written: Written | None) -> bool:
    """Note the game in the record, then write its replay (noted first, so that a kill between the
    two leaves a note of a game never written, harmless, rather than a game of ours taken for
    someone else's); False if the note could not be written."""
    noted = written.add(data) if written is not None else True
    write_atomic(path, data)
    return noted


async def _play_all(tournament: Tournament, to_play: list[PlannedGame], out: Path, parallel: int,
                    on_done: Callable[[PlannedGame, str], None] | None, seats: Seats, summary: Summary,
                    written: Written | None = None) -> None:
    created = tournament.created or dt.datetime.now(dt.timezone.utc).date().isoformat()
    queue: asyncio.Queue[PlannedGame] = asyncio.Queue()
    for planned in to_play:
        queue.put_nowait(planned)

    async def worker() -> None:
        while summary.stopped is None:
            try:
                planned = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            try:
                records = await play_planned(planned, tournament.max_attempts, tournament.probes, created, seats)
            except ProviderError as exc:
                # Not the model's doing: nothing is written, and a later run plays the game.
                summary.not_played.append((planned.game_id, str(exc)))
                if exc.lasting and summary.stopped is None:
                    summary.stopped = str(exc)  # games in progress finish; no new one starts
                if on_done:
                    on_done(planned, "not played")
                continue
            except Exception as exc:  # a crashing agent must not lose the other games
                summary.failures.append(f"{planned.game_id}: {type(exc).__name__}: {exc}")
                if on_done:
                    on_done(planned, "failed")
                continue
            # fsync waits on the disk: do it off the event loop so other games go on meanwhile.
            if not await asyncio.to_thread(_write_game, replay_path(out, planned), encode(records), written):
                summary.unrecorded += 1
            _tally(summary, planned, records)
            if on_done:
                on_done(planned, "played")

    await asyncio.gather(*(worker() for _ in range(max(1, parallel))))
    summary.never_started = queue.qsize()


#: The start of the error an agent of runner 0.1 recorded for an attempt whose model call got no
#: reply ("the model call failed: ...", "the model call for the belief analysis failed: ...").
_PROVIDER_ATTEMPT = "the model call"


def forfeited_by_provider(path: Path) -> bool:
    """Whether a replay on disk is a forfeit that an older runner wrote for a provider failure.

    Recognised by its forfeit: every refused attempt of the forfeited decision has no reply
    (`raw` null) and an error starting "the model call", which runner 0.1 wrote only when the
    provider answered nothing (a model that replied, however badly, always leaves its reply).
    Current runners never write such a game. Anything unreadable is kept for `validate` to report.
    """
    try:
        return forfeited(path.read_bytes())
    except OSError:
        return False


def forfeited(raw: bytes) -> bool:
    """`forfeited_by_provider` of a replay's bytes."""
    if b'"forfeit"' not in raw:
        return False
    try:
        records = [json.loads(line) for line in raw.decode("utf-8").splitlines() if line.strip()]
    except (UnicodeDecodeError, ValueError, RecursionError):
        return False
    forfeit = next((r for r in records if isinstance(r, dict) and r.get("type") == "event"
                    and r.get("kind") == "forfeit"), None)
    attempts = forfeit.get("attempts") if forfeit else None
    if not isinstance(attempts, list) or not attempts:
        return False
    return all(isinstance(a, dict) and a.get("raw") is None and str(a.get("error", "")).startswith(_PROVIDER_ATTEMPT)
               for a in attempts)


def _tally(summary: Summary, planned: PlannedGame, records: list[dict]) -> None:
    game = planned.matchup.game
    summary.played[game] += 1
    outcome = records[-1]
    if outcome["status"] == "invalid":
        summary.invalid[game] += 1
    for player in records[0]["players"]:
        name = player["agent"]["name"]
        summary.appearances[(game, name)] += 1
        if player["seat"] in outcome["winners"]:
            summary.wins[(game, name)] += 1
    for model, call in model_calls(records):
        summary.usage.setdefault(model, Usage()).add_call(call)


def model_calls(records: Iterable[Mapping[str, Any]]) -> Iterable[tuple[str, Mapping[str, Any]]]:
    """(model, call) for every model call in a replay's evidence, the model as configured for its seat."""
    records = list(records)
    players = records[0].get("players", []) if records else []
    models = {p["seat"]: p["agent"].get("model") for p in players}
    for record in records:
        calls = (record.get("evidence") or {}).get("calls", [])
        if record.get("type") == "judge":
            owner = record.get("judge", {}).get("model")
        else:
            owner = models.get(record.get("seat"))
        for call in calls:
            yield str(owner or call.get("model_reported") or "unknown"), call


# -- dry run: what a tournament would cost, without playing it -----------------------------

#: Planned games of each matchup simulated to count model calls and measure prompts.
ESTIMATE_SAMPLE = 8
#: Characters per token, the usual rule of thumb for English text.
CHARS_PER_TOKEN = 4
#: Tokens a chat format adds around each message.
TOKENS_PER_MESSAGE = 4
#: Tokens assumed per reply (a short paragraph of reasoning and the answer line), at most max_tokens.
REPLY_TOKENS = 300


@dataclass
class Estimate:
    """Expected model calls and tokens (summed over games) of one model in one matchup."""

    calls: float = 0.0
    input_tokens: float = 0.0
    output_tokens: float = 0.0
    cached_input_tokens: float = 0.0       # of input_tokens, read from the provider's prompt cache
    cache_write_input_tokens: float = 0.0  # of input_tokens, written to it

    def add(self, other: Estimate, scale: float = 1.0) -> None:
        self.calls += other.calls * scale
        self.input_tokens += other.input_tokens * scale
        self.output_tokens += other.output_tokens * scale
        self.cached_input_tokens += other.cached_input_tokens * scale
        self.cache_write_input_tokens += other.cache_write_input_tokens * scale

    def cost(self, price: Price | None, caching: bool = True) -> float | None:
        """USD, with the provider's prompt cache as estimated (or, `caching=False`, without it)."""
        if price is None:
            return None
        if not caching:
            return price.cost(self.input_tokens, self.output_tokens)
        return price.cost(self.input_tokens, self.output_tokens, self.cached_input_tokens, self.cache_write_input_tokens)


@dataclass
class MatchupEstimate:
    """The dry-run figures of one matchup: games, and per model the expected calls and tokens."""

    game: str
    label: str
    games: int
    models: dict[str, Estimate] = field(default_factory=dict)

    def total(self) -> Estimate:
        total = Estimate()
        for estimate in self.models.values():
            total.add(estimate)
        return total


class EstimateError(RuntimeError):
    """A matchup whose games could not be simulated; the message names it."""


class _MeasuringModel:
    """A ChatModel that answers nothing usable and measures every prompt it is sent.

    With it the real LLM agents make exactly the calls of their design (a PGM belief analysis,
    a strategy choice, a favor update, the decision itself) on real prompts, offline.
    """

    def __init__(self, settings: Any):
        self.settings = settings
        self.prompt_tokens: list[float] = []
        self.cache_use = CacheUse()
        # One seat's calls through the provider's prompt cache: Anthropic's where the agent marks its
        # prefix (runner/llm/prompt_cache.py), OpenAI's automatic one (other servers vary: none counted).
        provider = find(settings.provider)
        kind = provider.caching if provider is not None else None
        kind = None if kind == "marked" and not settings.prompt_cache else kind
        self.cache = kind and SimulatedCache(kind, lambda text: len(text) / CHARS_PER_TOKEN)

    async def complete(self, messages: Any, schema: Any = None) -> Any:
        self.prompt_tokens.append(sum(len(m.content) / CHARS_PER_TOKEN + TOKENS_PER_MESSAGE for m in messages))
        if self.cache:
            system = "\n\n".join(m.content for m in messages if m.role == "system")
            use = self.cache.call(system, [(m.role, m.content) for m in messages if m.role != "system"],
                                  json.dumps(schema if self.settings.structured_output else None, sort_keys=True))
            self.cache_use.read += use.read
            self.cache_use.written += use.written
        return Completion("", "stop", None, None, None, 0.0)


async def _simulate(planned: PlannedGame, probes: bool) -> dict[str, Estimate]:
    """Model calls and tokens of one game, per model: dealt as it will be, played with uniformly
    random legal moves, every LLM seat asked (and probed) exactly where the runner would."""
    from runner.agents.base import ProbeRequest, Request
    from runner.agents.llm import make_llm_agent

    game = games.get(planned.matchup.game)
    params = dict(planned.matchup.rules)
    setup = game.deal(params, rng_for(planned.seed, "deal"))
    state = game.start(params, setup)
    n = game.players(params)
    names = tuple(game.seat_names(params, setup))
    agents: dict[int, tuple[AgentSpec, Agent, _MeasuringModel]] = {}
    for seat in range(n):
        spec = planned.agent_for(seat, game.role_of(params, setup, seat))
        if spec.is_llm:
            model = _MeasuringModel(spec.settings())
            agent = make_llm_agent(dict(spec.spec), model, game=game.name, seat=seat,
                                   rng=rng_for(planned.seed, f"agent-{seat}"), name=spec.name)
            agents[seat] = (spec, agent, model)
    mover, chance = random.Random(f"estimate:{planned.seed}"), rng_for(planned.seed, "chance")
    probed_at: set[int] = set()
    while agents and (pending := state.pending()) is not None:
        if probes and state.probes() and len(state.events) not in probed_at:
            probed_at.add(len(state.events))
            for seat, (_, agent, _) in agents.items():
                role = game.role_of(params, setup, seat)
                for kind in (k for k in state.probes() if game.asks(role, k)):
                    for about in ([o for o in range(n) if o != seat] if kind == "suspect_of" else [None]):
                        await agent.probe(ProbeRequest(game.name, seat, kind, state.observe(seat), game.roles,
                                                       about, names=names))
        if pending.kind == "chance":
            state.chance(chance.choice(pending.options))
            continue
        seats = pending.seats if pending.simultaneous else pending.seats[:1]
        for seat in seats:
            if seat in agents:
                await agents[seat][1].act(Request(game.name, seat, pending.phase, state.observe(seat),
                                                  state.legal(seat), (), names))
        for seat in seats:
            state.act(seat, state.random_action(seat, mover))
    found: dict[str, Estimate] = {}
    for spec, _, model in agents.values():
        reply = min(REPLY_TOKENS, spec.spec["max_tokens"] or REPLY_TOKENS)
        calls = len(model.prompt_tokens)
        found.setdefault(spec.spec["model"], Estimate()).add(Estimate(calls, sum(model.prompt_tokens), calls * reply,
                                                                      model.cache_use.read, model.cache_use.written))
    return found


async def estimate_matchup(tournament: Tournament, position: int, sample: int = ESTIMATE_SAMPLE) -> MatchupEstimate:
    """Expected calls and tokens of one matchup, scaled up from `sample` of its games simulated."""
    matchup = tournament.matchups[position]
    result = MatchupEstimate(matchup.game, matchup.label, matchup.games)
    planned = list(itertools.islice(tournament.plan_matchup(position), sample))
    for one in planned:
        try:
            simulated = await _simulate(one, tournament.probes)
        except Exception as exc:  # an agent that cannot even build its prompts: say which matchup
            raise EstimateError(f"matchup {position + 1} ({matchup.game}: {matchup.label}): the simulation "
                                f"failed: {type(exc).__name__}: {exc}") from exc
        for model, part in simulated.items():
            result.models.setdefault(model, Estimate()).add(part, matchup.games / len(planned))
    return result


async def estimate(tournament: Tournament, sample: int = ESTIMATE_SAMPLE) -> list[MatchupEstimate]:
    """The dry-run figures of every matchup; plays nothing, calls no model, needs no key."""
    return [await estimate_matchup(tournament, i, sample) for i in range(len(tournament.matchups))]


def estimated_stage_cost(tournament: Tournament, stage: int) -> float:
    """The dry run's USD of one stage of a suite tournament (a model without a price costs nothing here)."""
    total = 0.0
    for position, matchup in enumerate(tournament.matchups):
        if matchup.deal is not None and matchup.deal.stage == stage:
            figures = asyncio.run(estimate_matchup(tournament, position, sample=1))
            total += sum(part.cost(tournament.prices.get(model)) or 0.0 for model, part in figures.models.items())
    return total
