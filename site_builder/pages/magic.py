"""What the pages show of the MAgIC metrics, in both readings, as plain data for the templates.

The results hold every MAgIC metric twice (docs/metrics/magic.md, "Two readings"): the headline
reading in `magic.agents` and the other one in `magic.alternative`. Agent pages (one agent, every
metric) and metric pages (one metric, every agent) show them alike: a table in the headline
reading, the same table in the other reading a tap away, and, wherever a reading has no number
or an artefact of the reference script decides it, words instead of the number, with the reason
in a note under the table. `pages` declares a page per metric (the agent pages are `agents`').
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from site_builder.pages.labels import href
from site_builder.pages.page import Page
from site_builder.scoring import magic_reference

#: The MAgIC metrics with a page each, in the order tables list them.
METRICS = ("win_rate", "judgement", "reasoning", "deception", "self_awareness", "cooperation",
           "coordination", "rationality")
TITLES = {"win_rate": "Win Rate", "judgement": "Judgement", "reasoning": "Reasoning",
          "deception": "Deception", "self_awareness": "Self-awareness", "cooperation": "Cooperation",
          "coordination": "Coordination", "rationality": "Rationality"}

#: How the pages name the two readings (docs/metrics/magic.md, "Two readings").
READING_TITLES = {"paper": "paper reading (MAgIC's formulas)",
                  "reference": "reference-code reading (the MAgIC authors' script)"}
#: Their short names, in chart legends.
READING_NAMES = {"paper": "paper reading", "reference": "reference-code reading"}


def page(metric: str) -> str:
    """The docs-relative Markdown path of a metric's page, e.g. "magic/self-awareness.md"."""
    return f"magic/{metric.replace('_', '-')}.md"


def readings(results: Mapping[str, Any]) -> dict[str, str]:
    """The two readings of the results by role: `headline` and `other`, each as a key, a title and
    a short name (the labels every page with MAgIC numbers carries)."""
    magic = results["magic"]
    head, other = magic["reading"], magic["alternative"]["reading"]
    return {"headline_key": head, "other_key": other,
            "headline": READING_TITLES[head], "other": READING_TITLES[other],
            "headline_name": READING_NAMES[head], "other_name": READING_NAMES[other]}


#: What each reading counts, in a sentence; None where the reference reading is the paper's.
DEFINITIONS: dict[str, tuple[str, str | None]] = {
    "win_rate": ("The mean over the roles an agent played of its credits in that role over the most it could "
                 "earn (the chameleon, non-chameleon, undercover and civilian, an airline, a prisoner, a "
                 "Public Good player).", None),
    "judgement": ("The share of the agent's votes as a non-chameleon or civilian that name the hidden "
                  "player.", None),
    "reasoning": ("Right answers over answers: a non-chameleon's or civilian's guess of the hidden player and "
                  "the chameleon's guess of the secret word (first order), and each guess about what another "
                  "player suspects, against that player's own answer (second order).",
                  "One first-order unit per player and probe point, the argmax of its own suspicion row (the "
                  "chameleon has none: an empty row reads as the player seated first), and one second-order "
                  "unit, right only when every guess about the others matches."),
    "deception": ("Games won holding the hidden role, plus 0.25 x the share of wrong secret-word guesses by "
                  "the chameleons it played against, divided by 1.25.",
                  "Games as the hidden role not lost (an even vote counts as a win), plus 0.25 x whether an "
                  "identified chameleon ever guessed right, over how many of the two outcomes occurred; the "
                  "script divides by zero when there is none of either."),
    "self_awareness": ("The share of right answers to \"what is your role\" where the player is not told it "
                       "(Undercover; 0.6 x The Chameleon's if both were asked).",
                       "Every such answer, The Chameleon's included, pooled without weights."),
    "cooperation": ("The share of its Cost Sharing games that ended in agreement.", None),
    "coordination": ("Of its Cost Sharing games that ended in agreement, the share where the agreed "
                     "proposal was its own.",
                     "Of those games, the share where the agreed split equals its own last proposal, "
                     "whoever proposed it."),
    "rationality": ("The mean of two rates: defecting in the Prisoner's Dilemma, contributing the least in "
                    "Public Good.", "One rate over the decisions of both games pooled."),
}

#: Why the paper reading has no value for an agent: it played nothing the metric counts.
NOT_MEASURED = {
    "win_rate": "it completed no game of the five MAgIC games",
    "judgement": "it never voted as a non-chameleon or a civilian",
    "reasoning": "no answer of its to a belief probe in a Chameleon or Undercover game",
    "deception": "it never held the hidden role (the chameleon or the undercover) nor played against a "
                 "chameleon's secret-word guess",
    "self_awareness": "it was never asked a role it was not told (Undercover)",
    "cooperation": "it never played Cost Sharing",
    "coordination": "none of its Cost Sharing games ended in agreement",
    "rationality": "it never played the Prisoner's Dilemma or Public Good",
}
_DIVIDES_BY_ZERO = {magic_reference.UNDEFINED["deception_hidden"], magic_reference.UNDEFINED["deception_guesses"]}
_SCRIPT_STOPS = set(magic_reference.SCRIPT_STOPS.values())
ARTEFACT_ONLY = ("an artefact of the script, not a measure: it gives {value}, but every deduction unit read an "
                 "empty suspicion row, \"right\" only where the player in question sits first")


def _percent(value: float) -> str:
    return f"{100 * value:.1f}%"


def counts(metric: str, entry: Mapping[str, Any]) -> str:
    """What a shown value is made of, in a few words: the raw composite and its maximum, the roles
    behind a win rate, or right answers out of how many."""
    n = entry.get("n")
    if metric == "win_rate":
        return f"{n:,} games, {entry['roles_played']} of {entry['roles_total']} roles"
    if "raw" in entry:
        return f"raw {entry['raw']:.3f} of {entry['max']:.2f}, {n:,} games"
    return f"{round(entry['value'] * n):,} of {n:,}"


def cell(agent: Mapping[str, Any] | None, metric: str) -> dict[str, Any]:
    """One agent's value of one metric in one reading, as the tables show it.

    `entry` is the results entry, or None when words stand instead of a number: `words`, short, in
    the cell ("not measured", "undefined: divides by zero", "script stops", "artefact"); `note` says
    why in full (the reference reading's `reasons`, or why the paper reading has nothing). A shown
    number may carry a note too (part of it is an artefact, or the script would stop before it):
    then `marker` is the cell's link to it.
    """
    agent = agent or {}
    entry = agent.get(metric)
    reason = (agent.get("reasons") or {}).get(metric, "")
    if entry is None:
        if not reason:
            words = "not measured"
            reason = NOT_MEASURED["cooperation" if metric == "coordination" and agent.get("cooperation") is None
                                  else metric]
        elif reason in _DIVIDES_BY_ZERO:
            words = "undefined: divides by zero"
        elif reason in _SCRIPT_STOPS:
            words = "script stops"
        else:
            words = "not measured"
        return {"entry": None, "words": words, "note": reason, "marker": "", "counts": "no value"}
    empty = entry.get("empty_rows")
    if empty and empty["units"] == entry["n"]:
        note = ARTEFACT_ONLY.format(value=_percent(entry["value"]))
        return {"entry": None, "words": "artefact", "note": f"{note}; {reason}" if reason else note, "marker": "",
                "counts": counts(metric, entry)}
    marker = "partly an artefact" if empty else "note" if reason else ""
    return {"entry": entry, "words": "", "note": reason, "marker": marker, "counts": counts(metric, entry)}


def listed(metric: str, *agents: Mapping[str, Any] | None) -> bool:
    """Whether a metric's page lists an agent: it has a value in one of the readings, or the
    script stops on it (an agent that played nothing the metric counts is only counted)."""
    return any((a or {}).get(metric) is not None or cell(a, metric)["words"] == "script stops" for a in agents if a)


def table(rows: Sequence[Mapping[str, Any]], prefix: str) -> dict[str, Any]:
    """A table of cells with its notes: `rows` are dicts with a `title`, an `href` and a `cell`
    (and optionally `win`, the cell's source for tests/site/test_consistency.py). Rows sharing a
    reason share one note, which names them; each row gets `note_id` (None without a note)."""
    notes: dict[str, dict[str, Any]] = {}
    out = []
    for row in rows:
        note = row["cell"]["note"]
        note_id = None
        if note:
            if note not in notes:
                notes[note] = {"id": f"{prefix}-{len(notes) + 1}", "text": note, "whom": []}
            notes[note]["whom"].append(row["title"])
            note_id = notes[note]["id"]
        out.append({**row, "note_id": note_id, "win": row.get("win")})
    return {"rows": out, "notes": list(notes.values())}


def sort_key(entry: Mapping[str, Any] | None) -> float:
    """Highest value first; no value last."""
    if not entry:
        return 1.0
    value = entry.get("scaled", entry.get("value"))
    return -float(value) if isinstance(value, (int, float)) else 1.0


def pages(ctx: Mapping[str, Any]) -> list[Page]:
    return [_metric_page(name, ctx) for name in METRICS]


def _metric_page(name: str, ctx: Mapping[str, Any]) -> Page:
    """One MAgIC metric over every agent measured on it in either reading: the headline reading's
    table, best first, and the other reading's a tap away."""
    results, refs = ctx["results"], ctx["refs"]
    path = page(name)
    head, other = results["magic"]["agents"], results["magic"]["alternative"]["agents"]
    shown = [k for k in refs if listed(name, head.get(k), other.get(k))]
    shown.sort(key=lambda k: (sort_key((head.get(k) or {}).get(name)), refs[k].display))
    unmeasured = sum(1 for k in refs if k in head and k not in shown)
    measured = sum(1 for k in shown if (head.get(k) or {}).get(name) is not None)

    def rows(entries: Mapping[str, Any], win: bool) -> list[dict[str, Any]]:
        return [{"title": refs[k].display, "href": href(path, refs[k].page), "cell": cell(entries.get(k), name),
                 "win": f"magic||{k}|" if win and name == "win_rate" else None} for k in shown]

    paper, reference = DEFINITIONS[name]
    return Page(path, "magic.md.j2", nav=("MAgIC metrics", TITLES[name]), context=dict(
        name=name, title=TITLES[name], unmeasured=unmeasured, measured=measured,
        paper_text=paper, reference_text=reference,
        head_table=table(rows(head, True), "headline-note"),
        other_table=table(rows(other, False), "other-note")))
