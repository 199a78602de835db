"""The strategy notes of the Strategy Decision design (the Werewolf paper), per game, role and kind of move.

The Werewolf paper gives its Werewolf agents a small database of strategies per role, which the Strategy phase
reads before it writes its plan; gamenight has one in every game, for every move that is
speaking (a clue, a statement, a proposal) or voting (a vote, a choice, a contribution). The
Chameleon's second-chance guess and the Seer's night look are neither, so they get none.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from runner import games


@dataclass(frozen=True)
class Strategy:
    """One named way to play the next move."""

    name: str
    text: str


def _menu(*items: tuple[str, str]) -> tuple[Strategy, ...]:
    return tuple(Strategy(name, text) for name, text in items)


_CHAMELEON_CLUE = {
    "non_chameleon": _menu(
        ("subtle", ("Give a clue that only someone who knows the secret word would recognise, "
                    "and that fits several card words for anyone who does not.")),
        ("clear", ("Give a fairly specific clue so that the other informed players trust you at once, "
                   "accepting that it helps the chameleon a little.")),
        ("bait", ("Give a clue that fits the secret word but also points towards a different card word, "
                  "and watch who follows the wrong lead.")),
    ),
    "chameleon": _menu(
        ("echo", "Follow the theme of the clues already given, so that your clue sounds like theirs."),
        ("broad", "Give a broad clue that fits many words of the card, so that it cannot be shown wrong."),
        ("commit", "Bet on the word you find most likely to be the secret and give a natural clue for it."),
    ),
}
_CHAMELEON_VOTE = {
    "non_chameleon": _menu(
        ("odd_clue", "Vote for the player whose clue fits the secret word least."),
        ("vague_clue", "Vote for the player whose clue was vaguest, as if written without knowing the word."),
        ("with_the_table", "Vote for the player the others most likely suspect, so that the votes do not split."),
    ),
    "chameleon": _menu(
        ("frame", "Vote for the informed player whose clue looks weakest, to pull suspicion towards them."),
        ("with_the_table", "Vote for the player the others most likely suspect, to look like one of them."),
    ),
}
_UNDERCOVER_CLUE = _menu(
    ("describe", "Describe your own word faithfully but not too plainly."),
    ("stay_vague", "Stay general until you know whether your word is the odd one out."),
    ("blend", "Describe what the majority seems to be describing, in case your word is the odd one."),
    ("contrast", "Give a clue that fits your word but clearly not the word you suspect the odd player has."),
)
_UNDERCOVER_VOTE = _menu(
    ("odd_one_out", "Vote for the player whose clues fit the shared word least."),
    ("with_the_table", "Vote for the player the others most likely suspect, so that the votes do not split."),
    ("shield", "If you think you are the undercover, vote for a civilian who already looks suspicious."),
)
_WEREWOLF_TALK = {
    "seer": _menu(
        ("claim_seer", "Say that you are the Seer and share what you learned at night."),
        ("hide_role", "Keep your role to yourself for now, listen, and ask questions."),
        ("pose_villager", "Claim to be a Villager and watch how the others react to your hints."),
        ("expose_fake_seer", "Point out that another player who claims to be the Seer is lying."),
    ),
    "mason": _menu(
        ("confirm_pair", "Say that you are a Mason and name your fellow Mason, so that you vouch for each other."),
        ("hide_role", "Keep your role to yourself for now, listen, and ask questions."),
        ("press_suspect", "Press the player you find most suspicious with pointed questions."),
    ),
    "villager": _menu(
        ("claim_villager", "Say honestly that you are a Villager and reason openly about the others' claims."),
        ("press_suspect", "Press the player you find most suspicious with pointed questions."),
        ("cross_check", "Compare the role claims made so far and point out any that cannot all be true."),
    ),
    "werewolf": _menu(
        ("pose_villager", "Claim to be a Villager and sound helpful."),
        ("fake_seer", "Claim to be the Seer with an invented night result that points at someone else."),
        ("deflect", "Steer suspicion onto a talkative or inconsistent player."),
        ("low_profile", "Say little of substance, agree with the majority and stay out of sight."),
    ),
    "minion": _menu(
        ("pose_villager", "Claim to be a Villager and sound helpful."),
        ("fake_seer", "Claim to be the Seer with an invented night result, to confuse the village."),
        ("draw_fire", "Act suspicious on purpose: if you are voted out, your team still wins."),
    ),
    "tanner": _menu(
        ("act_suspicious", "Contradict yourself a little and dodge questions so that the others come to suspect you."),
        ("fake_seer", "Make a shaky Seer claim that the real Seer is likely to dispute."),
        ("claim_werewolf", "Hint or claim outright that you are the Werewolf."),
    ),
}
_WEREWOLF_VOTE = {
    "village": _menu(
        ("top_suspect", "Vote for the player you most believe is the Werewolf."),
        ("trust_the_seer", "Vote as the most credible Seer claim suggests."),
        ("with_the_table", "Vote with the emerging majority, so that the village's votes do not split."),
    ),
    "werewolf": _menu(
        ("frame_villager", "Vote for a village player who already draws suspicion, but not a likely Tanner."),
        ("with_the_table", "Vote with the emerging majority, unless it points at the Werewolf."),
    ),
    "tanner": _menu(
        ("split_votes", "Vote so that the votes stay spread out, leaving room for yourself to be the most voted."),
        ("with_the_table", "Vote with the emerging majority so as not to look strategic."),
    ),
}
_COST_SHARING = {
    "propose": _menu(
        ("fair_share", "Propose the split that matches each airline's use of the airport."),
        ("anchor_low",
         "Propose that your airline pays somewhat less than its fair share, leaving room to concede later."),
        ("concede", "Move your proposal towards what the other airlines proposed last round."),
        ("back_a_proposal", "Repeat the proposal that seems closest to winning everyone's vote."),
    ),
    "vote": _menu(
        ("cheapest_for_me", "Vote for the proposal under which your airline pays least."),
        ("most_likely_agreed",
         "Vote for the proposal the others are most likely to vote for, so that the game is settled."),
        ("fairest", "Vote for the proposal closest to each airline's use of the airport."),
    ),
}
_PRISONERS_DILEMMA = _menu(
    ("build_trust", "Cooperate to show good faith and encourage the others to cooperate."),
    ("reciprocate", "Do what the others did last round: cooperate if they both did, otherwise defect."),
    ("exploit", "Defect while the others are likely to cooperate, to gain the most points."),
    ("protect", "Defect because you expect the others to defect."),
)
_PUBLIC_GOOD = _menu(
    ("free_ride", "Contribute little or nothing and keep your points."),
    ("match", "Contribute about what the others contributed on average last round."),
    ("generous", "Contribute generously to grow the pool everyone shares."),
    ("taper", "Contribute early to encourage the others, then less and less as the end nears."),
)


def menu(game: str, phase: str, private: Mapping[str, Any]) -> tuple[Strategy, ...]:
    """The strategies offered before this move; empty when the move is neither speaking nor voting."""
    role = private.get("role")
    if game == "chameleon" and phase in ("clue", "vote"):
        table = _CHAMELEON_CLUE if phase == "clue" else _CHAMELEON_VOTE
        return table.get(str(role), ())
    if game == "undercover":
        return {"clue": _UNDERCOVER_CLUE, "vote": _UNDERCOVER_VOTE}.get(phase, ())
    if game == "werewolf" and phase == "day":
        return _WEREWOLF_TALK.get(str(role), ())
    if game == "werewolf" and phase == "vote":
        return _WEREWOLF_VOTE.get(str(private.get("team")), ())
    if game == "cost_sharing":
        return _COST_SHARING.get(phase, ())
    if game == "prisoners_dilemma" and phase == "choose":
        return _PRISONERS_DILEMMA
    if game == "public_good" and phase == "contribute":
        return _PUBLIC_GOOD
    return ()


#: How the coming move is announced in the strategy prompt.
SITUATIONS = {
    "clue": "You are about to give your clue.",
    "vote": "You are about to vote.",
    "day": "You are about to make your statement.",
    "propose": "You are about to propose a split of the fee.",
    "choose": "You are about to choose whether to cooperate or defect.",
    "contribute": "You are about to decide your contribution.",
}


def judged_roles(game: str) -> tuple[str, ...]:
    """The roles a Judgement names (the Werewolf paper's Judgement phase): every role of a game that
    hides one (its FACTS.hidden), none in the others."""
    return games.get(game).roles if games.facts_of(game).hidden is not None else ()


def judgement_lines(judged: Mapping[int, tuple[str, float]] | None, names: tuple[str, ...], game: str,
                    private: Mapping[str, Any]) -> list[str]:
    """The Judgement as the Werewolf paper's Strategy prompt words it: "X has a 85% chance to be a werewolf, which
    is your opponent" (teammate or opponent said only where a seat is told its team: Werewolf)."""
    teams = games.facts_of(game).teams
    lines = []
    for seat, (role, p) in sorted((judged or {}).items()):
        line = f"{names[seat]} has a {p * 100:.0f}% chance to be {role.replace('_', '-')}"
        if teams and private.get("team"):
            side = "your teammate" if teams.get(role) == private["team"] else "your opponent"
            line += f", who would be {side}"
        lines.append(line)
    return lines
