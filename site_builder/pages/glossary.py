"""The Glossary page: every term a table header or metric name uses, explained in a line."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from site_builder.pages.page import Page
from site_builder.scoring import ratings

#: Every term a table header or metric name uses, explained in a line: the "?" buttons show these
#: (tap or keyboard, not hover only) and the Glossary page lists them all. Order: the Glossary's.
GLOSSARY: dict[str, tuple[str, str]] = {
    "rank": ("Game rank", "The place on this game's board: by its rating, or for a cooperative game by its seat win "
                          "rate. In "
                     "brackets, the range of places the table allows at 95% for the whole table at once: \"2 (1-4)\" "
                     "means second, but the data cannot tell it from first or fourth. No place is claimed between "
                     "agents the games cannot compare (seen in no common role, say). An agent rated on fewer than "
                     f"{ratings.MIN_GAMES} games is provisional and has no place, and one that forfeited every game "
                     "is listed apart, below the board. A contributor's row, marked *, gets the place it would take "
                     "among the maintainers' rows."),
    "rank_across": ("Exhibition rank", "The place on the exhibition board: by the rating over every rated game, "
                                       "each weighing the same, "
                                         "among the agents that played all of them, forfeited at most half their "
                                         f"games and were rated on at least {ratings.MIN_GAMES}; in brackets, the "
                                         "range of places the table allows at 95% for the whole table at once. Any "
                                         "other agent has no rank here (it says why): its games' tables rank it."),
    "tier": ("Tier", "Rows the ranked board cannot yet tell apart share a tier: a new tier starts below a row only "
                     "where the next row is surely below it, a claim that holds together with every other claim "
                     "of the table at 95% and stays true however many stages are added."),
    "ranked_rank": ("Ranked place", "The place on the ranked board (the headline), by score among the "
                                    "maintainers' rows and those they verified; in "
                                    "brackets, the best and worst place the board's claims allow. \"Surely above\" "
                                    "is claimed only where it holds for the whole table at once, at 95%, and at every "
                                    "number of stages: looking again after each stage or merge does not make a false "
                                    "claim likelier. A self-reported row (not yet verified) is listed under them with "
                                    "the place it would take, and its range from its own comparisons with them."),
    "verified": ("Held-out score", "The score the maintainers measured when they verified the row: its model (the "
                                   "same provider, model and settings) played deals of the suite nobody could play "
                                   "in advance, their seeds drawn from a secret the maintainers committed to before. "
                                   "Consistent: the two scores differ by no more than chance would make them differ "
                                   "in 99 of 100 honest rows. Exact: deals of the row played again gave every reply "
                                   "byte for byte."),
    "ranked_score": ("Ranked score", "The mean over the suite's games of the row's deal values: 1 a win, 0 a loss or a "
                              "forfeit, and in between where the game keeps a score (the Prisoner's Dilemma and "
                              "Public Good: the seat's points over the best seat's; The Chameleon and Undercover: "
                              "MAgIC's credit). Its 95% interval covers the truth at least 93 times in 100 from one "
                              "stage on, as simulated boards measure it (methodology: the ranked board)."),
    "rating": ("Rating", "A skill rating on the Elo scale, fitted to every game's ranking of the agents in it "
                         "(Bradley-Terry, with an advantage per role taken out): 400 points more means 10-to-1 "
                         "odds of ranking higher, and an agent about which nothing is known sits at 1000: one "
                         "virtual draw against 1000 pulls every rating toward it, a large share of the way for an "
                         "agent of few games (provisional below " + str(ratings.MIN_GAMES) + "). The interval is a "
                         "95% bootstrap over games."),
    "win_rate": ("Win Rate", "MAgIC's win rate: the credit an agent earned over the most it could earn, over "
                             "the roles it played."),
    "seat_win_rate": ("Seat win rate", "The share of an agent's seats that were among the winners; shared wins "
                                       "count for every tied seat."),
    "forfeit_rate": ("Forfeit rate", "The share of its games an agent lost by never producing a legal move "
                                     "after the allowed re-asks."),
    "reask_rate": ("Re-ask rate", "The share of an agent's decisions that needed more than one attempt."),
    "placeholders": ("Copied placeholders", "The share of a language-model agent's free-text moves (clues and "
                                            "statements) that copy the answer form instead of playing: its "
                                            "placeholder (\"<your clue, one line>\"), a template in brackets, or "
                                            "a sentence of the prompt's own instructions. From prompt set 4 on "
                                            "such a move is refused and asked again; older games keep theirs."),
    "games": ("Games", "Complete games the agent played, and the games it forfeited."),
    "complete": ("Complete game", "A game no seat forfeited: every player produced a legal move at every turn "
                                  "(within the allowed re-asks). A forfeited game is kept: it is a loss of the "
                                  "seats of the agent that forfeited, and counts in the complete-game ratio."),
    "accepted": ("Accepted replay", "A replay file that passes every check: the format, the rules engine "
                                    "re-deriving every move and outcome, and the deal derived again from its "
                                    "seed (gamenight validate says the same). A replay that fails one is left "
                                    "out of every table, naming the file, line and field."),
    "forfeited_all": ("Forfeited every game", "An agent that forfeited every game of a board never played "
                                              "there: it has no place and is listed apart, below the board."),
    "self_play": ("Self-play", "Every game of this row had the agent in every seat, playing itself. Such "
                               "games rate nothing (no other agent to compare with), so the row has no "
                               "rank; its win rate only says how the game's roles fare."),
    "interval": ("95% interval", "The range the value would fall in 95 times out of 100 if the games were "
                                 "played again: Wilson intervals for rates, bootstrap intervals otherwise. "
                                 "[n = 3] means too few observations to say more; [no spread] that every "
                                 "resample gave the same value."),
    "judgement": ("Judgement", "How often the agent's vote names the hidden player (the chameleon or the "
                               "undercover)."),
    "reasoning": ("Reasoning", "How often its private answers about who holds the hidden role, what others "
                               "suspect, or the secret word are right."),
    "deception": ("Deception", "How often it wins while holding the hidden role, and how often its clues lead "
                               "the chameleon to a wrong guess."),
    "self_awareness": ("Self-awareness", "How often it names its own role right when it is not told it "
                                         "(Undercover)."),
    "cooperation": ("Cooperation", "How often the airline negotiations it takes part in end in agreement."),
    "coordination": ("Coordination", "How often the agreed split is the one it proposed."),
    "rationality": ("Rationality", "How often it makes the self-interested move: defecting in the Prisoner's "
                                   "Dilemma, contributing the least in Public Good."),
    "provider": ("Provider", "Who served the agent: a language-model API, or builtin for a scripted strategy."),
    "design": ("Design", "How an agent thinks before it moves: vanilla, or one of the papers' designs (pgm, "
                         "b5p, favor, strategy)."),
    "cost_per_game": ("Cost / game", "What a model row's games cost on average, in US dollars: every token its "
                                     "replays record (input, input read from and written to the provider's "
                                     "prompt cache, output) at the list prices of the maintainers' price table. "
                                     "\"local\": a model served from the machine that played its games, which has no "
                                     "token price; \"no price\": a model the table does not price."),
}


def pages(ctx: Mapping[str, Any]) -> list[Page]:
    return [Page("glossary.md", "glossary.md.j2", nav=("Glossary",))]
