"""What makes a game itself: its id, derived again, and its identity, what only its players made.

The runner names a game after its tournament, matchup and seed (runner/plan.py), so an id
cannot be reused for another deal, nor one game copied under fresh ids. The header records all
three, but not quite as the tournament file wrote them: a built-in agent's parameters are
recorded with the strategy's defaults filled in, a design's with what it filled in or drew. The
validator therefore tries each way the file could have written them (a handful per agent) and
accepts the id if one of them gives it; the hash leaves no room for a forged one.

A game's identity (`game_identity`) is the deal and what its players produced on it, never its
labels: two files with the same identity are one game. A ranked suite deals the same deals to
every model against the same built-in opponents, so two models may well make the same moves on a
deal; what tells their games apart is what only the model that played can have produced, its
recorded calls (replies, the model id the API reported, the tokens it counted).
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from runner.agents.builtin import make, strategies
from runner.plan import LLM_OPTIONAL_KEYS, AgentSpec, Matchup, PlannedGame, game_id
from runner.replay.format import AgentDescription, Header, agent_kind, show
from runner.seeds import rng_for

#: Most ways of writing a matchup tried before giving up (each is one SHA-256; the likeliest come
#: first, so an honest game is found at once; a folder with its plan is checked against it instead).
MAX_FORMS = 100_000
#: Description fields the runner adds beside what the tournament file says the agent is.
_NOT_PLAYED = ("name", "kind", "prompt_version", "model_reported")
#: Played settings every model agent's spec holds (None when the file left them out).
_LLM_ALWAYS = ("provider", "model", "base_url", "temperature", "max_tokens", "seed", "design", "design_params")


class Unreadable(ValueError):
    """A header whose matchup cannot be read back as the runner writes it."""


def id_difference(header: Header) -> tuple[str, str] | None:
    """Where a header's game id does not follow from its tournament, matchup and seed."""
    first, tried = None, 0
    try:
        for form in expected_ids(header):
            if form == header["game_id"]:
                return None
            first = first or form
            tried += 1
            if tried >= MAX_FORMS:
                return "game_id", (f"cannot be derived again: the agents' parameters can be written in over "
                                   f"{MAX_FORMS:,} ways (keep the tournament's plan, tournament.toml, beside it)")
    except Unreadable as exc:
        return "matchup", str(exc)
    return "game_id", (f"does not follow from the tournament, matchup and seed: the runner names this game "
                       f"{show(first)}")


def planned_difference(header: Header, planned: PlannedGame) -> tuple[str, str] | None:
    """Where a header differs from the game of the same id its folder's plan holds: its seed,
    matchup, rules and the agent of every seat as the plan describes it (no search needed)."""
    matchup = planned.matchup
    for field, expected in (("game_id", planned.game_id), ("tournament", planned.tournament),
                            ("game", matchup.game), ("seed", planned.seed), ("matchup", matchup.label),
                            ("variant", dict(matchup.rules)), ("suite", planned.suite_header()),
                            ("verify", planned.verify_header())):
        if header.get(field) != expected:
            return field, f"the plan's game {planned.game_id} has {show(expected)} here"
    for player in header["players"]:
        seat = player["seat"]
        spec = planned.agent_for(seat, player["role"])
        made = {k: v for k, v in _description(spec, header["game"], seat, planned.seed).items() if k not in _LABELS}
        told = {k: v for k, v in player["agent"].items() if k not in _LABELS}
        if made != told:
            return f"players[{seat}].agent", f"the plan seats {spec.name!r} here, described as {show(made, 200)}"
    return None


def suite_difference(header: Header) -> tuple[str, str] | None:
    """Where a header that says it is a deal of a ranked suite (without its folder's plan) is not
    that deal of the shipped suite: its tournament, seed, variant, the candidate's seat and stage,
    and every opponent as the suite describes it."""
    claim = header.get("suite")
    if claim is None:
        return None
    from runner import suite as suites

    suite = suites.shipped(claim["name"], claim["version"])
    if suite is None:
        return "suite", f"no suite {claim['name']}-{claim['version']} is shipped with gamenight"
    game = next((g for g in suite.games if g.game == header["game"]), None)
    if game is None:
        return "game", f"the suite {suite.name}-{suite.version} has no {header['game']} deals"
    dealt = suites.deal(suite, game, claim["deal"])
    for field, expected in (("tournament", None), ("seed", dealt.seed), ("variant", dict(game.rules)),
                            ("suite.seat", dealt.seat), ("suite.stage", dealt.stage)):
        if field == "tournament":
            if not str(header["tournament"]).startswith(f"{suite.name}-{suite.version}-"):
                return field, f"a game of the suite {suite.name}-{suite.version} is of a tournament named {suite.name}-{suite.version}-<label>"
            continue
        found = claim[field.split(".")[1]] if field.startswith("suite.") else header.get(field)
        if found != expected:
            return field, f"deal {claim['deal']} of {game.game} in the suite {suite.name}-{suite.version} has {show(expected)} here"
    n = game.players
    for offset, opponent in enumerate(game.opponents, start=1):
        seat = (dealt.seat + offset) % n
        made = {k: v for k, v in _description(opponent, game.game, seat, dealt.seed).items() if k not in _LABELS}
        told = {k: v for k, v in header["players"][seat]["agent"].items() if k not in _LABELS}
        if made != told:
            return f"players[{seat}].agent", f"the suite seats {opponent.name!r} here, described as {show(made, 200)}"
    return None


def verify_difference(header: Header) -> tuple[str, str] | None:
    """Where a header that says it is a deal of a verification (`verify`, runner/verify.py; checked
    without its folder's plan) is not what a verification deals: its tournament `verify-<row>`, the
    suite's variant, the candidate's seat, stage and role as the suite deals them, every opponent as
    the suite seats it, and the seed: a deal played again has the suite's own, a held-out one the
    epoch's commitment and, once the epoch's secret is published, the seed derived from it."""
    claim = header.get("verify")
    if claim is None:
        return None
    from runner import holdout
    from runner import suite as suites

    suite = suites.shipped(claim["suite"], claim["version"])
    if suite is None:
        return "verify.suite", f"no suite {claim['suite']}-{claim['version']} is shipped with gamenight"
    if header["tournament"] != f"verify-{claim['row']}" or not claim["row"].startswith(f"{suite.name}-{suite.version}-"):
        return "tournament", (f"the verification of a row of {suite.name}-{suite.version} is the tournament "
                              f"verify-{suite.name}-{suite.version}-<label> of the row it names")
    game = next((g for g in suite.games if g.game == header["game"]), None)
    if game is None:
        return "game", f"the suite {suite.name}-{suite.version} has no {header['game']} deals"
    role, seat = game.slot(claim["deal"])
    expected = {"variant": dict(game.rules), "verify.seat": seat,
                "verify.stage": claim["deal"] // game.deals_per_stage + 1}
    for field, value in expected.items():
        found = claim[field.split(".")[1]] if field.startswith("verify.") else header.get(field)
        if found != value:
            return field, f"{game.game} deal {claim['deal']} of the suite {suite.name}-{suite.version} has {show(value)} here"
    if role is not None and header["players"][seat]["role"] != role:
        return f"players[{seat}].role", f"{game.game} deal {claim['deal']} deals the candidate's seat {role}"
    held = claim.get("held_out")
    if held is None:
        dealt = suites.deal(suite, game, claim["deal"])
        if header["seed"] != dealt.seed:
            return "seed", (f"a deal of the row played again is the suite's own: {game.game} deal {claim['deal']} has "
                            f"seed {dealt.seed}")
    else:
        problem = holdout.seed_problem(holdout.shipped(), {**held, "row": claim["row"], "deal": claim["deal"]},
                                       game, header["seed"], suite.name, suite.version)
        if problem:
            return ("seed" if problem[0] == "seed" else "verify.held_out"), problem[1]
    for offset, opponent in enumerate(game.opponents, start=1):
        at = (seat + offset) % game.players
        made = {k: v for k, v in _description(opponent, game.game, at, header["seed"]).items() if k not in _LABELS}
        told = {k: v for k, v in header["players"][at]["agent"].items() if k not in _LABELS}
        if made != told:
            return f"players[{at}].agent", f"the suite seats {opponent.name!r} here, described as {show(made, 200)}"
    return None


#: Description fields the plan does not fix: the prompt set (any released one) and the model id reported.
_LABELS = ("prompt_version", "model_reported")


def _description(spec: AgentSpec, game: str, seat: int, seed: int) -> dict[str, Any]:
    """How the runner describes the agent of a spec in a replay header."""
    rng = rng_for(seed, f"agent-{seat}")
    if spec.is_human:
        return {"name": spec.name, "kind": "human"}
    if not spec.is_llm:
        return dict(make(spec.spec["builtin"], spec.spec["params"], rng, spec.name, game).description)
    from runner.agents.llm import make_llm_agent

    return dict(make_llm_agent(dict(spec.spec), None, game=game, seat=seat, rng=rng,  # type: ignore[arg-type]
                               name=spec.name).description)


def expected_ids(header: Header) -> Iterator[str]:
    """Every id the runner could have given this game (one per way of writing its agents)."""
    roles, lineup, seats = _matchup_names(header["matchup"])
    described: dict[str, Mapping[str, Any]] = {}
    for player in header["players"]:
        described.setdefault(player["agent"]["name"], player["agent"])
    names = list(dict.fromkeys([*roles.values(), *lineup]))
    missing = [n for n in names if n not in described]
    if missing:
        raise Unreadable(f"names {', '.join(map(show, missing))}, who sits at no seat of this game")
    choices = [[AgentSpec(name, spec) for spec in _specs(described[name])] for name in names]
    for combo in itertools.product(*choices):
        agent = dict(zip(names, combo))
        matchup = Matchup(header["game"], header["variant"], 1, roles={r: agent[a] for r, a in roles.items()},
                          lineup=[agent[a] for a in lineup], seats=seats)
        yield game_id(header["tournament"], header["game"], matchup.key(), header["seed"])


def _matchup_names(label: Any) -> tuple[dict[str, str], list[str], str | None]:
    """Role -> agent name, or the lineup and its seat rule, from a matchup label as Matchup.label
    writes it."""
    if not isinstance(label, str) or not label:
        raise Unreadable("must be the matchup as the runner writes it")
    for prefix, seats in (("lineup: ", None), ("lineup, seats dealt: ", "dealt")):
        if label.startswith(prefix):
            return {}, label[len(prefix):].split(", "), seats
    roles = {}
    for part in label.split("; "):
        role, sep, name = part.partition(": ")
        if not sep or role in roles:
            raise Unreadable(f"{show(label)} is not a matchup as the runner writes it (role: agent; ...)")
        roles[role] = name
    return roles, [], None


def _specs(agent: AgentDescription) -> list[dict[str, Any]]:
    """The specs a tournament file could have given for an agent described like this."""
    if agent_kind(agent) == "builtin":
        known = strategies().get(agent.get("strategy"))
        defaults = known.defaults if known is not None else {}
        return [{"builtin": agent.get("strategy"), "params": params}
                for params in _written(agent.get("params") or {}, defaults)]
    if agent_kind(agent) == "human":
        return [{"human": True}]  # a person is known by the name they chose, nothing else
    if agent_kind(agent) != "llm":
        return []
    from runner.agents.llm.designs import DESIGNS

    spec = model_spec(agent)
    design = DESIGNS.get(spec["design"] or "vanilla")
    if design is None or not isinstance(spec["design_params"], Mapping):
        return [spec]
    return [{**spec, "design_params": params} for params in _written(spec["design_params"], design.defaults)]


def model_spec(agent: AgentDescription) -> dict[str, Any]:
    """The played settings of a language-model agent as a tournament file gives them (the spec
    `make_llm_agent` takes), from its description in a header: the description less what the runner
    adds, the design's parameters as given (without what the design drew, as `Design.given` says)."""
    from runner.agents.llm.designs import DESIGNS

    played = {k: v for k, v in agent.items() if k not in _NOT_PLAYED}
    spec = {k: played.get(k) for k in _LLM_ALWAYS}
    spec.update({k: played[k] for k in LLM_OPTIONAL_KEYS if k in played})
    design = DESIGNS.get(spec["design"] or "vanilla")
    if design is not None and isinstance(spec["design_params"], Mapping):
        spec["design_params"] = design.given(spec["design_params"])
    return spec


def _written(params: Mapping[str, Any], defaults: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The ways a file could have written recorded parameters: each one equal to its default may
    be left out, and a whole number recorded as a float may have been written without a point."""
    optional = [k for k in params if k in defaults and _same(params[k], defaults[k])]
    found = []
    for r in range(len(optional), -1, -1):  # defaults left out, as files usually do, first
        for left_out in itertools.combinations(optional, r):
            kept = {k: v for k, v in params.items() if k not in left_out}
            found.extend(_number_forms(kept))
    return found


def _number_forms(params: Mapping[str, Any]) -> list[dict[str, Any]]:
    whole = [k for k, v in params.items() if isinstance(v, float) and v.is_integer() and abs(v) < 2**53]
    forms = []
    for r in range(len(whole) + 1):
        for as_int in itertools.combinations(whole, r):
            forms.append({k: int(v) if k in as_int else v for k, v in params.items()})
    return forms


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b or (isinstance(a, (int, float)) and isinstance(b, (int, float))
                                               and not isinstance(a, bool) and not isinstance(b, bool) and a == b)


#: What a model call holds that the model produced or the API counted of it, the same however often
#: the same call is made. Left out: the prompt (the game's and the agent's settings', which a copier
#: may relabel freely), and what differs between two runs of the very same calls: the time taken,
#: retries, the provider's prompt cache (cached and cache-written tokens) and gamenight's response
#: cache's mark, the provider's error.
CALL_FIELDS = ("reply", "reasoning", "model_reported", "finish_reason", "input_tokens", "output_tokens",
               "reasoning_tokens")
#: What the identity of a game is made of, by who played it (`identity_basis`): in words, for messages.
BASES = {"model": "the same deal, and every model call with the same reply, reported model id and token counts",
         "person": "the same deal, seed, moves and beliefs",
         "bots": "the same deal, seed, strategies and moves"}


def identity_basis(header: Mapping[str, Any]) -> str:
    """What decides a game's identity: "model" when a language model played a seat (its calls),
    else "person" when a person did (their moves: a person's game is dealt from a random seed of
    its own), else "bots" (every move follows from the seed and the strategies)."""
    kinds = set(_seat_kinds(header).values())
    return "model" if "llm" in kinds else "person" if "human" in kinds else "bots"


def game_identity(header: Mapping[str, Any], records: Sequence[Mapping[str, Any]]) -> str:
    """A hash of the deal (game, rules, seed, setup) and of what its players produced on it: every
    input with its number of refused tries and every belief as read, and, as `identity_basis` says,
    each model seat's recorded calls (CALL_FIELDS; a game with a model seat is told apart by them),
    or, in a game of bots alone, each seat's strategy. Names, ids, the tournament, the agents'
    settings, prompts and judges' lines are left out: a game relabelled is the same game. A
    verification's game (its header's `verify`) is known by its claim too, since playing a row's
    deal again exactly is what it is for."""
    seats = _seat_kinds(header)
    basis = identity_basis(header)
    plays: list[Any] = []
    calls: dict[str, list[list[Any]]] = {}
    for record in records:
        if record.get("type") == "event" and record.get("kind") in ("action", "chance", "forfeit"):
            plays.append([record.get("kind"), record.get("phase"), record.get("seat"), record.get("data"),
                          len(record.get("attempts") or ())])
        elif record.get("type") == "probe":
            plays.append(["probe", record.get("seat"), record.get("probe"), record.get("answer"),
                          record.get("about")])
        seat = record.get("seat")
        if basis == "model" and record.get("type") in ("event", "probe") and isinstance(seat, int) \
                and seats.get(seat) == "llm":
            calls.setdefault(str(seat), []).extend(_calls(record))
    who: Any = calls if basis == "model" else None
    if basis == "bots":
        who = {str(p["seat"]): [p["agent"].get("strategy"), p["agent"].get("params")] for p in _players(header)}
    made = {"basis": basis, "game": header.get("game"), "variant": header.get("variant"),
            "seed": header.get("seed"), "setup": header.get("setup"), "plays": plays, "who": who}
    if header.get("verify") is not None:
        # a verification plays a row's deal again to match it reply for reply: the maintainers'
        # evidence about the row (only they may add one), told apart from the row's game by its claim
        made["verify"] = header["verify"]
    canonical = json.dumps(made, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()


def _calls(record: Mapping[str, Any]) -> list[list[Any]]:
    evidence = record.get("evidence")
    found = evidence.get("calls") if isinstance(evidence, Mapping) else None
    if not isinstance(found, list):
        return []
    return [[call.get(k) for k in CALL_FIELDS] for call in found if isinstance(call, Mapping)]


def _players(header: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The header's players that name a seat and an agent (a base file is read leniently)."""
    players = header.get("players")
    return [p for p in players if isinstance(p, Mapping) and isinstance(p.get("agent"), Mapping)
            and isinstance(p.get("seat"), int)] if isinstance(players, list) else []


def _seat_kinds(header: Mapping[str, Any]) -> dict[int, str | None]:
    return {p["seat"]: agent_kind(p["agent"]) for p in _players(header)}
