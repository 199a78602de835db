"""Language-model providers: OpenAI, Anthropic and OpenAI-compatible servers behind one small interface.

`Connections` is a run's registry of endpoints; `Connections.model(settings)` gives a
`ChatModel` whose `complete(messages)` returns a `Completion` (the reply, or the final error
after retries, never raising for provider trouble), within the endpoint's shared limits.
Importing this package loads no provider SDK: an endpoint's adapter (openai_api, anthropic_api)
and its SDK are imported when the endpoint is opened (`connections.open_transport`).
"""

from runner.errors import ProviderError
from runner.llm.connections import Connections
from runner.llm.redact import redact
from runner.llm.types import (
    PROVIDERS,
    ChatModel,
    Completion,
    ConfigError,
    Message,
    ModelSettings,
    ProviderLimits,
)

__all__ = ["PROVIDERS", "ChatModel", "Completion", "ConfigError", "Connections", "Message",
           "ModelSettings", "ProviderError", "ProviderLimits", "redact"]
