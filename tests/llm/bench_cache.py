"""What prompt caching saves on a played tournament stage, measured through the real runner and SDK.

    python -m tests.llm.bench_cache [--min-tokens 1024] [--games N] [--port 18734]

Plays a copy of runner/tournaments/local-openai-compatible.toml (a model against the built-in agents
in all six games; the ranked suite's stages are not settled yet) with its model seats served by the
fake Anthropic server of tests/llm/fakes.py, which answers legally and caches prompt prefixes as
Anthropic documents it (marked prefixes of at least --min-tokens tokens, counted as characters / 4),
twice: with `prompt_cache = true` (the default) and `false`. Nothing leaves the machine and no key
is needed. It prints the tokens the replays record and their cost at Claude Sonnet 4.5's list
prices with and without caching, and the dry run's estimate of the same.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import tempfile
import tomllib
from pathlib import Path

from click.testing import CliRunner

from runner.cli import main
from runner.plan import Price
from runner.run import REPLY_TOKENS, Estimate, Usage, estimate, model_calls
from runner.tournament import load
from tests.llm.fakes import FakeAnthropic
from tests.llm.test_tournament_llm import legal_reply, replays

SOURCE = Path(__file__).resolve().parents[2] / "runner" / "tournaments" / "local-openai-compatible.toml"
MODEL = "claude-sonnet-4-5"
#: Claude Sonnet 4.5, USD per million tokens: input, output, cache read, 5-minute cache write
#: (https://platform.claude.com/docs/en/about-claude/pricing, read 2026-11-28).
PRICE = Price(input=3.0, output=15.0, cached_input=0.30, cache_write_input=3.75)
KEY_VARIABLE = "BENCH_FAKE_KEY"


def tournament_text(base_url: str, prompt_cache: bool, games: int | None) -> str:
    """The shipped local tournament, its model agents speaking Anthropic's protocol to the fake."""
    text = SOURCE.read_text(encoding="utf-8")
    text = text.replace("[providers.openai_compatible]", "[providers.anthropic]")
    text = text.replace('provider = "openai_compatible"', 'provider = "anthropic"')
    text = text.replace('base_url = "http://127.0.0.1:8000/v1"', f'base_url = "{base_url}"\n'
                        f'api_key_env = "{KEY_VARIABLE}"\nprompt_cache = {str(prompt_cache).lower()}')
    text = text.replace('model = "Qwen/Qwen2.5-7B-Instruct"', f'model = "{MODEL}"')
    text = re.sub(r"(?m)^temperature = .*\n", "", text)  # the Messages API takes no sampling parameters
    if games:
        text = re.sub(r"(?m)^games = \d+", f"games = {games}", text)
    assert tomllib.loads(text)["agents"]["local"]["provider"] == "anthropic"
    return text + (f'\n[prices."{MODEL}"]\ninput = {PRICE.input}\noutput = {PRICE.output}\n'
                   f"cached_input = {PRICE.cached_input}\ncache_write_input = {PRICE.cache_write_input}\n")


def play(folder: Path, prompt_cache: bool, min_tokens: int, games: int | None,
         port: int = 0) -> tuple[Usage, int, str, int]:
    """Play the stage once against a fresh fake; the recorded usage, the games, the plan and the port.
    Both runs must use one port: the base URL is part of what is played, so of the games' seeds."""
    with FakeAnthropic(legal_reply, cache_min_tokens=min_tokens, port=port) as server:
        port = server.port
        plan = folder / f"cache-{prompt_cache}.toml"
        plan.write_text(tournament_text(server.base_url, prompt_cache, games), encoding="utf-8")
        out = folder / f"out-{prompt_cache}"
        result = CliRunner().invoke(main, ["run", str(plan), "--out", str(out), "--no-cache", "--parallel", "4"],
                                    env={KEY_VARIABLE: "fake-key", "GAMENIGHT_CACHE_DIR": str(folder / "machine")})
        if result.exit_code != 0 or server.script_errors:
            raise SystemExit(f"the run failed:\n{result.output}\n{server.script_errors}")
    usage = Usage()
    played = replays(out)
    for game in played:
        for _, call in model_calls(game["records"]):
            usage.add_call(call)
    return usage, len(played), str(plan), port


def row(label: str, usage: Usage | Estimate) -> str:
    cost, uncached = usage.cost(PRICE), usage.cost(PRICE, caching=False)
    assert cost is not None and uncached is not None
    return (f"| {label} | {usage.calls:,.0f} | {usage.input_tokens:,.0f} | {usage.cached_input_tokens:,.0f} | "
            f"{usage.cache_write_input_tokens:,.0f} | {usage.output_tokens:,.0f} | {cost:.4f} | {uncached:.4f} | "
            f"{(uncached - cost) / uncached:.1%} |")


def main_() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--min-tokens", type=int, default=1024,
                        help="the shortest prefix the fake caches (Claude Sonnet 4.5: 1,024 tokens)")
    parser.add_argument("--games", type=int, help="games per matchup (default: the file's)")
    parser.add_argument("--port", type=int, default=18734,
                        help="the fake's port: part of the base URL, so of the games' seeds (fixed, the figures repeat)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        cached, games, plan, _ = play(folder, True, args.min_tokens, args.games, args.port)
        plain, *_ = play(folder, False, args.min_tokens, args.games, args.port)
        import runner.llm.prompt_cache as prompt_cache  # the dry run's minimum follows the fake's

        prompt_cache.ANTHROPIC_MIN_TOKENS = args.min_tokens
        guess = Estimate()
        for matchup in asyncio.run(estimate(load(plan))):
            guess.add(matchup.total())
    print(f"{games} games of {SOURCE.name} (model seats: fake Anthropic server, prefixes of at least "
          f"{args.min_tokens:,} tokens cached), Claude Sonnet 4.5 prices (USD per million: input "
          f"{PRICE.input}, output {PRICE.output}, cache read {PRICE.cached_input}, cache write "
          f"{PRICE.cache_write_input})\n")
    print("| run | calls | input tokens | read from cache | written to cache | output tokens | cost USD | "
          "without caching USD | saved |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    print(row("prompt_cache = true (recorded)", cached))
    print(row("prompt_cache = false (recorded)", plain))
    print(row("dry-run estimate, prompt_cache = true", guess))
    input_cost = PRICE.cost(cached.input_tokens, 0, cached.cached_input_tokens, cached.cache_write_input_tokens)
    plain_input = PRICE.cost(cached.input_tokens, 0)
    print(f"\ninput alone: {input_cost:.4f} USD with caching, {plain_input:.4f} without "
          f"({1 - input_cost / plain_input:.1%} saved)")
    # The fake's replies are a line or two; a real model's are longer, and caching does not touch them.
    replies = PRICE.cost(0, cached.calls * REPLY_TOKENS)
    print(f"with replies of {REPLY_TOKENS} tokens (the dry run's assumption): {input_cost + replies:.4f} USD with "
          f"caching, {plain_input + replies:.4f} without ({1 - (input_cost + replies) / (plain_input + replies):.1%} saved)")


if __name__ == "__main__":
    main_()
