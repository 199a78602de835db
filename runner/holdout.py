"""Held-out deals: seeds from a secret the maintainers keep, committed to in advance, checkable later.

The ranked suite's own deals are public and fixed (runner/deals.py), so a contributor can play
them many times, or tune to them. A verification (`gamenight verify`, runner/verify.py) plays
deals nobody could have played in advance: **held-out deals**, whose seeds come from a secret.

- The secret belongs to an **epoch**. Before using it the maintainers commit its hash (its
  **commitment**, the SHA-256 of the secret's text: `printf %s "$SECRET" | sha256sum`) to
  `runner/holdout.toml`, a file of the repository: git dates it. The secret itself is kept as a
  repository secret (the environment variable `GAMENIGHT_HOLDOUT_SECRET` of the verifying job),
  never in the repository, a replay or a log.
- Held-out deal k of a game, for a row, is the first draw of HMAC-SHA256(secret, suite, version,
  game, row, the row's merge commit id, k, attempt) that deals the suite's role for deal k at the
  suite's seat (`SuiteGame.slot`, as the public deals are dealt): the deals depend on a commit
  nobody chose for luck and on a secret fixed before it (and so before the row, when the epoch
  was committed before the row was merged).
- Every verification replay records the epoch, its commitment and the derivation's inputs (its
  header's `verify`). When an epoch ends (**rotation**: a new epoch is committed, the old secret
  is published in this file), anyone can re-derive every held-out seed of the epoch and check it;
  `gamenight validate` does. Until then the verification games are trusted as the maintainers'
  own games, like every game in their folders.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import hmac
import re
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from runner import games, tomlfile
from runner.deals import MAX_DEAL_TRIES, Dealing, NoDraw
from runner.seeds import rng_for

#: The environment variable `gamenight verify` reads the current epoch's secret from.
SECRET_ENV = "GAMENIGHT_HOLDOUT_SECRET"
#: The maintainers' epochs, in the `runner` package (and so in the repository, dated by git).
EPOCHS_FILE = "holdout.toml"
EPOCHS_PATH = f"runner/{EPOCHS_FILE}"
#: A secret: 64 hexadecimal digits (32 random bytes), as `new_secret` makes one.
SECRET = re.compile(r"^[0-9a-f]{64}$")
COMMITMENT = re.compile(r"^[0-9a-f]{64}$")
#: A git commit id (SHA-1).
COMMIT = re.compile(r"^[0-9a-f]{40}$")
EPOCH_KEYS = {"epoch", "commitment", "since", "secret"}


class HoldoutError(ValueError):
    """An epochs file that cannot be read, or a secret that is not the epoch's: one line."""


@dataclass(frozen=True)
class Epoch:
    """One epoch: its number, its commitment, the day it was committed, and its secret once published."""

    epoch: int
    commitment: str
    since: str
    secret: str | None = None

    @property
    def published(self) -> bool:
        return self.secret is not None


@dataclass(frozen=True)
class Epochs:
    """The epochs of a file, oldest first; `where` names the file in messages."""

    epochs: tuple[Epoch, ...]
    where: str = EPOCHS_PATH

    def get(self, number: int) -> Epoch | None:
        return next((e for e in self.epochs if e.epoch == number), None)

    @property
    def current(self) -> Epoch | None:
        """The open epoch (the newest, while its secret is unpublished), or None."""
        newest = self.epochs[-1] if self.epochs else None
        return newest if newest is not None and not newest.published else None


def commitment_of(secret: str) -> str:
    """An epoch's commitment: the SHA-256 of its secret's text, in hex."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def new_secret() -> str:
    """A fresh secret: 32 random bytes in hex."""
    return secrets.token_hex(32)


def read(text: str, where: str) -> Epochs:
    """An epochs file's text, checked: numbered 1, 2, ... in order; every epoch but the newest has
    its secret published, and a published secret matches its commitment."""
    try:
        raw = tomlfile.parse(text.encode("utf-8"), 1024 * 1024)
    except tomlfile.TomlError as exc:
        raise HoldoutError(f"{where}:{exc.line}: {exc.message}" if exc.line else f"{where}: {exc.message}") from None
    unknown = sorted(set(raw) - {"epochs"})
    if unknown:
        raise HoldoutError(f"{where}: unknown key(s) {unknown}; the file holds [[epochs]] tables")
    tables = raw.get("epochs", [])
    if not isinstance(tables, list):
        raise HoldoutError(f"{where}: epochs: must be [[epochs]] tables")
    found = []
    for i, table in enumerate(tables):
        found.append(_epoch(table, f"{where}: epochs[{i}]", i + 1))
    for epoch in found[:-1]:
        if not epoch.published:
            raise HoldoutError(f"{where}: epochs[{epoch.epoch - 1}].secret: epoch {epoch.epoch} has ended (a later "
                               "epoch is committed): publish its secret, so that its held-out deals can be checked")
    return Epochs(tuple(found), where)


def _epoch(table: Any, here: str, number: int) -> Epoch:
    if not isinstance(table, dict):
        raise HoldoutError(f"{here}: must be a table")
    unknown = sorted(set(table) - EPOCH_KEYS)
    if unknown:
        raise HoldoutError(f"{here}: unknown key(s) {unknown}; allowed: {sorted(EPOCH_KEYS)}")
    if table.get("epoch") != number or isinstance(table.get("epoch"), bool):
        raise HoldoutError(f"{here}.epoch: epochs are numbered 1, 2, ... in order; this one is {number}")
    commitment = table.get("commitment")
    if not isinstance(commitment, str) or not COMMITMENT.match(commitment):
        raise HoldoutError(f"{here}.commitment: must be the SHA-256 of the epoch's secret, 64 hex digits")
    since = table.get("since")
    if not isinstance(since, dt.date) or isinstance(since, dt.datetime):
        raise HoldoutError(f"{here}.since: must be the date the epoch was committed, YYYY-MM-DD")
    secret = table.get("secret")
    if secret is not None:
        if not isinstance(secret, str) or not SECRET.match(secret):
            raise HoldoutError(f"{here}.secret: must be the epoch's secret, 64 hex digits")
        if commitment_of(secret) != commitment:
            raise HoldoutError(f"{here}.secret: is not the secret of this epoch's commitment (its SHA-256 is "
                               f"{commitment_of(secret)})")
    return Epoch(number, commitment, since.isoformat(), secret)


@functools.cache
def shipped() -> Epochs:
    """The epochs of the installed `runner` package (the base branch's, in the submission check)."""
    text = resources.files("runner").joinpath(EPOCHS_FILE).read_text(encoding="utf-8")
    return read(text, EPOCHS_PATH)


def load(path: str | Path | None) -> Epochs:
    """The epochs of a file, or the shipped ones (None)."""
    if path is None:
        return shipped()
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise HoldoutError(f"{path}: cannot be read ({getattr(exc, 'strerror', None) or exc})") from None
    return read(text, str(path))


def current_secret(epochs: Epochs, secret: str | None, variable: str = SECRET_ENV) -> tuple[Epoch, str]:
    """The open epoch and its secret (read from `variable`), or HoldoutError saying what is wrong,
    never repeating the secret."""
    epoch = epochs.current
    if epoch is None:
        raise HoldoutError(f"{epochs.where} has no open epoch (none, or the newest one's secret is published): "
                           "commit a new one first (docs/maintainers.md, \"Verifying a row\")")
    if secret is None or not secret.strip():
        raise HoldoutError(f"environment variable {variable} is {'empty' if secret is not None else 'not set'}: it "
                           f"must hold the secret of epoch {epoch.epoch} (the commitment in {epochs.where})")
    secret = secret.strip()
    if commitment_of(secret) != epoch.commitment:
        raise HoldoutError(f"the secret in {variable} is not epoch {epoch.epoch}'s: its SHA-256 is not the "
                           f"commitment in {epochs.where}")
    return epoch, secret


# -- the seeds -----------------------------------------------------------------------------------

def draw_seed(secret: str, suite: str, version: int, game: str, row: str, commit: str, index: int,
              attempt: int) -> int:
    """The seed of a held-out deal's `attempt`-th draw: HMAC-SHA256 keyed by the secret over the
    suite, its version, the game, the row, the row's merge commit and the deal's index, 60 bits
    (as the suite's own seeds)."""
    message = f"gamenight-holdout\n{suite}\n{version}\n{game}\n{row}\n{commit}\n{index}\n{attempt}".encode()
    return int(hmac.new(secret.encode("utf-8"), message, hashlib.sha256).hexdigest()[:15], 16)


def held_out_seed(secret: str, suite: str, version: int, dealing: Dealing, row: str, commit: str, index: int) -> int:
    """Held-out deal `index` of a game for a row: its first draw that deals the suite's role for
    deal `index` at the suite's seat (every draw when the game has one role), as `deals.first_draw`
    deals the public ones."""
    role, seat = dealing.slot(index)
    rules, game = dict(dealing.rules), games.get(dealing.game)
    for attempt in range(MAX_DEAL_TRIES):
        seed = draw_seed(secret, suite, version, dealing.game, row, commit, index, attempt)
        if role is None or game.role_of(rules, game.deal(rules, rng_for(seed, "deal")), seat) == role:
            return seed
    raise NoDraw(f"games.{dealing.game}: no draw of {MAX_DEAL_TRIES:,} deals {role} to seat {seat}")


def seed_problem(epochs: Epochs, claim: Mapping[str, Any], game: Dealing, seed: int, suite: str,
                 version: int) -> tuple[str, str] | None:
    """Where a held-out deal's recorded seed or commitment is not what its epoch says, or None:
    ("held_out", why) when the epoch is not in the file with this commitment, ("seed", why) when
    the epoch's secret is published and derives another seed. `claim`: epoch, commitment, row,
    commit and deal (the header's `verify` with its `held_out`)."""
    epoch = epochs.get(claim["epoch"]) if isinstance(claim.get("epoch"), int) else None
    if epoch is None:
        return "held_out", f"epoch {claim.get('epoch')!r} is not in {epochs.where}"
    if claim.get("commitment") != epoch.commitment:
        return "held_out", f"epoch {epoch.epoch}'s commitment in {epochs.where} is {epoch.commitment}"
    if epoch.secret is None:
        return None  # not yet published: trusted as the maintainers' game until it is
    expected = held_out_seed(epoch.secret, suite, version, game, claim["row"], claim["commit"], claim["deal"])
    if expected != seed:
        return "seed", (f"held-out {game.game} deal {claim['deal']} of {claim['row']} in epoch {epoch.epoch} is dealt "
                        f"with seed {expected} (HMAC of the epoch's published secret over the suite, the row, commit "
                        f"{claim['commit']} and the deal), not {seed}")
    return None


def commitment_lines(secret: str, epoch: int, since: str) -> str:
    """The [[epochs]] table to commit for a new secret (the secret itself is not in it)."""
    return f"[[epochs]]\nepoch = {epoch}\ncommitment = \"{commitment_of(secret)}\"\nsince = {since}\n"


def main(argv: Sequence[str] | None = None) -> None:
    """`python -m runner.holdout new`: a fresh secret (to keep as the repository secret) and the
    table to commit for it."""
    import sys

    args = list(sys.argv[1:] if argv is None else argv)
    if args != ["new"]:
        sys.exit("usage: python -m runner.holdout new   (prints a new secret and the [[epochs]] table to commit)")
    secret = new_secret()
    epochs = shipped()
    number = (epochs.epochs[-1].epoch + 1) if epochs.epochs else 1
    today = dt.datetime.now(dt.timezone.utc).date().isoformat()
    print(f"secret (keep it as the repository secret {SECRET_ENV}; never commit it):\n{secret}\n", file=sys.stderr)
    print(commitment_lines(secret, number, today))


if __name__ == "__main__":
    main()
