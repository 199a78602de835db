"""`gamenight` starts at once: listing and describing its commands loads none of the heavy libraries.

The provider SDKs, numpy, scipy, the templates, MkDocs and the scorer take seconds to import
(issue 44); only the commands that use them may load them. Each check runs in a fresh Python, as
this test process has imported everything already.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from runner.llm.providers import PROVIDERS

ROOT = Path(__file__).resolve().parents[2]
#: The providers' SDKs (runner/llm/providers.py), loaded only when an endpoint is opened.
SDKS = tuple(dict.fromkeys(p.sdk for p in PROVIDERS.values()))
#: What no listing or help page may import (site_builder.scoring: the scorer, with the embedder).
HEAVY = (*SDKS, "numpy", "scipy", "jinja2", "mkdocs", "rich", "jsonschema", "yaml",
         "site_builder.scoring")
#: Commands that only list, besides every command's `--help` (found by walking the command groups).
LISTINGS = (["--help"], ["games"], ["agents"])
#: Some of the commands the walk must find (the site builder's through its entry points).
KNOWN = ("validate --help", "run --help", "judge --help", "score --help", "build --help", "serve --help",
         "export magic --help", "play --help", "submission-check --help")

#: Runs each command in this one process, printing per command the heavy modules it loaded by then.
_PROBE = """
import json, sys
import click
from click.testing import CliRunner
heavy = {heavy!r}
loaded = lambda: sorted(h for h in heavy if any(m == h or m.startswith(h + ".") for m in sys.modules))
import runner.cli
found = {{"import runner.cli": loaded()}}

def invoke(args):
    result = CliRunner().invoke(runner.cli.main, args)
    assert result.exit_code == 0, (args, result.output)
    found[" ".join(args)] = loaded()

def walk(group, path):
    context = click.Context(group, info_name=path[-1] if path else "gamenight")
    for name in group.list_commands(context):
        command = group.get_command(context, name)
        invoke([*path, name, "--help"])
        if isinstance(command, click.Group):
            walk(command, [*path, name])

for args in {listings!r}:
    invoke(args)
if {walk!r}:
    walk(runner.cli.main, [])
print(json.dumps(found))
"""


def heavy_modules_loaded(listings=LISTINGS, heavy=HEAVY, walk=True) -> dict[str, list[str]]:
    """Per command (in the order run, in one fresh process): the heavy modules loaded by then."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    probe = _PROBE.format(heavy=heavy, listings=[list(a) for a in listings], walk=walk)
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_listing_and_describing_every_command_loads_no_heavy_library():
    found = heavy_modules_loaded()
    assert set(KNOWN) <= set(found)  # the walk reached every command, the entry points' too
    assert {command: mods for command, mods in found.items() if mods} == {}


def test_the_probe_sees_a_heavy_library_where_one_is_loaded():
    # `validate` of a model game renders its prompts again (jinja2) and checks its lines (jsonschema).
    game = next((ROOT / "replays" / "local-cpu").glob("*.jsonl"))
    found = heavy_modules_loaded([["validate", str(game)]], walk=False)
    assert "jinja2" in found[f"validate {game}"]
    assert found["import runner.cli"] == []


@pytest.mark.parametrize("provider", [p for p in PROVIDERS.values() if p.official_url], ids=lambda p: p.name)
def test_a_provider_sdk_is_loaded_when_its_first_endpoint_is_opened(provider):
    sdk = provider.sdk
    probe = (f"import sys; from runner.llm.connections import Connections; from runner.llm.types import ModelSettings; "
             f"assert {sdk!r} not in sys.modules; "
             f"Connections(environ={{'K': 'x'}}).model(ModelSettings({provider.name!r}, 'm', api_key_env='K')); "
             f"print({sdk!r} in sys.modules)")
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout.strip()) == (0, "True"), done.stderr
