"""Local HTTP servers speaking the OpenAI and Anthropic wire protocols, driven by a script.

A script is a callable `(request_json, call_index) -> str | Reply | Fault`: a plain string is a
normal reply ending with "stop"; a `Reply` sets the finish, usage, model id or a delay (see
`too_slow`, `length_cut`); a `Fault` is an HTTP error with the API's error body or a broken
body (see `rate_limited`, `server_error`, `unauthorized`, `malformed_json`). `latency_s` adds a
fixed delay to every answer. `answering(decide)` replies in gamenight's `ANSWER: <json>` form
with whatever action `decide` picks from the conversation. Every request is recorded with its
headers, and the servers count requests in flight so tests can check concurrency limits. Both also
answer `GET /v1/models` (the model list, which `gamenight run` asks for before it plays, holding
the server's key to the same test), recorded apart in `listings`; `models=False` plays a server
without that route.

    with FakeOpenAI(sequence(rate_limited(0.2), "hello")) as server:
        settings = ModelSettings("openai_compatible", "m", base_url=server.base_url)
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import os
import random
import re
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self


@dataclass(frozen=True)
class Reply:
    """A successful answer. Unset token counts are estimated from the text (about 4 chars/token)."""

    text: str
    finish: str = "stop"              # "stop" or "length"; each fake writes its own API's word
    model: str | None = None          # the model id to report; default: the requested one
    input_tokens: int | None = None
    output_tokens: int | None = None
    delay_s: float = 0.0              # wait before answering
    reasoning: str | None = None      # thinking sent apart from the reply (reasoning_content / a thinking block)
    refusal: bool = False             # OpenAI: the text comes as a refusal, with no content
    tool_input: Any = None            # Anthropic: answer with a tool_use block of the forced tool instead
    reasoning_tokens: int | None = None  # reported in the usage details
    cached_input_tokens: int | None = None  # reported in the usage details
    chunk_gap_s: float = 0.0          # when streamed: the wait between events (a slow generation)
    break_after: int | None = None    # when streamed: an error event after this many events, then the end


@dataclass(frozen=True)
class Fault:
    """A failed answer: an HTTP error status with the API's error body, or a raw broken body."""

    status: int = 500
    message: str = "The server had an error while processing your request."
    headers: Mapping[str, str] = field(default_factory=dict)
    raw_body: bytes | None = None     # sent verbatim instead of the API's error JSON
    delay_s: float = 0.0


Answer = str | Reply | Fault
Script = Callable[[dict[str, Any], int], Answer]


def rate_limited(retry_after_s: float = 0.2, *, header: str = "retry-after") -> Fault:
    """HTTP 429 asking to wait; `header` is "retry-after" (seconds) or "retry-after-ms"."""
    value = retry_after_s * 1000 if header == "retry-after-ms" else retry_after_s
    return Fault(429, "Rate limit reached for requests.", headers={header: f"{value:g}"})


def server_error(status: int = 500) -> Fault:
    """An HTTP 5xx from the API."""
    return Fault(status, "The server had an error while processing your request.")


def unauthorized(message: str = "Incorrect API key provided.") -> Fault:
    """HTTP 401: a bad key, which must never be retried."""
    return Fault(401, message)


def malformed_json() -> Fault:
    """HTTP 200 with a body cut in the middle of the JSON."""
    return Fault(200, raw_body=b'{"id": "broken", "choices": [{"index": 0, "mess')


def too_slow(delay_s: float, then: Answer = "late") -> Reply:
    """An answer that only comes after `delay_s` (longer than the client's timeout)."""
    reply = then if isinstance(then, Reply) else Reply(str(then))
    return dataclasses.replace(reply, delay_s=delay_s)


def length_cut(text: str) -> Reply:
    """A reply cut short by the token limit."""
    return Reply(text, finish="length")


def sequence(*answers: Answer) -> Script:
    """A script giving `answers` in order, then repeating the last one."""
    if not answers:
        raise ValueError("sequence() needs at least one answer")
    return lambda body, n: answers[min(n, len(answers) - 1)]


def always(answer: Answer) -> Script:
    """A script giving the same answer to every call."""
    return lambda body, n: answer


def chat_messages(body: Mapping[str, Any]) -> list[dict[str, str]]:
    """The conversation of an OpenAI or Anthropic request body as `[{"role", "content"}]`.

    Anthropic's `system` parameter becomes a leading system message and content blocks are
    joined, so a script can read both wire formats the same way.
    """
    out: list[dict[str, str]] = []
    system = body.get("system")
    if system:
        out.append({"role": "system", "content": _flatten(system)})
    for message in body.get("messages", []):
        out.append({"role": str(message.get("role")), "content": _flatten(message.get("content"))})
    return out


def answering(decide: Callable[[list[dict[str, str]]], Any], *,
              reasoning: str = "I weighed what I know and chose.") -> Script:
    """A script that replies like a model following gamenight's answer format.

    `decide` gets the conversation (see `chat_messages`) and returns the action as a JSON
    object (a dict); the reply is a line of reasoning, then a last line `ANSWER: <json>`.
    `decide` may instead return a `Reply` or `Fault` to misbehave on purpose.
    """
    def script(body: dict[str, Any], n: int) -> Answer:
        action = decide(chat_messages(body))
        if isinstance(action, (Reply, Fault)):
            return action
        if not isinstance(action, Mapping):
            raise TypeError(f"decide() must return a dict, a Reply or a Fault, not {type(action).__name__}")
        return answer_text(action, reasoning)
    return script


def styled(decide: Callable[[list[dict[str, str]]], Any]) -> Script:
    """Like `answering`, but replies the many ways real chat models wrap an answer, in turn
    (call number modulo the styles): Markdown bold, a code fence, prose after the answer line,
    a closed <think> block holding a different draft, a fenced bare JSON object, reasoning sent
    apart from the reply. Every style states one unambiguous answer."""
    def script(body: dict[str, Any], n: int) -> Answer:
        action = decide(chat_messages(body))
        if isinstance(action, (Reply, Fault)):
            return action
        line = json.dumps(dict(action), ensure_ascii=False)
        style = REPLY_STYLES[n % len(REPLY_STYLES)]
        if style == "separate reasoning":
            return Reply(f"ANSWER: {line}", reasoning=f"Draft: ANSWER: {{\"draft\": true}}\nThen I settled on {line}.")
        return STYLE_TEMPLATES[style].format(line=line)
    return script


#: The reply styles of `styled`, by name.
STYLE_TEMPLATES = {
    "plain": "I weighed the options.\nANSWER: {line}",
    "bold": "Here is my reasoning: the others have been consistent.\n\n**ANSWER: {line}**",
    "code fence": "My move:\n\n```\nANSWER: {line}\n```\n\nGood luck, everyone!",
    "prose after": "ANSWER: {line}\n\nI chose this because it keeps my options open.",
    "closed think": "<think>\nShould I go with the first idea?\nANSWER: {{\"draft\": true}}\nNo.\n</think>\n\nANSWER: {line}",
    "bare json": "```json\n{line}\n```",
}
REPLY_STYLES = (*STYLE_TEMPLATES, "separate reasoning")


def answer_text(action: Mapping[str, Any], reasoning: str = "I weighed what I know and chose.") -> str:
    """A reply in gamenight's answer format: reasoning, then a last line `ANSWER: <json>`."""
    return f"{reasoning}\nANSWER: {json.dumps(dict(action), ensure_ascii=False)}"


@dataclass
class Recorded:
    """One request as the server saw it."""

    method: str
    path: str
    headers: dict[str, str]           # lower-cased names
    body: Any                         # parsed JSON, or the raw text if it was not JSON
    raw: bytes
    call: int                         # 0, 1, 2... in arrival order
    arrived: float                    # time.monotonic() on arrival


class _FakeServer(ABC):
    """Shared machinery: the thread, the recording, the in-flight count."""

    path = ""

    def __init__(self, script: Script, *, latency_s: float = 0.0, port: int = 0, key: str | None = None,
                 models: bool = True):
        self.script = script
        self.key = key                    # when set, a request without this key gets the API's 401
        self.models = models              # whether GET /v1/models answers (else 404, as some servers do)
        self.listings: list[Recorded] = []  # the GET requests (the model list), apart from the calls
        self.latency_s = latency_s
        self.wanted_port = port           # 0: any free port
        self.requests: list[Recorded] = []
        self.usage: list[tuple[int, int]] = []  # (input, output) tokens reported in each successful reply
        self.streamed = 0                 # replies sent as a stream of server-sent events
        self.in_flight = 0
        self.max_in_flight = 0
        self.script_errors: list[str] = []  # exceptions raised by the script (answered with a 500)
        self._counter = itertools.count()
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------------
    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        """Listen on 127.0.0.1 at a port the OS picks, serving from a background thread."""
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body go out at once: no 40 ms stalls

            def do_POST(self) -> None:
                server._handle(self)

            def do_GET(self) -> None:
                server._list(self)

            def log_message(self, *args: Any) -> None:
                pass  # keep test output clean

        class Server(ThreadingHTTPServer):
            request_queue_size = 256  # a burst of connections must not wait for SYN retries
            daemon_threads = True
            block_on_close = False

        httpd = Server(("127.0.0.1", self.wanted_port), Handler)
        self._httpd = httpd
        # A short poll interval makes `stop` quick (the stdlib default is half a second).
        self._thread = threading.Thread(target=httpd.serve_forever, args=(0.05,),
                                        name=type(self).__name__, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop serving; answers still waiting on a delay are abandoned."""
        self._closing.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    @property
    def port(self) -> int:
        assert self._httpd is not None, "the server is not running"
        return self._httpd.server_address[1]

    @property
    def root(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    @abstractmethod
    def base_url(self) -> str:
        """The base URL to give the SDK."""

    # -- what was seen ---------------------------------------------------------------------
    @property
    def calls(self) -> int:
        return len(self.requests)

    def arrivals(self) -> list[float]:
        """Arrival times (time.monotonic) of the requests, in order."""
        return [r.arrived for r in self.requests]

    # -- serving ---------------------------------------------------------------------------
    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        arrived = time.monotonic()
        length = int(handler.headers.get("content-length") or 0)
        raw = handler.rfile.read(length) if length else b""
        try:
            body: Any = json.loads(raw)
        except ValueError:
            body = raw.decode("utf-8", "replace")
        with self._lock:
            call = next(self._counter)
            self.requests.append(Recorded("POST", handler.path,
                                          {k.lower(): v for k, v in handler.headers.items()},
                                          body, raw, call, arrived))
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        handler.counted = True  # type: ignore[attr-defined]
        try:
            self._answer(handler, body, call)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout): nothing left to answer
        finally:
            self._leave(handler)

    def _list(self, handler: BaseHTTPRequestHandler) -> None:
        """`GET /v1/models`: the API's model list, behind the same key as the calls."""
        with self._lock:
            self.listings.append(Recorded("GET", handler.path, {k.lower(): v for k, v in handler.headers.items()},
                                          None, b"", len(self.listings), time.monotonic()))
        if not self.models or handler.path.split("?")[0] != "/v1/models":
            self._send_json(handler, 404, self.error_body(404, f"no route {handler.path}", {}), {})
        elif self.key is not None and self.presented_key(handler.headers) != self.key:
            self._send_json(handler, 401, self.error_body(401, self.bad_key_message, {}), {})
        else:
            self._send_json(handler, 200, self.models_body(), {})

    @abstractmethod
    def models_body(self) -> dict[str, Any]:
        """The API's JSON for the model list."""

    def _leave(self, handler: BaseHTTPRequestHandler) -> None:
        """Stop counting a request as in flight (once), just before its answer goes out.

        Counting until after the write would race with the client, which may send its next
        request as soon as it has read this answer.
        """
        if getattr(handler, "counted", False):
            handler.counted = False  # type: ignore[attr-defined]
            with self._lock:
                self.in_flight -= 1

    def _answer(self, handler: BaseHTTPRequestHandler, body: Any, call: int) -> None:
        if handler.path.split("?")[0] != self.path:
            self._send_json(handler, 404, self.error_body(404, f"no route {handler.path}", {}), {})
            return
        if not isinstance(body, dict):
            self._send_json(handler, 400, self.error_body(400, "body is not JSON", {}), {})
            return
        if self.key is not None and self.presented_key(handler.headers) != self.key:
            self._send_json(handler, 401, self.error_body(401, self.bad_key_message, body), {})
            return
        refused = self.schema_refusal(body)
        if refused is not None:  # as the real API: a schema keyword it does not take is a 400
            self._send_json(handler, 400, self.error_body(400, refused, body), {})
            return
        try:
            answer = self.script(body, call)
        except Exception as exc:  # noqa: BLE001 - a broken script must show up, not hang the client
            self.script_errors.append(f"call {call}: {type(exc).__name__}: {exc}")
            answer = Fault(500, f"the fake server's script failed: {exc}")
        if isinstance(answer, str):
            answer = Reply(answer)
        self._closing.wait(self.latency_s + answer.delay_s)
        if self._closing.is_set():
            return
        if isinstance(answer, Fault):
            if answer.raw_body is not None:
                self._send(handler, answer.status, answer.raw_body, answer.headers)
            else:
                self._send_json(handler, answer.status,
                                self.error_body(answer.status, answer.message, body),
                                answer.headers)
        else:
            payload = self.reply_body(answer, body, call)
            with self._lock:
                self.usage.append(self.reported_usage(payload))
            if body.get("stream"):
                with self._lock:
                    self.streamed += 1
                events = self.stream_events(payload)
                if answer.break_after is not None:  # the server fails mid-reply, as overloaded APIs do
                    events = [*events[:answer.break_after], self.stream_error_event()]
                self._send_events(handler, events, answer.chunk_gap_s)
            else:
                self._send_json(handler, 200, payload, {})

    def _send_events(self, handler: BaseHTTPRequestHandler, events: list[str], gap_s: float) -> None:
        """A server-sent event stream, one chunk per event, `gap_s` apart (chunked transfer encoding)."""
        self._leave(handler)
        handler.send_response(200)
        handler.send_header("content-type", "text/event-stream")
        handler.send_header("transfer-encoding", "chunked")
        for name, value in self.extra_headers().items():
            handler.send_header(name, value)
        handler.end_headers()
        for i, event in enumerate(events):
            if i and gap_s:
                self._closing.wait(gap_s)
                if self._closing.is_set():
                    return
            data = event.encode()
            handler.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            handler.wfile.flush()
        handler.wfile.write(b"0\r\n\r\n")
        handler.wfile.flush()

    @abstractmethod
    def stream_events(self, payload: dict[str, Any]) -> list[str]:
        """The reply body as the API's server-sent events."""

    def _send_json(self, handler: BaseHTTPRequestHandler, status: int, payload: Any,
                   headers: Mapping[str, str]) -> None:
        self._send(handler, status, json.dumps(payload).encode(), headers)

    def _send(self, handler: BaseHTTPRequestHandler, status: int, data: bytes,
              headers: Mapping[str, str]) -> None:
        self._leave(handler)
        handler.send_response(status)
        handler.send_header("content-type", "application/json")
        handler.send_header("content-length", str(len(data)))
        for name, value in {**self.extra_headers(), **headers}.items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(data)
        handler.wfile.flush()

    # -- the wire format (per API) ---------------------------------------------------------
    @abstractmethod
    def reply_body(self, reply: Reply, request: dict[str, Any], call: int) -> dict[str, Any]:
        """The API's JSON for a successful reply."""

    @abstractmethod
    def error_body(self, status: int, message: str, request: Any) -> dict[str, Any]:
        """The API's JSON for an error."""

    def extra_headers(self) -> dict[str, str]:
        return {}

    bad_key_message = "Invalid API key."

    def schema_refusal(self, body: dict[str, Any]) -> str | None:
        """The API's 400 message for a structured-output schema it does not accept, or None."""
        return None

    def stream_error_event(self) -> str:
        """The event an API sends when it fails in the middle of a streamed reply."""
        raise NotImplementedError

    @staticmethod
    def presented_key(headers: Any) -> str:
        """The key a request carries (the API's own header)."""
        return str(headers.get("authorization", "")).removeprefix("Bearer ")

    @staticmethod
    @abstractmethod
    def reported_usage(payload: dict[str, Any]) -> tuple[int, int]:
        """(input, output) tokens a reply body reports."""


_OPENAI_ERROR_CODES = {401: "invalid_api_key", 404: "model_not_found", 429: "rate_limit_exceeded"}
_ANTHROPIC_ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error",
                          403: "permission_error", 404: "not_found_error", 408: "timeout_error",
                          413: "request_too_large", 429: "rate_limit_error", 500: "api_error",
                          529: "overloaded_error"}


class FakeOpenAI(_FakeServer):
    """`POST /v1/chat/completions` answering like the OpenAI API (also what vLLM/Ollama speak).

    `strict_schemas` (default) refuses, as OpenAI does, a strict json_schema with string length
    bounds; pass False to play a vLLM or llama.cpp server, which takes them.
    """

    def __init__(self, script: Script, *, strict_schemas: bool = True, auto_cache: bool = False, **kw: Any):
        super().__init__(script, **kw)
        self.strict_schemas = strict_schemas
        #: Report cached tokens as OpenAI's automatic caching does: a prompt of at least 1,024 tokens
        #: that starts like an earlier one reads their common start, counted in steps of 128 tokens.
        self.auto_cache = auto_cache
        self._prompts: list[str] = []

    def schema_refusal(self, body: dict[str, Any]) -> str | None:
        response_format = body.get("response_format") or {}
        if self.strict_schemas and response_format.get("type") == "json_schema":
            found = _keywords(response_format["json_schema"]["schema"], {"minLength", "maxLength"})
            if found:
                return (f"Invalid schema for response_format 'answer': In context=(), '{found[0]}' is not "
                        "permitted.")
        return None

    def stream_error_event(self) -> str:
        return "data: " + json.dumps({"error": {"message": "The server had an error while processing your "
                                                           "request.", "type": "server_error"}}) + "\n\n"

    path = "/v1/chat/completions"
    bad_key_message = "Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys."

    @property
    def base_url(self) -> str:
        return f"{self.root}/v1"

    def reply_body(self, reply: Reply, request: dict[str, Any], call: int) -> dict[str, Any]:
        prompt_tokens = request_tokens(request) if reply.input_tokens is None else reply.input_tokens
        completion_tokens = (_tokens(reply.text) if reply.output_tokens is None
                             else reply.output_tokens)
        cached_tokens = reply.cached_input_tokens or 0
        if self.auto_cache and reply.cached_input_tokens is None:
            cached_tokens = min(prompt_tokens, self._automatic_cache(request))
        return {
            "id": f"chatcmpl-fake{call:08d}",
            "object": "chat.completion",
            "created": 1_700_000_000 + call,
            "model": reply.model or str(request.get("model")),
            "choices": [{
                "index": 0,
                "message": {"role": "assistant", "content": None if reply.refusal else reply.text,
                            "refusal": reply.text if reply.refusal else None, "annotations": [],
                            **({"reasoning_content": reply.reasoning} if reply.reasoning else {})},
                "logprobs": None,
                "finish_reason": reply.finish,
            }],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
                "prompt_tokens_details": {"cached_tokens": cached_tokens, "audio_tokens": 0},
                "completion_tokens_details": {"reasoning_tokens": reply.reasoning_tokens or 0, "audio_tokens": 0,
                                              "accepted_prediction_tokens": 0,
                                              "rejected_prediction_tokens": 0},
            },
            "service_tier": "default",
            "system_fingerprint": "fp_fake",
        }

    @staticmethod
    def reported_usage(payload: dict[str, Any]) -> tuple[int, int]:
        return payload["usage"]["prompt_tokens"], payload["usage"]["completion_tokens"]

    def _automatic_cache(self, request: dict[str, Any]) -> int:
        """Tokens of the longest start this prompt shares with an earlier one (0 under 1,024)."""
        prompt = json.dumps([request.get("model"), chat_messages(request)], ensure_ascii=False)
        with self._lock:
            shared = max((len(os.path.commonprefix([prompt, earlier])) for earlier in self._prompts), default=0)
            self._prompts.append(prompt)
        tokens = shared // 4
        return 0 if tokens < 1024 else tokens // 128 * 128

    def stream_events(self, payload: dict[str, Any]) -> list[str]:
        """Chat-completion chunks: the role, the reasoning and the text in pieces, the finish, the usage."""
        message = payload["choices"][0]["message"]
        base = {"id": payload["id"], "object": "chat.completion.chunk", "created": payload["created"],
                "model": payload["model"], "system_fingerprint": "fp_fake"}

        def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
            choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
            return "data: " + json.dumps({**base, "choices": [choice]}) + "\n\n"

        events = [chunk({"role": "assistant", "content": ""})]
        if message.get("reasoning_content"):
            events += [chunk({"reasoning_content": part}) for part in _pieces(message["reasoning_content"])]
        events += [chunk({"content": part}) for part in _pieces(message.get("content") or "")]
        if message.get("refusal"):
            events.append(chunk({"refusal": message["refusal"]}))
        events.append(chunk({}, payload["choices"][0]["finish_reason"]))
        events.append("data: " + json.dumps({**base, "choices": [], "usage": payload["usage"]}) + "\n\n")
        return [*events, "data: [DONE]\n\n"]

    def error_body(self, status: int, message: str, request: Any) -> dict[str, Any]:
        kind = "server_error" if status >= 500 else "invalid_request_error"
        kind = "requests" if status == 429 else kind
        return {"error": {"message": message, "type": kind, "param": None,
                          "code": _OPENAI_ERROR_CODES.get(status)}}

    def extra_headers(self) -> dict[str, str]:
        return {"x-request-id": "req_fake"}

    def models_body(self) -> dict[str, Any]:
        return {"object": "list", "data": [{"id": "fake-model", "object": "model", "created": 1_700_000_000,
                                            "owned_by": "fake"}]}


class FakeAnthropic(_FakeServer):
    """`POST /v1/messages` answering like the Anthropic Messages API.

    `cache_min_tokens` makes it cache prompt prefixes as Anthropic documents it: a prefix ending at
    a block marked with `cache_control` (at most 4 marks, never on an empty block) is written when
    it is at least that many tokens long; a later request reads the longest written prefix it
    repeats exactly up to one of its block boundaries, looking back at most 20 blocks from each of
    its marks; everything before the messages (model, tools, output format, thinking) must match.
    Usage then splits the prompt into `input_tokens`, `cache_creation_input_tokens` and
    `cache_read_input_tokens`. Without it, nothing is cached (`Reply.cached_input_tokens` is reported).
    """

    path = "/v1/messages"
    bad_key_message = "invalid x-api-key"

    def __init__(self, script: Script, *, cache_min_tokens: int | None = None, **kw: Any):
        super().__init__(script, **kw)
        self.cache_min_tokens = cache_min_tokens
        self.cached: dict[str, int] = {}  # digest of a written prefix -> its tokens

    def schema_refusal(self, body: dict[str, Any]) -> str | None:
        marks = [block for block in _content_blocks(body) if "cache_control" in block]
        if len(marks) > 4:
            return f"A maximum of 4 blocks with cache_control may be provided. Found {len(marks)}."
        if any(block.get("type") == "text" and not block.get("text") for block in _content_blocks(body)):
            return "messages: text content blocks must be non-empty"
        if any(block.get("cache_control") != {"type": "ephemeral"} for block in marks):
            return "cache_control: the only cache type is ephemeral (with the default 5-minute ttl here)"
        output_format = (body.get("output_config") or {}).get("format") or {}
        found = _keywords(output_format.get("schema") or {}, {"minimum", "maximum", "minLength", "maxLength",
                                                               "pattern", "minItems", "maxItems"})
        return f"output_format.schema: property '{found[0]}' is not supported" if found else None

    def stream_error_event(self) -> str:
        return 'event: error\ndata: {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}\n\n'

    @staticmethod
    def presented_key(headers: Any) -> str:
        # The SDK sends the key as x-api-key (an auth token would come as a bearer header).
        return str(headers.get("x-api-key") or str(headers.get("authorization", "")).removeprefix("Bearer "))

    @property
    def base_url(self) -> str:
        return self.root  # the SDK appends /v1/messages itself

    def models_body(self) -> dict[str, Any]:
        return {"data": [{"type": "model", "id": "claude-fake", "display_name": "Claude Fake",
                          "created_at": "2026-01-01T00:00:00Z"}],
                "has_more": False, "first_id": "claude-fake", "last_id": "claude-fake"}

    def reply_body(self, reply: Reply, request: dict[str, Any], call: int) -> dict[str, Any]:
        stop = {"stop": "end_turn", "length": "max_tokens"}.get(reply.finish, reply.finish)
        prompt = request_tokens(request) if reply.input_tokens is None else reply.input_tokens
        read, written = reply.cached_input_tokens or 0, 0
        if self.cache_min_tokens is not None and reply.cached_input_tokens is None:
            read, written = self._cache(request)
        return {
            "id": f"msg_fake{call:08d}",
            "type": "message",
            "role": "assistant",
            "model": reply.model or str(request.get("model")),
            "content": ([{"type": "thinking", "thinking": reply.reasoning, "signature": "c2lnbmF0dXJl"}]
                        if reply.reasoning else [])
                       + ([{"type": "tool_use", "id": f"toolu_fake{call:08d}", "name": _forced_tool(request),
                            "input": reply.tool_input}] if reply.tool_input is not None
                          else [{"type": "text", "text": reply.text}]),
            "stop_reason": "tool_use" if reply.tool_input is not None else stop,
            "stop_sequence": None,
            "usage": {
                "input_tokens": max(0, prompt - read - written) if self.cache_min_tokens is not None else prompt,
                "output_tokens": (_tokens(reply.text) if reply.output_tokens is None
                                  else reply.output_tokens),
                "cache_creation_input_tokens": written,
                "cache_read_input_tokens": read,
                "cache_creation": {"ephemeral_5m_input_tokens": written, "ephemeral_1h_input_tokens": 0},
                **({"output_tokens_details": {"thinking_tokens": reply.reasoning_tokens}}
                   if reply.reasoning_tokens is not None else {}),
            },
        }

    @staticmethod
    def reported_usage(payload: dict[str, Any]) -> tuple[int, int]:
        usage = payload["usage"]
        return (usage["input_tokens"] + usage["cache_creation_input_tokens"] + usage["cache_read_input_tokens"],
                usage["output_tokens"])

    def _cache(self, request: dict[str, Any]) -> tuple[int, int]:
        """(tokens read, tokens written) for this request, updating the cache."""
        ends = _prefix_ends(request)  # per content block in prompt order: (digest, tokens, marked)
        marks = [i for i, (_, _, marked) in enumerate(ends) if marked]
        with self._lock:
            read = max((ends[j][1] for i in marks for j in range(max(0, i - 19), i + 1)
                        if ends[j][0] in self.cached), default=0)
            written = 0
            for i in marks:
                digest, tokens, _ = ends[i]
                if tokens >= self.cache_min_tokens and digest not in self.cached:
                    self.cached[digest] = tokens
                    written = max(written, tokens - read)
        return read, written

    def stream_events(self, payload: dict[str, Any]) -> list[str]:
        """Messages API events: message_start, each content block in deltas, message_delta, message_stop."""
        def event(kind: str, data: dict[str, Any]) -> str:
            return f"event: {kind}\ndata: {json.dumps({'type': kind, **data})}\n\n"

        usage = dict(payload["usage"])
        start = {**payload, "content": [], "stop_reason": None, "usage": {**usage, "output_tokens": 1}}
        events = [event("message_start", {"message": start})]
        for index, block in enumerate(payload["content"]):
            if block["type"] == "thinking":
                events.append(event("content_block_start", {"index": index, "content_block": {
                    "type": "thinking", "thinking": "", "signature": ""}}))
                events += [event("content_block_delta", {"index": index, "delta": {"type": "thinking_delta",
                                                                                   "thinking": part}})
                           for part in _pieces(block["thinking"])]
                events.append(event("content_block_delta", {"index": index, "delta": {
                    "type": "signature_delta", "signature": block["signature"]}}))
            elif block["type"] == "tool_use":
                events.append(event("content_block_start", {"index": index, "content_block": {
                    **block, "input": {}}}))
                events += [event("content_block_delta", {"index": index, "delta": {"type": "input_json_delta",
                                                                                   "partial_json": part}})
                           for part in _pieces(json.dumps(block["input"]))]
            else:
                events.append(event("content_block_start", {"index": index, "content_block": {"type": "text",
                                                                                             "text": ""}}))
                events += [event("content_block_delta", {"index": index, "delta": {"type": "text_delta",
                                                                                   "text": part}})
                           for part in _pieces(block["text"])]
            events.append(event("content_block_stop", {"index": index}))
        events.append(event("message_delta", {"delta": {"stop_reason": payload["stop_reason"],
                                                        "stop_sequence": None}, "usage": usage}))
        return [*events, event("message_stop", {})]

    def error_body(self, status: int, message: str, request: Any) -> dict[str, Any]:
        kind = _ANTHROPIC_ERROR_TYPES.get(status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": message},
                "request_id": "req_fake"}

    def extra_headers(self) -> dict[str, str]:
        return {"request-id": "req_fake"}


def _content_blocks(body: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every block of an Anthropic request in prompt order (tools, system, messages); a plain string
    counts as one text block."""
    def blocks(content: Any) -> list[dict[str, Any]]:
        if isinstance(content, str):
            return [{"type": "text", "text": content}]
        return [b for b in content or () if isinstance(b, dict)]
    out = [t for t in body.get("tools") or () if isinstance(t, dict)] + blocks(body.get("system"))
    for message in body.get("messages") or ():
        out += blocks(message.get("content"))
    return out


def _prefix_ends(body: Mapping[str, Any]) -> list[tuple[str, int, bool]]:
    """For each block of a request in prompt order: a digest of the prompt up to its end, the prompt's
    tokens up to there (counted as `request_tokens` counts), and whether it is marked for caching."""
    head = [body.get("model"), body.get("tools"), (body.get("output_config") or {}).get("format"), body.get("thinking")]
    digest = hashlib.sha256(json.dumps(head, sort_keys=True).encode()).hexdigest()
    ends: list[tuple[str, int, bool]] = []
    before = 0  # tokens of the messages before this one
    for tool in body.get("tools") or ():
        digest = hashlib.sha256((digest + json.dumps(tool, sort_keys=True)).encode()).hexdigest()
        ends.append((digest, 0, "cache_control" in tool))
    turns = ([("system", body["system"])] if body.get("system") else []) + \
            [(m.get("role"), m.get("content")) for m in body.get("messages") or ()]
    for role, content in turns:
        text = ""
        for block in ([{"type": "text", "text": content}] if isinstance(content, str) else content or ()):
            text += block.get("text", "")
            digest = hashlib.sha256((digest + json.dumps([role, block.get("text", "")])).encode()).hexdigest()
            ends.append((digest, before + _tokens(text) + 3, "cache_control" in block))
        before += _tokens(text) + 3
    return ends


def _keywords(schema: Any, wanted: set[str]) -> list[str]:
    """The keywords of `wanted` a schema uses anywhere (property names aside)."""
    found: list[str] = []
    if isinstance(schema, Mapping):
        for key, value in schema.items():
            if key in wanted:
                found.append(key)
            if key == "properties" and isinstance(value, Mapping):
                for sub in value.values():
                    found += _keywords(sub, wanted)
            else:
                found += _keywords(value, wanted)
    elif isinstance(schema, list):
        for value in schema:
            found += _keywords(value, wanted)
    return found


def _pieces(text: str, size: int = 12) -> list[str]:
    """A text cut into the small pieces a stream delivers it in."""
    return [text[i:i + size] for i in range(0, len(text), size)] or [""]


def _forced_tool(request: Mapping[str, Any]) -> str:
    choice = request.get("tool_choice") or {}
    return str(choice.get("name") or "answer")


def requested_schema(body: Mapping[str, Any]) -> dict[str, Any] | None:
    """The JSON Schema a request asks the reply to match, in any of the wire formats gamenight sends."""
    response_format = body.get("response_format") or {}
    if response_format.get("type") == "json_schema":
        return response_format["json_schema"]["schema"]
    if response_format.get("type") == "json_object" and "schema" in response_format:
        return response_format["schema"]
    output_format = (body.get("output_config") or {}).get("format") or {}
    if output_format.get("type") == "json_schema":
        return output_format["schema"]
    tools = body.get("tools") or []
    if tools and body.get("tool_choice", {}).get("type") == "tool":
        return next(t["input_schema"] for t in tools if t["name"] == body["tool_choice"]["name"])
    return None


def schema_value(schema: Mapping[str, Any], rng: random.Random, name: str = "") -> Any:
    """A value matching `schema`, as a constrained decoder would produce one (enums drawn from `rng`;
    a list of numbers sums to 100, as a split must)."""
    if "anyOf" in schema:
        return schema_value(schema["anyOf"][0], rng, name)
    if "enum" in schema:
        return rng.choice(schema["enum"])
    kind = schema.get("type")
    if kind == "object":
        return {key: schema_value(sub, rng, key) for key, sub in schema.get("properties", {}).items()}
    if kind == "array":
        size = schema.get("minItems", 1)
        items = schema.get("items", {})
        if "enum" in items:
            return rng.sample(list(items["enum"]), size)
        if items.get("type") == "number":
            return [100 - 33 * (size - 1)] + [33] * (size - 1)
        return [schema_value(items, rng) for _ in range(size)]
    if kind == "integer":
        return rng.randint(schema.get("minimum", 0), schema.get("maximum", 10))
    if kind == "number":
        return schema.get("minimum", 0)
    if kind == "string":
        text = "I am a Villager, and I have nothing to hide." if name == "text" else (
            "Weighing what was said." if name == "reasoning" else "bright")
        return text[: schema.get("maxLength", len(text))]
    return None


def constrained(fallback: Script, seed: int = 0) -> Script:
    """A script that, like a server doing constrained decoding, answers every request that carries a
    JSON Schema with a matching object (Anthropic's forced tool: as the tool's input), and any
    other request with `fallback`."""
    def script(body: dict[str, Any], n: int) -> Answer:
        schema = requested_schema(body)
        if schema is None:
            return fallback(body, n)
        value = schema_value(schema, random.Random(f"{seed}:{n}"))
        if body.get("tool_choice", {}).get("type") == "tool":
            return Reply("", tool_input=value)
        return Reply(json.dumps(value, ensure_ascii=False))
    return script


def copying_the_form(fallback: Script) -> Script:
    """A script that answers as a small model did under constrained decoding: the first time a
    question asks for a clue or a statement (a free-text string field of the schema), it fills the
    field with the words that describe it in the question ("your statement, in your own words,
    ..."), as Gemma 3 270M filled `<your clue, one line>`; asked again (the refusal in the
    conversation), and for every other question, it answers with `fallback`."""
    def script(body: dict[str, Any], n: int) -> Answer:
        schema = requested_schema(body) or {}
        fields = schema.get("properties", {})
        messages = chat_messages(body)
        free = next((f for f in ("clue", "text") if fields.get(f, {}).get("type") == "string"), None)
        if free and messages[-1]["role"] == "user" and len(messages) <= 2:
            described = re.search(rf'with one field, "{free}": (.+?)\.(?: Write nothing| Put one|$)',
                                  messages[-1]["content"], re.DOTALL)
            if described:
                return Reply(json.dumps({free: described.group(1)}))
        return fallback(body, n)
    return script


def _flatten(content: Any) -> str:
    """Message content as text, whether a string or a list of content blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        return "".join(block.get("text", "") for block in content if isinstance(block, dict))
    return ""


def _tokens(text: str) -> int:
    """A crude, deterministic token count: one per started group of four characters."""
    return max(1, (len(text) + 3) // 4)


def request_tokens(request: Mapping[str, Any]) -> int:
    """Prompt tokens of a request body, counted like `_tokens` plus a little per message."""
    return sum(_tokens(m["content"]) + 3 for m in chat_messages(request))


def find_secret(server: _FakeServer, secrets: Sequence[str]) -> list[str]:
    """Where any of `secrets` appears in a recorded request, e.g. `["call 0 header x-foo"]`."""
    places = []
    for r in server.requests:
        for name, value in r.headers.items():
            if any(s in value for s in secrets):
                places.append(f"call {r.call} header {name}")
        if any(s.encode() in r.raw for s in secrets):
            places.append(f"call {r.call} body")
    return places


__all__ = ["request_tokens", "Answer", "FakeAnthropic", "FakeOpenAI", "Fault", "Recorded", "Reply", "Script",
           "always", "answer_text", "answering", "chat_messages", "constrained", "requested_schema", "schema_value",
           "styled", "REPLY_STYLES", "find_secret", "length_cut", "malformed_json",
           "rate_limited", "sequence", "server_error", "too_slow", "unauthorized"]

