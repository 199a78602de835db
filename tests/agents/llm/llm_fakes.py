"""In-process fake chat models for the LLM agent's tests: scripted replies, or legal answers read
from the prompt the way a model would (the answer format line and the "Choose one of:" options)."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Sequence
from typing import Any

from runner.llm.types import Completion, Message, ModelSettings

SETTINGS = ModelSettings(provider="openai", model="fake-model", temperature=0.0, max_tokens=400, seed=7)
#: Clue words the legal fake picks from: none of them is a word of the shipped content it avoids.
FILLERS = ("zephyr", "quixotic", "marmalade", "bramble", "lantern", "velvet", "cobalt", "meadow",
           "thimble", "saffron", "gondola", "nimbus")


def reply(text: str | None, *, finish: str = "stop", model: str = "fake-model-2025", error: str | None = None,
          tokens: tuple[int, int] = (100, 20), lasting: bool = False) -> Completion:
    """A Completion as the provider layer would return it."""
    if error is not None:
        return Completion(None, None, None, None, None, latency_ms=5.0, error=error, retries=2, lasting=lasting)
    return Completion(text, finish, model, tokens[0], tokens[1], latency_ms=12.5)


class FakeModel:
    """A ChatModel whose replies come from `script(messages, call_index)`; it records every call."""

    def __init__(self, script: Callable[[list[Message], int], Completion | str], settings: ModelSettings = SETTINGS):
        self.script = script
        self.settings = settings
        self.calls: list[list[Message]] = []

    async def complete(self, messages: Sequence[Message], schema: Any = None) -> Completion:
        self.calls.append(list(messages))
        out = self.script(list(messages), len(self.calls) - 1)
        return reply(out) if isinstance(out, str) else out


def scripted(*outputs: Completion | str) -> FakeModel:
    """A fake that returns `outputs` in order."""
    queue = list(outputs)
    return FakeModel(lambda messages, i: queue[i])


def legal_model(rng: random.Random | None = None) -> FakeModel:
    """A fake that answers every gamenight prompt with a well-formed, legal-looking answer."""
    draw = rng or random.Random(0)
    return FakeModel(lambda messages, i: legal_reply(messages, draw))


_FORMAT = re.compile(r"^ANSWER: (\{.*\})", re.MULTILINE)
_CHOOSE = re.compile(r"Choose (one|two) of(?: the card's words)?: (.*)\.\s*$", re.MULTILINE)


#: The answer as prompt set 4 on describes it: "... ANSWER: followed by a JSON object with ...".
_DESCRIBED = re.compile(r"(?:ANSWER: followed by|Reply with only) (a JSON object .*?)\.(?= Write nothing| Put one|$)",
                        re.DOTALL)
_VIEW = re.compile(r'^- (?:your own view|the view of .+?) \("([^"]+)"\): (?:rate )?(.+)$', re.MULTILINE)


def legal_reply(messages: Sequence[Message], rng: random.Random) -> str:
    """What a cooperative model would answer to the last question in `messages`."""
    prompt = next(m.content for m in reversed(messages) if m.role == "user")
    described = _DESCRIBED.findall(prompt)
    if described:
        return described_reply(described[-1], prompt, messages, rng)
    formats = _FORMAT.findall(prompt)
    if not formats:
        return "As I see it, nobody has shown their hand yet; I will keep watching everyone."
    shape = formats[-1]
    if '"<more, less or same>"' in shape:  # a PGM update: a word per player of every view
        views = json.loads(shape.replace('"<more, less or same>"', '"same"'))
        words = {view: {who: rng.choice(["more", "less", "same"]) for who in rated} for view, rated in views.items()}
        return "Some clues fit better than others.\nANSWER: " + json.dumps(words)
    moves = re.search(r'": \{"[^"]+": "<(\w+(?: or \w+)+)>"', shape)
    if moves and '"p": <' not in shape:  # a PGM update of expected next moves: a move per player of every view
        options = moves.group(1).split(" or ")
        views = json.loads(re.sub(r'"<\w+(?: or \w+)+>"', '"x"', shape))
        return "ANSWER: " + json.dumps({v: {who: rng.choice(options) for who in rated} for v, rated in views.items()})
    if '"p": <0.01 to 1.00>' in shape:  # a Judgement: the players listed in the question
        roles = re.search(r'"role": "<(.+?)>"', shape).group(1).split(" or ")
        asked = re.search(r"For each of (.+?): which role", prompt).group(1)
        names = [n.removesuffix(" (you)") for n in asked.split(", ")]
        return "ANSWER: " + json.dumps({n: {"role": rng.choice(roles), "p": round(rng.uniform(0.2, 0.9), 2)}
                                        for n in names})
    if shape.startswith('{"plan"'):
        return 'ANSWER: {"plan": "Keep calm, watch the others and answer plainly."}'
    choose = _CHOOSE.findall(prompt)
    options = json.loads("[" + choose[-1][1].split(". ")[0] + "]") if choose else []
    key = shape.split('"')[1]
    if key in ("vote", "accuse", "proposal", "seat", "choice", "guess", "role", "strategy", "word"):
        value: object = rng.choice(options)
    elif key == "look":
        value = rng.sample(options, 2)
    elif key == "clue" and '["' in shape:
        value = None
    elif key == "clue":
        words = set(re.findall(r"\w+", " ".join(m.content for m in messages).casefold()))
        value = next(w for w in FILLERS if w not in words)
        if "one line" in shape:
            value = f"It makes me think of {value}"
    elif key == "text":
        value = "I am a simple villager and I will listen carefully before I vote."
    elif key == "split":
        value = [34, 33, 33]
    elif key == "contribution":
        top = int(re.search(r"to (\d+)>", shape).group(1))
        value = rng.randint(0, top)
    else:  # the favor ratings: rate the players the format line names
        names = re.findall(r'"([^"]+)": <1 to 10>', shape)
        return "They seem fair so far.\nANSWER: " + json.dumps({n: rng.randint(1, 10) for n in names})
    return f"Let me think about this briefly.\nANSWER: {json.dumps({key: value})}"


def described_reply(shape: str, prompt: str, messages: Sequence[Message], rng: random.Random) -> str:
    """A legal answer to a question whose answer is described in words (prompt set 4 on), read
    from the description and the question as a model reads them."""
    def quoted_after(marker: str) -> list[str]:
        return re.findall(r'"([^"]+)"', shape.split(marker, 1)[1])

    if "a field for each view listed above" in shape:  # a PGM update: per listed view, a word per player
        words = quoted_after(" holding ")
        views = {holder: [n.removesuffix(" (you)") for n in rated.split(", ")] for holder, rated in _VIEW.findall(prompt)}
        return "ANSWER: " + json.dumps({v: {who: rng.choice(words) for who in rated} for v, rated in views.items()})
    if "a field for each other player you judge" in shape:
        roles = re.findall(r'"([^"]+)"', shape.split('"role",', 1)[1].split(', and "p"', 1)[0])
        asked = re.search(r"For each of (.+?): which role", prompt).group(1)
        names = [n.removesuffix(" (you)") for n in asked.split(", ")]
        return "ANSWER: " + json.dumps({n: {"role": rng.choice(roles), "p": round(rng.uniform(0.2, 0.9), 2)}
                                        for n in names})
    if "a field for each player you rate" in shape:  # the favor ratings: every player the system prompt names
        system = messages[0].content
        names = _players(system)
        me = re.match(r"You (?:are|represent) (.+?), one of", system).group(1)
        return "They seem fair so far.\nANSWER: " + json.dumps({n: rng.randint(1, 10) for n in names if n != me})
    key = re.search(r'with one field, "(\w+)":', shape).group(1)
    choose = _CHOOSE.findall("\n".join(m.content for m in messages if m.role == "user"))  # a re-ask: the question
    options = json.loads("[" + choose[-1][1].split(". ")[0] + "]") if choose else []
    if key == "plan":
        return 'ANSWER: {"plan": "Keep calm, watch the others and answer plainly."}'
    if key in ("choice", "role") and not options:
        options = quoted_after(f'"{key}":')
    if key in ("vote", "accuse", "proposal", "seat", "choice", "guess", "role", "word"):
        value: object = rng.choice(options)
    elif key == "look":
        value = rng.sample(options, 2)
    elif key == "clue" and "a list of the card's words" in shape:
        value = None
    elif key == "clue":
        seen = set(re.findall(r"\w+", " ".join(m.content for m in messages).casefold()))
        value = next(w for w in FILLERS if w not in seen)
        if "one line" in shape:
            value = f"It makes me think of {value}"
    elif key == "text":
        value = "I am a simple villager and I will listen carefully before I vote."
    elif key == "split":
        value = [34, 33, 33]
    else:  # a contribution
        low, top = map(int, re.search(r"whole number from (\d+) to (\d+)", shape).groups())
        value = rng.randint(low, top)
    return f"Let me think about this briefly.\nANSWER: {json.dumps({key: value})}"


def _players(system: str) -> list[str]:
    """Every player's name, from the first line of the rules."""
    listed = re.search(r"The players, in seat order, are (1\. .+?)\.\n", system)
    if listed:
        return [re.sub(r"^\d+\. ", "", part) for part in listed.group(1).split(", ")]
    listed = re.search(r"(?:The players(?:, in seat order,)? are |\()(.+?)(?:\.\n|\))", system)
    return [p.strip() for p in re.split(r", | and ", listed.group(1)) if p.strip()]


def prompts_of(model: FakeModel) -> list[str]:
    """Every message text the fake was sent."""
    return [m.content for call in model.calls for m in call]
