"""Settings every test shares."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _private_response_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """`gamenight run` caches model replies (docs/llm.md): each test gets its own cache folder, so
    no test reads another's replies and none writes into the user's ~/.cache."""
    monkeypatch.setenv("GAMENIGHT_CACHE_DIR", str(tmp_path_factory.mktemp("response-cache")))
