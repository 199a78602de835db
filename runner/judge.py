"""The Werewolf paper's LLM-judge evaluations of finished Werewolf games, appended to the replays.

For each valid, complete Werewolf replay the judge is asked for one engagement, one wonder and
one attraction score (1-10) of the whole game, the who-is-what mentions of each round's
statements (variation), the k = 10 most memorable statements (memorability) — the Werewolf paper's EWAVM — and,
per round, whom each player's statement points at as the Werewolf (suspicion: the votes of the Werewolf paper's
Judgement Variation). Each evaluation becomes one `judge` line after the outcome
(docs/replay-format.md, "Judge annotations"), a failed one too, with why it failed. The game lines
are kept byte for byte; the file is rewritten atomically; evaluations the same judge already made
or tried are not asked again (unless failed ones are retried), so an interrupted run resumes.

Every question about one game starts with the same text (the rules and the whole dialog) and ends
with what it asks, so a server that keeps its prompt cache (llama.cpp does) reads a game once.

The judge asks for its answers as the players do: with the agent's `structured_output` mode, a
JSON Schema per question constrains the reply (enums of the game's names, roles and statement
numbers; a score from 1 to 10); without it, the reply ends with an `ANSWER:` line. Either way the
reply is read by the players' strict reader (runner/agents/llm/parse.py: code fences and
`<think>` blocks as real models write them, a cut-off reply refused), then checked against the
game. Each evaluation that could not be recorded is counted per game with why: cut off, refused,
unparseable, or the call failed.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from runner.agents.llm.formats import AnswerStyle
from runner.agents.llm.parse import ParseError
from runner.agents.llm.parse import answer_object as parsed_answer
from runner.agents.llm.schemas import without_reasoning
from runner.games.werewolf import PLAYERS, ROLES
from runner.llm.types import Message
from runner.plan import AgentSpec
from runner.replay.format import JUDGE_DIMENSIONS, dumps, lowest_version, write_atomic
from runner.rerun.validate import check_bytes
from runner.run import Usage, connections_for

#: The dimensions, in the order their lines are appended: The Werewolf paper's EWAVM, then the suspicions read
#: for Judgement Variation.
DIMENSIONS = JUDGE_DIMENSIONS
#: The dimensions asked once per round of statements.
PER_ROUND = ("variation", "suspicion")
#: How many statements the memorability evaluation asks for (the Werewolf paper's k).
HIGHLIGHTS = 10
#: Calls per evaluation before it is given up (the first ask and its re-asks).
MAX_ASKS = 3
#: Recorded in the judge's description: changing the prompts makes a new judge. ewavm-2: the
#: answer is asked for in the agent's structured-output mode, or as an ANSWER line read leniently
#: about its surroundings (fences, emphasis, prose after it), like the players' answers.
#: ewavm-3: one system prompt and the whole dialog first in every question (a shared prefix for
#: the server's prompt cache), roles named after the dialog where a question uses them, the
#: question last; the suspicion question; a mention's schema cannot name its speaker as target.
PROMPT_VERSION = "ewavm-3"
#: Most who-is-what mentions one round's schema allows (one per speaker; a guard against a
#: constrained decoder looping, not a rule: the format takes more).
MAX_MENTIONS = PLAYERS
#: What a suspicion answer says for a statement that points at no one.
NOBODY = "nobody"
#: Why an evaluation was not recorded, as the report words it.
FAILURES = {"cut_off": "cut off", "refused": "refused", "unparseable": "unparseable", "call_failed": "call failed"}
#: The failures recorded in the replay (the judge's own answers); a failed call is the provider's
#: trouble, not the judge's, and is asked again by the next run.
RECORDED_FAILURES = ("cut_off", "refused", "unparseable")
#: How replies that decline the task begin (OpenAI sends a refusal as the reply's text).
_REFUSAL = re.compile(r"^\W*(I'?m sorry|I am sorry|I can(?:no|')t|I cannot|I won'?t|I will not|I'?m unable|"
                      r"I am unable|I'?m not able|As an AI)\b", re.IGNORECASE)
# Description fields that do not change who the judge is (see `judge_identity`).
_NOT_IDENTITY = ("name", "model_reported")


@dataclass(frozen=True)
class Statement:
    """One `day` statement of a replay."""

    n: int
    seat: int
    round: int
    speaker: str
    role: str
    text: str
    first_of_round: bool

    @property
    def quoted(self) -> str:
        return json.dumps(self.text, ensure_ascii=False)


@dataclass(frozen=True)
class Task:
    """One evaluation to ask for: a dimension, and the round for variation."""

    dimension: str
    round: int | None = None

    @property
    def label(self) -> str:
        return self.dimension if self.round is None else f"{self.dimension} of round {self.round}"


@dataclass
class GameToJudge:
    """A valid, complete Werewolf replay, read for judging."""

    path: Path
    raw: bytes
    records: list[dict[str, Any]]
    names: list[str]
    roles: list[str]
    statements: list[Statement]

    def judged(self) -> list[dict[str, Any]]:
        return [r for r in self.records if r["type"] == "judge"]


@dataclass
class GameTally:
    """What judging did for one game: evaluations wanted, found, recorded now, and why not."""

    path: str
    wanted: int = 0
    already: int = 0
    recorded: int = 0
    failed: Counter = field(default_factory=Counter)   # FAILURES key -> evaluations not recorded
    tried_before: int = 0                              # failed earlier (recorded as failed), not asked again
    seconds: float = 0.0                               # time spent asking for this game's evaluations

    def summary(self) -> str:
        """E.g. "5 of 7 evaluations recorded (2 already there); not recorded: 1 cut off, 1 refused"."""
        text = f"{self.already + self.recorded} of {self.wanted} evaluations recorded"
        if self.already:
            text += f" ({self.already} already there)"
        if self.tried_before:
            text += f" ({self.tried_before} failed before, not asked again)"
        if self.seconds >= 1:
            text += f" in {self.seconds:.0f} s"
        if self.failed:
            text += "; not recorded: " + ", ".join(f"{self.failed[k]} {FAILURES[k]}" for k in FAILURES
                                                   if self.failed[k])
        return text


@dataclass
class JudgeReport:
    """What a judging run did, for the closing report."""

    files: int = 0                                        # replay files looked at
    changed: list[str] = field(default_factory=list)      # files that got new judge lines
    added: Counter = field(default_factory=Counter)       # dimension -> lines added
    already: int = 0                                      # evaluations found already made
    skipped: list[str] = field(default_factory=list)      # "file: why it was not judged"
    unreadable: list[str] = field(default_factory=list)   # "file: evaluation: last problem"
    usage: dict[str, Usage] = field(default_factory=dict)  # model -> calls and tokens spent now
    games: list[GameTally] = field(default_factory=list)  # one per judged game, in path order
    failed: Counter = field(default_factory=Counter)      # FAILURES key -> evaluations not recorded
    failures_written: int = 0                             # failed evaluations recorded as such

    @property
    def ok(self) -> bool:
        return not self.unreadable


# -- reading replays ----------------------------------------------------------------------

def read_game(path: Path) -> GameToJudge | str:
    """The replay ready for judging, or why it cannot be judged."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        return f"cannot read: {exc.strerror or exc}"
    checked = check_bytes(str(path), raw)
    if not checked.ok:
        return f"not a valid replay ({checked.problems[0]}); run `gamenight validate` on it"
    records = [r.data for r in checked.records]
    header, outcome = records[0], next(r for r in records if r["type"] == "outcome")
    if header["game"] != "werewolf":
        return f"a {header['game']} game; only Werewolf games are judged"
    if outcome["status"] != "complete":
        return "the game ended invalid; only complete games are judged"
    names = [p["name"] for p in header["players"]]
    roles = [p["role"] for p in header["players"]]
    statements = []
    for record in records:
        if record["type"] == "event" and record["kind"] == "action" and record["phase"] == "day":
            index = len(statements)
            seat = record["seat"]
            statements.append(Statement(record["n"], seat, index // PLAYERS + 1, names[seat], roles[seat],
                                        record["data"]["text"], index % PLAYERS == 0))
    return GameToJudge(path, raw, records, names, roles, statements)


# -- who the judge is ---------------------------------------------------------------------

def judge_description(agent: AgentSpec) -> dict[str, Any]:
    """The judge as replays describe it: an LLM agent (no design; never a key)."""
    description = {"name": agent.name, "kind": "llm", "provider": agent.spec["provider"],
                   "model": agent.spec["model"]}
    for key in ("base_url", "temperature", "max_tokens", "seed", "top_p", "stop", "reasoning_effort",
                "thinking_budget", "structured_output", "structured_reasoning", "extra_body", "system_role"):
        if agent.spec.get(key) is not None:
            description[key] = agent.spec[key]
    description["prompt_version"] = PROMPT_VERSION
    return description


def judge_identity(description: Mapping[str, Any]) -> str:
    """What makes two judge records the same judge: the description minus its name and the
    model id the API reported (which is only known after the first reply)."""
    return json.dumps({k: v for k, v in description.items() if k not in _NOT_IDENTITY}, sort_keys=True)


def wanted_tasks(game: GameToJudge, dimensions: Sequence[str]) -> list[Task]:
    """Every evaluation of `dimensions` for this game, in DIMENSIONS order: one per whole-game
    dimension, one per round of statements for variation and suspicion."""
    rounds = sorted({s.round for s in game.statements})
    tasks = []
    for dimension in DIMENSIONS:
        if dimension in dimensions:
            tasks += [Task(dimension, r) for r in rounds] if dimension in PER_ROUND else [Task(dimension)]
    return tasks


def missing_tasks(game: GameToJudge, description: Mapping[str, Any], dimensions: Sequence[str],
                  retry_failed: bool = False) -> tuple[list[Task], int]:
    """The wanted evaluations this judge has not yet made for this game, and how many of the
    others it tried and failed (recorded with `failure`): those are asked again only when
    `retry_failed`, since the same judge and prompt tend to fail the same way."""
    me = judge_identity(description)
    mine = [r for r in game.judged() if judge_identity(r["judge"]) == me]
    made = {(r["dimension"], r["round"]) for r in mine if r.get("failure") is None}
    failed = {(r["dimension"], r["round"]) for r in mine if r.get("failure") is not None} - made
    missing, tried = [], 0
    for task in wanted_tasks(game, dimensions):
        key = (task.dimension, task.round)
        if key in made:
            continue
        if key in failed and not retry_failed:
            tried += 1
            continue
        missing.append(task)
    return missing, tried


# -- prompts ------------------------------------------------------------------------------

@cache
def _templates() -> Any:
    import jinja2

    # Prompts are plain text for a model, not HTML: replay text is quoted as JSON strings instead.
    return jinja2.Environment(loader=jinja2.PackageLoader("runner", "judge_prompts"), autoescape=False,
                              undefined=jinja2.StrictUndefined)


def answer_style(description: Mapping[str, Any]) -> AnswerStyle:
    """How the judge answers: a JSON object under a schema (with a bounded reasoning field first,
    when the agent has `structured_reasoning`), or free text ending with an ANSWER line."""
    return AnswerStyle(structured=description.get("structured_output") is not None,
                       reasoning_chars=int(description.get("structured_reasoning") or 0))


def expected_answer(game: GameToJudge, task: Task) -> str:
    """The answer line of a task, as the prompt and every re-ask show it."""
    if task.dimension == "variation":
        return 'ANSWER: {"mentions": [{"speaker": "<name>", "target": "<name>", "role": "<role>"}, ...]}'
    if task.dimension == "suspicion":
        entries = ", ".join(f'"{name}": "<name or {NOBODY}>"' for name in game.names)
        return f'ANSWER: {{"suspects": {{{entries}}}}}'
    if task.dimension == "memorability":
        k = min(HIGHLIGHTS, len(game.statements))
        return f'ANSWER: {{"highlights": [<statement number>, ...]}}  (exactly {k} different numbers)'
    return SCORE_ANSWER


SCORE_ANSWER = 'ANSWER: {"score": <number from 1 to 10>}'
#: The scores a schema allows: 1 to 10 in half steps. An enum, not minimum/maximum: llama.cpp's
#: grammar ignores numeric bounds, and Gemma 3 270M then wrote 1000000000000000.0 until max_tokens.
SCORE_STEPS = [n / 2 if n % 2 else n // 2 for n in range(2, 21)]


def _strict_object(properties: Mapping[str, Any], reasoning_chars: int) -> dict[str, Any]:
    props: dict[str, Any] = {"reasoning": {"type": "string", "maxLength": reasoning_chars}} if reasoning_chars else {}
    props.update(properties)
    return {"type": "object", "properties": props, "required": list(props), "additionalProperties": False}


def _others(game: GameToJudge, seat: int) -> list[str]:
    return [name for other, name in enumerate(game.names) if other != seat]


def answer_schema(game: GameToJudge, task: Task, reasoning_chars: int = 0) -> dict[str, Any]:
    """The JSON Schema of a task's answer: what of the readers' checks a schema can say. Every
    name a speaker may point at excludes the speaker (one alternative per speaker), so that a
    constrained small model cannot fill its answer with claims about itself."""
    if task.dimension == "variation":
        role = {"type": "string", "enum": list(ROLES)}
        mention = {"anyOf": [_strict_object({"speaker": {"type": "string", "enum": [name]},
                                             "target": {"type": "string", "enum": _others(game, seat)},
                                             "role": role}, 0)
                             for seat, name in enumerate(game.names)]}
        value = {"type": "array", "items": mention, "maxItems": MAX_MENTIONS}
        return _strict_object({"mentions": value}, reasoning_chars)
    if task.dimension == "suspicion":
        suspects = _strict_object({name: {"type": "string", "enum": [*_others(game, seat), NOBODY]}
                                   for seat, name in enumerate(game.names)}, 0)
        return _strict_object({"suspects": suspects}, reasoning_chars)
    if task.dimension == "memorability":
        k = min(HIGHLIGHTS, len(game.statements))
        number = {"type": "integer", "enum": [s.n for s in game.statements]}
        return _strict_object({"highlights": {"type": "array", "items": number, "minItems": k, "maxItems": k}},
                              reasoning_chars)
    return _strict_object({"score": {"type": "number", "enum": SCORE_STEPS}}, reasoning_chars)


def prompt(game: GameToJudge, task: Task, style: AnswerStyle = AnswerStyle()) -> list[Any]:
    """The messages asking for one evaluation: the same system prompt and the same start (the
    rules and the whole dialog, without roles) for every question about the game, then the
    question, naming the true roles only where it uses them."""
    env = _templates()
    common = {"structured": style.structured, "thinking": not style.structured or style.reasoning_chars > 0,
              "answer_rule": style.rule(expected_answer(game, task)),
              "seats": [{"name": n, "role": r} for n, r in zip(game.names, game.roles)]}
    shared = env.get_template("_game.j2").render(statements=game.statements)
    if task.dimension in PER_ROUND:
        numbers = [s.n for s in game.statements if s.round == task.round]
        question = env.get_template(f"{task.dimension}.j2").render(
            round=task.round, first=numbers[0], last=numbers[-1], example=game.names[:2], **common)
    elif task.dimension == "memorability":
        k = min(HIGHLIGHTS, len(game.statements))
        question = env.get_template("memorability.j2").render(
            k=k, example_numbers=", ".join(str(s.n) for s in game.statements[:3]), **common)
    else:
        question = env.get_template(f"{task.dimension}.j2").render(**common)
    system = env.get_template("system.j2").render()
    return [Message("system", system.strip()), Message("user", f"{shared.strip()}\n\n{question.strip()}")]


# -- reading the judge's answers ----------------------------------------------------------

class Unreadable(ValueError):
    """A reply that does not hold a usable answer; the message tells the judge what to fix, and
    `kind` (a FAILURES key) says why for the report."""

    def __init__(self, message: str, kind: str = "unparseable"):
        super().__init__(message)
        self.kind = kind


def answer_object(reply: str | None, finish_reason: str | None, expected: str = SCORE_ANSWER,
                  structured: bool = False) -> dict[str, Any]:
    """The answer object of a reply, read as the players' answers are (runner/agents/llm/parse.py);
    a structured reply's reasoning field is set aside. Unreadable says why not."""
    if finish_reason == "length":
        raise Unreadable("the reply was cut off by the length limit before it was finished; "
                         "keep the reasoning shorter", "cut_off")
    if finish_reason in ("refusal", "content_filter"):
        raise Unreadable(f"the model declined to answer (finish reason {finish_reason!r})", "refused")
    try:
        found = parsed_answer(reply, finish_reason, expected)
    except ParseError as exc:
        if reply and _REFUSAL.match(reply.strip()):
            raise Unreadable(f"the model declined to answer ({_cut(reply.strip(), 120)}); {exc}", "refused") from None
        raise Unreadable(str(exc)) from None
    return without_reasoning(found) if structured else found


def _cut(text: str, limit: int) -> str:
    return json.dumps(text if len(text) <= limit else text[: limit - 1] + "…", ensure_ascii=False)


def _exact_keys(value: Mapping[str, Any], key: str) -> Any:
    if set(value) != {key}:
        raise Unreadable(f"the ANSWER object must have exactly one field, {key!r}; it has {sorted(value)}")
    return value[key]


def read_score(value: Mapping[str, Any], game: GameToJudge) -> dict[str, Any]:
    score = _exact_keys(value, "score")
    if isinstance(score, bool) or not isinstance(score, (int, float)) or not 1 <= score <= 10:
        raise Unreadable(f"score must be a number from 1 to 10, not {json.dumps(score)}")
    return {"score": score}


def _seat_named(name: Any, game: GameToJudge, what: str) -> int:
    if isinstance(name, str):
        wanted = name.strip().casefold()
        for seat, known in enumerate(game.names):
            if known.casefold() == wanted:
                return seat
    raise Unreadable(f"{what} {json.dumps(name)} is not a player; the players are {', '.join(game.names)}")


def read_mentions(value: Mapping[str, Any], game: GameToJudge) -> dict[str, Any]:
    """Mentions as seats and roles. A speaker's claim about itself is dropped: the replay format
    records opinions about other players only (the Werewolf paper's example lists self-claims too)."""
    items = _exact_keys(value, "mentions")
    if not isinstance(items, list):
        raise Unreadable("mentions must be a list")
    mentions = []
    for i, item in enumerate(items):
        if not isinstance(item, dict) or set(item) != {"speaker", "target", "role"}:
            raise Unreadable(f"mention {i + 1} must be an object with exactly speaker, target and role")
        by = _seat_named(item["speaker"], game, f"mention {i + 1}: speaker")
        about = _seat_named(item["target"], game, f"mention {i + 1}: target")
        role = item["role"].strip().casefold() if isinstance(item["role"], str) else None
        if role not in ROLES:
            raise Unreadable(f"mention {i + 1}: role {json.dumps(item['role'])} is not one of {', '.join(ROLES)}")
        if by != about:
            mentions.append({"by": by, "about": about, "role": role})
    return {"mentions": mentions}


#: The fewest different statements a highlight list may keep after its repeats are dropped.
MIN_HIGHLIGHTS = HIGHLIGHTS // 2


def read_highlights(value: Mapping[str, Any], game: GameToJudge) -> dict[str, Any]:
    """The highlighted statement numbers, a repeated number kept once (at its first place).

    A schema cannot forbid repeats to llama.cpp's grammar, and Gemma 3 270M repeated one number
    in most lists (e.g. [10, 25, 3, 4, 6, 7, 8, 9, 10, 11]), the same way at every re-ask; the
    metric counts a statement once anyway. A list left with fewer than MIN_HIGHLIGHTS different
    statements (or more than k) is refused."""
    numbers = _exact_keys(value, "highlights")
    k = min(HIGHLIGHTS, len(game.statements))
    known = {s.n for s in game.statements}
    if not isinstance(numbers, list) or not all(isinstance(n, int) and not isinstance(n, bool) for n in numbers):
        raise Unreadable("highlights must be a list of statement numbers")
    strangers = [n for n in numbers if n not in known]
    if strangers:
        raise Unreadable(f"{strangers} are not statement numbers; use the #n shown before each statement")
    distinct = list(dict.fromkeys(numbers))
    if len(numbers) > k or len(distinct) < min(MIN_HIGHLIGHTS, k):
        raise Unreadable(f"give exactly {k} different statement numbers, not {len(distinct)}"
                         + (f" (of {len(numbers)} given)" if len(distinct) != len(numbers) else ""))
    return {"highlights": distinct}


def read_suspects(value: Mapping[str, Any], game: GameToJudge) -> dict[str, Any]:
    """Whom each player's statement points at as the Werewolf: a list by seat of a seat, or None
    for nobody. Every player must be answered for, and nobody points at themself."""
    answers = _exact_keys(value, "suspects")
    if not isinstance(answers, dict):
        raise Unreadable('suspects must be an object with one entry per player, e.g. {"Ada": "Bo"}')
    suspects: list[int | None] = [None] * len(game.names)
    seen: set[int] = set()
    for speaker, target in answers.items():
        by = _seat_named(speaker, game, "suspects: the key")
        if by in seen:
            raise Unreadable(f"suspects: {game.names[by]} is answered for twice")
        seen.add(by)
        if isinstance(target, str) and target.strip().casefold() == NOBODY:
            continue
        about = _seat_named(target, game, f"suspects: {game.names[by]}'s target")
        if about == by:
            raise Unreadable(f'suspects: {game.names[by]} cannot point at themself; write "{NOBODY}" instead')
        suspects[by] = about
    missing = [name for seat, name in enumerate(game.names) if seat not in seen]
    if missing:
        raise Unreadable(f"suspects: give an entry for every player; missing: {', '.join(missing)}")
    return {"suspects": suspects}


READERS: dict[str, Callable[[Mapping[str, Any], GameToJudge], dict[str, Any]]] = {
    "engagement": read_score, "wonder": read_score, "attraction": read_score,
    "variation": read_mentions, "memorability": read_highlights, "suspicion": read_suspects}


# -- asking -------------------------------------------------------------------------------

@dataclass
class Asked:
    """The outcome of one evaluation: the filled field (or None, with the problem and its FAILURES
    kind) and every call made for it."""

    task: Task
    fields: dict[str, Any] | None
    calls: list[dict[str, Any]]
    model_reported: str | None
    problem: str | None
    failure: str | None = None


async def ask(model: Any, game: GameToJudge, task: Task, max_asks: int = MAX_ASKS,
              style: AnswerStyle = AnswerStyle()) -> Asked:
    """Ask for one evaluation, re-asking with the problem when the reply cannot be read. With a
    structured style each call carries the task's JSON Schema (constrained decoding)."""
    messages = prompt(game, task, style)
    expected = expected_answer(game, task)
    schema = answer_schema(game, task, style.reasoning_chars) if style.structured else None
    calls: list[dict[str, Any]] = []
    reported: str | None = None
    problem, failure = "not asked", "call_failed"
    for _ in range(max_asks):
        completion = await model.complete(messages, schema)
        calls.append(completion.evidence(messages))
        if completion.error:
            problem, failure = f"the model call failed: {completion.error}", "call_failed"
            if completion.lasting:  # a wrong key or a server that is gone: asking again cannot help
                break
            continue
        reported = reported or completion.model_reported
        try:
            found = answer_object(completion.text, completion.finish_reason, expected, style.structured)
            fields = READERS[task.dimension](found, game)
        except Unreadable as exc:
            problem, failure = str(exc), exc.kind
            messages = [*messages, Message("assistant", completion.text or ""),
                        Message("user", f"Your answer could not be read: {problem}. Please answer again. "
                                        f"{style.rule(expected)}")]
            continue
        return Asked(task, fields, calls, reported, None)
    return Asked(task, None, calls, reported, problem, failure)


#: The longest failure description recorded (the format's limit for error texts).
MAX_PROBLEM = 2000


def judge_line(task: Task, description: Mapping[str, Any], fields: Mapping[str, Any] | None,
               calls: list[dict[str, Any]], failure: tuple[str, str] | None = None) -> dict[str, Any]:
    """One judge record in the replay format: the evaluation's field filled, or (`fields` None) a
    failed evaluation with its `failure` (kind, problem) and every value field null."""
    record: dict[str, Any] = {"type": "judge", "dimension": task.dimension, "judge": dict(description),
                              "round": task.round, "score": None, "mentions": None, "highlights": None}
    if task.dimension == "suspicion":
        record["suspects"] = None
    if fields is not None:
        record.update(fields)
    elif failure is not None:
        kind, problem = failure
        record["failure"] = {"reason": kind, "problem": problem[:MAX_PROBLEM], "asks": len(calls)}
    if calls:
        record["evidence"] = {"calls": calls}
    return record


def description_in(game: GameToJudge, base: Mapping[str, Any], asked: Sequence[Asked]) -> dict[str, Any]:
    """The judge description for new lines: the one already in the file for this judge, if any
    (so that all its lines group together), else `base` with the model id the API reported."""
    me = judge_identity(base)
    for record in game.judged():
        if judge_identity(record["judge"]) == me:
            return record["judge"]
    reported = next((a.model_reported for a in asked if a.model_reported), None)
    return {**base, "model_reported": reported} if reported else dict(base)


async def judge_game(model: Any, game: GameToJudge, base: Mapping[str, Any], dimensions: Sequence[str],
                     report: JudgeReport, retry_failed: bool = False) -> None:
    """Make the missing evaluations of one game and rewrite its file with the new judge lines,
    failed evaluations included (with why), so that the page can say why a value is missing."""
    tasks, tried = missing_tasks(game, base, dimensions, retry_failed)
    wanted = len(wanted_tasks(game, dimensions))
    tally = GameTally(str(game.path), wanted=wanted, already=wanted - len(tasks) - tried, tried_before=tried)
    report.games.append(tally)
    report.already += tally.already
    if not tasks:
        return
    started = time.perf_counter()
    # One question after the other: they share the game's prompt prefix, which a server with a
    # prompt cache then reads once; asked together they would interleave with other games'.
    asked = [await ask(model, game, task, style=answer_style(base)) for task in tasks]
    tally.seconds = time.perf_counter() - started
    description = description_in(game, base, asked)
    lines = []
    for result in asked:
        for call in result.calls:
            report.usage.setdefault(str(base["model"]), Usage()).add_call(call)
        if result.fields is None:
            report.unreadable.append(f"{game.path}: {result.task.label}: {result.problem}")
            tally.failed[result.failure or "unparseable"] += 1
            if result.failure in RECORDED_FAILURES:
                lines.append(judge_line(result.task, description, None, result.calls,
                                        (result.failure, result.problem or "")))
        else:
            lines.append(judge_line(result.task, description, result.fields, result.calls))
    report.failed.update(tally.failed)
    if not lines:
        return
    data = with_lines(game, lines)
    checked = check_bytes(str(game.path), data)
    if not checked.ok:  # never write a file the validator would refuse
        report.unreadable.append(f"{game.path}: the new judge lines do not validate: {checked.problems[0]}")
        tally.failed["unparseable"] += len(lines)
        report.failed["unparseable"] += len(lines)
        return
    await asyncio.to_thread(write_atomic, game.path, data)
    recorded = [line for line in lines if "failure" not in line]
    tally.recorded = len(recorded)
    report.changed.append(str(game.path))
    report.added.update(line["dimension"] for line in recorded)
    report.failures_written += len(lines) - len(recorded)


def with_lines(game: GameToJudge, lines: Sequence[Mapping[str, Any]]) -> bytes:
    """The replay's bytes with judge lines appended; the header's format version raised (and only
    that line rewritten) when the new lines use version-2 fields, such as a call's cached tokens."""
    appended = "".join(dumps(line) + "\n" for line in lines).encode("utf-8")
    header = game.records[0]
    needed = lowest_version([*game.records, *lines])
    if needed <= header["version"]:
        return game.raw + appended
    _, rest = game.raw.split(b"\n", 1)
    return (dumps({**header, "version": needed}) + "\n").encode("utf-8") + rest + appended


async def judge_files(paths: Iterable[Path], agent: AgentSpec, model: Any, *,
                      dimensions: Sequence[str] = DIMENSIONS, parallel: int = 4, retry_failed: bool = False,
                      on_done: Callable[[Path], None] | None = None) -> JudgeReport:
    """Judge every replay in `paths` with `model`, `parallel` files at a time."""
    report = JudgeReport()
    base = judge_description(agent)
    queue: asyncio.Queue[Path] = asyncio.Queue()
    for path in paths:
        queue.put_nowait(path)
        report.files += 1

    async def worker() -> None:
        while not queue.empty():
            path = queue.get_nowait()
            game = await asyncio.to_thread(read_game, path)  # re-simulating is CPU work: off the loop
            if isinstance(game, str):
                report.skipped.append(f"{path}: {game}")
            else:
                await judge_game(model, game, base, dimensions, report, retry_failed)
            if on_done:
                on_done(path)

    await asyncio.gather(*(worker() for _ in range(max(1, parallel))))
    report.changed.sort()
    report.games.sort(key=lambda tally: tally.path)
    report.skipped.sort()
    report.unreadable.sort()
    return report


async def run_judge(paths: Iterable[Path], agent: AgentSpec, providers: Mapping[str, Mapping[str, Any]], *,
                    dimensions: Sequence[str] = DIMENSIONS, parallel: int = 4, retry_failed: bool = False,
                    environ: Mapping[str, str] | None = None,
                    on_done: Callable[[Path], None] | None = None) -> JudgeReport:
    """Judge replays with a tournament's language-model agent, through one `Connections` registry.

    Raises `runner.run.CannotStart` (e.g. a missing key variable) before judging anything.
    """
    async with connections_for([agent], providers, environ) as connections:
        return await judge_files(paths, agent, connections.model(agent.settings()), dimensions=dimensions,
                                 parallel=parallel, retry_failed=retry_failed, on_done=on_done)
