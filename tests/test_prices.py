"""The price table (runner/prices.py): the shipped file reads, a bad one says file and field, and
the dry run falls back to it."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from runner import prices
from runner.cli import main as gamenight
from runner.tournament import Price

GOOD = """
[models."anthropic:claude-sonnet-4-5"]
input = 3.00
cached_input = 0.30
cache_write_input = 3.75
output = 15.00
read = 2026-11-28
source = "https://platform.claude.com/docs/en/about-claude/pricing"

[models."openai:gpt-4"]
input = 30
output = 60
read = "2026-11-28"
source = "https://developers.openai.com/api/docs/models/gpt-4.md"
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "prices.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_shipped_table_reads_and_every_entry_names_its_source_and_day():
    table = prices.load()
    assert table.entries, "the shipped table is empty"
    for key, entry in table.entries.items():
        assert key == entry.key and entry.source.startswith("https://") and len(entry.read) == 10
    sonnet = table.find("anthropic", "claude-sonnet-4-5")
    assert sonnet is not None and sonnet.price == Price(3.0, 15.0, 0.30, 3.75)


def test_a_good_table_reads_with_optional_prices_left_out(tmp_path):
    table = prices.load(write(tmp_path, GOOD))
    gpt4 = table.find("openai", "gpt-4")
    assert gpt4 is not None and gpt4.price == Price(30.0, 60.0) and gpt4.read == "2026-11-28"
    assert gpt4.to_json()["cached_input"] is None
    assert table.find("anthropic", "gpt-4") is None and table.find(None, "gpt-4") is None


@pytest.mark.parametrize("text, said", [
    ("[models.\"openai:gpt-4\"]\ninput = 30\noutput = 60\nread = 2026-11-28\n",
     "models.'openai:gpt-4': missing source"),
    (GOOD.replace("output = 60", "output = -1"), "models.'openai:gpt-4'.output: must be USD per million tokens"),
    (GOOD.replace("output = 60", 'output = "60"'), "models.'openai:gpt-4'.output"),
    (GOOD.replace("output = 60", "output = 60000000"), "models.'openai:gpt-4'.output"),
    (GOOD.replace('read = "2026-11-28"', 'read = "28/11/2026"'), "models.'openai:gpt-4'.read: must be the day"),
    (GOOD.replace('read = "2026-11-28"', "read = 2026-11-28T10:00:00"), "models.'openai:gpt-4'.read"),
    (GOOD.replace("https://developers", "http://developers"), "models.'openai:gpt-4'.source: must be the https"),
    (GOOD.replace("output = 60", "output = 60\nbatch = 30"), "models.'openai:gpt-4': unknown ['batch']"),
    (GOOD.replace('"openai:gpt-4"', '"gpt-4"'), "models.'gpt-4': name the entry provider:model"),
    (GOOD.replace('"openai:gpt-4"', '"mistral:gpt-4"'), "models.'mistral:gpt-4': name the entry provider:model"),
    (GOOD + "\n[prices]\n", "unknown key(s) ['prices']"),
    ("models = 3\n", "models: must be tables"),
    ("[models\n", "not valid TOML"),
])
def test_a_bad_table_says_file_entry_and_field(tmp_path, text, said):
    path = write(tmp_path, text)
    with pytest.raises(prices.PriceTableError) as caught:
        prices.load(path)
    message = str(caught.value)
    assert message.startswith(str(path)) and said in message and "\n" not in message


def test_a_missing_table_is_a_message_not_a_traceback(tmp_path):
    with pytest.raises(prices.PriceTableError, match="cannot read"):
        prices.load(tmp_path / "nowhere.toml")


def test_the_dry_run_prices_a_suite_model_from_the_table_when_no_price_is_given():
    result = CliRunner().invoke(gamenight, ["run", "--suite", "ranked", "--model", "openai:gpt-4", "--dry-run"])
    assert result.exit_code == 0, result.output
    assert "priced from the price table (openai:gpt-4, read" in result.output
    total = next(line for line in result.output.splitlines() if line.startswith("total"))
    assert not total.rstrip().endswith("n/a")  # a cost, where there was none without the table
    given = CliRunner().invoke(gamenight, ["run", "--suite", "ranked", "--model", "openai:gpt-4", "--dry-run",
                                           "--price", "0/0"])
    assert given.exit_code == 0 and "price table" not in given.output
    assert next(line for line in given.output.splitlines() if line.startswith("total")).rstrip().endswith("0.00")
