"""runner/roster.py: the maintainers' roster, read strictly (one line naming file, line and field)."""

from __future__ import annotations

from pathlib import Path

import pytest

from runner import roster
from runner.plan import Price

HEAD = 'suite = "ranked"\nbudget_usd = 5\n'


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "roster.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_shipped_roster_reads_and_names_its_models():
    shipped = roster.load(Path(roster.__file__).with_name("roster.toml"))
    assert shipped.suite.name == "ranked" and 0 < shipped.budget <= 100
    assert shipped.models and all(m.stages >= 1 and m.key_env for m in shipped.models)
    assert shipped.verify.deals >= 1 and set(shipped.verify.keys) == {"openai", "anthropic"}


def test_a_model_is_one_line_and_its_fields_are_read(tmp_path):
    path = write(tmp_path, HEAD + '[models]\nbig = { model = "openai:gpt-4", key_env = "OPENAI_API_KEY", stages = 3 }\n'
                                   'local = { model = "openai_compatible:m@http://127.0.0.1:9/v1", stages = 1, '
                                   'price = "0.5/1.5/0.1" }\n')
    found = roster.load(path)
    big, local = found.models
    assert (big.label, big.ref, big.key_env, big.stages, big.price, big.line) == ("big", "openai:gpt-4", "OPENAI_API_KEY",
                                                                                  3, None, 4)
    assert local.price == Price(0.5, 1.5, 0.1) and local.key_env is None and local.line == 5
    assert local.candidate(found.suite).label == "local"
    assert found.verify == roster.Verify()  # no [verify]: nothing is verified


def test_a_model_may_also_be_a_table_of_its_own(tmp_path):
    path = write(tmp_path, HEAD + '\n[models.big]\nmodel = "openai:gpt-4"\nstages = 0\n')
    with pytest.raises(roster.RosterError, match=r"^.*roster.toml:6: models\.big\.stages: must be the stages"):
        roster.load(path)


def test_verification_reaches_a_hosted_model_on_its_api_and_others_only_as_named(tmp_path):
    path = write(tmp_path, HEAD + '[verify]\ndeals = 6\nkeys = { openai = "OPENAI_API_KEY" }\n'
                                   '[verify.models]\n"openai_compatible:gemma" = { model = '
                                   '"openai_compatible:gemma@http://127.0.0.1:8080/v1", price = "0/0" }\n')
    verify = roster.load(path).verify
    assert verify.deals == 6
    assert verify.reach("openai", "gpt-4o") == roster.Reach("openai:gpt-4o", "OPENAI_API_KEY")
    assert verify.reach("anthropic", "claude-x") is None  # no key named for Anthropic
    assert verify.reach("openai_compatible", "gemma") == roster.Reach(
        "openai_compatible:gemma@http://127.0.0.1:8080/v1", None, Price(0, 0))
    assert verify.reach("openai_compatible", "other") is None


MODEL = '[models]\na = { model = "openai:gpt-4", stages = 1 }\n'


@pytest.mark.parametrize("text, message", [
    (HEAD + "colour = 1\n", ":3: colour: unknown key; the file takes suite, budget_usd, models, verify"),
    ('suite = "ranked"\n', ": budget_usd: must be the most one run may spend, in USD"),
    ('budget_usd = 0\n', ":1: budget_usd: must be the most one run may spend"),
    ('budget_usd = "5"\n', ":1: budget_usd: must be the most one run may spend, in USD, a number above 0 and at "
                           "most 100,000, got '5'"),
    ('budget_usd = 1e9\n', ":1: budget_usd: must be the most one run may spend"),
    ('suite = "ranked-7"\nbudget_usd = 1\n', ":1: suite: no such suite; shipped: ranked"),
    ('suite = 7\nbudget_usd = 1\n', ":1: suite: must be the name of a shipped suite"),
    (HEAD + "models = 3\n", ":3: models: must be tables like"),
    (HEAD + '[models]\na = "openai:gpt-4"\n', ":4: models.a: must be a table of model, stages"),
    (HEAD + '[models]\na = { stages = 1 }\n', ":4: models.a.model: name the model as provider:model[@base_url]"),
    (HEAD + '[models]\na = { model = "builtin:random", stages = 1 }\n', ":4: models.a.model: the suite's built-in "
                                                                         "rows need no roster"),
    (HEAD + '[models]\na = { model = "gpt-4o", stages = 1 }\n', ":4: models.a.model: name a model as provider:model"),
    (HEAD + '[models]\na = { model = "runner/tournaments/local-cpu.toml#nobody", stages = 1 }\n',
     ":4: models.a.model: runner/tournaments/local-cpu.toml has no language-model agent 'nobody'"),
    (HEAD + '[models]\na = { model = "openai:gpt-4" }\n', ":4: models.a.stages: must be the stages its row should "
                                                         "hold, a whole number from 1 to 1,000, got None"),
    (HEAD + '[models]\na = { model = "openai:gpt-4", stages = 1001 }\n', ":4: models.a.stages: must be"),
    (HEAD + '[models]\na = { model = "openai:gpt-4", stages = true }\n', ":4: models.a.stages: must be"),
    (HEAD + '[models]\na = { model = "openai:gpt-4", stages = 1, colour = 2 }\n',
     ":4: models.a.colour: unknown key; models.a takes model, key_env, stages, price"),
    (HEAD + '[models]\na = { model = "openai:gpt-4", stages = 1, key_env = "sk-proj-abcdefghijklmnop1234" }\n',
     ":4: models.a.key_env: must be the NAME of an environment variable"),
    (HEAD + '[models]\na = { model = "openai:gpt-4", stages = 1, price = "cheap" }\n',
     ":4: models.a.price 'cheap': give USD per million tokens as IN/OUT"),
    (HEAD + '[models]\n"a b" = { model = "openai:gpt-4", stages = 1 }\n', ":4: models.a b: a label is a short slug"),
    (HEAD + '[models]\nbuiltin-x = { model = "openai:gpt-4", stages = 1 }\n',
     ":4: models.builtin-x: labels starting with builtin- name the suite's built-in rows"),
    (HEAD + MODEL + "[verify]\nkeys = {}\n", ":5: verify.deals: must be the held-out deals each verification plays"),
    (HEAD + MODEL + "[verify]\ndeals = 0\n", ":6: verify.deals: must be"),
    (HEAD + "verify = 5\n" + MODEL, ":3: verify: must be a table of deals, keys and models"),
    (HEAD + MODEL + '[verify]\ndeals = 2\nkeys = { openai_compatible = "X" }\n',
     ":7: verify.keys.openai_compatible: a provider with an API of its own (openai, anthropic)"),
    (HEAD + MODEL + '[verify]\ndeals = 2\nkeys = { openai = "sk-abcdefghijklmnopqrstuvwx" }\n',
     ":7: verify.keys.openai: must be the NAME of an environment variable"),
    (HEAD + MODEL + '[verify]\ndeals = 2\n[verify.models]\ngemma = { model = "openai_compatible:g@http://x/v1" }\n',
     ":8: verify.models.gemma: name a contributed row's model as its plan does, provider:model"),
    (HEAD + MODEL + '[verify]\ndeals = 2\n[verify.models]\n"openai:g" = { model = "nope" }\n',
     ":8: verify.models.openai:g.model: how to reach it, provider:model[@base_url]"),
    (HEAD + MODEL + '[verify]\ndeals = 2\n[verify.models]\n"openai:g" = { model = "openai:g", size = 1 }\n',
     ":8: verify.models.openai:g.size: unknown key; verify.models.openai:g takes model, key_env, price"),
    (HEAD + "[models\n", ":3: not valid TOML"),
])
def test_a_bad_roster_gets_one_line_naming_file_line_and_field(tmp_path, text, message):
    path = write(tmp_path, text)
    with pytest.raises(roster.RosterError) as caught:
        roster.load(path, "runner/roster.toml")
    said = str(caught.value)
    assert said.startswith("runner/roster.toml") and message in said and "\n" not in said, said
    assert "sk-" not in said  # a value refused as a key is never shown


def test_a_missing_roster_is_one_line_too(tmp_path):
    with pytest.raises(roster.RosterError, match=r"nothing\.toml: cannot read: No such file"):
        roster.load(tmp_path / "nothing.toml")
