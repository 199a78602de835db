"""Errors that cross the runner's floors: raised in a low one, caught in a high one.

A leaf: it imports nothing of the runner, so the provider layer (runner/llm/) and the agents can
both use it without either importing the other, and reading it never loads a provider SDK.
"""

from __future__ import annotations


class ProviderError(Exception):
    """An agent's model provider could not answer, even after its retries.

    An agent raises it instead of deciding: the game is abandoned and never written, since a
    provider failure says nothing about how the model plays. `lasting` means no later call can
    succeed either (a wrong key, an unknown model, nothing listening), so the run should stop.
    """

    def __init__(self, message: str, *, lasting: bool = False):
        super().__init__(message)
        self.lasting = lasting
