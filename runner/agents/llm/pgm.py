"""The PGM-aware agent's beliefs (MAgIC, section 4): two-hop suspicion vectors and their update.

In the games with a hidden role (the Chameleon, the Undercover, the Werewolf) a PGM-aware
player B keeps one probability vector per perspective j: B's own view, and B's picture of what
each other player j believes. Entry k of view j is the probability, in that view, that player k
holds the hidden role. After every public move the model says, per view and per player,
whether that player became more suspicious, less suspicious, or neither; a fixed symbolic rule
turns the words into numbers (MAgIC does not state its rule; this one is ours):

    p_k <- p_k * STEP   (more suspicious)      p_k <- p_k / STEP   (less suspicious)

then the view is normalised to sum to 1 over the players it can suspect. A view never suspects
the player who holds it when that player knows their own role (the Chameleon and the
Werewolf: everyone knows their card; in Undercover nobody knows their role, so every view
covers every player). The agent's own view, when the agent holds the hidden role, is certain
(all mass on itself) and never updated: the question is settled for it, and what matters to it
is how the others see it.

In the games without a hidden role (Cost Sharing, the Prisoner's Dilemma, Public Good) the
two-hop state is each player's expected next action from each view: view j holds, for every
player k but j (who knows its own plan), a probability per kind of next move (`NEXT_ACTIONS`).
After every round the model names, per view and player, the likeliest next move; the rule
multiplies that move's probability by STEP and renormalises. MAgIC describes this state (in the
Prisoner's Dilemma: whether each player will cooperate, and how they think the agent will
decide) but not a rule; this one is ours, the same for both kinds of state.

Which role a game hides, whether its players are told their own, and which public moves are
rated are the game's facts (`FACTS.hidden`, runner/games/facts.py). Pure functions only: the
design module makes the calls and keeps the state.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from runner import games
from runner.games.facts import HiddenRole

#: The factor of one step of suspicion (a design parameter, `step`).
DEFAULT_STEP = 1.25
#: The words a model rates with, and the direction each one moves a probability.
CHANGES = {"more": 1, "less": -1, "same": 0}
_SYNONYMS = {"more suspicious": "more", "less suspicious": "less", "no change": "same", "unchanged": "same",
             "same": "same", "more": "more", "less": "less"}

Views = list[list[float]]  # views[j][k]: in view j, the probability that player k holds the role


def hidden_role(game: str) -> HiddenRole | None:
    """The role the game's PGM suspicion is about (None: a game without one)."""
    return games.facts_of(game).hidden


def _knows_own_role(game: str) -> bool:
    """Whether a player of the game knows their own role (and so never suspects themselves)."""
    hidden = hidden_role(game)
    return hidden is not None and hidden.told


def is_rated_move(game: str, event: Mapping[str, Any]) -> bool:
    """Whether a visible event is a public move that the PGM views are updated after (a clue, a statement)."""
    hidden = hidden_role(game)
    return (event.get("kind") == "action" and isinstance(event.get("seat"), int)
            and hidden is not None and event.get("phase") in hidden.talk)


def has_hidden_role(game: str) -> bool:
    """Whether the game's PGM state is a suspicion matrix (else it is expected next moves)."""
    return hidden_role(game) is not None


def holds_hidden_role(game: str, private: Mapping[str, Any]) -> bool | None:
    """Whether the seat knows it holds the hidden role (None: it cannot know, as in Undercover)."""
    hidden = hidden_role(game)
    if hidden is None or not hidden.told:
        return None
    return private.get("role") == hidden.role


def suspects(game: str, view: int, n: int) -> list[int]:
    """The players view `view` can suspect: everyone but its holder when roles are known."""
    return [k for k in range(n) if k != view or not _knows_own_role(game)]


def initial(game: str, seat: int, n: int, hidden: bool | None) -> Views:
    """Uniform views over the players each can suspect; the hidden agent's own view is certain."""
    views = []
    for j in range(n):
        if j == seat and hidden:
            views.append([1.0 if k == seat else 0.0 for k in range(n)])
            continue
        if j == seat and hidden is False:
            pool = [k for k in range(n) if k != seat]  # it knows it is not the hidden one
        else:
            pool = suspects(game, j, n)
        views.append([1.0 / len(pool) if k in pool else 0.0 for k in range(n)])
    return views


def view_order(seat: int, n: int) -> list[int]:
    """The views in the order prompts and records show them: the agent's own, then the others'."""
    return [seat, *(j for j in range(n) if j != seat)]


def rated_views(seat: int, n: int, hidden: bool | None) -> list[int]:
    """The views the model is asked to update: its own first (unless settled), then the others'."""
    order = view_order(seat, n)
    return order[1:] if hidden else order


def rated_players(views: Views, view: int) -> list[int]:
    """The players a view rates: those it can still suspect (probability above zero)."""
    return [k for k, p in enumerate(views[view]) if p > 0.0]


def update(views: Views, changes: Mapping[int, Mapping[int, int]], step: float = DEFAULT_STEP) -> Views:
    """The views after one move: each rated probability times step**change, each view renormalised.

    `changes[j][k]` is +1, -1 or 0; views or players left out keep their probabilities; a
    player a view has ruled out (probability 0) stays ruled out.
    """
    out = []
    for j, view in enumerate(views):
        moved = [p * step ** changes.get(j, {}).get(k, 0) if p > 0.0 else 0.0 for k, p in enumerate(view)]
        total = sum(moved)
        out.append([p / total for p in moved] if total > 0 else list(view))
    return out


def most_suspected(view: Sequence[float], besides: int) -> int:
    """The player a view suspects most, `besides` excluded (ties: the lowest seat)."""
    return max((k for k in range(len(view)) if k != besides), key=lambda k: (view[k], -k))


def target(views: Views, seat: int, hidden: bool | None) -> int:
    """Whom the decision aims at, as MAgIC's PGM decision prompt does: a player who does not hold
    the hidden role pushes the suspicion on the player it suspects most; the hidden one works on
    the player who suspects it most (in the agent's picture of the others' views)."""
    if hidden:
        others = [j for j in range(len(views)) if j != seat]
        return max(others, key=lambda j: (views[j][seat], -j))
    return most_suspected(views[seat], seat)


def change_of(word: Any) -> int | None:
    """+1, -1 or 0 for a rating word ("more", "less suspicious", "no change", ...); None if unknown."""
    if not isinstance(word, str):
        return None
    key = _SYNONYMS.get(" ".join(word.lower().replace("_", " ").split()))
    return None if key is None else CHANGES[key]


def record(views: Views, after: int | None, read: bool) -> dict[str, Any]:
    """One update as the replay records it: the views after event `after`, and whether the
    model's ratings could be read (if not, the views are unchanged)."""
    return {"after": after, "read": read, "views": [list(v) for v in views]}


# -- the games without a hidden role: expected next actions -------------------------------------

#: The kinds of next move each game-theory game's views weigh.
NEXT_ACTIONS = {"prisoners_dilemma": ("cooperate", "defect"),
                "public_good": ("nothing", "some", "most"),
                "cost_sharing": ("concede", "hold")}
#: What each kind of move means, for the prompts.
ACTION_MEANINGS = {
    "public_good": "nothing: contribute 0; some: less than half of what one holds; most: half or more",
    "cost_sharing": "concede: move towards the others' proposals or vote for one of them; hold: keep its own",
}
#: The public results after which the expectations are updated: the end of each round.
RESULT_PHASES = {"prisoners_dilemma": "round_result", "public_good": "round_result", "cost_sharing": "vote_result"}

Expectations = list[list[list[float] | None]]  # views[j][k]: j's expected distribution of k's next move


def has_expectations(game: str) -> bool:
    return game in NEXT_ACTIONS


def is_round_result(game: str, event: Mapping[str, Any]) -> bool:
    """Whether a visible event ends a round, after which the expectations are updated."""
    return event.get("kind") == "info" and event.get("phase") == RESULT_PHASES.get(game)


def initial_expectations(game: str, n: int) -> Expectations:
    """Every view uniform over the next moves of every player but its holder."""
    actions = NEXT_ACTIONS[game]
    return [[None if k == j else [1.0 / len(actions)] * len(actions) for k in range(n)] for j in range(n)]


def expect(views: Expectations, named: Mapping[int, Mapping[int, int]], step: float = DEFAULT_STEP) -> Expectations:
    """The views after one round: in view j, the move named for player k (an index into the
    game's moves) has its probability multiplied by `step`, then k's distribution is renormalised.
    Views or players not named are unchanged."""
    out: Expectations = []
    for j, view in enumerate(views):
        row: list[list[float] | None] = []
        for k, dist in enumerate(view):
            if dist is None or k not in named.get(j, {}):
                row.append(None if dist is None else list(dist))
                continue
            moved = [p * (step if a == named[j][k] else 1.0) for a, p in enumerate(dist)]
            total = sum(moved)
            row.append([p / total for p in moved])
        out.append(row)
    return out
