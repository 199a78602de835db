"""What prompt caching saves on a recorded stage of the ranked suite, through the real runner and SDK.

    python -m tests.llm.bench_cache [--min-tokens 1024] [--stages 1]

Plays stage 1 of the ranked suite (`gamenight run --suite ranked --model agents.toml#claude`: 23
deals over the six games, the candidate's seat against the suite's fixed built-in opponents) with
the candidate's model served by the fake Anthropic server of tests/llm/fakes.py, which answers
legally and caches prompt prefixes as Anthropic documents it (marked prefixes of at least
--min-tokens tokens, counted as characters / 4), twice: with `prompt_cache = true` (the default)
and `false`. The suite's deals do not depend on the model or its address, so both runs play the
same hands. Nothing leaves the machine and no key is needed. It prints the tokens the replays
record and their cost at Claude Sonnet 4.5's list prices with and without caching, and the dry
run's estimate of the same.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from click.testing import CliRunner

from runner.cli import main
from runner.plan import Price
from runner.run import REPLY_TOKENS, Estimate, Usage, model_calls
from tests.llm.fakes import FakeAnthropic
from tests.llm.test_tournament_llm import legal_reply, replays

MODEL = "claude-sonnet-4-5"
#: Claude Sonnet 4.5, USD per million tokens: input, output, cache read, 5-minute cache write
#: (https://platform.claude.com/docs/en/about-claude/pricing, read 2026-11-28).
PRICE = Price(input=3.0, output=15.0, cached_input=0.30, cache_write_input=3.75)
KEY_VARIABLE = "BENCH_FAKE_KEY"


def agent_file(base_url: str, prompt_cache: bool) -> str:
    """The candidate: Claude Sonnet 4.5 at the fake's address, caching on or off."""
    return (f'name = "cache-bench"\nseed = 1\n\n[agents.claude]\nprovider = "anthropic"\nmodel = "{MODEL}"\n'
            f'base_url = "{base_url}"\napi_key_env = "{KEY_VARIABLE}"\nprompt_cache = {str(prompt_cache).lower()}\n')


def play(folder: Path, prompt_cache: bool, min_tokens: int, stages: int) -> tuple[Usage, int, list[str]]:
    """Play the suite's first `stages` stages once against a fresh fake: the recorded usage, the
    games, and the command line that plays them (for the dry run)."""
    with FakeAnthropic(legal_reply, cache_min_tokens=min_tokens) as server:
        agents = folder / f"agents-{prompt_cache}.toml"
        agents.write_text(agent_file(server.base_url, prompt_cache), encoding="utf-8")
        out = folder / f"out-{prompt_cache}"
        args = ["run", "--suite", "ranked", "--model", f"{agents}#claude", "--stages", str(stages),
                "--price", f"{PRICE.input}/{PRICE.output}/{PRICE.cached_input}"]
        result = CliRunner().invoke(main, [*args, "--out", str(out), "--no-cache", "--parallel", "4"],
                                    env={KEY_VARIABLE: "fake-key", "GAMENIGHT_CACHE_DIR": str(folder / "machine")})
        if result.exit_code != 0 or server.script_errors:
            raise SystemExit(f"the run failed:\n{result.output}\n{server.script_errors}")
    usage = Usage()
    played = replays(out)
    for game in played:
        for _, call in model_calls(game["records"]):
            usage.add_call(call)
    return usage, len(played), args


def dry_run(args: list[str], min_tokens: int) -> str:
    """The dry run's estimate for the same stages, as `gamenight run ... --dry-run` prints it."""
    import runner.llm.prompt_cache as prompt_cache  # the dry run's minimum follows the fake's

    prompt_cache.ANTHROPIC_MIN_TOKENS = min_tokens
    result = CliRunner().invoke(main, [*args, "--dry-run"], env={KEY_VARIABLE: "fake-key"})
    if result.exit_code != 0:
        raise SystemExit(f"the dry run failed:\n{result.output}")
    return result.output


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
    parser.add_argument("--stages", type=int, default=1, help="the suite's stages to play (23 deals each)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        cached, games, command = play(folder, True, args.min_tokens, args.stages)
        plain, *_ = play(folder, False, args.min_tokens, args.stages)
        estimate = dry_run(command, args.min_tokens)
    print(f"{games} games: stage(s) 1..{args.stages} of the ranked suite (the candidate: the fake Anthropic "
          f"server, prefixes of at least {args.min_tokens:,} tokens cached), Claude Sonnet 4.5 prices (USD per "
          f"million: input {PRICE.input}, output {PRICE.output}, cache read {PRICE.cached_input}, cache write "
          f"{PRICE.cache_write_input})\n")
    print("| run | calls | input tokens | read from cache | written to cache | output tokens | cost USD | "
          "without caching USD | saved |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    print(row("prompt_cache = true (recorded)", cached))
    print(row("prompt_cache = false (recorded)", plain))
    input_cost = PRICE.cost(cached.input_tokens, 0, cached.cached_input_tokens, cached.cache_write_input_tokens)
    plain_input = PRICE.cost(cached.input_tokens, 0)
    print(f"\ninput alone: {input_cost:.4f} USD with caching, {plain_input:.4f} without "
          f"({1 - input_cost / plain_input:.1%} saved)")
    # The fake's replies are a line or two; a real model's are longer, and caching does not touch them.
    replies = PRICE.cost(0, cached.calls * REPLY_TOKENS)
    print(f"with replies of {REPLY_TOKENS} tokens (the dry run's assumption): {input_cost + replies:.4f} USD with "
          f"caching, {plain_input + replies:.4f} without ({1 - (input_cost + replies) / (plain_input + replies):.1%} saved)")
    print("\nthe dry run of the same command:\n" + estimate)


if __name__ == "__main__":
    main_()
