"""Checking what a pull request adds to the base branch: each file, each tournament, the submission whole."""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from runner.progress import Progress
from runner.replay.format import Problem, agent_kind
from runner.rerun.identity import BASES, game_identity, identity_basis
from runner.rerun.plans import (PLAN_FILE, Plan, bots_only, game_problems, missing_games, people_seats_dealt,
                                 read_plan)
from runner.rerun.validate import check_bytes
from site_builder.submission import ownership, reserved
from site_builder.git import Change, Repo
from site_builder.scoring.corpus import Passed
from site_builder.scoring.model import agent_key
from site_builder.submission.base_index import BaseIndex, index_base, most_used
from site_builder.submission.layout import (FILE_MODES, LAYOUT, MAX_FILE_BYTES, MAX_SUBMISSION_BYTES,
                                            MAX_SUBMISSION_FILES, PLAN_PATH, REPLAY_PATH, REPLAYS, SUBMODULE,
                                            SYMLINK)
from site_builder.submission.provenance import provenance_problems
from site_builder.submission.secret_scan import secret_problems

#: Agent kinds that make a game a submission: a model or a person played a seat (not bots alone).
NON_BOT_KINDS = frozenset(("llm", "human"))


@dataclass
class FileCheck:
    """One path the pull request touches, and what is wrong with it."""

    path: str
    status: str
    size: int = 0
    problems: list[Problem] = field(default_factory=list)
    header: dict[str, Any] | None = None
    raw: bytes | None = field(default=None, repr=False)
    judges: list[tuple[str, dict[str, Any], int]] = field(default_factory=list)  # (key, description, first line)
    #: The game as the scorer reads it, made from this file's check once it passed: the effect on the
    #: leaderboard scores it without validating and re-simulating the file a second time.
    passed: Passed | None = field(default=None, repr=False)

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def is_plan(self) -> bool:
        return PLAN_PATH.match(self.path) is not None

    def refuse(self, message: str, line: int = 0, field_name: str = "") -> None:
        self.problems.append(Problem(self.path, line, message, field_name))


@dataclass
class Submission:
    """The result of checking a pull request: every file it touches, and submission-wide problems."""

    base: str
    head: str
    merge_base: str
    files: list[FileCheck] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    base_index: BaseIndex = field(default_factory=BaseIndex)
    submitter: ownership.Submitter = field(default_factory=lambda: ownership.Submitter(None))
    plans: dict[str, Plan] = field(default_factory=dict)  # tournament folder -> its plan
    #: Suite rows on main that the pull request grows by their next stages: folder -> game ids on main.
    extended: dict[str, set[str]] = field(default_factory=dict)

    @property
    def touches_replays(self) -> bool:
        """Whether this pull request is a submission at all (it changes something under replays/)."""
        return any(f.path.startswith(REPLAYS) for f in self.files)

    @property
    def accepted(self) -> list[FileCheck]:
        return [f for f in self.files if f.ok and f.header is not None]

    @property
    def refused(self) -> list[FileCheck]:
        return [f for f in self.files if not f.ok]

    @property
    def ok(self) -> bool:
        return not self.problems and not self.refused


def check_submission(repo: Repo, base_revision: str, head_revision: str, base_copy: Path | None = None,
                     author: str | None = None, author_id: str | None = None,
                     progress: Progress | None = None) -> Submission:
    """Check what `head` adds to `base` (relative to their merge base), as a pull request opened by
    the GitHub login `author` (account number `author_id`); copy base replays for scoring.
    `progress` (default: none shown) hears of the base's replays read and the files checked."""
    progress = progress or Progress(quiet=True)
    submitter = ownership.Submitter.of(author, author_id)
    base, head = repo.commit(base_revision), repo.commit(head_revision)
    fork_point = repo.merge_base(base, head)
    submission = Submission(base, head, fork_point, submitter=submitter)
    changes = repo.changes(fork_point, head)
    submission.files = [FileCheck(c.path, c.status) for c in changes]
    if not submission.touches_replays:
        return submission
    with progress.task("reading the base's replays and who owns them (git)", unit="replays") as reading:
        submission.base_index = index = index_base(repo, base, base_copy, progress=reading.hook())
    candidates = []
    for check, change in zip(submission.files, changes):
        if _path_allowed(check, change, index, submitter.maintainers):
            candidates.append((check, change))
    sizes = repo.sizes([change.oid for _, change in candidates])
    total = 0
    for check, change in candidates:
        check.size = sizes.get(change.oid, 0)
        total += check.size
        if check.size > MAX_FILE_BYTES:
            check.refuse(f"the file is {check.size:,} bytes; a submitted replay may have at most "
                         f"{MAX_FILE_BYTES:,} bytes")
    if len(changes) > MAX_SUBMISSION_FILES:
        submission.problems.append(f"the pull request changes {len(changes):,} files; one submission may add "
                                   f"at most {MAX_SUBMISSION_FILES:,}: submit a smaller tournament")
    if total > MAX_SUBMISSION_BYTES:
        submission.problems.append(f"the pull request adds {total:,} bytes of replays; one submission may add "
                                   f"at most {MAX_SUBMISSION_BYTES:,}: submit a smaller tournament")
    if submission.problems:
        return submission  # nothing is read when the submission is too large
    readable: dict[str, list[FileCheck]] = {}  # identical files share one blob
    for check, change in candidates:
        if check.ok:
            readable.setdefault(change.oid, []).append(check)
    plan_blobs = [oid for oid, checks in readable.items() if any(c.is_plan for c in checks)]
    on_main = _plans_on_main(repo, base, [c for checks in readable.values() for c in checks
                                          if c.is_plan and c.path in index.paths])
    for oid, raw in repo.blobs(plan_blobs):
        for check in readable.pop(oid):
            _read_plan(submission, check, raw, on_main.get(check.path))
    whole = _whole_tournaments(submission, [c for c, _ in candidates if c.ok and not c.is_plan])
    seen = _Seen()
    readable = {oid: [c for c in checks if _folder(c.path) in whole] for oid, checks in readable.items()}
    readable = {oid: checks for oid, checks in readable.items() if checks}
    with progress.task("checking the submitted replays", total=sum(map(len, readable.values())),
                       unit="files") as checking:
        for oid, raw in repo.blobs(list(readable)):
            for check in readable[oid]:
                check.raw = raw
                _check_content(check, raw, index, seen, submission.plans[_folder(check.path)],
                               submission.submitter.maintainers)
                checking.advance()
    _check_agents(submission)
    return submission


def _plans_on_main(repo: Repo, base: str, checks: list[FileCheck]) -> dict[str, bytes]:
    """The base revision's version of each plan the pull request changes, by path."""
    found: dict[str, str] = {}
    for check in checks:
        found.update({f.path: f.oid for f in repo.tree(base, f"{REPLAYS}{_folder(check.path)}/")
                      if f.path == check.path})
    by_oid = {oid: path for path, oid in found.items()}
    return {by_oid[oid]: raw for oid, raw in repo.blobs(list(by_oid))}


def _whole_tournaments(submission: Submission, games: list[FileCheck]) -> set[str]:
    """The tournament folders whose games are worth reading: each has a sound plan, belongs to
    nobody else, and holds exactly its planned games (judged from the paths, before any replay is
    read, so that a flood of copies or a handful of chosen seeds is refused at once)."""
    by_folder: dict[str, list[FileCheck]] = {}
    for check in games:
        by_folder.setdefault(_folder(check.path), []).append(check)
    owners, submitter = submission.base_index.owners, submission.submitter
    whole = set()
    for folder in sorted(set(by_folder) | set(submission.plans)):
        checks = by_folder.get(folder, [])
        plan = submission.plans.get(folder)
        plan_check = next((c for c in submission.files if c.is_plan and _folder(c.path) == folder), None)
        problem = ownership.tournament_problem(owners, folder, submitter)
        if problem and folder in submission.extended and submitter.owns(owners.tournaments[folder]):
            problem = None  # the owner of a suite row adds its next stages
        if problem:
            for check in [*checks, *([plan_check] if plan_check else [])]:
                check.refuse(problem)
            continue
        if plan is None:
            for check in checks:
                check.refuse(f"not read: replays/{folder}/ has no {PLAN_FILE}. A submission brings whole "
                             f"tournaments, each with the plan `gamenight run` writes beside its replays")
            continue
        if plan.tournament is None:
            for check in checks:
                check.refuse(f"not read: the tournament's plan {plan.path} has problems (see there)")
            continue
        present = {REPLAY_PATH.match(c.path)["game_id"]: c for c in checks}  # type: ignore[index]
        for game_id, check in present.items():
            if game_id not in plan.games:
                check.refuse(f"is not a game of the plan {plan.path}: a submission holds exactly the games its "
                             "tournament plans, named by their game ids", 0, "game_id")
        missing = missing_games(plan, set(present) | submission.extended.get(folder, set()))
        if missing and plan_check is not None:
            plan_check.problems.append(missing)
        if missing or any(not c.ok for c in checks):
            for check in checks:
                if check.ok:
                    check.refuse("not read: its tournament is not whole (see its plan and the other files)")
            continue
        whole.add(folder)
    return whole


def _folder(path: str) -> str:
    """The tournament folder of a path under replays/ ("" if it has none)."""
    parts = path.split("/")
    return parts[1] if len(parts) > 2 else ""


def _path_allowed(check: FileCheck, change: Change, index: BaseIndex, maintainers: bool = False) -> bool:
    """Refuse what a submission may not touch; True if the path is a new replay or plan worth reading.
    Only the maintainers (their run's pull requests) may add a verification, replays/verify-<row>/."""
    if not check.path.startswith(REPLAYS):
        check.refuse("outside replays/: a submission only adds replay files (send changes to code, docs or "
                     "workflows in a separate pull request)")
        return False
    if not maintainers and (problem := reserved.verification_problem(_folder(check.path))) and change.status != "D":
        check.refuse(problem)
        return False
    if change.status == "D":
        check.refuse("deletes a replay: the corpus is append-only, because published ratings and links to "
                     "replays must stay reproducible (ask a maintainer if a replay is wrong)")
        return False
    if change.status == "M" and PLAN_PATH.match(check.path) and check.path in index.paths and change.mode in FILE_MODES:
        return True  # a suite row's plan grows by its next stages; _read_plan judges whether this one does
    if change.status != "A" or check.path in index.paths:
        check.refuse("changes a replay that is already in the corpus: replays are append-only, because "
                     "published ratings and links to replays must stay reproducible; add new games under "
                     "new names instead")
        return False
    if check.path in index.owners.deleted:
        check.refuse("main once held a file at this path and deleted it: a path names one game for good, so a "
                     "new game never takes an old one's place (or its source)")
        return False
    if change.mode == SYMLINK:
        check.refuse("is a symbolic link: submit the replay file itself")
        return False
    if change.mode == SUBMODULE or change.mode not in FILE_MODES:
        check.refuse("is not a regular file: submit replay files only")
        return False
    if not REPLAY_PATH.match(check.path) and not PLAN_PATH.match(check.path):
        check.refuse(f"does not follow the layout {LAYOUT} (a tournament folder directly under replays/, "
                     "one file per game named after its game id, and the tournament's plan "
                     f"{PLAN_FILE}; letters, digits, '.', '_' and '-' only)")
        return False
    return True


def played_problems(plan: Plan) -> list[Problem]:
    """Why a plan with a person in it is not what `gamenight play` makes of a game people play:
    one game, each person's seat dealt by the plan (never chosen by seat or role). No check can
    tell a person's moves from a script's; what it can hold a played game to is its shape."""
    assert plan.tournament is not None
    people = {a.name for m in plan.tournament.matchups for a in (*m.roles.values(), *m.lineup) if a.is_human}
    if not people:
        return []
    found = []
    if len(plan.games) != 1:
        found.append(Problem(plan.path, 0, f"plans {len(plan.games):,} games with a person in them: a game people "
                                           "played is one game, planned and written by `gamenight play`, in a folder "
                                           "of its own", "matchups"))
    if not people_seats_dealt(plan):
        found.append(Problem(plan.path, 0, "a person chose their seat or role here (`gamenight play --seat` or "
                                           "`--role`: a practice game); a submitted game deals each person's seat "
                                           "from the plan (`gamenight play --game GAME --name NAME`)", "matchups"))
    return found


def _read_plan(submission: Submission, check: FileCheck, raw: bytes, on_main: bytes | None = None) -> None:
    """Read and plan a submitted tournament.toml (its problems are the file's); `on_main`, the
    base revision's version of a plan the pull request changes."""
    folder = _folder(check.path)
    plan = read_plan(check.path, folder, raw, max_games=MAX_SUBMISSION_FILES)
    if on_main is not None:
        before = read_plan(check.path, folder, on_main)
        plan.problems.extend(extension_problems(before, plan))
        if not plan.problems:
            prefix = f"{REPLAYS}{folder}/"
            submission.extended[folder] = {Path(p).stem for p in submission.base_index.paths
                                           if p.startswith(prefix) and p.endswith(".jsonl")}
    if plan.tournament is not None and plan.tournament.name != folder:
        plan.problems.append(Problem(check.path, 0, f"plans tournament {plan.tournament.name!r}, but it is in "
                                     f"replays/{folder}/: a tournament's games and plan go in replays/<its name>/",
                                     "name"))
    elif plan.tournament is not None:
        plan.problems.extend(bots_only(plan))
        plan.problems.extend(played_problems(plan))
    plan.problems.extend(reserved.problems(reserved.reserved(), folder, plan if plan.tournament else None, (),
                                           submission.submitter.maintainers))
    if not submission.submitter.maintainers and (problem := reserved.roster_problem(folder)):
        plan.problems.append(Problem(plan.path, 0, problem, "name"))
    if plan.problems:
        plan.tournament = None  # a plan of another folder, or of bots' games, is no submission's
    check.problems.extend(plan.problems)
    submission.plans[folder] = plan


def extension_problems(before: Plan, after: Plan) -> list[Problem]:
    """Why a changed plan is not a suite row on main grown by its next stages (the same suite,
    model and candidate, every deal on main kept as it was), or nothing."""
    old, new = before.tournament, after.tournament
    if old is None or old.suite is None:
        return [Problem(after.path, 0, "changes a tournament plan that is already in the corpus: only a suite's row "
                                       "grows, by its next stages (`gamenight run --suite ... --stages N`); play "
                                       "other games under a new tournament name")]
    if new is None:
        return []  # its own problems say why
    if new.suite is None or (new.suite.name, new.suite.version, new.suite.model) != (
            old.suite.name, old.suite.version, old.suite.model):
        return [Problem(after.path, 0, f"the row on main plays the suite {old.suite.name}-{old.suite.version} with "
                                       f"{old.suite.model!r}; a later pull request adds its next stages only", "suite")]
    if new.suite.stages <= old.suite.stages:
        return [Problem(after.path, 0, f"main already holds stages 1..{old.suite.stages} of this row: a later pull "
                                       f"request adds stage {old.suite.stages + 1} and on", "suite.stages")]
    kept = [m.key() + str(m.seed) for m in old.matchups]
    if kept != [m.key() + str(m.seed) for m in new.matchups[:len(kept)]]:
        return [Problem(after.path, 0, "the deals of the stages on main must stay exactly as main plans them (the "
                                       "same candidate, seats and seeds)", "matchups")]
    return []


@dataclass
class _Seen:
    """What the files checked so far in this submission hold, to refuse a game counted twice."""

    by_hash: dict[str, str] = field(default_factory=dict)
    by_game_id: dict[str, str] = field(default_factory=dict)
    by_identity: dict[str, str] = field(default_factory=dict)


def _check_content(check: FileCheck, raw: bytes, index: BaseIndex, seen: _Seen, plan: Plan,
                   maintainers: bool = False) -> None:
    """Validate one new replay of a whole tournament strictly, then the rules a submission adds on
    top of `gamenight validate`."""
    assert plan.tournament is not None
    match = REPLAY_PATH.match(check.path)
    assert match is not None  # _path_allowed only lets layout-conforming paths through
    checked = check_bytes(check.path, raw, probes=plan.tournament.probes, planned=plan.games.get(match["game_id"]))
    check.problems.extend(checked.problems)
    check.problems.extend(secret_problems(check.path, raw))
    content_hash = hashlib.sha256(raw).hexdigest()
    if content_hash in index.by_hash:
        check.refuse(f"has the same bytes as {index.by_hash[content_hash]}, already in the corpus: "
                     "a game counts once")
    elif content_hash in seen.by_hash:
        check.refuse(f"has the same bytes as {seen.by_hash[content_hash]} in this submission: a game counts once")
    seen.by_hash.setdefault(content_hash, check.path)
    header = checked.header
    if header is None:
        return
    game_id, tournament = header.get("game_id"), header.get("tournament")
    if isinstance(game_id, str):
        if match["game_id"] != game_id:
            check.refuse(f"the file must be named {game_id}.jsonl after its game id", 1, "game_id")
        if game_id in index.by_game_id:
            check.refuse(f"game id already used by {index.by_game_id[game_id]}", 1, "game_id")
        elif game_id in seen.by_game_id:
            check.refuse(f"game id already used by {seen.by_game_id[game_id]} in this submission", 1, "game_id")
        seen.by_game_id.setdefault(game_id, check.path)
    if isinstance(tournament, str) and match["tournament"] != tournament:
        check.refuse(f"a replay of tournament {tournament!r} goes in replays/{tournament}/", 1, "tournament")
    if not checked.ok:
        return  # provenance and copies are judged once the file itself is sound
    identity = game_identity(header, [r.data for r in checked.records])
    same = index.by_identity.get(identity) or seen.by_identity.get(identity)
    if same is not None:
        where = "" if identity in index.by_identity else " in this submission"
        check.refuse(f"is the same game as {same}{where} ({BASES[identity_basis(header)]}) under other labels: "
                     "a game counts once")
    seen.by_identity.setdefault(identity, check.path)
    if not has_non_bot_seat(header):
        check.refuse("no seat of this game is a language model or a person: a submission brings games of models "
                     "or people; the bots play in the maintainers' built-in tournament", 1, "players")
    check.problems.extend(game_problems(plan, check.path, header))
    check.problems.extend(reserved.header_problems(reserved.reserved(), check.path, header, maintainers))
    check.problems.extend(provenance_problems(check.path, header, checked.records))
    if check.ok:
        check.header = header
        check.passed = Passed.of(checked, content_hash)
        firsts: dict[str, tuple[dict[str, Any], int]] = {}
        for record in checked.records:
            judge = record.data.get("judge") if record.data.get("type") == "judge" else None
            if isinstance(judge, dict):
                firsts.setdefault(agent_key(judge), (judge, record.line))
        check.judges = [(key, judge, line) for key, (judge, line) in firsts.items()]


def has_non_bot_seat(header: Mapping[str, Any]) -> bool:
    """Whether a language model or a person played a seat of this game (what makes it a submission)."""
    return any(isinstance(p, Mapping) and isinstance(p.get("agent"), Mapping)
               and agent_kind(p["agent"]) in NON_BOT_KINDS for p in header.get("players") or ())


#: New rows one pull request may bring (new model agents, people and judges): the board's build
#: grows with its rows, and a submission of a model brings a handful.
MAX_NEW_ROWS = 20
#: People a pull request may bring, and games they played (`gamenight play` writes one per folder).
MAX_NEW_PEOPLE = 4
MAX_PLAYED_GAMES = 10
#: People and played games one source may have on the board in all (its earlier pull requests too).
MAX_PEOPLE_PER_SOURCE = 10
MAX_PLAYED_PER_SOURCE = 100


def _check_agents(submission: Submission) -> None:
    """No accepted game adds to a model agent or judge that is not the submitter's, or names an
    agent like one; then the caps on new rows and on people's games."""
    owners, submitter = submission.base_index.owners, submission.submitter
    told: set[str] = set()
    judged: dict[tuple[str, str], str | None] = {}  # (key, name) -> its problem: the same in every game
    for check in submission.files:
        if check.header is None or not check.ok:
            continue
        if check.header.get("verify") is not None:
            continue  # a verification (the maintainers' alone, refused from anyone else) adds no games to any agent
        for i, player in enumerate(check.header["players"]):
            agent = player["agent"]
            _refuse_once(check, told, judged, agent_key(agent), agent, 1, f"players[{i}].agent",
                         lambda key, agent: ownership.agent_problem(owners, key, agent, submitter))
        for key, judge, line in check.judges:
            _refuse_once(check, told, judged, "judge:" + key, judge, line, "judge",
                         lambda key, judge: ownership.judge_problem(owners, key[len("judge:"):], judge, submitter))
        if not check.ok:
            check.header = None
    _check_caps(submission)


def _refuse_once(check: FileCheck, told: set[str], judged: dict[tuple[str, str], str | None], key: str,
                 description: Mapping[str, Any], line: int, where: str, problem_of: Any) -> None:
    seen = (key, str(description.get("name", "")))
    if seen not in judged:
        judged[seen] = problem_of(key, description)
    problem = judged[seen]
    if problem:
        first = problem not in told
        told.add(problem)
        check.refuse(problem if first else "the same as above: " + problem.split(";")[0], line, where)


def _check_caps(submission: Submission) -> None:
    """Submission-wide limits: new rows, people and played games, in this pull request and in all
    of its source's (a flood of made-up people or games is refused whole)."""
    base, submitter = submission.base_index, submission.submitter
    accepted = submission.accepted
    new_rows = {a.key for a in submitted_agents(submission)
                if a.games_before == 0 and agent_kind(a.description) in NON_BOT_KINDS}
    new_judges = {key for check in accepted for key, _, _ in check.judges if key not in base.owners.judges}
    if len(new_rows) + len(new_judges) > MAX_NEW_ROWS:
        submission.problems.append(
            f"the pull request brings {len(new_rows) + len(new_judges):,} new rows ({len(new_rows):,} agents and people, "
            f"{len(new_judges):,} judges); one submission may bring at most {MAX_NEW_ROWS}: split it")
    people = {agent_key(p["agent"]) for check in accepted for p in check.header["players"]  # type: ignore[index]
              if agent_kind(p["agent"]) == "human"}
    played = [check for check in accepted if any(agent_kind(p["agent"]) == "human"
                                                 for p in check.header["players"])]  # type: ignore[index]
    new_people = {key for key in people if key not in base.owners.agents}
    if len(new_people) > MAX_NEW_PEOPLE:
        submission.problems.append(f"the pull request brings {len(new_people)} people; one submission may bring at "
                                   f"most {MAX_NEW_PEOPLE}")
    if len(played) > MAX_PLAYED_GAMES:
        submission.problems.append(f"the pull request brings {len(played):,} games people played; one submission may "
                                   f"bring at most {MAX_PLAYED_GAMES}")
    theirs = {key for key, row in base.owners.agents.items()
              if row.kind == "human" and row.owner is not None and submitter.owns(row.owner)}
    before = sum(1 for path, seats in base.seats.items()
                 if any(agent_kind(d) == "human" for _, d in seats)
                 and (source := base.owners.files.get(path)) is not None and submitter.owns(source))
    if len(theirs | people) > MAX_PEOPLE_PER_SOURCE:
        submission.problems.append(f"with this pull request, {submitter.label} would have {len(theirs | people)} people "
                                   f"on the board; one source may have at most {MAX_PEOPLE_PER_SOURCE}")
    if before + len(played) > MAX_PLAYED_PER_SOURCE:
        submission.problems.append(f"with this pull request, {submitter.label} would have {before + len(played):,} "
                                   f"played games on the board; one source may have at most {MAX_PLAYED_PER_SOURCE}")


# -- what the submission adds -----------------------------------------------------------------

@dataclass(frozen=True)
class AgentSummary:
    """One agent of the submission: who it is and how many games it gains."""

    key: str
    label: str
    description: Mapping[str, Any]
    games_before: int
    games_added: int


def added_games(submission: Submission) -> Counter[str]:
    """New games per game (accepted files only)."""
    return Counter(str(f.header["game"]) for f in submission.accepted if f.header)


def submitted_agents(submission: Submission) -> list[AgentSummary]:
    """Every agent of the accepted files, with its games before and added (new agents first)."""
    games: Counter[str] = Counter()
    labels: dict[str, Counter[str]] = {}
    descriptions: dict[str, Mapping[str, Any]] = {}
    for check in submission.accepted:
        assert check.header is not None
        keys = set()
        for player in check.header["players"]:
            agent = player["agent"]
            key = agent_key(agent)
            keys.add(key)
            labels.setdefault(key, Counter())[str(agent.get("name", ""))] += 1
            descriptions.setdefault(key, {k: v for k, v in agent.items() if k != "name"})
        games.update(keys)
    base = submission.base_index
    summaries = [AgentSummary(key, base.label(key) or most_used(labels[key]), descriptions[key],
                              base.agent_games.get(key, 0), added)
                 for key, added in games.items()]
    return sorted(summaries, key=lambda a: (a.games_before > 0, a.label, a.key))
