"""site_builder/submission/ownership.py: who a pull request's author is, and which sources' rows they own."""

from __future__ import annotations

import pytest

from site_builder import sources
from site_builder.submission import ownership

BOT_SQUASH = sources.of_commit("Maintainers' run (#12)", "github-actions[bot]", "0" * 40, "2026-12-01", parents=1,
                               email=sources.ACTIONS_BOT_EMAIL)
MAINTAINERS = sources.Source(sources.MAINTAINERS)
ALICE = sources.of_commit("Games (#3)", "alice", "1" * 40, "2026-12-01", parents=1,
                          email="77+alice@users.noreply.github.com")


def test_the_actions_bot_submits_as_the_maintainers():
    bot = ownership.Submitter.of("github-actions[bot]", "41898282")
    assert bot.maintainers and bot.owner == "maintainers" and "maintainers" in bot.label
    assert bot.owns(MAINTAINERS) and bot.owns(BOT_SQUASH)
    assert not bot.owns(ALICE)
    assert ownership.Submitter.of("github-actions[bot]").owns(MAINTAINERS)


def test_nobody_else_owns_the_maintainers_rows():
    alice = ownership.Submitter.of("alice", "77")
    assert alice.owns(ALICE) and not alice.owns(MAINTAINERS) and not alice.owns(BOT_SQUASH)
    assert not ownership.Submitter.of("github-actions", "41898282").owns(MAINTAINERS)


@pytest.mark.parametrize("login, account, message", [
    ("github-actions[bot]", "12345", "is GitHub's account number 41898282, not '12345'"),
    ("dependabot[bot]", "49699333", "is not a GitHub login"),
    ("github-actions[bot] ", None, "is not a GitHub login"),
])
def test_only_the_actions_bot_itself_is_the_maintainers_run(login, account, message):
    with pytest.raises(ownership.OwnerError, match=message.replace("[", r"\[").replace("]", r"\]")):
        ownership.Submitter.of(login, account)
