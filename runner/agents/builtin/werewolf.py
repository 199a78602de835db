"""Built-in strategies for simplified One Night Ultimate Werewolf.

Statements are plain English built from a few templates, each carrying claims that scripted
players read back with the regular expressions below (the rules never parse statements):

    "I am the Seer."  "I looked at Ada and Bruno: the Werewolf is not among them."
    "I am a Mason; my fellow Mason is Chiara."  "I suspect Dmitri."  "I will vote for Esme."
    "Farid is lying."

Every player keeps a suspicion score per other player, recomputed from its observation at each
decision: role claims (two Seers, a third Mason, a changed story), Seer reports, Mason pairs that
confirm each other, accusations, and its own night information. It answers the "suspect" probe
with its top suspect and votes for it; the Werewolf team instead votes for a plausible villager
(the player the table suspects most, itself excluded) and the Tanner votes at random.
"""

from __future__ import annotations

import random
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from runner.agents.base import ProbeRequest, Request, ScriptedAgent
from runner.games.werewolf import ROLES, TEAM

VILLAGE = tuple(role for role in ROLES if TEAM[role] == "village")
TITLE = {"seer": "the Seer", "mason": "a Mason", "villager": "a Villager",
         "werewolf": "the Werewolf", "minion": "the Minion", "tanner": "the Tanner"}

# Weights of the suspicion model (larger: more likely the Werewolf).
KNOWN_LIAR = 6.0       # claims a role I know is not theirs (a second Seer when I am the Seer)
CHANGED_STORY = {True: 2.0, False: 0.5}  # claimed two different roles (naive, wary)
CROWDED_CLAIM = 1.5    # one of several Seer claimers, or of more than two Mason claimers
OVERCLAIMED = 0.5      # one of more than two Villager claimers
CONFIRMED_MASON = -3.0 # two Mason claimers who name each other
REPORT_AMONG = 4.0     # named by a Seer report as a possible Werewolf
REPORT_CLEARED = -3.0  # cleared by a Seer report
ACCUSED = 0.4          # accused by an ordinary player
ACCUSED_TRUSTED = 1.0  # accused by a player I trust
WRONGLY_ACCUSED_ME = 0.5  # accused me although I know I am innocent
TRUSTED = -3.0         # a score at or below this makes a player's accusations count more
#: How a claimed role moves suspicion: naive players believe it, strategic ones are wary.
CLAIM_WEIGHT = {
    True: {"werewolf": 8.0, "minion": -6.0, "tanner": -8.0},
    False: {"werewolf": 3.0, "minion": -2.0, "tanner": -3.0},
}

OPENERS = ("Good morning, everyone.", "Let me speak plainly.", "Here is where I stand.",
           "Listen, all of you.", "Right then.")
CLOSERS = ("Let us think before we vote.", "Watch who changes their story.",
           "Claims only help if they fit together.", "I will keep listening.", "")


@dataclass(frozen=True)
class Said:
    """The claims found in one statement."""

    seat: int
    roles: tuple[str, ...] = ()
    reports: tuple[tuple[tuple[int, int], bool], ...] = ()
    fellows: tuple[int, ...] = ()
    accused: tuple[int, ...] = ()
    liars: tuple[int, ...] = ()


# Claim patterns, run on lower-cased text in which every player name has been replaced by
# a seat token "\x00<seat>\x00" (names are never control characters, so tokens cannot clash).
SEAT = r"\x00(\d+)\x00"
ROLE_RE = re.compile(r"\bi(?:'m|\u2019m|\s+am)\s+(?:the\s+|a\s+|an\s+)?(?:real\s+|true\s+|only\s+)?"
                     r"(seer|mason|villager|werewolf|minion|tanner)\b")
REPORT_RE = re.compile(rf"looked\s+at\s+{SEAT}\s+and\s+{SEAT}\W+(?:and\s+)?the\s+werewolf\s+is\s+"
                       r"(not\s+)?(?:among|one\s+of)\s+them")
FELLOW_RE = re.compile(rf"fellow\s+mason\s+is\s+{SEAT}")
ACCUSE_RE = re.compile(rf"\bi\s+(?:suspect|will\s+vote\s+for|vote\s+for|accuse)\s+{SEAT}")
LIAR_RE = re.compile(rf"{SEAT}\s+is\s+lying")


def _joins_word(char: str) -> bool:
    return char.isalnum() or char in "_\x00"


def mark_names(text: str, names: Sequence[str]) -> str:
    """`text` lower-cased, each whole-word player name (any case) replaced by its seat token."""
    low = text.lower()
    for seat in sorted(range(len(names)), key=lambda s: len(names[s]), reverse=True):
        name = names[seat].lower()
        if not name:
            continue
        out, i = [], 0
        while (j := low.find(name, i)) >= 0:
            end = j + len(name)
            whole = (j == 0 or not _joins_word(low[j - 1])) and (end == len(low) or not _joins_word(low[end]))
            out.append(low[i:j] + (f"\x00{seat}\x00" if whole else low[j:end]))
            i = end
        out.append(low[i:])
        low = "".join(out)
    return low


@lru_cache(maxsize=4096)
def parse_statement(text: str, seat: int, names: tuple[str, ...]) -> Said:
    """The claims a statement makes, with players resolved to seats (cached: agents re-read logs)."""
    marked = mark_names(text, names)

    def seats(pattern: re.Pattern[str]) -> tuple[int, ...]:
        return tuple(int(m.group(1)) for m in pattern.finditer(marked))

    reports = []
    for m in REPORT_RE.finditer(marked):
        a, b = int(m.group(1)), int(m.group(2))
        if a != b:
            reports.append(((min(a, b), max(a, b)), m.group(3) is None))
    return Said(seat, roles=tuple(m.group(1) for m in ROLE_RE.finditer(marked)),
                reports=tuple(reports), fellows=seats(FELLOW_RE), accused=seats(ACCUSE_RE),
                liars=seats(LIAR_RE))


class Table:
    """What one seat knows: its role and night information, and every statement parsed."""

    def __init__(self, observation: Mapping[str, Any], earlier: Table | None = None):
        """What the observation tells; `earlier`, this seat's table at an earlier point of the
        same game, spares re-reading the events it has already read (a log only grows)."""
        self.me: int = observation["seat"]
        self.names: list[str] = list(observation["public"]["names"])
        self.n = len(self.names)
        private = observation["private"]
        self.role: str = private["role"]
        self.fellow: int | None = private.get("fellow_mason")
        log = observation["log"]
        if earlier is not None and earlier.seen <= len(log):
            self.night = earlier.night
            self.said = list(earlier.said)
            self.claimed = [list(roles) for roles in earlier.claimed]
            self.reports = [set(reports) for reports in earlier.reports]
            self.named = list(earlier.named)
            start = earlier.seen
        else:
            self.night: tuple[list[int], bool] | None = None
            self.said: list[Said] = []
            # Per seat: roles claimed (first-claimed order, no repeats), Seer reports, named fellow.
            self.claimed: list[list[str]] = [[] for _ in range(self.n)]
            self.reports: list[set[tuple[tuple[int, int], bool]]] = [set() for _ in range(self.n)]
            self.named: list[int | None] = [None] * self.n
            start = 0
        names = tuple(self.names)
        for ev in log[start:]:
            if ev["phase"] == "night" and ev["kind"] == "info" and ev["seat"] == self.me:
                self.night = (list(ev["data"]["looked"]), bool(ev["data"]["werewolf_among"]))
            elif ev["phase"] == "day" and ev["kind"] == "action":
                said = parse_statement(ev["data"]["text"], ev["seat"], names)
                self.said.append(said)
                self.claimed[said.seat].extend(r for r in dict.fromkeys(said.roles)
                                               if r not in self.claimed[said.seat])
                self.reports[said.seat].update(said.reports)
                if said.fellows:
                    self.named[said.seat] = said.fellows[-1]
        self.seen = len(log)
        self.memo: dict[tuple[bool, bool], list[float]] = {}

    @property
    def round(self) -> int:
        """The statement round about to be spoken (1-based)."""
        return len(self.said) // self.n + 1

    def others(self) -> list[int]:
        return [s for s in range(self.n) if s != self.me]

    def claims(self, seat: int) -> list[str]:
        """Roles `seat` claimed, in first-claimed order, without repeats."""
        return self.claimed[seat]

    def mine(self) -> list[Said]:
        return [s for s in self.said if s.seat == self.me]


def suspicion(t: Table, naive: bool, informed: bool) -> list[float]:
    """Suspicion of each seat being the Werewolf (own seat: -inf).

    `naive` takes role claims at face value; `informed` adds what a village player knows
    for sure (its own innocence and night information); uninformed scores are the view of
    someone who knows nothing beyond the statements.
    """
    informed = informed and t.role in VILLAGE
    if (naive, informed) in t.memo:
        return t.memo[naive, informed]
    score = [0.0] * t.n
    claims = {p: t.claims(p) for p in t.others()}
    innocent: set[int] = {t.me} if informed else set()  # known or confirmed not the Werewolf

    if informed and t.role == "mason" and t.fellow is not None:
        score[t.fellow] -= 10.0
        innocent.add(t.fellow)
    if informed and t.role == "seer" and t.night is not None:
        looked, among = t.night
        for q in t.others():
            if among:
                score[q] += 8.0 if q in looked else -4.0
            elif q in looked:
                score[q] -= 10.0
                innocent.add(q)

    for p, roles in claims.items():
        if len(roles) > 1:
            score[p] += CHANGED_STORY[naive]
        score[p] += sum(CLAIM_WEIGHT[naive].get(r, 0.0) for r in roles)

    masons = [p for p, roles in claims.items() if "mason" in roles]
    named = t.named
    for p in masons:
        if informed and t.role == "mason":
            score[p] += KNOWN_LIAR if p != t.fellow else 0.0
        elif informed and named[p] == t.me:
            score[p] += KNOWN_LIAR  # names me as its fellow Mason, but I am not one
        elif named[p] is not None and named[named[p]] == p:
            score[p] += CONFIRMED_MASON
            innocent.add(p)
        elif naive:
            score[p] += CONFIRMED_MASON / 2
        elif len(masons) > 2:
            score[p] += CROWDED_CLAIM

    seers = [p for p, roles in claims.items() if "seer" in roles]
    i_am_seer = informed and t.role == "seer"
    n_seers = len(seers) + (1 if i_am_seer else 0)
    for p in seers:
        if i_am_seer:
            score[p] += KNOWN_LIAR
            continue
        if n_seers > 1:
            score[p] += CROWDED_CLAIM
        share = 1.0 if naive else 1.0 / n_seers
        for pair, among in sorted(t.reports[p]):
            for q in pair:
                if q != t.me:
                    score[q] += share * (REPORT_AMONG if among else REPORT_CLEARED)
            cleared = [q for q in pair if q in innocent]
            if among and len(cleared) == 1:
                # One of the two is known innocent: if this Seer is honest, it is the other.
                other = pair[0] if pair[1] == cleared[0] else pair[1]
                score[other] += share * REPORT_AMONG

    if not naive:
        villagers = [p for p, roles in claims.items() if "villager" in roles]
        if len(villagers) + (1 if informed and t.role == "villager" else 0) > 2:
            for p in villagers:
                score[p] += OVERCLAIMED

    base = list(score)
    for said in t.said:
        a = said.seat
        if a == t.me:
            continue
        weight = ACCUSED_TRUSTED if base[a] <= TRUSTED else ACCUSED
        for q, factor in [(q, 1.0) for q in said.accused] + [(q, 2.0) for q in said.liars]:
            if q != t.me:
                score[q] += weight * factor
            elif informed:
                score[a] += WRONGLY_ACCUSED_ME
    score[t.me] = float("-inf")
    t.memo[naive, informed] = score
    return score


def tanner_like(t: Table, seat: int) -> bool:
    """Claimed the Tanner or changed its story: what a vote-seeking Tanner does."""
    roles = t.claims(seat)
    return len(roles) > 1 or "tanner" in roles


class WerewolfAgent(ScriptedAgent):
    """Shared machinery: parsing, suspicion, votes and probes; subclasses choose claims."""

    naive = True

    def __init__(self, params: Mapping[str, Any], rng: random.Random, name: str):
        super().__init__(params, rng, name)
        # Ties between equal suspicions break by a fixed per-agent order, drawn once, so
        # that answering probes never changes the agent's later choices.
        self._priority_seed = rng.getrandbits(64)
        self._priority: dict[int, list[int]] = {}
        self._tables: dict[tuple[int, int], Table] = {}  # (seat, events seen) -> what it knows then
        self._latest: dict[int, Table] = {}  # seat -> its table at the latest point read

    def table(self, observation: Mapping[str, Any]) -> Table:
        """What this seat knows at this point of the game (parsed once per point)."""
        seat = observation["seat"]
        key = (seat, len(observation["log"]))
        if key not in self._tables:
            self._tables[key] = self._latest[seat] = Table(observation, self._latest.get(seat))
        return self._tables[key]

    # -- beliefs ----------------------------------------------------------------------
    def top(self, t: Table, score: Sequence[float], exclude: Collection[int] = ()) -> int:
        """The highest-scored other seat (not in `exclude` when some remain)."""
        candidates = [s for s in t.others() if s not in exclude] or t.others()
        if t.n not in self._priority:
            self._priority[t.n] = random.Random(self._priority_seed).sample(range(t.n), t.n)
        priority = self._priority[t.n]
        return max(candidates, key=lambda s: (score[s], -priority.index(s)))

    def informed_top(self, t: Table) -> int:
        """A village player's top suspect, from everything it knows."""
        # A wary player will not hand the Tanner its win: it skips players who court votes.
        exclude = set() if self.naive else {s for s in t.others() if tanner_like(t, s)}
        return self.top(t, suspicion(t, self.naive, informed=True), exclude)

    def plausible_villager(self, t: Table) -> int:
        """Whom a Werewolf-team player pushes: the table's top suspect other than itself."""
        exclude = set() if self.naive else {s for s in t.others() if tanner_like(t, s)}
        return self.top(t, suspicion(t, self.naive, informed=False), exclude)

    def target(self, t: Table) -> int:
        """The player this agent accuses in statements and votes for."""
        if t.role in ("werewolf", "minion"):
            return self.plausible_villager(t)
        if t.role == "tanner":
            return self.top(t, suspicion(t, self.naive, informed=False))
        return self.informed_top(t)

    def probe_answer(self, request: ProbeRequest) -> dict[str, Any] | None:
        if request.kind != "suspect":
            return None
        return {"seat": self.target(self.table(request.observation))}

    # -- actions ----------------------------------------------------------------------
    def decide(self, request: Request) -> dict[str, Any]:
        t = self.table(request.observation)
        if request.phase == "night":
            return {"look": sorted(self.rng.sample(t.others(), 2))}
        if request.phase == "day":
            return {"text": self.statement(t)}
        if t.role == "tanner":
            return {"vote": self.rng.choice(t.others())}
        return {"vote": self.target(t)}

    def statement(self, t: Table) -> str:
        """One statement: opener, this round's claims, an accusation from round 2 on, closer."""
        parts = [self.rng.choice(OPENERS), *self.claim_sentences(t)]
        if t.round >= 2:
            verb = "I will vote for" if t.round >= 3 else "I suspect"
            parts.append(f"{verb} {t.names[self.accusation(t)]}.")
        parts.append(self.rng.choice(CLOSERS))
        return " ".join(p for p in parts if p)

    def accusation(self, t: Table) -> int:
        """Whom the statement accuses (rounds 2 and 3)."""
        return self.target(t)

    def claim_sentences(self, t: Table) -> list[str]:
        """This round's role claim and night information."""
        return honest_claims(t)


def honest_claims(t: Table) -> list[str]:
    """The true role, with the night information in the first round."""
    claim = f"I am {TITLE[t.role]}."
    if t.round > 1:
        return [claim]
    if t.role == "seer" and t.night is not None:
        (a, b), among = t.night[0], t.night[1]
        return [claim, seer_report(t, a, b, among)]
    if t.role == "mason" and t.fellow is not None:
        return [f"I am a Mason; my fellow Mason is {t.names[t.fellow]}."]
    if t.role == "villager":
        return [claim, "I had nothing to do at night."]
    if t.role == "minion":
        return [claim, "Nobody told me who the Werewolf is."]
    return [claim]


def seer_report(t: Table, a: int, b: int, among: bool) -> str:
    verdict = "among them" if among else "not among them"
    return f"I looked at {t.names[a]} and {t.names[b]}: the Werewolf is {verdict}."


class Straightforward(WerewolfAgent):
    """Everyone tells the truth about role and night information, and believes every claim."""

    strategy = "werewolf/straightforward"


class Strategic(WerewolfAgent):
    """The village is honest and wary; the Werewolf team poses as villagers; the Tanner baits votes."""

    strategy = "werewolf/strategic"
    naive = False
    defaults = {"fake_claim_rate": 0.25}

    def __init__(self, params: Mapping[str, Any], rng: random.Random, name: str):
        super().__init__(params, rng, name)
        rate = self.params["fake_claim_rate"]
        if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 <= rate <= 1:
            raise ValueError(f"builtin agent {self.strategy!r}: fake_claim_rate must be a number "
                             f"from 0 to 1, got {rate!r}")

    def claim_sentences(self, t: Table) -> list[str]:
        if t.role in ("seer", "mason", "villager"):
            return honest_claims(t)
        first = self.first_claim(t)
        if t.role == "tanner":
            return self.tanner_claims(t, first)
        if first is not None and first.reports:
            return ["I am the Seer."]  # keep the fake story straight
        if first is not None:
            return ["I am a Villager."]
        if t.role == "werewolf" and self.rng.random() < self.params["fake_claim_rate"]:
            pair = self.fake_pair(t)
            if pair is not None:
                return ["I am the Seer.", seer_report(t, pair[0], pair[1], True)]
        return ["I am a Villager.", "I had nothing to do at night."]

    def tanner_claims(self, t: Table, first: Said | None) -> list[str]:
        """Draw votes: a fake Seer report that clashes with the real one, or a changing story."""
        if first is None:
            if self.rng.random() < 0.5:
                a, b = sorted(self.rng.sample(t.others(), 2))
                return ["I am the Seer.", seer_report(t, a, b, False)]
            return ["I am a Villager.", "I had nothing to do at night."]
        if first.reports:
            return ["I am the Seer, whatever the others say."]
        if t.round == 2:
            fellow = self.rng.choice(t.others())
            return [f"I am a Mason; my fellow Mason is {t.names[fellow]}."]
        return ["I am a Mason, or maybe not; does it matter?"]

    def fake_pair(self, t: Table) -> tuple[int, int] | None:
        """Two players the Werewolf can frame: any who have not already claimed Seer or Mason."""
        claimed = {s.seat for s in t.said if {"seer", "mason"} & set(s.roles)}
        pool = [s for s in t.others() if s not in claimed]
        if len(pool) < 2:
            return None
        a, b = sorted(self.rng.sample(pool, 2))
        return a, b

    @staticmethod
    def first_claim(t: Table) -> Said | None:
        mine = t.mine()
        return mine[0] if mine else None

    def accusation(self, t: Table) -> int:
        first = self.first_claim(t)
        if t.role == "werewolf" and first is not None and first.reports:
            # Stand by the fake report: accuse the more suspected of the two framed players.
            score = suspicion(t, self.naive, informed=False)
            pair = [q for q in first.reports[0][0] if q != t.me]
            return max(pair, key=lambda q: score[q])
        if t.role == "tanner":
            return self.rng.choice(t.others())
        return self.target(t)


STRATEGIES = [Straightforward, Strategic]
