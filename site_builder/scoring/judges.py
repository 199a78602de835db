"""Readable names of LLM judges, for pages and CSV headers.

The scorer keys a judge by its replay description as JSON (minus its name, `model.agent_key`),
so two judges that differ in any field (prompt version, base URL, seed...) are two judges. A
label names the model, provider, structured output and prompt version; where two judges would
get the same label, the field that tells them apart is added.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

#: Fields a label shows after the model, in this order.
SHOWN = ("provider", "structured_output")


def _description(key: str) -> dict[str, Any] | None:
    try:
        judge = json.loads(key)
    except ValueError:
        return None
    return judge if isinstance(judge, dict) and isinstance(judge.get("model"), str) else None


def label(key: str) -> str:
    """"model (provider, structured output, prompts V)"; a key that is not a judge description is
    shown as it is (pages escape it, like all replay text)."""
    judge = _description(key)
    if judge is None:
        return key
    details = [str(judge[k]) for k in SHOWN if isinstance(judge.get(k), str)]
    if isinstance(judge.get("prompt_version"), str):
        details.append(f"prompts {judge['prompt_version']}")
    if isinstance(judge.get("source"), str):  # a contributor's judge (scoring/owners.py): whose it is
        details.append(f"submitted by {judge['source']}")
    return judge["model"] + (f" ({', '.join(details)})" if details else "")


def labels(keys: Iterable[str]) -> dict[str, str]:
    """A distinct label per judge key: `label`, then, for judges that would share one, the base
    URL they were served from, then a short digest of the key (always distinct)."""
    keys = sorted(set(keys))
    out = {key: label(key) for key in keys}
    for widen in (_with_base_url, _with_digest):
        counts = Counter(out.values())
        out = {key: widen(key, text) if counts[text] > 1 else text for key, text in out.items()}
    return out


def _with_base_url(key: str, text: str) -> str:
    judge = _description(key) or {}
    url = judge.get("base_url")
    return f"{text} at {url}" if isinstance(url, str) else text


def _with_digest(key: str, text: str) -> str:
    return f"{text} [judge {hashlib.sha256(key.encode()).hexdigest()[:8]}]"


def judges_of(*parts: Mapping[str, Any] | None) -> set[str]:
    """Every judge key in results parts shaped {"agents", "all", "by_mix"} whose entries hold
    {"judges": {judge: ...}} (werewolf.ewavm, werewolf.judgement_variation_llm)."""
    keys: set[str] = set()
    for part in parts:
        part = part or {}
        entries = [part.get("all") or {}, *(part.get("agents") or {}).values(), *(part.get("by_mix") or {}).values()]
        for entry in entries:
            keys.update(entry.get("judges") or ())
    return keys


#: The headline judge, named by the maintainers: the Werewolf pages and CSV tables put its numbers
#: first, however many games other judges read (a judge with most games would be whoever submits
#: most judge lines). Its key: the judge `gemma3-270m-judge` of runner/judges/local-cpu.toml with
#: the judge prompts `ewavm-3`, as `gamenight judge` records it (tests/scoring/test_judges.py checks
#: that the two agree). Change it here, by hand, when the maintainers name another judge.
HEADLINE = ('{"base_url":"http://127.0.0.1:8011/v1","kind":"llm","max_tokens":400,"model":"gemma-3-270m-q4_k_m",'
            '"prompt_version":"ewavm-3","provider":"openai_compatible","seed":270,"structured_output":"json_object",'
            '"system_role":false,"temperature":0.7}')


def ranked(judges: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """Judge keys in the order pages show them: the maintainers' headline judge (HEADLINE) first if
    it judged any of these games, then the others by games judged (most first), then by key."""
    return sorted(judges, key=lambda j: (j != HEADLINE, -(judges[j].get("games") or 0), j))
