"""Fixtures of the submission tests: a main branch to open pull requests on, and the scorer's cache."""

from __future__ import annotations

from pathlib import Path

import pytest
from submission_repos import GitRepo, pull_request, shipped_sample


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> GitRepo:
    """A main branch of a README and one shipped replay of each game (a module may bring its own)."""
    repo = GitRepo(tmp_path_factory.mktemp("template") / "repo")
    repo.write("README.md", "# gamenight\n")
    repo.write_all(shipped_sample(1))
    repo.commit("base")
    return repo


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("cache") / "scores.sqlite"


@pytest.fixture
def repo(template: GitRepo, cache: Path, tmp_path: Path) -> GitRepo:
    """A fresh clone of main on a branch `pr`, for one test's pull request."""
    return pull_request(template, tmp_path / "repo", cache)
