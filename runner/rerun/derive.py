"""What a replay's seed already says: re-deriving the deal, every chance draw and every move of a
built-in agent, as the runner made them (runner/play.py, runner/run.py).

A replay records all of these, and the rules check that each is *legal*; but a legal game can
still be untrue: a tie-break flipped the other way, a card swapped, a scripted seat relabelled
as another strategy. The runner draws each from a generator seeded with the game seed and a
purpose (`runner.seeds.rng_for`), and built-in agents are deterministic functions of what their
seat saw and of their own generator, so the validator can draw and play them again and compare.
Language-model seats are played again from their recorded replies (runner/rerun/recorded.py):
the replies are taken as recorded, everything the agent made of them is derived again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from runner.agents.base import ProbeRequest, Request, ScriptedAgent
from runner.agents.builtin import make, strategies
from runner.games.base import Game, IllegalAction, Pending, SetupError, State
from runner.plan import PlannedGame
from runner.play import probe_questions
from runner.replay.compare import first_difference
from runner.replay.format import Event, Header, agent_kind, show
from runner.rerun.identity import id_difference, planned_difference, suite_difference, verify_difference
from runner.rerun.recorded import ModelSeat, Replayed
from runner.seeds import rng_for

#: (field, message) of the first thing that does not follow from the seed.
Difference = tuple[str, str]


class Derivation:
    """The runner's generators and built-in agents of one game, replayed alongside the rules."""

    def __init__(self, game: Game, params: Mapping[str, Any], header: Header,
                 planned: PlannedGame | None = None):
        self.game = game
        self.planned = planned  # the game of the same id in its folder's plan, if there is one
        self.params = dict(params)
        self.header = header
        self.seed = header["seed"]
        self.chance = rng_for(self.seed, "chance")
        self.names = tuple(game.seat_names(self.params, header["setup"]))
        self.max_attempts = header["max_attempts"]
        self.agents: dict[int, ScriptedAgent] = {}
        self.models: dict[int, ModelSeat] = {}
        self.humans: set[int] = set()  # seats played by people: their moves and beliefs are inputs
        self.unknown: dict[int, Difference] = {}  # seats that cannot be made again: (field, why)
        #: Built-in seats' beliefs already worked out, by (events so far, seat, probe, about).
        self._answered: dict[tuple[int, int, str, int | None], Any] = {}
        known = strategies()
        for player in header["players"]:
            agent = player["agent"]
            seat = player["seat"]
            where = f"players[{seat}].agent"
            if agent_kind(agent) == "llm":
                try:
                    self.models[seat] = ModelSeat(game, seat, agent, self.seed)
                except Replayed as exc:
                    self.unknown[seat] = (f"{where}.{exc.field}", exc.message)
                continue
            if agent_kind(agent) == "human":
                self.humans.add(seat)
                continue
            if agent_kind(agent) != "builtin":
                continue
            strategy = agent["strategy"]
            if strategy not in known:
                self.unknown[seat] = (f"{where}.strategy",
                                      f"{strategy!r} is not a built-in strategy (`gamenight agents` lists them)")
                continue
            try:
                self.agents[seat] = make(strategy, agent["params"], rng_for(self.seed, f"agent-{seat}"),
                                         agent["name"], game.name)
            except (ValueError, TypeError, KeyError) as exc:  # parameters the strategy does not take
                self.unknown[seat] = (f"{where}.params",
                                      f"the built-in {strategy} cannot be made with these parameters: {exc}")

    def setup(self) -> Difference | None:
        """Where the header's setup differs from the deal of its seed."""
        try:
            dealt = self.game.deal(self.params, rng_for(self.seed, "deal"))
        except SetupError as exc:  # e.g. a card size the shipped content does not have
            return ("variant", f"the runner cannot deal this game from the shipped content ({exc}), so its "
                               "setup does not follow from the seed")
        diff = first_difference(dealt, self.header["setup"])
        if diff is None:
            return None
        where, expected, found = diff
        return (f"setup{where}", f"does not follow from the seed: dealing with seed {self.seed} gives "
                                 f"{show(expected)}, the replay says {show(found)}")

    def game_id(self) -> Difference | None:
        """Where the game id differs from the one the runner gives this tournament, matchup and seed
        (or, with the folder's plan, where the header differs from the plan's game of that id)."""
        if self.planned is not None:
            return planned_difference(self.header, self.planned)
        return id_difference(self.header) or suite_difference(self.header) or verify_difference(self.header)

    def players(self) -> Difference | None:
        """A seat that cannot be made again: a built-in strategy gamenight does not have, a model
        agent that gamenight would describe otherwise or prompt with an unreleased set."""
        for _, difference in sorted(self.unknown.items()):
            return difference
        return None

    def chance_draw(self, pending: Pending, outcome: Any) -> Difference | None:
        """Where a recorded chance outcome differs from the runner's next draw."""
        drawn = self.chance.choice(pending.options)
        if drawn == outcome and type(drawn) is type(outcome):
            return None
        return ("data.outcome", f"the chance draw does not follow from the seed: the runner's generator "
                                f"gives {show(drawn)} here, the replay says {show(outcome)}")

    def move(self, state: State, seat: int, event: Event) -> Difference | None:
        """Where a seat's recorded move differs from the move its strategy makes here (a built-in
        seat), or from what its agent makes of the recorded replies (a model seat)."""
        if seat in self.models:
            pending = state.pending()
            assert pending is not None
            try:
                return self.models[seat].move(self.game, state, pending, event, self.names, self.max_attempts)
            except Replayed as exc:
                return exc.field, exc.message
        agent = self.agents.get(seat)
        if agent is None:
            return None
        if event["kind"] != "action" or event.get("attempts"):
            return ("kind" if event["kind"] != "action" else "attempts",
                    f"seat {seat} plays the built-in {agent.strategy}, which always makes a legal move at once")
        pending = state.pending()
        assert pending is not None
        request = Request(self.game.name, seat, pending.phase, state.observe(seat), state.legal(seat), (),
                          self.names, sample=lambda rng: state.random_action(seat, rng))
        try:
            found = state.check(seat, event["data"])
        except IllegalAction:
            return None  # the rules report the recorded move
        try:
            expected = state.check(seat, agent.decide(request))
        except Exception as exc:  # noqa: BLE001 - a strategy that cannot play this game at all
            return ("data", f"seat {seat} claims the built-in {agent.strategy}, which cannot play this game "
                            f"({type(exc).__name__}: {exc})")
        if expected == found:
            return None
        return ("data", f"seat {seat} plays the built-in {agent.strategy}, which makes the move "
                        f"{show(expected)} here; the replay says {show(found)}")

    def probe(self, state: State, record: Mapping[str, Any]) -> Difference | None:
        """Where a seat's recorded belief differs from what its strategy answers (a built-in seat)
        or what its agent makes of the recorded reply (a model seat)."""
        seat = record["seat"]
        if seat in self.models:
            try:
                return self.models[seat].probe(self.game, state, record, self.names)
            except Replayed as exc:
                return exc.field, exc.message
        agent = self.agents.get(seat)
        if agent is None:
            return None
        about = record["answer"].get("of") if record["answer"] else record.get("about")
        request = ProbeRequest(self.game.name, seat, record["probe"], state.observe(seat), self.game.roles, about,
                               names=self.names)
        try:
            expected = agent.answer_probe(request)
        except Exception as exc:  # noqa: BLE001 - as for moves
            return ("answer", f"seat {seat} claims the built-in {agent.strategy}, which cannot play this game "
                              f"({type(exc).__name__}: {exc})")
        self._answered[(len(state.events), seat, record["probe"], about)] = expected
        if expected == record["answer"]:
            return None
        return ("answer", f"seat {seat} plays the built-in {agent.strategy}, which answers {show(expected)} "
                          f"here; the replay says {show(record['answer'])}")

    def questions(self, state: State, answered: Sequence[tuple[Any, ...]] = ()
                  ) -> list[tuple[int, str, int | None]]:
        """The probes the runner asks here, in its order, that get an answer: (seat, kind, about).

        Every seat is asked what its role does not already answer (`Game.asks`); a model seat
        answers everything, a built-in one what its strategy has a belief about, and a person
        what they chose to answer of it (a person may skip any probe: those in `answered`).
        """
        found = []
        for seat in range(len(self.names)):
            if seat not in self.models and seat not in self.agents and seat not in self.humans:
                continue
            observation = state.observe(seat)
            for kind, about in probe_questions(self.game, state, seat):
                if seat in self.agents and self._belief(state, seat, kind, about, observation) is None:
                    continue
                if seat in self.humans and (seat, kind, about) not in answered:
                    continue
                found.append((seat, kind, about))
        return found

    def _belief(self, state: State, seat: int, kind: str, about: int | None, observation: Mapping[str, Any]) -> Any:
        """A built-in seat's answer to a probe here (from `probe` when it checked the recorded one)."""
        key = (len(state.events), seat, kind, about)
        if key not in self._answered:
            try:
                self._answered[key] = self.agents[seat].answer_probe(ProbeRequest(
                    self.game.name, seat, kind, observation, self.game.roles, about, names=self.names))
            except Exception:  # noqa: BLE001 - a strategy that cannot answer here; expected, so reported
                self._answered[key] = True
        return self._answered[key]

    def finish(self) -> Difference | None:
        """What can only be told at the end: the model id each model seat's header reports."""
        for seat, model in sorted(self.models.items()):
            difference = model.reported()
            if difference:
                return f"players[{seat}].agent.{difference[0]}", difference[1]
        return None
