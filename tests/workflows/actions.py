"""A stand-in for GitHub's runner, enough to run a workflow's jobs here: each job on a runner of its
own (a fresh clone, its own $RUNNER_TEMP, summary and outputs), its `run:` steps through bash with
exactly the env: the step names (expressions of `secrets.` and `github.` filled in), the actions it
uses played by their local equivalents (checkout: a clone; setup-python: this interpreter; the
artifact actions: a folder between the jobs).

`gamenight` on the PATH is this checkout's (its code first on PYTHONPATH, and the commands its
pyproject.toml declares even where the installed metadata is older).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
_EXPRESSION = re.compile(r"\$\{\{\s*([a-z]+)\.([A-Za-z_]+)\s*\}\}")
#: Variables a runner's step never inherits from this machine (a key here must not leak into a step).
_NOT_INHERITED = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD)|^(GITHUB_|RUNNER_|GIT_)", re.IGNORECASE)


@dataclass
class StepRun:
    job: str
    name: str
    script: str
    env: dict[str, str]
    code: int
    output: str


@dataclass
class Runner:
    """The jobs of one workflow run: what each step ran, saw and printed."""

    root: Path
    origin: Path
    secrets: Mapping[str, str]
    github: Mapping[str, str]
    steps: list[StepRun] = field(default_factory=list)
    summaries: dict[str, str] = field(default_factory=dict)
    outputs: dict[str, dict[str, str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.bin = self.root / "bin"
        self.bin.mkdir(parents=True, exist_ok=True)
        shim = self.bin / "gamenight"
        shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m runner "$@"\n', encoding="utf-8")
        shim.chmod(0o755)
        self.artifacts = self.root / "artifacts"
        self.python_path = os.pathsep.join([str(ROOT), str(_declared_commands(self.root / "entry-points"))])

    def checkout(self, job: str) -> Path:
        return self.root / "runners" / job / "work"

    def run_job(self, workflow: Mapping[str, Any], job: str, *, before_run: Callable[[StepRun], str] | None = None,
                skip: Callable[[str], bool] = lambda script: False, failing: str = "") -> None:
        """Every step of `job`; a step's script may be changed by `before_run` (the last step run dry).
        The step named `failing` must fail (it is recorded, and the job goes on as GitHub's would with
        `!cancelled()` steps); any other step that fails fails the test."""
        spec = workflow["jobs"][job]
        temp = self.root / "runners" / job / "temp"
        temp.mkdir(parents=True, exist_ok=True)
        summary = temp / "summary.md"
        work = self.checkout(job)
        outputs: dict[str, str] = {}
        for step in spec["steps"]:
            uses = step.get("uses", "")
            if uses.startswith("actions/checkout@"):
                subprocess.run(["git", "clone", "-q", str(self.origin), str(work)], check=True)
            elif uses.startswith("actions/setup-python@"):
                continue
            elif uses.startswith("actions/upload-artifact@"):
                source = Path(self._fill(step["with"]["path"], temp))
                if source.exists():
                    shutil.copytree(source, self.artifacts / step["with"]["name"], dirs_exist_ok=True)
            elif uses.startswith("actions/download-artifact@"):
                shutil.copytree(self.artifacts / step["with"]["name"], Path(self._fill(step["with"]["path"], temp)),
                                dirs_exist_ok=True)
            elif uses:
                raise AssertionError(f"{job}: no stand-in for {uses}")
            else:
                outputs.update(self._run_step(job, step, work, temp, summary, before_run, skip, failing))
        self.summaries[job] = summary.read_text(encoding="utf-8") if summary.exists() else ""
        self.outputs[job] = outputs

    def _run_step(self, job: str, step: Mapping[str, Any], work: Path, temp: Path, summary: Path,
                  before_run: Callable[[StepRun], str] | None, skip: Callable[[str], bool],
                  failing: str = "") -> dict[str, str]:
        script = step["run"].strip()
        if skip(script):
            return {}
        output_file = temp / f"output-{len(self.steps)}"
        output_file.write_text("", encoding="utf-8")
        env = {k: v for k, v in os.environ.items() if not _NOT_INHERITED.search(k)}
        env.update(PATH=f"{self.bin}{os.pathsep}{env.get('PATH', '')}", PYTHONPATH=self.python_path,
                   RUNNER_TEMP=str(temp), GITHUB_STEP_SUMMARY=str(summary), GITHUB_OUTPUT=str(output_file),
                   GITHUB_WORKSPACE=str(work), GAMENIGHT_CACHE_DIR=str(temp / "cache"),
                   **{f"GITHUB_{k.upper()}": v for k, v in self.github.items() if k != "token"})
        env.update({name: self._fill(str(value), temp) for name, value in step.get("env", {}).items()})
        run = StepRun(job, step.get("name", ""), script, env, 0, "")
        if before_run is not None:
            run.script = before_run(run)
        done = subprocess.run(["bash", "-e", "-c", run.script], cwd=work, env=env, capture_output=True, text=True,
                              check=False)
        run.code, run.output = done.returncode, done.stdout + done.stderr
        self.steps.append(run)
        if (done.returncode != 0) != (run.name == failing != ""):
            said = "failed" if done.returncode else "passed, but was to fail"
            raise AssertionError(f"{job}: step {run.name!r} {said} ({done.returncode}):\n{run.output[-4000:]}")
        return dict(line.split("=", 1) for line in output_file.read_text(encoding="utf-8").splitlines() if "=" in line)

    def _fill(self, text: str, temp: Path) -> str:
        """The expressions a workflow passes through env: and with: (secrets, github, runner.temp)."""
        def value(match: re.Match[str]) -> str:
            context, name = match.groups()
            if context == "secrets":
                return self.secrets.get(name, "")  # GitHub gives an unset secret as the empty string
            if context == "github":
                return self.github[name]
            if context == "runner" and name == "temp":
                return str(temp)
            raise AssertionError(f"no stand-in for the expression {match.group(0)}")

        return _EXPRESSION.sub(value, text)


def _declared_commands(folder: Path) -> Path:
    """A folder on PYTHONPATH whose metadata declares the commands this checkout's pyproject.toml
    does, so that `gamenight` finds them even where the installed metadata predates them."""
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    commands = declared["project"]["entry-points"]["gamenight.commands"]
    info = folder / "gamenight_checkout_commands-0.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: gamenight-checkout-commands\nVersion: 0\n",
                                   encoding="utf-8")
    (info / "entry_points.txt").write_text("[gamenight.commands]\n" + "".join(
        f"{name} = {target}\n" for name, target in commands.items()), encoding="utf-8")
    return folder
