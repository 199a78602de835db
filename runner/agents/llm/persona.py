"""Big Five persona (the Werewolf paper's B5P design): trait levels turned into a short personality text.

Following the Werewolf paper's recipe: each of the five traits has a level from 1 to 7, where 4 is neutral.
A trait's strength is its distance from 4 (0 to 3). A neutral trait is left out. Otherwise the
persona says how much the agent agrees with one statement about that trait, and lists
as many adjectives from the trait's high or low pole as the trait's strength. Statements and
adjectives are written for gamenight (they are not taken from any questionnaire); a statement
may describe either pole, so agreement reads "agree" when statement and level point the same way.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

TRAITS = ("openness", "conscientiousness", "extraversion", "agreeableness", "neuroticism")
LOW, NEUTRAL, HIGH = 1, 4, 7

#: Per trait: statements describing the high pole, then the low pole.
_STATEMENTS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "openness": (("love exploring unusual ideas", "enjoy imagining how things could be different"),
                 ("prefer the familiar to the new", "find abstract talk tiresome")),
    "conscientiousness": (("plan things carefully before acting", "always finish what you start"),
                          ("often leave things half done", "act first and plan later, if at all")),
    "extraversion": (("enjoy being the centre of attention", "do most of the talking in a group"),
                     ("prefer to stay in the background", "would rather listen than talk")),
    "agreeableness": (("trust people easily", "go out of your way to keep the peace"),
                      ("are quick to find fault in others", "put your own interests first")),
    "neuroticism": (("worry that things will go wrong", "get upset easily"),
                    ("stay calm under pressure", "rarely feel anxious")),
}
#: Per trait: adjectives of the high pole, then of the low pole.
_ADJECTIVES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "openness": (("imaginative", "curious", "inventive", "original"),
                 ("conventional", "practical", "down-to-earth", "literal")),
    "conscientiousness": (("organised", "careful", "disciplined", "thorough"),
                          ("careless", "impulsive", "disorganised", "easy-going")),
    "extraversion": (("outgoing", "talkative", "energetic", "bold"),
                     ("reserved", "quiet", "solitary", "restrained")),
    "agreeableness": (("trusting", "warm", "forgiving", "cooperative"),
                      ("blunt", "suspicious", "competitive", "stubborn")),
    "neuroticism": (("anxious", "touchy", "moody", "tense"),
                    ("calm", "even-tempered", "steady", "relaxed")),
}
#: How strongly the agent agrees, by strength 1..3.
_AGREEMENT = {1: "somewhat", 2: "strongly", 3: "completely"}
#: Adverbs for the adjectives, by strength 1..3.
_ADVERBS = {1: ("a little", "slightly"), 2: ("quite", "rather", "pretty"),
            3: ("extremely", "remarkably", "incredibly")}


def check_levels(params: Mapping[str, Any]) -> dict[str, int]:
    """The trait levels fixed by `design_params`; ValueError naming a bad field."""
    unknown = sorted(set(params) - set(TRAITS))
    if unknown:
        raise ValueError(f"design_params: unknown field(s) {unknown} for design 'b5p'; "
                         f"it takes the trait levels {list(TRAITS)}")
    levels: dict[str, int] = {}
    for trait, value in params.items():
        if isinstance(value, bool) or not isinstance(value, int) or not LOW <= value <= HIGH:
            raise ValueError(f"design_params.{trait}: must be a whole number from {LOW} to {HIGH} "
                             f"({NEUTRAL} is neutral), got {value!r}")
        levels[trait] = value
    return levels


def draw_levels(fixed: Mapping[str, int], rng: random.Random) -> dict[str, int]:
    """Every trait's level: the fixed ones, the rest drawn uniformly from 1..7 in trait order."""
    return {trait: fixed[trait] if trait in fixed else rng.randint(LOW, HIGH) for trait in TRAITS}


def describe(levels: Mapping[str, int], rng: random.Random) -> str:
    """The persona text for these levels (word choices drawn from `rng`)."""
    beliefs: list[str] = []
    manners: list[str] = []
    for trait in TRAITS:
        level = levels[trait]
        strength = abs(level - NEUTRAL)
        if strength == 0:
            continue
        high = level > NEUTRAL
        about_high = rng.random() < 0.5
        statement = rng.choice(_STATEMENTS[trait][0 if about_high else 1])
        verb = "agree" if about_high == high else "disagree"
        beliefs.append(f"You {_AGREEMENT[strength]} {verb} that you {statement}.")
        words = rng.sample(_ADJECTIVES[trait][0 if high else 1], strength)
        manners.append(", ".join(f"{rng.choice(_ADVERBS[strength])} {word}" for word in words))
    if not beliefs:
        return "You are balanced in every respect: no trait stands out in how you speak or decide."
    return " ".join(beliefs) + " You come across as " + "; ".join(manners) + "."
