"""Language-model providers: OpenAI, Anthropic and OpenAI-compatible servers behind one small interface.

`connections.Connections` is a run's registry of endpoints; `Connections.model(settings)` gives a
`ChatModel` whose `complete(messages)` returns a `Completion` (the reply, or the final error after
retries, never raising for provider trouble), within the endpoint's shared limits. The interface
(settings, limits, messages, completions) is in `types`, the retry rules in `failures`, and every
fact of a provider (its key variable, modes, caching, key shapes, adapter) in its record of
`providers`.

This package imports nothing, so each module costs only its own import: the provider SDKs take
seconds to load, and the SDK adapters (`openai_api`, `anthropic_api`) are imported only when an
endpoint of their provider is opened (`providers.Provider.open`).
"""
