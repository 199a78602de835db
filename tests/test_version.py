"""One version: the installed package's metadata says what every replay records."""

from __future__ import annotations

import importlib.metadata

import runner


def test_the_package_version_is_the_one_replays_record():
    assert importlib.metadata.version("gamenight") == runner.__version__
