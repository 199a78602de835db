"""llama-cpp-python's OpenAI-compatible server, evaluating every prompt from an empty context, so
that the same request gets the same reply whatever came before it (docs/llm.md, "A model played
again exactly").

The stock server (`python -m llama_cpp.server`) keeps the previous request's KV cache and evaluates
only the part of the next prompt that differs. That is faster, but the numbers of a prompt then
depend on the prompt before it: the same request in two cache states can give different replies,
at temperature 0 and at any seed (measured with Gemma 3 270M on llama-cpp-python 0.3.36: 2 of 4
calls differed once their order changed, and a re-play of a row's plan matched 3 of 17 games).
This launcher resets the model's context before each generation: every prompt is evaluated whole,
and the replies of a model with temperature 0, or a fixed `seed`, do not depend on what the server
answered before (5 of 5 calls alike in either order, at temperature 0 and at 0.7 with a seed). It
takes the stock server's arguments:

    ~/llama/bin/python tools/exact_llama_server.py --model gemma-3-270m-q4_k_m.gguf --chat_format gemma \\
        --host 127.0.0.1 --port 8000 --n_ctx 8192

Run it with the Python that has `llama-cpp-python[server]` (it is not one of gamenight's
dependencies, and gamenight never imports this file). The price is the prompt cache: every call
evaluates its whole prompt again.
"""

from __future__ import annotations

import sys
from typing import Any


def exact(llama_class: Any) -> None:
    """Make every generation of `llama_class` (llama_cpp.Llama) start from an empty context."""
    generate = llama_class.generate
    if getattr(generate, "evaluates_whole_prompt", False):
        return

    def generate_from_empty(self: Any, tokens: Any, *args: Any, **kwargs: Any) -> Any:
        self.reset()  # forget the previous prompt: no prefix of it is reused
        return generate(self, tokens, *args, **kwargs)

    generate_from_empty.evaluates_whole_prompt = True  # type: ignore[attr-defined]
    llama_class.generate = generate_from_empty


def main() -> int:
    import llama_cpp
    from llama_cpp.server.__main__ import main as serve

    exact(llama_cpp.Llama)
    return serve() or 0


if __name__ == "__main__":
    sys.exit(main())
