"""The results file's shape as types: each section and entry a TypedDict (docs/results-format.md).

`Scored` is what `results.assemble` makes of one corpus; `Results` is the file `gamenight score`
writes (the board: `Scored` plus `owners` and `ranked`) and `gamenight build` adds to. A part whose
fields are a metric's own (a MAgIC entry, a Werewolf reading's agents) is typed Mapping[str, Any]:
its fields are documented with its metric (docs/metrics/), not fixed here.
tests/scoring/test_schema.py holds these types, the doc's tables and a real results file equal.
"""

# No `from __future__ import annotations`: Python 3.11's TypedDict only sees NotRequired in
# annotations it can evaluate, so these are real expressions and each type is defined before use.

from collections.abc import Mapping
from typing import Any, NotRequired, TypedDict


class Estimate(TypedDict):
    """A rate or mean with its 95% interval and what it counts."""

    value: float
    ci: list[float] | None
    n: int
    games: NotRequired[int]  # a seat win rate's games (its seats are clustered by game)


class Owner(TypedDict):
    """Whose games a row comes from."""

    id: str
    label: str


class Duplicate(TypedDict):
    """A file with the same bytes as one read before it."""

    path: str
    same_as: str


class InvalidReplay(TypedDict):
    """A replay left out, and why."""

    path: str
    problems: list[str]  # "file:line: field: what is wrong"


class Sources(TypedDict):
    """Where the corpus' games came from (git), by kind of source."""

    counts: dict[str, int]
    community_games: int
    maintainers_tournaments: dict[str, int]
    pull_requests: list[Mapping[str, Any]]
    submissions: str
    excluded_games: int
    excluded_unmerged: int
    unmerged: list[str]


class Corpus(TypedDict):
    """What was read: files, games, the replays left out and counted once."""

    files: int
    games: int
    valid_games: int
    invalid_games: int
    by_game: dict[str, int]
    invalid_replays: list[InvalidReplay]
    duplicates: list[Duplicate]
    sources: NotRequired[Sources]  # `gamenight build` only


class AgentSource(TypedDict):
    """An agent's games from one source."""

    label: str
    kind: str
    games: int
    tournaments: list[str]
    url: NotRequired[str]  # a pull request's, when the build knows the repository


class Agent(TypedDict):
    """One agent: its description and its conduct over all its games."""

    key: str
    label: str
    kind: str
    provider: str
    design: str
    description: Mapping[str, Any]
    models_reported: list[str]
    games: int
    forfeits: int
    left_out: int
    forfeit_rate: Estimate | None
    decisions: int
    reask_rate: Estimate | None
    by_game: dict[str, int]
    owner: NotRequired[Owner]  # set by the board (every results file has it), not by `assemble` alone
    sources: NotRequired[list[AgentSource]]  # `gamenight build` only


class RatingScale(TypedDict):
    """The Elo scale of a rating table."""

    base: float
    points_per_tenfold_odds: float


class RoleAdvantage(TypedDict):
    """A role's advantage in a rating table."""

    role: str
    advantage: float
    ci: list[float] | None
    games: int


class RatingRow(TypedDict):
    """An agent's rating in one table."""

    agent: str
    label: str
    rating: float
    rating_ci: list[float] | None
    band: list[float] | None
    games: int
    provisional: bool
    shrinkage: float | None
    linked: int | None
    rank_upper_bound: int | None
    roles: dict[str, int]
    owner: NotRequired[Owner]  # a contributor's row


class RatingTable(TypedDict):
    """A Bradley-Terry fit: over all competitive games, or one game's."""

    game: str | None
    model: str
    scale: RatingScale
    resamples: int
    level: float
    games_rated: int
    forfeits_rated: int
    games_skipped: dict[str, int]
    weights: NotRequired[str]  # the overall table only
    games_by_game: NotRequired[dict[str, int]]  # the overall table only
    roles: list[RoleAdvantage]
    agents: list[RatingRow]


class Ratings(TypedDict):
    """The rating tables."""

    overall: RatingTable
    by_game: dict[str, RatingTable]


class Placeholders(TypedDict):
    """An agent's free-text moves that copy the answer form."""

    moves: int
    copied: int
    share: Estimate | None


class SeatScore(TypedDict):
    """Which game score a board's rows carry."""

    name: str
    label: str


class LeaderboardRow(TypedDict):
    """An agent's row on one game's board."""

    agent: str
    label: str
    provider: str
    design: str
    games: int
    forfeits: int
    left_out: int
    forfeit_rate: Estimate | None
    decisions: int
    reask_rate: Estimate | None
    seats: int
    self_play_games: int
    win_rate: Estimate | None
    roles: dict[str, Estimate | None]
    placeholders: Placeholders | None
    # The game's score (leaderboards.SEAT_SCORES), named by the board's `score.name`.
    mean_total: NotRequired[Estimate | None]
    mean_final: NotRequired[Estimate | None]
    mean_share: NotRequired[Estimate | None]
    owner: NotRequired[Owner]  # a contributor's row


class Leaderboard(TypedDict):
    """One game's board."""

    title: str
    roles: list[str]
    games: int
    valid: int
    invalid: int
    valid_ratio: Estimate | None
    score: SeatScore | None
    agents: list[LeaderboardRow]


class Pair(TypedDict):
    """How often agent `a` beat agent `b` in the games they met."""

    a: str
    b: str
    met: int
    a_won: int
    b_won: int
    beats: Estimate | None
    p_value: float | None
    owner: NotRequired[Owner]  # a pair with a contributor's agent


class HeadToHead(TypedDict):
    """One competitive game's pairs."""

    pairs: list[Pair]


class Played(TypedDict):
    """How many people played, in how many games."""

    people: int
    games: int


class People(TypedDict):
    """People who played, and each game's pooled people row."""

    played: Played
    boards: dict[str, Mapping[str, Any]]


class MagicReading(TypedDict):
    """The MAgIC metrics per agent in one reading."""

    reading: str
    agents: dict[str, Mapping[str, Any]]


class Magic(TypedDict):
    """The MAgIC metrics: the headline reading, the other one, vanilla-vs-enhanced comparisons."""

    reading: str
    agents: dict[str, Mapping[str, Any]]
    alternative: MagicReading
    comparisons: list[Mapping[str, Any]]


class Chameleon(TypedDict):
    """The Chameleon paper's measures."""

    matchups: Mapping[str, Any]
    posterior: Mapping[str, Any]
    theory: list[Mapping[str, Any]]
    strategy_checks: list[Mapping[str, Any]]


class WerewolfReading(TypedDict):
    """One Werewolf measure: per agent, over all games and per design mix (or why it is absent)."""

    embedder: NotRequired[Mapping[str, Any]]  # the Text Distance readings
    absent: NotRequired[str]  # the neural reading without its model package
    install: NotRequired[str]
    agents: NotRequired[dict[str, Mapping[str, Any]]]
    all: NotRequired[Mapping[str, Any] | None]
    by_mix: NotRequired[dict[str, Mapping[str, Any]]]


class Werewolf(TypedDict):
    """The Werewolf paper's measures."""

    text_distance: WerewolfReading
    text_distance_neural: WerewolfReading
    judgement_variation: WerewolfReading
    judgement_variation_llm: WerewolfReading
    ewavm: WerewolfReading


class Usage(TypedDict):
    """A language-model agent's model calls and tokens."""

    label: str
    games: int
    calls: int
    input_tokens: int
    output_tokens: int
    latency_ms: float
    tokens_per_game: float
    mean_latency_ms: float


class CostFigures(TypedDict):
    """What a row's games cost at list prices, or why there is no figure."""

    status: str
    why: str | None
    price: str | None
    games: int
    calls: int
    input_tokens: int
    cached_input_tokens: int
    cache_write_input_tokens: int
    output_tokens: int
    usd: float | None
    usd_per_game: float | None
    model_seconds_per_game: float | None


class AgentCost(CostFigures):
    """A language-model agent's cost, over all its games and by game."""

    label: str
    by_game: dict[str, CostFigures]


class Price(TypedDict):
    """One entry of the price table, USD per million tokens."""

    provider: str
    model: str
    input: float
    cached_input: float | None
    cache_write_input: float | None
    output: float
    read: str
    source: str


class Cost(TypedDict):
    """Cost per language-model agent, and the price table used."""

    agents: dict[str, AgentCost]
    prices: dict[str, Price]


class Scored(TypedDict):
    """Everything `results.assemble` computes from one corpus."""

    format: str
    version: int
    scorer_version: str
    runner_version: str
    replay_set_hash: str
    seed: int
    corpus: Corpus
    agents: list[Agent]
    ratings: Ratings
    leaderboards: dict[str, Leaderboard]
    head_to_head: dict[str, HeadToHead]
    people: People
    magic: Magic
    chameleon: Chameleon
    werewolf: Werewolf
    usage: dict[str, Usage]
    cost: Cost


class BoardOwner(TypedDict):
    """An owner of the board's games."""

    id: str
    label: str
    games: int
    rows: int


class RankedRow(TypedDict):
    """A row of the ranked board: one candidate's suite games."""

    row: str
    suite: str
    label: str
    agents: dict[str, str]
    owner: Owner | None
    stages: int
    forfeits: int
    deals: Mapping[str, Any]
    score: NotRequired[Mapping[str, Any]]  # a ranked row (a whole stage of every game)
    unranked: NotRequired[str]  # a provisional row: what it lacks
    status: Mapping[str, Any]
    tier: NotRequired[int | None]
    place: NotRequired[int]
    best: NotRequired[int]
    worst: NotRequired[int]
    wanted: NotRequired[Mapping[str, Any] | None]
    compared: NotRequired[Mapping[str, Any]]
    cost: CostFigures | None


class Claims(TypedDict):
    """What a suite's claims cover."""

    rows: int
    pairs: int
    level: float


class Ranked(TypedDict):
    """The ranked board."""

    rows: list[RankedRow]
    stage_deals: dict[str, dict[str, int]]
    claims: dict[str, Claims]


class HistoryPoint(TypedDict):
    """A merge of replays."""

    commit: str
    date: str
    label: str
    added: int
    games: int


class HistoryRankedLine(TypedDict):
    """A ranked row at each point."""

    row: str
    label: str
    suite: str
    owner: Owner | None
    agents: dict[str, str]
    values: list[Mapping[str, Any] | None]


class HistoryRatingLine(TypedDict):
    """An agent's rating in one table at each point."""

    agent: str
    label: str
    owner: Owner | None
    values: list[Mapping[str, Any] | None]


class History(TypedDict):
    """The board at each merge of replays."""

    points: list[HistoryPoint]
    unsourced: int
    ranked: list[HistoryRankedLine]
    ratings: dict[str, list[HistoryRatingLine]]
    estimates: str


class ReleaseRow(TypedDict):
    """A ranked row as a release had it."""

    row: str
    label: str
    suite: str
    agents: dict[str, str]
    owner: Owner | None
    stages: int
    score: Mapping[str, Any] | None
    place: int | None
    best: int | None
    worst: int | None
    tier: int | None
    unranked: str | None


class Leader(TypedDict):
    """One of a game's first agents by rating at a release."""

    agent: str
    label: str
    rating: float
    games: int
    owner: Owner | None


class Release(TypedDict):
    """The board at one release tag."""

    tag: str
    commit: str
    date: str
    subject: str
    files: int
    games: int
    invalid: int
    excluded: int
    ranked: list[ReleaseRow]
    leaders: dict[str, list[Leader]]
    agents: dict[str, str]


class Skipped(TypedDict):
    """A tag that looks like a release and is not read as one."""

    tag: str
    why: str


class Releases(TypedDict):
    """The board at each release tag."""

    releases: list[Release]
    skipped: list[Skipped]
    note: str | None


class Results(Scored):
    """The results file (format "gamenight.results")."""

    owners: list[BoardOwner]
    ranked: Ranked
    history: NotRequired[History]  # `gamenight build` only
    releases: NotRequired[Releases]  # `gamenight build` only
