"""The strict answer parser: a table of real-looking replies and what each must give."""

from __future__ import annotations

import pytest

from runner.agents.llm.formats import action_format, probe_format
from runner.agents.llm.parse import ParseError, answer_object, read_action, read_probe

PD = {"field": "choice", "options": ["cooperate", "defect"], "round": 2}
VOTE = {"field": "vote", "options": [1, 2, 3]}
GUESS = {"field": "guess", "options": ["golf", "tennis", "Ice Hockey", "rugby"]}
SUBSET = {"field": "clue", "mode": "subset", "format": "...", "words": ["golf", "tennis", "Ice Hockey", "rugby"]}
WORD = {"field": "clue", "mode": "word", "format": "...", "words": ["golf", "tennis"]}
SPLIT = {"field": "split", "round": 1, "rounds": 5, "order": ["Airline A", "Airline B", "Airline C"], "rule": "..."}
PROPOSAL = {"field": "proposal", "round": 1, "options": [0, 1, 2], "proposals": []}
GIVE = {"field": "contribution", "min": 0, "max": 60, "round": 3, "rounds": 5}
LOOK = {"phase": "night", "field": "look", "count": 2, "options": [1, 2, 3, 4, 5, 6, 7]}
TALK = {"phase": "day", "field": "text", "round": 1, "rounds": 3, "max_words": 120, "max_chars": 2000}

PLAYERS = ("Player 1", "Player 2", "Player 3", "Player 4")
AIRLINES = ("Airline A", "Airline B", "Airline C")
WOLVES = ("Ada", "Bo", "Chiara", "Dmitri", "Esme", "Farid", "Greta", "Ines")


def decide(reply, legal, names=PLAYERS, finish="stop"):
    """The action read from `reply`, or ("error", message)."""
    expected = action_format(legal)
    try:
        return read_action(answer_object(reply, finish, expected), legal, names, expected)
    except ParseError as exc:
        return ("error", str(exc))


# (case, reply, legal, names, finish, expected action or a fragment of the error message)
CASES = [
    ("valid after reasoning", "They both cooperated last round, so I will too.\nANSWER: {\"choice\": \"cooperate\"}",
     PD, PLAYERS, "stop", {"choice": "cooperate"}),
    ("legal word in prose, no ANSWER line", "I think I will defect this round, it pays more.",
     PD, PLAYERS, "stop", "no ANSWER line"),
    ("prose names a move, ANSWER line decides",
     "Defecting is tempting, but I'll build trust.\nANSWER: {\"choice\": \"cooperate\"}", PD, PLAYERS, "stop", {"choice": "cooperate"}),
    ("two different ANSWER lines", "ANSWER: {\"choice\": \"defect\"}\nOn second thought:\nANSWER: {\"choice\": \"cooperate\"}",
     PD, PLAYERS, "stop", "2 different ANSWER lines"),
    ("a short sentence after the ANSWER line", "ANSWER: {\"choice\": \"defect\"}\nI hope the others do not mind.",
     PD, PLAYERS, "stop", {"choice": "defect"}),
    ("ANSWER line inside a code fence", "```\nANSWER: {\"choice\": \"defect\"}\n```",
     PD, PLAYERS, "stop", {"choice": "defect"}),
    ("trailing blank lines and spaces are fine", "Defect.\nANSWER: {\"choice\": \"defect\"}   \n\n  \n",
     PD, PLAYERS, "stop", {"choice": "defect"}),
    ("marker in lower case, indented", "  answer: {\"choice\": \"defect\"}", PD, PLAYERS, "stop", {"choice": "defect"}),
    ("markdown around the marker", "My move:\n**ANSWER:** {\"choice\": \"defect\"}", PD, PLAYERS, "stop",
     {"choice": "defect"}),
    ("space before the colon", "ANSWER : {\"choice\": \"defect\"}", PD, PLAYERS, "stop", {"choice": "defect"}),
    ("enumerated value in the wrong case", "ANSWER: {\"choice\": \" Defect \"}", PD, PLAYERS, "stop",
     {"choice": "defect"}),
    ("illegal enumerated value", "ANSWER: {\"choice\": \"betray\"}", PD, PLAYERS, "stop",
     "\"choice\" must be \"cooperate\" or \"defect\""),
    ("extra words after the JSON", "ANSWER: {\"choice\": \"defect\"} because it pays", PD, PLAYERS, "stop",
     "one JSON object and nothing else"),
    ("extra JSON field", "ANSWER: {\"choice\": \"defect\", \"reason\": \"greed\"}", PD, PLAYERS, "stop",
     "unexpected field(s) \"reason\""),
    ("wrong field name", "ANSWER: {\"move\": \"defect\"}", PD, PLAYERS, "stop", "it lacks \"choice\""),
    ("single-quoted pseudo JSON", "ANSWER: {'choice': 'defect'}", PD, PLAYERS, "stop", "not valid JSON"),
    ("bare word instead of an object", "ANSWER: defect", PD, PLAYERS, "stop", "not valid JSON"),
    ("JSON string instead of an object", "ANSWER: \"defect\"", PD, PLAYERS, "stop", "must be a JSON object"),
    ("repeated key", "ANSWER: {\"choice\": \"defect\", \"choice\": \"cooperate\"}", PD, PLAYERS, "stop", "repeats"),
    ("nothing after the marker", "ANSWER:", PD, PLAYERS, "stop", "Nothing follows ANSWER:"),
    ("empty reply", "", PD, PLAYERS, "stop", "empty"),
    ("blank reply", " \n\t\n", PD, PLAYERS, "stop", "empty"),
    ("no reply text at all", None, PD, PLAYERS, "stop", "empty"),
    ("cut off by the length limit", "Let me weigh every option carefully. First, the payoffs",
     PD, PLAYERS, "length", "cut off by the length limit"),
    ("cut off even with a readable answer", "ANSWER: {\"choice\": \"defect\"}", PD, PLAYERS, "length", "cut off"),
    # players: names, "Player N", case and spacing, bare numbers, unknown and ambiguous names
    ("vote by name", "Player 3 was vague.\nANSWER: {\"vote\": \"Player 3\"}", VOTE, PLAYERS, "stop", {"vote": 2}),
    ("vote by name in the wrong case and spacing", "ANSWER: {\"vote\": \"player   3\"}", VOTE, PLAYERS, "stop",
     {"vote": 2}),
    ("vote for oneself is read (the rules refuse it)", "ANSWER: {\"vote\": \"Player 1\"}", VOTE, PLAYERS, "stop",
     {"vote": 0}),
    ("vote by bare seat number is ambiguous", "ANSWER: {\"vote\": 3}", VOTE, PLAYERS, "stop", "ambiguous"),
    ("vote for nobody at the table", "ANSWER: {\"vote\": \"Player 9\"}", VOTE, PLAYERS, "stop", "is not a player"),
    ("a name matching two seats", "ANSWER: {\"vote\": \"player 2\"}", VOTE, ("Ada", "Bo", "Player 2", "Dee"), "stop",
     "could mean \"Bo\" or \"Player 2\""),
    ("Werewolf look by names and number", "ANSWER: {\"look\": [\"chiara\", \"Player 5\"]}", LOOK, WOLVES, "stop",
     {"look": [2, 4]}),
    ("Werewolf look with one player", "ANSWER: {\"look\": [\"Bo\"]}", LOOK, WOLVES, "stop", "list of 2 player names"),
    ("proposal by airline name", "ANSWER: {\"proposal\": \"airline b\"}", PROPOSAL, AIRLINES, "stop", {"proposal": 1}),
    ("proposal by a letter only", "ANSWER: {\"proposal\": \"B\"}", PROPOSAL, AIRLINES, "stop", "is not a player"),
    # numbers and lists
    ("split of numbers", "ANSWER: {\"split\": [40, 30.5, 29.5]}", SPLIT, AIRLINES, "stop", {"split": [40, 30.5, 29.5]}),
    ("split with percent signs", "ANSWER: {\"split\": [\"40%\", \"30%\", \"30%\"]}", SPLIT, AIRLINES, "stop",
     "plain number"),
    ("split with two shares", "ANSWER: {\"split\": [50, 50]}", SPLIT, AIRLINES, "stop", "list of 3 numbers"),
    ("split not summing to 100 is read (the rules refuse it)", "ANSWER: {\"split\": [50, 50, 50]}", SPLIT, AIRLINES,
     "stop", {"split": [50, 50, 50]}),
    ("contribution", "ANSWER: {\"contribution\": 20}", GIVE, PLAYERS[:3], "stop", {"contribution": 20}),
    ("contribution above what is left is read (the rules refuse it)", "ANSWER: {\"contribution\": 500}", GIVE,
     PLAYERS[:3], "stop", {"contribution": 500}),
    ("contribution with a decimal point", "ANSWER: {\"contribution\": 20.0}", GIVE, PLAYERS[:3], "stop",
     "whole number"),
    ("contribution as a string", "ANSWER: {\"contribution\": \"20\"}", GIVE, PLAYERS[:3], "stop", "whole number"),
    ("NaN is not JSON", "ANSWER: {\"contribution\": NaN}", GIVE, PLAYERS[:3], "stop", "NaN is not a JSON number"),
    ("contribution as a boolean", "ANSWER: {\"contribution\": true}", GIVE, PLAYERS[:3], "stop", "whole number"),
    # words
    ("guess in another case", "ANSWER: {\"guess\": \"ICE HOCKEY\"}", GUESS, PLAYERS, "stop", {"guess": "Ice Hockey"}),
    ("guess with separators", "ANSWER: {\"guess\": \"ice-hockey\"}", GUESS, PLAYERS, "stop", {"guess": "Ice Hockey"}),
    ("guess not on the card", "ANSWER: {\"guess\": \"cricket\"}", GUESS, PLAYERS, "stop", "must be \"golf\""),
    ("one-word clue", "ANSWER: {\"clue\": \"fairway\"}", WORD, PLAYERS, "stop", {"clue": "fairway"}),
    ("clue that the rules will refuse is read as given", "ANSWER: {\"clue\": \"two words\"}", WORD, PLAYERS, "stop",
     {"clue": "two words"}),
    ("clue as a number", "ANSWER: {\"clue\": 7}", WORD, PLAYERS, "stop", "must be a string"),
    ("subset clue in card spelling", "ANSWER: {\"clue\": [\"TENNIS\", \"ice hockey\"]}", SUBSET, PLAYERS, "stop",
     {"clue": ["tennis", "Ice Hockey"]}),
    ("null subset clue", "ANSWER: {\"clue\": null}", SUBSET, PLAYERS, "stop", {"clue": None}),
    ("subset clue with a stranger", "ANSWER: {\"clue\": [\"golf\", \"chess\"]}", SUBSET, PLAYERS, "stop",
     "must be"),
    ("statement with escaped line breaks", "ANSWER: {\"text\": \"I am the Seer.\\nBo is clean.\"}", TALK, WOLVES,
     "stop", {"text": "I am the Seer.\nBo is clean."}),
    ("JSON object spread over several lines", "I vote Bo.\nANSWER: {\n  \"vote\": \"Bo\"\n}", VOTE, WOLVES,
     "stop", {"vote": 1}),
    ("raw line break inside a statement", "ANSWER: {\"text\": \"I am the Seer.\nBo is clean.\"}", TALK, WOLVES,
     "stop", {"text": "I am the Seer.\nBo is clean."}),
    ("statement cut short inside the JSON", "ANSWER: {\"text\": \"I am the Seer and", TALK, WOLVES, "stop",
     "not valid JSON"),
]


# Replies in the shapes real chat models give (seen from GPT-4o-class, Claude, Llama, Qwen3, DeepSeek-R1
# distills and Gemma 3), each read as the model meant it, or refused when it committed to nothing.
REAL_MODELS = [
    ("bold answer line", "Defecting protects me.\n\n**ANSWER: {\"choice\": \"defect\"}**", PD, PLAYERS, "stop",
     {"choice": "defect"}),
    ("italic answer line", "*ANSWER: {\"choice\": \"defect\"}*", PD, PLAYERS, "stop", {"choice": "defect"}),
    ("answer line in backticks", "My move is below.\n`ANSWER: {\"choice\": \"cooperate\"}`", PD, PLAYERS, "stop",
     {"choice": "cooperate"}),
    ("answer line in a fenced block with prose after",
     "Let me decide.\n\n```\nANSWER: {\"vote\": \"Player 2\"}\n```\n\nGood luck to everyone!", VOTE, PLAYERS,
     "stop", {"vote": 1}),
    ("bold marker then a json fence", "**Answer:**\n```json\n{\n  \"vote\": \"Player 3\"\n}\n```", VOTE, PLAYERS,
     "stop", {"vote": 2}),
    ("final answer heading", "### Final Answer: {\"choice\": \"defect\"}", PD, PLAYERS, "stop", {"choice": "defect"}),
    ("block-quoted answer", "> ANSWER: {\"choice\": \"defect\"}", PD, PLAYERS, "stop", {"choice": "defect"}),
    ("answer line ending with a full stop", "ANSWER: {\"choice\": \"defect\"}.", PD, PLAYERS, "stop",
     {"choice": "defect"}),
    ("the word answer inside prose is not a marker",
     "My answer: I'd rather cooperate.\nANSWER: {\"choice\": \"cooperate\"}", PD, PLAYERS, "stop",
     {"choice": "cooperate"}),
    ("closed think block holding a draft line",
     "<think>Maybe defect?\nANSWER: {\"choice\": \"defect\"}\nNo, they cooperated twice.</think>\n"
     "ANSWER: {\"choice\": \"cooperate\"}", PD, PLAYERS, "stop", {"choice": "cooperate"}),
    ("empty think block first (Qwen3 without thinking)", "<think>\n\n</think>\n\nANSWER: {\"choice\": \"defect\"}",
     PD, PLAYERS, "stop", {"choice": "defect"}),
    ("only the closing tag: the chat template opened the block (DeepSeek-R1 distills)",
     "They defected last round, so ANSWER: {\"choice\": \"cooperate\"} would be naive.\n</think>\n\n"
     "ANSWER: {\"choice\": \"defect\"}", PD, PLAYERS, "stop", {"choice": "defect"}),
    ("thinking tags (Claude style) around a draft", "<thinking>ANSWER: {\"vote\": \"Player 4\"}</thinking>\n"
     "ANSWER: {\"vote\": \"Player 2\"}", VOTE, PLAYERS, "stop", {"vote": 1}),
    ("reasoning tags", "<reasoning>weighing</reasoning>ANSWER: {\"choice\": \"defect\"}", PD, PLAYERS, "stop",
     {"choice": "defect"}),
    ("unclosed think ending with a draft answer: a ghost move", "<think>I should defect.\nANSWER: {\"choice\": \"defect\"}",
     PD, PLAYERS, "stop", "unclosed <think>"),
    ("unclosed think with no draft", "<think>Let me consider the payoffs carefully", PD, PLAYERS, "stop",
     "unclosed <think>"),
    ("only reasoning, closed", "<think>ANSWER: {\"choice\": \"defect\"}</think>", PD, PLAYERS, "stop",
     "only reasoning"),
    ("the same answer twice is one answer", "ANSWER: {\"choice\": \"defect\"}\n\nTo repeat:\n**ANSWER: {\"choice\": \"defect\"}**",
     PD, PLAYERS, "stop", {"choice": "defect"}),
    ("a prose answer line and a JSON one conflict", "Answer: Player 3 seems odd.\nANSWER: {\"vote\": \"Player 2\"}",
     VOTE, PLAYERS, "stop", "2 different ANSWER lines"),
    ("two different answers, one in bold", "**ANSWER: {\"vote\": \"Player 2\"}**\nActually:\nANSWER: {\"vote\": \"Player 3\"}",
     VOTE, PLAYERS, "stop", "2 different ANSWER lines"),
    ("a reply that is exactly the JSON object", "{\"choice\": \"defect\"}", PD, PLAYERS, "stop", {"choice": "defect"}),
    ("a fenced JSON object and nothing else", "```json\n{\"vote\": \"Player 4\"}\n```", VOTE, PLAYERS, "stop",
     {"vote": 3}),
    ("a JSON object of the wrong shape", "{\"move\": \"defect\", \"why\": \"greed\"}", PD, PLAYERS, "stop",
     "it lacks \"choice\""),
    ("a JSON object with prose before it has no ANSWER line", "Here is my move: {\"choice\": \"defect\"}", PD, PLAYERS,
     "stop", "no ANSWER line"),
    ("a refusal", "I'm sorry, but I can't help with deceiving other players.", PD, PLAYERS, "stop", "no ANSWER line"),
    ("a structured reply whose reasoning names a tag", "{\"reasoning\": \"no <think> needed\", \"choice\": \"defect\"}",
     PD, PLAYERS, "stop", "unexpected field(s) \"reasoning\""),
    ("prose that names the tag is not a block", "I will not use <think> tags here.\nANSWER: {\"choice\": \"defect\"}",
     PD, PLAYERS, "stop", {"choice": "defect"}),
    ("words after the JSON on the answer line", "ANSWER: {\"choice\": \"defect\"} -- final", PD, PLAYERS, "stop",
     "nothing else on that line"),
]


@pytest.mark.parametrize("case, reply, legal, names, finish, expected", REAL_MODELS, ids=[c[0] for c in REAL_MODELS])
def test_real_model_replies(case, reply, legal, names, finish, expected):
    test_reply_table(case, reply, legal, names, finish, expected)


@pytest.mark.parametrize("case, reply, legal, names, finish, expected", CASES, ids=[c[0] for c in CASES])
def test_reply_table(case, reply, legal, names, finish, expected):
    got = decide(reply, legal, names, finish)
    if isinstance(expected, str):
        assert got[0] == "error", f"{case}: expected a parse error, got {got}"
        assert expected in got[1], got[1]
        # Every error tells the model the form to use.
        assert "ANSWER:" in got[1]
    else:
        assert got == expected


def test_every_error_repeats_the_exact_answer_format():
    message = decide("I pick Player 2.", VOTE)[1]
    assert message.endswith(action_format(VOTE))
    assert 'ANSWER: {"vote": "<player name>"}' in message


PROBES = [
    ("suspect by name", "suspect", None, "ANSWER: {\"seat\": \"Player 2\"}", {"seat": 1}),
    ("suspect of another player", "suspect_of", 2, "I think they fear me.\nANSWER: {\"seat\": \"player 1\"}",
     {"of": 2, "seat": 0}),
    ("role with a hyphen", "self_role", None, "ANSWER: {\"role\": \"Non-Chameleon\"}", {"role": "non_chameleon"}),
    ("role with a space", "self_role", None, "ANSWER: {\"role\": \"non chameleon\"}", {"role": "non_chameleon"}),
    ("role that does not exist", "self_role", None, "ANSWER: {\"role\": \"spy\"}", "must be \"chameleon\" or"),
    ("role answered as seat", "self_role", None, "ANSWER: {\"seat\": \"Player 1\"}", "it lacks \"role\""),
    ("no ANSWER line", "suspect", None, "Player 2 seems the odd one.", "no ANSWER line"),
]


@pytest.mark.parametrize("case, kind, about, reply, expected", PROBES, ids=[p[0] for p in PROBES])
def test_probe_table(case, kind, about, reply, expected):
    roles = ("chameleon", "non_chameleon")
    form = probe_format(kind, roles)
    try:
        got = read_probe(answer_object(reply, "stop", form), kind, about, roles, PLAYERS, form)
    except ParseError as exc:
        assert isinstance(expected, str) and expected in str(exc)
    else:
        assert got == expected
