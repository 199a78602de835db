"""The papers' agent designs: what each one asks the model before a move, and adds to its prompts.

- `vanilla`: nothing; one call per decision.
- `pgm` (MAgIC, section 4): two-hop beliefs as numbers (pgm.py). In the games with a hidden role,
  a suspicion vector per view (the agent's own, and its picture of each other player's),
  updated by one call after every public move; in the game-theory games, each player's expected
  next move per view, updated by one call after every round; a fixed rule turns the model's
  words into numbers. Decisions and probes carry the numbers; the evidence records them (`notes`).
- `b5p` (the Werewolf paper): a Big Five persona in the system prompt of every call; no extra call.
- `favor` (the Werewolf paper): a favor level per other player, updated by a rating call whenever something
  happened since the last update (new events other than the agent's own moves and night
  information), before a decision or probe; in the games with hidden roles a Judgement call
  (as the Strategy Decision's) comes first and is shown to the rating call, as the Werewolf paper's Favor
  prompt shows it; the levels, in words, are part of every prompt and recorded in `notes`.
- `strategy` (the Werewolf paper): before each move that is speaking or voting, a Judgement call (in the games
  with hidden roles: each other player's likeliest role and its probability), then a Strategy
  call that writes a plan of at most 80 words from the judgement and the role's strategy notes
  (`strategies.py`); the decision call is told to follow the plan. The Chameleon's guess and the
  Seer's night look get neither. Probes get none either.

All designs apply to every game. A pre-call whose reply cannot be read is not fatal: the agent
goes on without that note (the call is still in the evidence). A pre-call the provider could
not answer raises `ProviderError`, like any call: the game is abandoned, not written.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from runner.agents.llm import favor, persona, pgm, strategies
from runner.agents.llm.copies import copy_of
from runner.agents.llm.formats import PLAN_WORDS, AnswerStyle
from runner.agents.llm.parse import (ParseError, read_expectations, read_judgement, read_plan, read_ratings,
                                     read_suspicion)
from runner.agents.llm.render import Scene, observation, system_prompt
from runner.agents.llm.schemas import expect_schema, favor_schema, judgement_schema, pgm_schema, plan_schema
from runner.games.facts import HiddenRole
from runner.llm.types import Completion, Message


class Caller(Protocol):
    """What a design needs from its agent: how it answers, a way to call the model and record the
    call, and a way to read an answer object from a reply."""

    style: AnswerStyle

    async def call(self, messages: list[Message], calls: list[dict[str, Any]],
                   schema: Mapping[str, Any] | None = None) -> Completion:
        """One model call recorded in `calls`; raises ProviderError when the provider gives no reply."""

    def answer(self, completion: Completion, expected: str) -> dict[str, Any]:
        """The answer object of a reply; ParseError if it has none."""


@dataclass(frozen=True)
class Notes:
    """What a design adds to the prompts of one decision or probe."""

    favor: tuple[str, ...] = ()
    plan: str | None = None                   # the Strategy phase's plan for this move
    beliefs: Mapping[str, Any] | None = None  # PGM views as the prompts show them
    expectations: Mapping[str, Any] | None = None  # PGM expected next moves (game-theory games)
    record: Mapping[str, Any] | None = None   # what the design computed, kept in the replay's evidence

    def context(self) -> dict[str, Any]:
        return {"favor": list(self.favor), "plan": self.plan,
                "beliefs": self.beliefs, "expectations": self.expectations}


class Design:
    """`vanilla`: no persona, no pre-calls."""

    name: ClassVar[str] = "vanilla"
    #: Parameters the design fills in when a tournament file leaves them out (recorded filled in).
    defaults: ClassVar[Mapping[str, Any]] = {}

    def __init__(self, params: Mapping[str, Any], rng: random.Random):
        self.params: dict[str, Any] = self.check(params)

    @classmethod
    def check(cls, params: Mapping[str, Any]) -> dict[str, Any]:
        """The design's parameters, checked and completed; ValueError naming a bad field."""
        if params:
            raise ValueError(f"design_params: design {cls.name!r} takes no parameters, got {sorted(params)}")
        return {}

    @classmethod
    def given(cls, recorded: Mapping[str, Any]) -> dict[str, Any]:
        """The parameters a tournament file gave, from those a description records (which may add
        what the design filled in or drew), so that the agent can be made again."""
        return dict(recorded)

    def persona(self) -> str | None:
        """Text added to every system prompt."""
        return None

    async def prepare(self, caller: Caller, scene: Scene, phase: str | None,
                      calls: list[dict[str, Any]]) -> Notes:
        """Make the design's pre-calls for a decision in `phase` (None: a probe); return its notes."""
        return Notes()

    def _system(self, scene: Scene, caller: Caller) -> Message:
        return Message("system", system_prompt(scene, self.persona(), caller.style.structured))


class PGM(Design):
    """MAgIC's PGM-aware agent: two-hop beliefs kept as numbers and updated after every public move.

    In games with a hidden role the state is one suspicion vector per view (pgm.py): after each
    public move (a clue, a day statement; the agent's own included, since it changes how the
    others see it) one call asks, per view, who became more or less suspicious, and the symbolic
    rule updates the numbers. The decision and probes carry the numbers and the target they point
    to. In the game-theory games the state is each player's expected next move per view, updated
    by one call after every round. Both are recorded in the evidence (`notes`).
    """

    name = "pgm"

    def __init__(self, params: Mapping[str, Any], rng: random.Random):
        super().__init__(params, rng)
        self._views: pgm.Views | None = None
        self._expected: pgm.Expectations | None = None
        self._seen = 0  # visible events already rated

    @classmethod
    def check(cls, params: Mapping[str, Any]) -> dict[str, Any]:
        unknown = sorted(set(params) - {"step"})
        if unknown:
            raise ValueError(f"design_params: design 'pgm' takes only 'step', got {unknown}")
        step = params.get("step", pgm.DEFAULT_STEP)
        if isinstance(step, bool) or not isinstance(step, (int, float)) or not 1.0 < step <= 10.0:
            raise ValueError(f"design_params.step: a number above 1 and at most 10, got {step!r}")
        return {"step": float(step)} if "step" in params else {}

    @property
    def step(self) -> float:
        return float(self.params.get("step", pgm.DEFAULT_STEP))

    async def prepare(self, caller: Caller, scene: Scene, phase: str | None,
                      calls: list[dict[str, Any]]) -> Notes:
        if pgm.has_hidden_role(scene.game):
            return await self._beliefs(caller, scene, calls)
        if pgm.has_expectations(scene.game):
            return await self._expectations(caller, scene, calls)
        raise ValueError(f"the PGM design has no state for the game {scene.game!r}")

    async def _beliefs(self, caller: Caller, scene: Scene, calls: list[dict[str, Any]]) -> Notes:
        n = len(scene.names)
        hidden = pgm.holds_hidden_role(scene.game, scene.observation.get("private", {}))
        if self._views is None:
            self._views = pgm.initial(scene.game, scene.seat, n, hidden)
        log = list(scene.observation.get("log", ()))
        updates = []
        for index in range(self._seen, len(log)):
            if pgm.is_rated_move(scene.game, log[index]):
                read = await self._rate(caller, scene, log, index, hidden, calls)
                updates.append(pgm.record(self._views, index, read))
        self._seen = len(log)
        shown = self._shown(scene, hidden)
        record = {"design": self.name, "about": _hidden(scene.game).role, "step": self.step,
                  "views": [list(v) for v in self._views], "aim": shown["aim"], "updates": updates}
        return Notes(beliefs=shown, record=record)

    def _shown(self, scene: Scene, hidden: bool | None) -> dict[str, Any]:
        """The beliefs as the prompts show them: a row per view, and the target they point to."""
        assert self._views is not None
        rows = []
        for j in pgm.view_order(scene.seat, len(scene.names)):
            label = "your own view" if j == scene.seat else f"as you think {scene.names[j]} sees it"
            if j == scene.seat and hidden:
                label += " (you know you are it)"
            rows.append({"label": label, "cells": [{"seat": k, "p": p} for k, p in enumerate(self._views[j])
                                                   if p > 0.0 or k != j]})
        return {"target": _hidden(scene.game).called, "hidden": bool(hidden), "rows": rows,
                "aim": pgm.target(self._views, scene.seat, hidden)}

    async def _rate(self, caller: Caller, scene: Scene, log: list[Mapping[str, Any]], index: int,
                    hidden: bool | None, calls: list[dict[str, Any]]) -> bool:
        """One update after the move at `log[index]`, seen as the game stood then; False if unread."""
        assert self._views is not None
        then = _as_it_stood(scene, log, index)
        rated = {j: pgm.rated_players(self._views, j)
                 for j in pgm.rated_views(scene.seat, len(scene.names), hidden)}
        shape = [(scene.names[j], [scene.names[k] for k in players]) for j, players in rated.items()]
        expected = caller.style.pgm(shape)
        prompt = then.render("pgm/ratings.j2",
            observation=observation(then), beliefs=self._shown(scene, hidden), move=log[index],
            rated=[{"seat": j, "players": players} for j, players in rated.items()],
            answer_rule=caller.style.rule(expected))
        schema = pgm_schema(shape, caller.style.reasoning_chars)
        completion = await caller.call([self._system(scene, caller), Message("user", prompt)], calls, schema)
        try:
            changes = read_suspicion(caller.answer(completion, expected), scene.names, rated, expected)
        except ParseError:
            return False  # the views stay as they were; the call is in the evidence
        self._views = pgm.update(self._views, changes, self.step)
        return True


    async def _expectations(self, caller: Caller, scene: Scene, calls: list[dict[str, Any]]) -> Notes:
        """The game-theory state: each player's expected next move per view, updated after every round."""
        n, game = len(scene.names), scene.game
        if self._expected is None:
            self._expected = pgm.initial_expectations(game, n)
        log = list(scene.observation.get("log", ()))
        updates = []
        for index in range(self._seen, len(log)):
            if pgm.is_round_result(game, log[index]):
                read = await self._expect(caller, scene, log, index, calls)
                updates.append({"after": index, "read": read, "views": _copy_views(self._expected)})
        self._seen = len(log)
        record = {"design": self.name, "about": "next move", "moves": list(pgm.NEXT_ACTIONS[game]), "step": self.step,
                  "views": _copy_views(self._expected), "updates": updates}
        return Notes(expectations=self._shown_expectations(scene), record=record)

    def _shown_expectations(self, scene: Scene) -> dict[str, Any]:
        assert self._expected is not None
        moves = pgm.NEXT_ACTIONS[scene.game]
        rows = []
        for j in pgm.view_order(scene.seat, len(scene.names)):
            label = "your own view" if j == scene.seat else f"as you think {scene.names[j]} sees it"
            cells = [{"seat": k, "moves": list(zip(moves, dist))} for k, dist in enumerate(self._expected[j])
                     if dist is not None]
            rows.append({"label": label, "cells": cells})
        return {"rows": rows}

    async def _expect(self, caller: Caller, scene: Scene, log: list[Mapping[str, Any]], index: int,
                      calls: list[dict[str, Any]]) -> bool:
        """One update after the round that ended at `log[index]`; False if the reply was unreadable."""
        assert self._expected is not None
        then = _as_it_stood(scene, log, index)
        n = len(scene.names)
        rated = {j: [k for k in range(n) if k != j] for j in pgm.view_order(scene.seat, n)}
        shape = [(scene.names[j], [scene.names[k] for k in players]) for j, players in rated.items()]
        moves = pgm.NEXT_ACTIONS[scene.game]
        expected = caller.style.expect(shape, moves)
        prompt = then.render("pgm/expectations.j2",
            observation=observation(then), expectations=self._shown_expectations(scene), moves=moves,
            meaning=pgm.ACTION_MEANINGS.get(scene.game, ""),
            rated=[{"seat": j, "players": players} for j, players in rated.items()],
            answer_rule=caller.style.rule(expected))
        schema = expect_schema(shape, moves, caller.style.reasoning_chars)
        completion = await caller.call([self._system(scene, caller), Message("user", prompt)], calls, schema)
        try:
            named = read_expectations(caller.answer(completion, expected), scene.names, rated, moves, expected)
        except ParseError:
            return False
        self._expected = pgm.expect(self._expected, named, self.step)
        return True


def _as_it_stood(scene: Scene, log: list[Mapping[str, Any]], index: int) -> Scene:
    """The scene as the game stood right after `log[index]`: a move is judged without later ones."""
    return Scene(scene.game, scene.seat, scene.names, {**scene.observation, "log": log[:index + 1]}, scene.prompts)


def _copy_views(views: pgm.Expectations) -> list[list[list[float] | None]]:
    return [[None if d is None else list(d) for d in view] for view in views]


def _hidden(game: str) -> HiddenRole:
    """What the suspicion is about (the game's FACTS.hidden; the prompts name it by `called`)."""
    hidden = pgm.hidden_role(game)
    assert hidden is not None, f"{game} hides no role"
    return hidden


class BigFive(Design):
    """The Werewolf paper's Big Five persona: trait levels (fixed or drawn from the agent's generator) as text."""

    name = "b5p"

    def __init__(self, params: Mapping[str, Any], rng: random.Random):
        fixed = persona.check_levels(params)
        levels = persona.draw_levels(fixed, rng)
        # Drawn levels are recorded too, and which ones were drawn, so the persona can be rebuilt.
        self.params = {**levels, "drawn": [t for t in persona.TRAITS if t not in fixed]}
        self._text = persona.describe(levels, rng)

    @classmethod
    def check(cls, params: Mapping[str, Any]) -> dict[str, Any]:
        return dict(persona.check_levels(params))

    @classmethod
    def given(cls, recorded: Mapping[str, Any]) -> dict[str, Any]:
        drawn = recorded.get("drawn")
        drawn = set(drawn) if isinstance(drawn, list) else set()
        return {k: v for k, v in recorded.items() if k != "drawn" and k not in drawn}

    def persona(self) -> str | None:
        return self._text


class Favor(Design):
    """The Werewolf paper's Favor Dynamics: favor levels towards the others, updated after each turn."""

    name = "favor"
    defaults = favor.DEFAULTS

    def __init__(self, params: Mapping[str, Any], rng: random.Random):
        super().__init__(params, rng)
        self.levels: dict[int, float] | None = None
        self.judged: dict[int, tuple[str, float]] | None = None  # the last Judgement made
        self._seen = 0  # visible events already taken into account

    @classmethod
    def check(cls, params: Mapping[str, Any]) -> dict[str, Any]:
        return dict(favor.check_params(params))

    async def prepare(self, caller: Caller, scene: Scene, phase: str | None,
                      calls: list[dict[str, Any]]) -> Notes:
        if self.levels is None:
            self.levels = {s: float(self.params["initial"]) for s in range(len(scene.names)) if s != scene.seat}
        log = list(scene.observation.get("log", ()))
        # Only what others did (or what the rules revealed) can change how the agent feels about them.
        fresh = [ev for ev in log[self._seen:] if ev.get("seat") != scene.seat]
        if fresh:
            await self._update(caller, scene, calls)
            self._seen = len(log)
        record = {"design": self.name, "updated": bool(fresh),
                  "levels": [self.levels.get(s) for s in range(len(scene.names))],
                  "judgement": judgement_record(self.judged)}
        return Notes(favor=tuple(favor.statements(self.levels, scene.names)), record=record)

    async def _update(self, caller: Caller, scene: Scene, calls: list[dict[str, Any]]) -> None:
        assert self.levels is not None
        # The Werewolf paper's Favor prompt shows the agent's Judgement of the others' roles (Table
        # FD_Prompt_favor_update): in the games with hidden roles it is made first.
        self.judged = await judge(caller, scene, calls, self._system(scene, caller)) \
            if strategies.judged_roles(scene.game) else None
        lines = strategies.judgement_lines(self.judged, scene.names, scene.game, scene.observation.get("private", {}))
        others = [scene.names[s] for s in sorted(self.levels)]
        expected = caller.style.favor(others)
        prompt = scene.render("favor.j2",
            observation=observation(scene, new_from=self._seen), judgement=lines,
            favor=favor.statements(self.levels, scene.names), answer_rule=caller.style.rule(expected))
        schema = favor_schema(others, caller.style.reasoning_chars)
        completion = await caller.call([self._system(scene, caller), Message("user", prompt)], calls, schema)
        try:
            obj = caller.answer(completion, expected)
            ratings = read_ratings(obj, scene.names, scene.seat, expected)
        except ParseError:
            return  # an unreadable rating leaves the levels as they were (the Werewolf paper keeps what it can read)
        self.levels = favor.updated(self.levels, ratings, float(self.params["swing"]))


class StrategyDecision(Design):
    """The Werewolf paper's Strategy Decision: before each speech and vote, a Judgement of the others' roles, then a
    short written plan from that judgement and the role's strategy notes; the move follows the plan.

    Judgement (in the games with hidden roles): for each other player, its likeliest role and that
    role's probability. Strategy: at most 80 words, written from the judgement and the strategy
    notes of this role and move (strategies.py); the decision prompt carries the plan. Both are
    recorded in the evidence (`notes`). An unreadable judgement leaves the plan without one; an
    unreadable plan leaves the move without one (the calls stay in the evidence).
    """

    name = "strategy"

    async def prepare(self, caller: Caller, scene: Scene, phase: str | None,
                      calls: list[dict[str, Any]]) -> Notes:
        options = strategies.menu(scene.game, phase, scene.observation.get("private", {})) if phase else ()
        if not options:
            return Notes()
        judged = await judge(caller, scene, calls, self._system(scene, caller)) \
            if strategies.judged_roles(scene.game) else None
        lines = strategies.judgement_lines(judged, scene.names, scene.game, scene.observation.get("private", {}))
        expected = caller.style.plan()
        prompt = scene.render("strategy/plan.j2",
            observation=observation(scene), situation=strategies.SITUATIONS[str(phase)], options=options,
            judgement=lines, words=PLAN_WORDS, answer_rule=caller.style.rule(expected), **Notes().context())
        completion = await caller.call([self._system(scene, caller), Message("user", prompt)], calls,
                                       plan_schema(caller.style.reasoning_chars))
        try:
            plan, cut = read_plan(caller.answer(completion, expected), expected, PLAN_WORDS)
        except ParseError:
            plan, cut = None, False
        if plan is not None and scene.prompts.describes_answers and copy_of(plan, scene.prompts.version, scene.game):
            plan, cut = None, False  # the question's own wording is no plan (set 4 on)
        record = {"design": self.name, "phase": phase,
                  "judgement": judgement_record(judged),
                  "plan": plan, "cut": cut}
        return Notes(plan=plan, record=record)


def judgement_record(judged: Mapping[int, tuple[str, float]] | None) -> list[dict[str, Any]] | None:
    """A Judgement as the replay's notes record it: {seat, role, p} by seat (None if unread)."""
    return None if judged is None else [{"seat": seat, "role": role, "p": p} for seat, (role, p) in sorted(judged.items())]


async def judge(caller: Caller, scene: Scene, calls: list[dict[str, Any]], system: Message
                ) -> dict[int, tuple[str, float]] | None:
    """The Werewolf paper's Judgement: each other player's likeliest role and its probability (None if unread)."""
    roles = strategies.judged_roles(scene.game)
    others = [scene.names[s] for s in range(len(scene.names)) if s != scene.seat]
    expected = caller.style.judgement(others, roles)
    prompt = scene.render("strategy/judgement.j2", observation=observation(scene), roles=roles,
                          answer_rule=caller.style.rule(expected), **Notes().context())
    completion = await caller.call([system, Message("user", prompt)], calls,
                                   judgement_schema(others, roles, caller.style.reasoning_chars))
    try:
        return read_judgement(caller.answer(completion, expected), scene.names, scene.seat, roles, expected)
    except ParseError:
        return None


#: Every design by its name in tournament files.
DESIGNS: dict[str, type[Design]] = {cls.name: cls for cls in (Design, PGM, BigFive, Favor, StrategyDecision)}


def check_design(name: Any, params: Any) -> None:
    """ValueError naming the field unless `name` is a design and `params` suit it."""
    if name not in DESIGNS:
        raise ValueError(f"design: must be one of {list(DESIGNS)}, got {name!r}")
    if not isinstance(params, Mapping):  # a user's table: ValueError like every other bad setting
        raise ValueError(f"design_params: must be a table, got {type(params).__name__}")  # noqa: TRY004
    DESIGNS[name].check(params)


def make_design(name: str, params: Mapping[str, Any], rng: random.Random) -> Design:
    """The design object of one agent (b5p draws its missing trait levels from `rng`)."""
    check_design(name, params)
    return DESIGNS[name](params, rng)
