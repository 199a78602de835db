"""Verifying a suite's row: the maintainers play its model again on deals nobody saw (`gamenight verify`).

A check proves that a submitted game follows the rules, never that the named model played it. A
**verification** of a row `replays/<row>/` is a tournament of the maintainers' own,
`replays/verify-<row>/`, in which the row's model (the same provider, model and settings) plays:

- **held-out deals**: K deals of the row's suite whose seeds come from the epoch's secret
  (runner/holdout.py), dealt as the suite deals its own (the same variants and opponents, the
  candidate's role and seat in turn, `SuiteGame.slot`), in the suite's proportions: every 23
  held-out deals of ranked-1 are a whole stage's worth (4 Chameleon, 4 Undercover, 6 Werewolf, 3
  each of the others), the games interleaved so that fewer keep close to those shares
  (`held_out_deals`);
- for a model that can be played again exactly (the row's settings have temperature 0 or a fixed
  seed and its server is on this machine, or `--exact` says so), **K of the row's own deals**
  again, chosen by a shuffle drawn from the row's merge commit (`replayed_deals`), with the prompt
  set the row was played with.

What it finds (`assess`) is a function of replays alone, the row's and the verification's: the
scorer computes it again for the board (site_builder/scoring/verification.py) and trusts no
verdict written anywhere.

- **exact**: every re-played deal's every recorded reply is the row's, byte for byte, and the
  held-out score is consistent with the claimed one;
- **inconsistent**: the held-out score and the row's claimed score differ by more than chance,
  by the two-sample test of runner/suite_score.py (`consistency`, at `VERIFY_LEVEL`);
- **consistent** otherwise; the per-move agreement where a deal was played again is reported
  beside it.
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
import random
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from runner import holdout
from runner import suite as suites
from runner.llm.providers import find
from runner.plan import AgentSpec, Matchup, SuiteDeal, Tournament, VerifyRef
from runner.suite_score import VERIFY_LEVEL, consistency, cycles_of, deal_value
from runner.tournament import VERIFY_PREFIX

#: Digits of a reply's or a move's digest kept in a trace (64 bits: no two replies of a corpus share one).
DIGEST_HEX = 16


class VerifyError(ValueError):
    """A verification that cannot be planned or run: one line saying why."""


# -- which deals ---------------------------------------------------------------------------------

def interleaved(suite: suites.Suite) -> list[suites.SuiteGame]:
    """One stage's games in the order a verification deals them: each game as often as a stage
    deals it, spread evenly (a game's i-th deal of n at (i + 1/2) / n of the stage), so that the
    first few of a stage keep close to the suite's shares (the first six hold one of each game)."""
    places = [((i + 0.5) / g.deals_per_stage, position, g)
              for position, g in enumerate(suite.games) for i in range(g.deals_per_stage)]
    return [g for *_, g in sorted(places, key=lambda p: (p[0], p[1]))]


def held_out_deals(suite: suites.Suite, count: int) -> list[tuple[suites.SuiteGame, int]]:
    """The first `count` held-out deals: (game, the deal's index among the game's held-out deals),
    stage after stage in the `interleaved` order."""
    order, seen, out = interleaved(suite), dict.fromkeys((g.game for g in suite.games), 0), []
    while len(out) < count:
        for game in order:
            if len(out) == count:
                break
            out.append((game, seen[game.game]))
            seen[game.game] += 1
    return out


def replayed_deals(row: Tournament, commit: str, count: int) -> list[Matchup]:
    """`count` of the row's own deals (all of them if it has fewer), in an order shuffled by a
    generator seeded with the row's name and merge commit: chosen by neither the contributor (who
    cannot know the merge commit's id) nor the maintainers."""
    order = sorted((m for m in row.matchups if m.deal is not None), key=lambda m: (m.deal.stage, m.game, m.deal.index))
    rng = random.Random(hashlib.sha256(f"gamenight-verify-replays\n{row.name}\n{commit}".encode()).hexdigest())
    rng.shuffle(order)
    return order[:count]


def candidate_of(row: Tournament) -> AgentSpec:
    """The language model in a suite row's candidate seat (VerifyError for a built-in row)."""
    seated = {m.lineup[m.deal.seat].canonical(): m.lineup[m.deal.seat] for m in row.matchups
              if m.deal is not None and m.deal.seat < len(m.lineup)}
    models = [a for a in seated.values() if a.is_llm]
    if len(seated) != 1 or not models:
        raise VerifyError(f"{row.name}: the candidate's seat holds built-in agents: a built-in row is derived from "
                          "its seeds by every check, there is nothing to verify")
    return models[0]


def is_local(url: str | None) -> bool:
    """Whether a base URL is a server on this machine (a loopback address or localhost)."""
    host = urlparse(url).hostname if url else None
    if host is None:
        return False
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def replayable(spec: Mapping[str, Any]) -> bool:
    """Whether a model with these settings can be played again exactly: temperature 0 or a fixed
    seed, served on this machine (a hosted API promises neither)."""
    fixed = spec.get("temperature") == 0 or spec.get("seed") is not None
    provider = find(spec.get("provider"))
    return provider is not None and provider.official_url is None and fixed and is_local(spec.get("base_url"))


def same_model(row: AgentSpec, given: AgentSpec) -> str | None:
    """Why `given` (`--model`) is not the row's model, or None: the same provider, model and every
    played setting, the server's address aside when both are on this machine (a port is the
    machine's, not the model's)."""
    mine, theirs = dict(row.spec), dict(given.spec)
    if is_local(mine.get("base_url")) and is_local(theirs.get("base_url")):
        mine.pop("base_url"), theirs.pop("base_url")
    differ = sorted(k for k in set(mine) | set(theirs) if mine.get(k) != theirs.get(k))
    if not differ:
        return None
    shown = ", ".join(f"{k} {mine.get(k)!r} where --model has {theirs.get(k)!r}" for k in differ[:4])
    return (f"--model is not the row's model: the row plays {shown}; give the row's own agent, "
            f"--model replays/{{row}}/tournament.toml#{row.name}")


#: What `--model provider:model[@url]` names of the row's model: the rest of its settings are the row's.
REACHED_AT = ("provider", "model", "base_url")


def reached(row: AgentSpec, given: AgentSpec) -> AgentSpec | str:
    """The row's model as `--model provider:model[@url]` (`given`) reaches it: the row's agent with
    every played setting of the row's, at the address the verifier gives (the row's own server is
    the contributor's); or why `given` is not the row's model (another provider or model)."""
    differ = [k for k in REACHED_AT[:2] if row.spec.get(k) != given.spec.get(k)]
    if differ:
        shown = ", ".join(f"{k} {row.spec.get(k)!r} where --model has {given.spec.get(k)!r}" for k in differ)
        return f"--model is not the row's model: the row plays {shown}"
    spec = {**dict(row.spec), "base_url": given.spec.get("base_url")}
    if spec["base_url"] is None:
        spec.pop("base_url")
    return replace(row, spec=spec, access=dict(given.access))


def tournament_for(suite: suites.Suite, row: Tournament, agent: AgentSpec, *, epoch: holdout.Epoch, commit: str,
                   secret: str | None, deals: int, replays: int) -> Tournament:
    """The verification's plan: `deals` held-out deals (their seeds from `secret`; without one, a
    dry run's stand-ins, the suite's public deals of the same games, roles and seats) and `replays`
    of the row's own deals, with `agent` (the row's model) in the candidate's seat."""
    matchups = []
    for game, index in held_out_deals(suite, deals):
        _, seat = game.slot(index)
        seed = (holdout.held_out_seed(secret, suite.name, suite.version, game, row.name, commit, index)
                if secret is not None else suites.deal(suite, game, index).seed)
        matchups.append(Matchup(game.game, game.rules, 1, lineup=suites.seated(game, agent, seat), seed=seed,
                                deal=SuiteDeal(index // game.deals_per_stage + 1, index, seat, held_out=True)))
    by_name = {g.game: g for g in suite.games}
    chosen = replayed_deals(row, commit, replays)
    for m in chosen:
        assert m.deal is not None and m.seed is not None
        matchups.append(Matchup(m.game, m.rules, 1, lineup=suites.seated(by_name[m.game], agent, m.deal.seat),
                                seed=m.seed, deal=SuiteDeal(m.deal.stage, m.deal.index, m.deal.seat)))
    ref = VerifyRef(row.name, suite.name, suite.version, epoch.epoch, epoch.commitment, commit, deals, len(chosen))
    return Tournament(VERIFY_PREFIX + row.name, 0, None, suite.max_attempts, suite.probes, matchups,
                      {agent.name: agent}, verify=ref)


# -- is a plan a verification's? -------------------------------------------------------------

def plan_problems(tournament: Tournament, epochs: holdout.Epochs | None = None) -> list[tuple[str, str]]:
    """Where a plan with a `verify` table is not what `gamenight verify` plans: (field, why) pairs.
    Its held-out deals must be the first `deals` of the suite (each game, index, seat, variant and
    opponent as the suite deals them, and once the epoch's secret is published, the seed it
    derives), its other deals the suite's own public ones, one language model in every candidate's
    seat. Which of the row's deals it played again is drawn from the row's plan at its merge commit,
    which the plan alone cannot show."""
    ref = tournament.verify
    assert ref is not None
    epochs = holdout.shipped() if epochs is None else epochs
    suite = suites.shipped(ref.suite, ref.version)
    if suite is None:
        return [("verify.suite", f"no suite {ref.suite}-{ref.version} is shipped with gamenight")]
    if not ref.row.startswith(f"{suite.name}-{suite.version}-"):
        return [("verify.row", f"a row of the suite {suite.name}-{suite.version} is named "
                               f"{suite.name}-{suite.version}-<label>")]
    held = [m for m in tournament.matchups if m.deal is not None and m.deal.held_out]
    again = [m for m in tournament.matchups if m.deal is not None and not m.deal.held_out]
    if len(held) != ref.deals or len(again) != ref.replays:
        return [("matchups", f"the verify table plans {ref.deals} held-out deals and {ref.replays} of the row's; "
                             f"the plan has {len(held)} and {len(again)}")]
    if tournament.matchups[:len(held)] != held:
        return [("matchups", "a verification's held-out deals come first, then the row's deals played again")]
    seated = {m.lineup[m.deal.seat].canonical() for m in tournament.matchups if m.deal.seat < len(m.lineup)}
    agents = [m.lineup[m.deal.seat] for m in tournament.matchups[:1]]
    if len(seated) != 1 or not agents or not agents[0].is_llm:
        return [("matchups", "a verification seats one language model, the row's, in every candidate's seat")]
    by_name = {g.game: g for g in suite.games}
    for i, (m, (game, index)) in enumerate(zip(held, held_out_deals(suite, ref.deals))):
        expected = Matchup(game.game, game.rules, 1, lineup=suites.seated(game, agents[0], game.slot(index)[1]),
                           seed=m.seed, deal=SuiteDeal(index // game.deals_per_stage + 1, index, game.slot(index)[1],
                                                       held_out=True))
        if (m.game, m.deal, dict(m.rules), m.key()) != (expected.game, expected.deal, dict(expected.rules),
                                                        expected.key()):
            return [(f"matchups[{i}]", f"held-out deal {i} of the verification is {game.game} deal {index} at seat "
                                       f"{game.slot(index)[1]}, seated as the suite seats it")]
        claim = {"epoch": ref.epoch, "commitment": ref.commitment, "row": ref.row, "commit": ref.commit,
                 "deal": index}
        problem = holdout.seed_problem(epochs, claim, game, m.seed or 0, suite.name, suite.version)
        if problem:
            return [(f"matchups[{i}].seed" if problem[0] == "seed" else "verify.commitment", problem[1])]
    for i, m in enumerate(again, start=len(held)):
        game = by_name.get(m.game)
        if game is None:
            return [(f"matchups[{i}].game", f"the suite {suite.name}-{suite.version} has no {m.game} deals")]
        dealt = suites.deal(suite, game, m.deal.index)
        if (m.seed, m.deal.seat, m.deal.stage, dict(m.rules)) != (dealt.seed, dealt.seat, dealt.stage,
                                                                  dict(game.rules)):
            return [(f"matchups[{i}]", f"a deal played again is the suite's own: {m.game} deal {m.deal.index} has "
                                       f"seed {dealt.seed}, the candidate at seat {dealt.seat}, stage {dealt.stage}")]
        if [a.canonical() for a in m.lineup] != [a.canonical() for a in suites.seated(game, agents[0], dealt.seat)]:
            return [(f"matchups[{i}].lineup", "a deal played again seats the suite's opponents")]
    return []


# -- what a game says: its trace, its value ------------------------------------------------------

def _digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:DIGEST_HEX]


def trace(records: Iterable[Mapping[str, Any]], seat: int) -> dict[str, list[str]]:
    """What the candidate at `seat` produced, in order, as digests: `replies`, every recorded call's
    reply and reasoning (re-asks and belief questions included), and `moves`, every move it made
    (a forfeit too). Two games' replies are the same byte for byte exactly when their digests are."""
    replies, moves = [], []
    for data in records:
        if data.get("type") not in ("event", "probe") or data.get("seat") != seat:
            continue
        evidence = data.get("evidence")
        for call in (evidence.get("calls") or ()) if isinstance(evidence, Mapping) else ():
            if isinstance(call, Mapping):
                replies.append(_digest([call.get("reply"), call.get("reasoning")]))
        if data.get("type") == "event" and data.get("kind") in ("action", "forfeit"):
            moves.append(_digest([data.get("kind"), data.get("data")]))
    return {"replies": replies, "moves": moves}


@dataclass(frozen=True)
class Played:
    """One game as a verification reads it: its game and deal, whether the deal is held out, the
    candidate's deal value (None: another seat forfeited, which tells nothing of the candidate),
    and its trace."""

    game: str
    deal: int
    held_out: bool
    value: float | None
    trace: Mapping[str, Sequence[str]]


def played(header: Mapping[str, Any], outcome: Mapping[str, Any], records: Iterable[Mapping[str, Any]]) -> Played | None:
    """A valid replay of a suite's deal or a verification's (`outcome`: the one the rules recomputed)
    as `Played`, or None for any other game."""
    claim = header.get("verify") or header.get("suite")
    if not isinstance(claim, Mapping):
        return None
    seat = claim["seat"]
    forfeit = (outcome.get("result") or {}).get("forfeit") if outcome.get("status") != "complete" else None
    if forfeit is not None and forfeit.get("seat") != seat:
        value = None
    else:
        value = deal_value(header["game"], outcome.get("result") or {}, outcome.get("winners") or (), seat,
                           forfeited=forfeit is not None)
    held = "verify" in header and "held_out" in header["verify"]
    return Played(header["game"], int(claim["deal"]), held, value, trace(records, seat))


# -- the verdict -----------------------------------------------------------------------------

def compared(mine: Mapping[str, Sequence[str]], again: Mapping[str, Sequence[str]]) -> dict[str, int]:
    """A row's game against the same deal played again: whether every reply is the same (`matched`
    1 or 0), the calls before the first different reply of the longer game's (`calls_matched`,
    `calls`), and the moves that agree turn by turn (`moves_agreed` of `moves`, the longer game's)."""
    a, b = list(mine["replies"]), list(again["replies"])
    prefix = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    moves_a, moves_b = list(mine["moves"]), list(again["moves"])
    return {"games": 1, "matched": int(a == b and bool(a)), "calls": max(len(a), len(b)), "calls_matched": prefix,
            "moves": max(len(moves_a), len(moves_b)), "moves_agreed": sum(x == y for x, y in zip(moves_a, moves_b))}


def assess(row: Sequence[Played], verification: Sequence[Played], cycles: Mapping[str, int] | None) -> dict[str, Any] | None:
    """What a verification finds, from the row's games and the verification's (None without a
    held-out deal of a game the row played): `state` (exact, consistent or inconsistent), the
    two-sample test (`suite_score.consistency`) of the claimed score against the held-out one, and
    `replays`, the row's deals played again compared reply by reply and move by move."""
    claimed: dict[str, dict[int, float]] = {}
    traces: dict[tuple[str, int], Mapping[str, Sequence[str]]] = {}
    for game in row:
        if game.value is not None:
            claimed.setdefault(game.game, {})[game.deal] = game.value
        traces[(game.game, game.deal)] = game.trace
    held: dict[str, dict[int, float]] = {}
    replays = dict.fromkeys(("games", "matched", "calls", "calls_matched", "moves", "moves_agreed"), 0)
    for game in verification:
        if game.held_out:
            if game.value is not None:
                held.setdefault(game.game, {})[game.deal] = game.value
        elif (game.game, game.deal) in traces:
            for key, n in compared(traces[(game.game, game.deal)], game.trace).items():
                replays[key] += n
    test = consistency(claimed, held, cycles)
    if test is None:
        return None
    if not test["consistent"]:
        state = "inconsistent"
    elif replays["games"] and replays["matched"] == replays["games"]:
        state = "exact"
    else:
        state = "consistent"
    return {"state": state, "deals": sum(len(d) for d in held.values()), **test, "replays": replays}


def verdict_line(found: Mapping[str, Any]) -> str:
    """The verdict in one line, starting `verdict: exact|consistent|inconsistent`, with its figures."""
    claimed, held, replays = found["claimed"], found["held_out"], found["replays"]
    said = (f"verdict: {found['state']}: {found['deals']} held-out deals score {_pct(held['value'])} "
            f"[{_pct(held['ci'][0])}, {_pct(held['ci'][1])}] against the claimed {_pct(claimed['value'])} "
            f"[{_pct(claimed['ci'][0])}, {_pct(claimed['ci'][1])}] (difference {found['difference'] * 100:+.1f} points, "
            f"z {found['z']:+.2f}, p {p_text(found['p'])}: {'consistent' if found['consistent'] else 'inconsistent'} "
            f"at the {found['level']:g} level)")
    if replays["games"]:
        said += (f"; {replays['games']} of the row's deals played again: {replays['matched']} matched reply for "
                 f"reply, {replays['calls_matched']} of {replays['calls']} replies the same before the first "
                 f"difference, moves agreed {replays['moves_agreed']} of {replays['moves']}")
    return said


def _pct(value: float) -> str:
    return f"{value * 100:.1f}%"


def p_text(p: float) -> str:
    """A p-value as the board shows it: three decimals, "< 0.001" below that."""
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def cycles_for(suite: suites.Suite) -> dict[str, int]:
    return cycles_of(suite.games)


# -- git: the row's merge commit and the epoch's date ----------------------------------------------

def _git(folder: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(["git", "-C", str(folder), *args], capture_output=True, text=True, check=False,
                              timeout=120)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def row_commit(row_folder: Path) -> str:
    """The newest commit of the checkout's first-parent history that added or changed the row's
    folder (its plan or its games): the merge that brought the row as it stands to main (VerifyError
    if none). Games replaced under the same plan are a new claim, so they get deals of their own."""
    plan = row_folder / "tournament.toml"
    planned = _git(row_folder, "log", "-1", "--first-parent", "--format=%H", "HEAD", "--", plan.name)
    found = _git(row_folder, "log", "-1", "--first-parent", "--format=%H", "HEAD", "--", ".") if planned else None
    if not found or not holdout.COMMIT.match(found):
        raise VerifyError(f"{plan}: no commit of this checkout holds it: a row's held-out deals are derived from its "
                          "merge commit, so verify a row that is committed (merged to main)")
    return found


def commitment_commit(row_folder: Path, epochs_file: Path, commitment: str) -> tuple[str, str] | None:
    """The commit (id, ISO date) of the checkout's history that added `commitment` to the epochs
    file, or None if no commit did (then git dates nothing)."""
    top = _git(row_folder, "rev-parse", "--show-toplevel")
    if top is None:
        return None
    try:
        relative = epochs_file.resolve().relative_to(Path(top).resolve()).as_posix()
    except ValueError:
        relative = holdout.EPOCHS_PATH  # an installed package: the repository's own copy of the file
    found = _git(Path(top), "log", "--format=%H %cI", "--reverse", f"-S{commitment}", "HEAD", "--", relative)
    first = found.splitlines()[0].split() if found else None
    return (first[0], first[1]) if first and len(first) == 2 else None


def is_ancestor(folder: Path, older: str, newer: str) -> bool:
    try:
        done = subprocess.run(["git", "-C", str(folder), "merge-base", "--is-ancestor", older, newer],
                              capture_output=True, check=False, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0

