"""The Werewolf metrics of the Werewolf paper: Text Distance, Judgement Variation (from the players' probes, and
from an LLM judge's reading of the statements) and EWAVM, from replays.

Every function reads only valid Werewolf games and returns, per agent, over all games and per
design mix, composites {"raw", "scaled", "ci", "n"} (plus "raw_ci" when raw and scaled differ):
the mean of a per-game value with a seeded bootstrap interval over games. Formulas, sources and
interpretations: docs/metrics/werewolf.md.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from runner import games
from runner.games.werewolf import DECK, PLAYERS
from site_builder.scoring import embedding, judges, minilm, stats
from site_builder.scoring.model import AgentInfo, ScoredGame
from site_builder.scoring.sections import Keep, compute

GAME = "werewolf"
#: Role of each unit of the extended vote list (the Werewolf paper: R* = 8, Mason and Villager split in
#: two): one unit per card of the engine's deck.
UNITS = DECK
MULTIPLICITY = Counter(DECK)
EWA = ("engagement", "wonder", "attraction")
DIMENSIONS = (*EWA, "variation", "memorability")
SCORE_RANGE = (1.0, 10.0)  # the Werewolf paper's judge prompts ask for a score from 1 to 10
_QUOTES = "\"'“”‘’„«»`"

Composite = dict[str, Any]


# ---------------------------------------------------------------------------- helpers

def _subseed(seed: int, *parts: str) -> int:
    """A seed per group, so that groups of the same size do not share bootstrap draws."""
    digest = hashlib.blake2b(":".join((str(seed), *parts)).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _sample_std(values: Sequence[float]) -> float:
    """Standard deviation with n - 1 in the denominator (the Werewolf paper uses it everywhere)."""
    m = sum(values) / len(values)
    return math.sqrt(sum((v - m) ** 2 for v in values) / (len(values) - 1))


def _interval(ci: tuple[float, float] | None) -> list[float] | None:
    return [ci[0], ci[1]] if ci is not None else None


def composite(items: Iterable[tuple[str, float, float]], *, seed: int) -> Composite | None:
    """Mean of per-game (game_id, raw, scaled) values with bootstrap intervals over games; None if none."""
    ordered = sorted(items, key=lambda item: item[0])
    if not ordered:
        return None
    raws = [r for _, r, _ in ordered]
    scaleds = [min(1.0, max(0.0, s)) for _, _, s in ordered]
    out: Composite = {"raw": _mean(raws), "scaled": _mean(scaleds),
                      "ci": _interval(stats.bootstrap_mean(scaleds, seed=seed)), "n": len(ordered)}
    if raws != scaleds:
        out["raw_ci"] = _interval(stats.bootstrap_mean(raws, seed=seed))
    return out


def werewolf_games(games: Sequence[ScoredGame]) -> list[ScoredGame]:
    """Valid Werewolf games in game_id order (invalid games have no complete talk or vote)."""
    return sorted((g for g in games if g.game == GAME and g.valid), key=lambda g: g.game_id)


def design_mix(game: ScoredGame, agents: Mapping[str, AgentInfo]) -> str:
    """The designs at the table, e.g. "vanilla" or "b5p+vanilla"."""
    return "+".join(sorted({agents[s.agent].design if s.agent in agents else "vanilla" for s in game.seats}))


def sole_agent(game: ScoredGame) -> str | None:
    """The agent playing every seat of the game, if one does (the Werewolf paper gives all players one design)."""
    keys = {s.agent for s in game.seats}
    return next(iter(keys)) if len(keys) == 1 else None


PIECE = "werewolf"


def game_values(game: ScoredGame) -> dict[str, Any] | None:
    """Every per-game value of the three metrics, for the whole table and per agent (the digest keeps it)."""
    if game.game != GAME or not game.valid:
        return None
    seats = {key: [s.seat for s in game.seats_of(key)] for key in sorted({s.agent for s in game.seats})}
    said = statements(game)
    per_game = _ewavm_per_game(game)
    distance = distance_stats([s["text"] for s in said])
    judgement = game_judgement(game, range(len(game.seats)))
    judgement_llm = game_judgement_llm(game, range(len(game.seats)))
    sole = len(seats) == 1  # one agent in every seat: its values are the table's, not worked out again
    return {
        "text_distance": {"all": distance,
                          "agents": {key: distance if sole else distance_stats([s["text"] for s in said
                                                                                if s["seat"] in mine])
                                     for key, mine in seats.items()}},
        "judgement_variation": {"all": judgement,
                                "agents": {key: judgement if sole else game_judgement(game, mine)
                                           for key, mine in seats.items()}},
        "judgement_variation_llm": {"all": judgement_llm,
                                    "agents": {key: judgement_llm if sole else game_judgement_llm(game, mine)
                                               for key, mine in seats.items()}},
        # EWAVM counts a game for an agent only when it plays every seat (`ewavm`).
        "ewavm": {"all": per_game, "agents": {key: per_game for key in seats} if len(seats) == 1 else {}},
    }


@dataclass(frozen=True)
class Grouping:
    """The valid Werewolf games (by id) and their lists per agent and per design mix, made once
    for all five metrics: one list per group, so a section store hashes each group once."""
    games: list[ScoredGame]
    agents: dict[str, list[ScoredGame]]  # every game an agent plays a seat in
    sole: dict[str, list[ScoredGame]]  # every game an agent plays all seats of (EWAVM's)
    mixes: dict[str, list[ScoredGame]]


def grouping(games: Sequence[ScoredGame], agents: Mapping[str, AgentInfo]) -> Grouping:
    """The `Grouping` of a corpus's games."""
    ordered = werewolf_games(games)
    by_agent: dict[str, list[ScoredGame]] = {}
    sole: dict[str, list[ScoredGame]] = {}
    mixes: dict[str, list[ScoredGame]] = {}
    for g in ordered:
        for key in sorted({s.agent for s in g.seats}):
            by_agent.setdefault(key, []).append(g)
        only = sole_agent(g)
        if only:
            sole.setdefault(only, []).append(g)
        mixes.setdefault(design_mix(g, agents), []).append(g)
    return Grouping(games=ordered, agents=dict(sorted(by_agent.items())), sole=dict(sorted(sole.items())),
                    mixes=dict(sorted(mixes.items())))


def _grouped(games: Sequence[ScoredGame], agents: Mapping[str, AgentInfo], *, seed: int, name: str,
             summarise: Callable[[list[tuple[str, Any]], int], Any], agent_games: str = "any",
             piece: tuple[str, Callable[[ScoredGame], Any]] | None = None,
             keep: Keep = compute, section: str | None = None, groups: Grouping | None = None) -> dict[str, Any]:
    """Summarise metric `name` of a digest piece (`game_values` unless given) per agent, over all games and per design mix.

    Each agent's and each mix's summary reads its own games only: `keep` may answer it from an
    earlier scoring under `section` (`scoring.sections`), so new games of one agent recompute
    that agent's summary and its mixes', not every agent's. `groups` is `grouping(games, agents)`
    when the caller has it.
    """
    piece_name, compute_piece = piece or (PIECE, game_values)
    prefix = section or f"{piece_name}/{name}"  # the piece too: two readings of one metric share its name
    groups = groups or grouping(games, agents)
    values = {id(g): g.piece(piece_name, compute_piece)[name] for g in groups.games}

    def summary(among: list[ScoredGame], *part: str, agent: str | None = None) -> Any:
        got = [(g.game_id, values[id(g)]["agents"][agent] if agent else values[id(g)]["all"]) for g in among]
        return summarise(got, _subseed(seed, name, *part))

    by_agent = groups.agents if agent_games == "any" else groups.sole
    return {
        "agents": {k: keep(f"{prefix}/agent/{k}", among, lambda k=k, among=among: summary(among, "agent", k, agent=k))
                   for k, among in by_agent.items()},
        "all": summary(groups.games, "all") if groups.games else None,
        "by_mix": {m: keep(f"{prefix}/mix/{m}", among, lambda m=m, among=among: summary(among, "mix", m))
                   for m, among in groups.mixes.items()},
    }


def statements(game: ScoredGame) -> list[dict[str, Any]]:
    """The day statements in order: n, seat, round (1..3) and the cleaned text."""
    names = game.setup.get("names") or [s.name for s in game.seats]
    out = []
    for event in game.events:
        if event["kind"] == "action" and event["phase"] == "day":
            seat = event["seat"]
            out.append({"n": event["n"], "seat": seat, "round": len(out) // PLAYERS + 1,
                        "text": clean_statement(event["data"]["text"], names[seat])})
    return out


def clean_statement(text: str, speaker: str) -> str:
    """Strip what the Werewolf paper cleans before embedding: a speaker prefix ("Ada says:", "Ada:") and outer quotes."""
    cleaned = text.strip()
    prefix = re.compile(rf"{re.escape(speaker)}\s*(?:\([^()]*\))?\s*(?:(?:says|said)\b\s*[:,\-–—]?|[:\-–—])\s*",
                        re.IGNORECASE)
    match = prefix.match(cleaned)
    if match:
        cleaned = cleaned[match.end():]
    cleaned = cleaned.strip().strip(_QUOTES).strip()
    return cleaned if cleaned else text.strip()  # a statement that was only a prefix or quotes stays


# ---------------------------------------------------------------------------- Text Distance

def distance_stats(texts: Sequence[str]) -> dict[str, float] | None:
    """Algorithm TextDistance of the Werewolf paper (hashed-bow-v1): mean of all n^2 cosine distances and their std (n^2 - 1); None if n < 2."""
    return matrix_stats(embedding.distance_matrix(texts)) if len(texts) >= 2 else None


def matrix_stats(matrix: Sequence[Sequence[float]]) -> dict[str, float] | None:
    """The mean of all n^2 entries of a distance matrix and their std (n^2 - 1); None if n < 2."""
    n = len(matrix)
    if n < 2:
        return None
    entries = [d for row in matrix for d in row]
    mean = sum(entries) / (n * n)
    std = math.sqrt(sum((d - mean) ** 2 for d in entries) / (n * n - 1))
    return {"mean": mean, "std": std, "n": n}


def _distance_summary(values: list[tuple[str, dict[str, float] | None]], seed: int) -> dict[str, Any]:
    measured = [(gid, v) for gid, v in values if v is not None]
    return {
        # Distances and their spread are already in [0, 1]: scaled = raw.
        "distance": composite(((gid, v["mean"], v["mean"]) for gid, v in measured), seed=seed),
        "std": composite(((gid, v["std"], v["std"]) for gid, v in measured), seed=seed),
        "statements": sum(v["n"] for _, v in measured),
        "games": len(values),
    }


def text_distance(games: Sequence[ScoredGame], agents: Mapping[str, AgentInfo], *, seed: int,
                  keep: Keep = compute, section: str | None = None,
                  groups: Grouping | None = None) -> dict[str, Any]:
    """Text Distance (the Werewolf paper) per agent (its seats' statements in each game), over all games and per design mix."""
    out = _grouped(games, agents, seed=seed, name="text_distance", summarise=_distance_summary, keep=keep,
                   section=section, groups=groups)
    return {"embedder": dict(embedding.INFO), **out}


# ---------------------------------------------------------------------------- Text Distance, neural reading

NEURAL_PIECE = "werewolf-minilm"


def neural_tag() -> str:
    """Which neural embedder this process has ("all-MiniLM-L6-v2@0.1.2", or "@absent"): the digest's
    neural piece depends on it, so caches of games and sections are keyed by it."""
    return f"{minilm.NAME}@{minilm.package_version() if minilm.archive() else 'absent'}"


@lru_cache(maxsize=4096)  # the same game is digested again by every load of a corpus in a process
def _neural_matrix(texts: tuple[str, ...]) -> list[list[float]]:
    return minilm.distance_matrix(texts)


def neural_game_values(game: ScoredGame) -> dict[str, Any] | None:
    """Text Distance of one game under all-MiniLM-L6-v2, shaped as `game_values`' "text_distance"
    (the whole table and each agent's seats); None for another game, an invalid one, or when the
    model is not installed. Each distinct statement is embedded once per process (`minilm.vector`)."""
    if game.game != GAME or not game.valid or minilm.archive() is None:
        return None
    said = statements(game)
    matrix = _neural_matrix(tuple(s["text"] for s in said))
    agents = {}
    for key in sorted({s.agent for s in game.seats}):
        mine = {s.seat for s in game.seats_of(key)}
        rows = [i for i, s in enumerate(said) if s["seat"] in mine]
        agents[key] = matrix_stats([[matrix[i][j] for j in rows] for i in rows])
    return {"text_distance": {"all": matrix_stats(matrix), "agents": agents}}


def text_distance_neural(games: Sequence[ScoredGame], agents: Mapping[str, AgentInfo], *, seed: int,
                         keep: Keep = compute, section: str | None = None,
                         groups: Grouping | None = None) -> dict[str, Any]:
    """Text Distance with the all-MiniLM-L6-v2 embedder (the Werewolf paper embeds with a neural model), shaped as
    `text_distance`; without the model package, {"embedder", "absent": why, "install": the command}.

    A mean distance above 1 (statements pointing apart on average) keeps its raw value; scaled is
    clipped to 1, as for every composite.
    """
    reason = minilm.absent_reason()
    if reason is not None:
        return {"embedder": minilm.info(), "absent": reason, "install": minilm.INSTALL}
    out = _grouped(games, agents, seed=seed, name="text_distance", summarise=_distance_summary,
                   piece=(NEURAL_PIECE, neural_game_values), keep=keep, section=section, groups=groups)
    return {"embedder": minilm.info(), **out}


# ---------------------------------------------------------------------------- Judgement Variation

def _round_of_probe(game: ScoredGame) -> Callable[[Mapping[str, Any]], int]:
    """Map a probe to the number of completed statement rounds before it (1..3 for `suspect`)."""
    spoken: list[int] = []  # statements made before event i
    count = 0
    for event in game.events:
        spoken.append(count)
        if event["kind"] == "action" and event["phase"] == "day":
            count += 1
    spoken.append(count)
    return lambda probe: spoken[min(probe["after"], len(spoken) - 1)] // PLAYERS


def suspicions(game: ScoredGame, seats: Iterable[int]) -> dict[tuple[int, int], int]:
    """(seat, turn) -> suspected seat, from the `suspect` probes of the given seats."""
    wanted = set(seats)
    turn_of = _round_of_probe(game)
    out: dict[tuple[int, int], int] = {}
    asks = games.get("werewolf").asks
    for probe in game.probes:
        # The Werewolf's own "suspect" answers (asked by earlier runners) are left out: it knows.
        if probe["probe"] == "suspect" and probe["seat"] in wanted and asks(game.role_of(probe["seat"]), "suspect"):
            # The rules ask `suspect` only after rounds 1, 2 and 3, once per seat, so turn is 1..3.
            out[(probe["seat"], turn_of(probe))] = probe["answer"]["seat"]
    return out


def extended_votes(game: ScoredGame, seats: Iterable[int]) -> list[float]:
    """V*: suspicions received per role summed over turns, duplicated roles split evenly (the Werewolf paper F_E)."""
    return votes_by_unit(game, suspicions(game, seats).values())


def votes_by_unit(game: ScoredGame, targets: Iterable[int]) -> list[float]:
    """V* of a list of votes (suspected seats): votes per role, duplicated roles split evenly (the Werewolf paper F_E)."""
    per_role: Counter[str] = Counter(game.role_of(target) for target in targets)
    return [per_role[role] / MULTIPLICITY[role] for role in UNITS]


def game_judgement(game: ScoredGame, seats: Iterable[int]) -> dict[str, Any]:
    """Algorithm JudgementVariation of the Werewolf paper for the given seats of one game: V*, sigma, J = 1/sigma."""
    return judgement_of(extended_votes(game, seats))


def judgement_of(votes: list[float]) -> dict[str, Any]:
    """Algorithm JudgementVariation of the Werewolf paper from V*: sigma, J = 1/sigma, the evenness, or why J is undefined."""
    total = sum(votes)
    sigma = _sample_std(votes)
    out: dict[str, Any] = {"votes": votes, "suspicions": total, "sigma": sigma, "J": None, "reason": None,
                           "evenness": None}
    if total == 0:
        out["reason"] = "no suspicions recorded"
    elif sigma < 1e-12:
        out["reason"] = "suspicions spread exactly evenly over the roles (sigma = 0)"
    else:
        out["J"] = 1 / sigma
        # sigma is at most total / sqrt(8) (everything on one single-card role), so this is in [0, 1).
        out["evenness"] = 1 - sigma * math.sqrt(len(UNITS)) / total
    return out


def _judgement_summary(values: list[tuple[str, dict[str, Any]]], seed: int) -> dict[str, Any]:
    defined = [(gid, v["J"], v["evenness"]) for gid, v in values if v["J"] is not None]
    return {"J": composite(defined, seed=seed),
            "undefined": dict(sorted(Counter(v["reason"] for _, v in values if v["J"] is None).items())),
            "games": len(values)}


def judgement_variation(games: Sequence[ScoredGame], agents: Mapping[str, AgentInfo], *, seed: int,
                        keep: Keep = compute, section: str | None = None,
                        groups: Grouping | None = None) -> dict[str, Any]:
    """Judgement Variation (the Werewolf paper) per agent from its seats' `suspect` probes; also over all seats of each game."""
    return _grouped(games, agents, seed=seed, name="judgement_variation", summarise=_judgement_summary,
                    keep=keep, section=section, groups=groups)


# ------------------------------------------------- Judgement Variation, the LLM judge's reading

#: Why a game has no LLM reading of Judgement Variation for a judge or at all.
NOT_JUDGED = "no judge has read the game's suspicions yet"
ALL_FAILED = "every suspicion evaluation of the judge failed"


def judged_suspicions(game: ScoredGame) -> dict[str, dict[int, list[int | None]]]:
    """Judge key -> round -> per seat the seat its statement points at as the Werewolf (None:
    nobody), from the judge's `suspicion` records (format version 4; a later record of a round
    replaces an earlier one)."""
    out: dict[str, dict[int, list[int | None]]] = {}
    for record in judgements(game):
        rnd, suspects = record.get("round"), record.get("suspects")
        if record.get("dimension") == "suspicion" and isinstance(rnd, int) and isinstance(suspects, list):
            out.setdefault(str(record.get("judge")), {})[rnd] = [s if _seat(s) else None for s in suspects]
    return out


def _tried_suspicions(game: ScoredGame) -> set[str]:
    """The judges that tried to read the game's suspicions, whether or not they managed."""
    return {str(r.get("judge")) for r in game.judgements if r.get("dimension") == "suspicion"}


def game_judgement_llm(game: ScoredGame, seats: Iterable[int]) -> dict[str, Any]:
    """The Werewolf paper's own reading of Judgement Variation for the given seats of one game, per judge: the
    votes of each turn are the seats the judge read the seats' statements to point at (Eq. JV_llm),
    summed over the turns read, then V*, sigma and J exactly as for the probe reading. Every seat's
    words count, the Werewolf's too (the Werewolf paper reads the whole dialog). {"judges": {judge: JV of the
    game, plus "turns"}, "reason": why there is none, or None}."""
    wanted = set(seats)
    read = judged_suspicions(game)
    out: dict[str, Any] = {"judges": {}, "reason": None}
    for judge, turns in sorted(read.items()):
        targets = [about for suspects in turns.values() for by, about in enumerate(suspects)
                   if by in wanted and about is not None]
        out["judges"][judge] = {**judgement_of(votes_by_unit(game, targets)), "turns": len(turns)}
    if not read:
        out["reason"] = ALL_FAILED if _tried_suspicions(game) else NOT_JUDGED
    return out


def _judgement_llm_summary(values: list[tuple[str, dict[str, Any]]], seed: int) -> dict[str, Any]:
    keys = sorted({j for _, v in values for j in v["judges"]})
    return {"judges": {j: _judgement_summary([(gid, v["judges"][j]) for gid, v in values if j in v["judges"]],
                                             _subseed(seed, j))
                       for j in keys},
            "unread": dict(sorted(Counter(v["reason"] for _, v in values if v["reason"]).items())),
            "games": len(values)}


def judgement_variation_llm(games: Sequence[ScoredGame], agents: Mapping[str, AgentInfo], *, seed: int,
                            keep: Keep = compute, section: str | None = None,
                            groups: Grouping | None = None) -> dict[str, Any]:
    """Judgement Variation (the Werewolf paper) from an LLM judge's reading of each turn's statements, per judge:
    per agent (its seats' statements), over all seats of each game and per design mix."""
    return _grouped(games, agents, seed=seed, name="judgement_variation_llm", summarise=_judgement_llm_summary,
                    keep=keep, section=section, groups=groups)


# ---------------------------------------------------------------------------- EWAVM

def judgements(game: ScoredGame) -> tuple[Mapping[str, Any], ...]:
    """The LLM-judge records of a game that hold a value (judge annotations of the replay; a
    failed evaluation's record, format version 4, holds only why it failed)."""
    return tuple(r for r in game.judgements if r.get("failure") is None)


def failed_judgements(records: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, int]]:
    """Dimension -> {why: evaluations} of the failed evaluations among `records` (a game's, or one
    judge's of a game) that no later record of the same judge and question made up for."""
    records = list(records)
    made = {(r.get("judge"), r.get("dimension"), r.get("round")) for r in records if r.get("failure") is None}
    out: dict[str, Counter[str]] = {}
    for r in records:
        if r.get("failure") is not None and (r.get("judge"), r.get("dimension"), r.get("round")) not in made:
            out.setdefault(str(r.get("dimension")), Counter())[str(r["failure"])] += 1
    return {d: dict(sorted(c.items())) for d, c in sorted(out.items())}


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _seat(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < PLAYERS


def f_v(a: str | None, b: str | None) -> int:
    """Eq. EV_dis2 of the Werewolf paper: 0 if equal, 1 if exactly one is 'no opinion', 2 if two different roles."""
    if a == b:
        return 0
    return 1 if a is None or b is None else 2


def matrix_distance(m0: Mapping[tuple[int, int], str], m1: Mapping[tuple[int, int], str]) -> int:
    """Eq. EV_dis1 of the Werewolf paper: sum of f_v over the N x N cells (absent cells mean 'no opinion')."""
    return sum(f_v(m0.get(cell), m1.get(cell)) for cell in set(m0) | set(m1))


def who_is_what(records: Iterable[Mapping[str, Any]]) -> dict[int, dict[tuple[int, int], str]]:
    """Round -> who-is-what matrix {(by, about): role} from `variation` mention lists (later mentions win)."""
    turns: dict[int, dict[tuple[int, int], str]] = {}
    for record in records:
        rnd = record.get("round")
        if not isinstance(rnd, int) or isinstance(rnd, bool):
            continue  # a mention list must belong to a turn
        matrix = turns.setdefault(rnd, {})
        for mention in record.get("mentions") or ():
            role = mention.get("role")
            if _seat(mention.get("by")) and _seat(mention.get("about")) and isinstance(role, str) and role.strip():
                matrix[(mention["by"], mention["about"])] = role.strip().casefold()
    return turns


def variation_score(records: Iterable[Mapping[str, Any]]) -> float | None:
    """Algorithm EvaluationVariation of the Werewolf paper: sum of F_v over all T x T pairs of turns / T^2 (None if T < 2)."""
    turns = [m for _, m in sorted(who_is_what(records).items())]
    t = len(turns)
    if t < 2:
        return None
    return sum(matrix_distance(a, b) for a in turns for b in turns) / (t * t)


def highlight_counts(game: ScoredGame, highlights: Iterable[Any]) -> list[float] | None:
    """c_i over the 8 role units: highlighted statements per speaker role, Mason/Villager halved; None if none."""
    speaker = {e["n"]: e["seat"] for e in game.events if e["kind"] == "action" and e["phase"] == "day"}
    # A statement highlighted twice in one list counts once; numbers that are not statements are ignored.
    chosen = {n for n in highlights if isinstance(n, int) and not isinstance(n, bool) and n in speaker}
    roles = Counter(game.role_of(speaker[n]) for n in chosen)
    if not roles:
        return None
    return [roles[role] / MULTIPLICITY[role] for role in UNITS]


def _ewa_value(records: Sequence[Mapping[str, Any]], dimension: str) -> tuple[float, float] | None:
    """One judge's score of a dimension for a game (the mean, should it have recorded several), raw and scaled."""
    scores = [r["score"] for r in records if r.get("dimension") == dimension and _number(r.get("score"))]
    if not scores:
        return None
    raw = sum(scores) / len(scores)
    lo, hi = SCORE_RANGE
    return raw, (raw - lo) / (hi - lo)


def _variation_value(records: Sequence[Mapping[str, Any]]) -> tuple[float, float] | None:
    """One judge's Variation of a game from its mention lists, raw and scaled."""
    raw = variation_score(r for r in records if r.get("dimension") == "variation")
    if raw is None:
        return None
    return raw, raw / (2 * PLAYERS * PLAYERS)  # two turns differ by at most 2 in each of N^2 cells


def _memorability_lists(game: ScoredGame, records: Sequence[Mapping[str, Any]]) -> list[dict[str, float]]:
    """Per highlight list of one judge in the game: the std of its role counts (R* - 1) and how many highlights it has."""
    out = []
    for record in records:
        if record.get("dimension") == "memorability" and record.get("highlights"):
            counts = highlight_counts(game, record["highlights"])
            if counts is not None:
                out.append({"std": _sample_std(counts), "k": sum(counts)})
    return out


def memorability(lists: Sequence[dict[str, float]]) -> tuple[float | None, float] | None:
    """Eq. EM_final of the Werewolf paper, M = 100 n / sum of stds (None when every list is even), and the evenness in [0, 1]."""
    if not lists:
        return None
    total = sum(item["std"] for item in lists)
    worst = sum(item["k"] / math.sqrt(len(UNITS)) for item in lists)  # all highlights on one role
    raw = 100 * len(lists) / total if total > 1e-12 else None
    return raw, 1 - total / worst


def _memorability_summary(values: list[tuple[str, list[dict[str, float]]]], seed: int) -> Composite | None:
    ordered = sorted(((gid, v) for gid, v in values if v), key=lambda item: item[0])
    if not ordered:
        return None
    pooled = [item for _, v in ordered for item in v]
    result = memorability(pooled)
    assert result is not None
    raw, scaled = result

    def statistic(index: int) -> Callable[[Sequence[list[dict[str, float]]]], float | None]:
        def stat(sample: Sequence[list[dict[str, float]]]) -> float | None:
            value = memorability([item for v in sample for item in v])
            return value[index] if value is not None else None
        return stat

    games_lists = [v for _, v in ordered]
    out: Composite = {"raw": raw, "scaled": min(1.0, max(0.0, scaled)),
                      "ci": _interval(stats.bootstrap(games_lists, statistic(1), seed=seed)),
                      "raw_ci": _interval(stats.bootstrap(games_lists, statistic(0), seed=seed)),
                      "n": len(ordered), "highlight_lists": len(pooled)}
    if raw is None:
        out["reason"] = "every highlight list is spread exactly evenly over the roles (sum of stds = 0)"
    return out


def _ewavm_per_game(game: ScoredGame) -> dict[str, Any]:
    """Every judge's EWAVM values of one game, kept apart: {"judges": {judge: {dimension: value,
    "failed": ...}}}. A judge counts as having judged the game when it has any EWAVM record of it,
    a failed one too (a judge whose every evaluation failed says so)."""
    by_judge: dict[str, list[Mapping[str, Any]]] = {}
    for record in game.judgements:
        if record.get("dimension") in DIMENSIONS:
            by_judge.setdefault(str(record.get("judge")), []).append(record)
    per_judge = {}
    for judge, records in sorted(by_judge.items()):
        valued = [r for r in records if r.get("failure") is None]
        values: dict[str, Any] = {d: _ewa_value(valued, d) for d in EWA}
        values["variation"] = _variation_value(valued)
        values["memorability"] = _memorability_lists(game, valued)
        values["failed"] = failed_judgements(records)
        per_judge[judge] = values
    return {"judges": per_judge}


def _add_failures(total: dict[str, dict[str, int]], failed: Mapping[str, Mapping[str, int]]) -> None:
    for dimension, why in failed.items():
        counts = total.setdefault(dimension, {})
        for reason, n in why.items():
            counts[reason] = counts.get(reason, 0) + n


def _ewavm_judge_summary(values: list[tuple[str, dict[str, Any]]], seed: int) -> dict[str, Any]:
    """One judge's Engagement, Wonder, Attraction, Variation and Memorability over the games it
    judged, with its failed evaluations per dimension and why."""
    out: dict[str, Any] = {}
    for d in (*EWA, "variation"):
        out[d] = composite(((gid, v[d][0], v[d][1]) for gid, v in values if v[d] is not None),
                           seed=_subseed(seed, d))
    out["memorability"] = _memorability_summary([(gid, v["memorability"]) for gid, v in values],
                                                _subseed(seed, "memorability"))
    out["games"] = len(values)
    failed: dict[str, dict[str, int]] = {}
    for _, v in values:
        _add_failures(failed, v["failed"])
    out["failed"] = {d: dict(sorted(why.items())) for d, why in sorted(failed.items())}
    return out


def _ewavm_summary(values: list[tuple[str, dict[str, Any]]], seed: int) -> dict[str, Any]:
    """Per judge, its own summary (no judge's value holds another's scores: two judges, or two
    prompt versions of one, are two measurements); the headline judge first, then the most judged (judges.ranked)."""
    summaries = {j: _ewavm_judge_summary([(gid, v["judges"][j]) for gid, v in values if j in v["judges"]],
                                         _subseed(seed, j))
                 for j in sorted({j for _, v in values for j in v["judges"]})}
    return {"judges": {j: summaries[j] for j in judges.ranked(summaries)},
            "unjudged": sum(1 for _, v in values if not v["judges"]),
            "games": len(values)}


def ewavm(games: Sequence[ScoredGame], agents: Mapping[str, AgentInfo], *, seed: int,
          keep: Keep = compute, section: str | None = None,
          groups: Grouping | None = None) -> dict[str, Any]:
    """Engagement, Wonder, Attraction, Variation, Memorability (the Werewolf paper) from LLM-judge records, per judge.

    A game counts for an agent only when that agent plays every seat (the Werewolf paper gives one design to
    all players); "all" and "by_mix" use every judged game. Each entry is {"judges": {judge:
    summary}, "unjudged": games no judge evaluated, "games": all games of the entry}.
    """
    return _grouped(games, agents, seed=seed, name="ewavm", summarise=_ewavm_summary, agent_games="sole",
                    keep=keep, section=section, groups=groups)
