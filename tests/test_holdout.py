"""Held-out deals (runner/holdout.py): the epochs file, the secret of the open epoch, and the seeds."""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tomllib

import pytest

from runner import games, holdout
from runner import suite as suites
from runner.seeds import rng_for

SECRET = "ab" * 32
COMMIT = "c" * 40


def epoch(number: int, secret: str, published: bool = False, since: str = "2026-12-01") -> str:
    text = holdout.commitment_lines(secret, number, since)
    return text + (f'secret = "{secret}"\n' if published else "") + "\n"


def test_the_commitment_is_the_sha256_anyone_can_compute():
    assert holdout.commitment_of(SECRET) == hashlib.sha256(SECRET.encode()).hexdigest()
    done = subprocess.run(["sh", "-c", f'printf %s "{SECRET}" | sha256sum'], capture_output=True, text=True, check=True)
    assert done.stdout.split()[0] == holdout.commitment_of(SECRET)


def test_the_shipped_file_reads():
    assert isinstance(holdout.shipped(), holdout.Epochs)


@pytest.mark.parametrize("text, message", [
    ("epochs = 3\n", "epochs: must be [[epochs]] tables"),
    ("colour = 1\n", "unknown key(s) ['colour']"),
    (epoch(2, SECRET), "epochs[0].epoch: epochs are numbered 1, 2, ... in order; this one is 1"),
    ('[[epochs]]\nepoch = 1\ncommitment = "abc"\nsince = 2026-12-01\n', "epochs[0].commitment: must be the SHA-256"),
    (f'[[epochs]]\nepoch = 1\ncommitment = "{holdout.commitment_of(SECRET)}"\n', "epochs[0].since: must be the date"),
    (epoch(1, SECRET) + epoch(2, "cd" * 32), "epochs[0].secret: epoch 1 has ended (a later epoch is committed): "
                                             "publish its secret"),
    (epoch(1, SECRET).replace("since", 'secret = "' + "ef" * 32 + '"\nsince'),
     "epochs[0].secret: is not the secret of this epoch's commitment"),
    (epoch(1, SECRET).replace("since", 'secret = "short"\nsince'), "epochs[0].secret: must be the epoch's secret"),
    ("[[epochs]\n", "holdout.toml:1: "),
], ids=["not tables", "unknown key", "numbering", "commitment", "no date", "unpublished", "wrong secret",
        "bad secret", "not toml"])
def test_a_bad_epochs_file_is_one_line_naming_the_field(text, message):
    with pytest.raises(holdout.HoldoutError) as caught:
        holdout.read(text, "runner/holdout.toml")
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_the_open_epoch_is_the_newest_unpublished_one():
    epochs = holdout.read(epoch(1, SECRET, published=True) + epoch(2, "cd" * 32), "f")
    assert epochs.current.epoch == 2 and epochs.get(1).published and not epochs.get(2).published
    assert holdout.read(epoch(1, SECRET, published=True), "f").current is None
    assert holdout.read("", "f").current is None


@pytest.mark.parametrize("secret, message", [
    (None, "environment variable GAMENIGHT_HOLDOUT_SECRET is not set: it must hold the secret of epoch 1"),
    ("  ", "environment variable GAMENIGHT_HOLDOUT_SECRET is empty"),
    ("cd" * 32, "the secret in GAMENIGHT_HOLDOUT_SECRET is not epoch 1's"),
])
def test_the_secret_must_be_the_open_epochs_and_is_never_repeated(secret, message):
    epochs = holdout.read(epoch(1, SECRET), "f")
    with pytest.raises(holdout.HoldoutError) as caught:
        holdout.current_secret(epochs, secret)
    assert message in str(caught.value) and "cd" * 32 not in str(caught.value)
    assert holdout.current_secret(epochs, f" {SECRET}\n") == (epochs.current, SECRET)
    with pytest.raises(holdout.HoldoutError, match="has no open epoch"):
        holdout.current_secret(holdout.read("", "f"), SECRET)


def test_a_held_out_seed_depends_on_every_input_and_deals_the_suites_slot():
    suite = suites.find("ranked-1")
    werewolf = next(g for g in suite.games if g.game == "werewolf")
    seeds = {holdout.held_out_seed(SECRET, "ranked", 1, werewolf, "ranked-1-x", COMMIT, k) for k in range(12)}
    assert len(seeds) == 12
    base = holdout.held_out_seed(SECRET, "ranked", 1, werewolf, "ranked-1-x", COMMIT, 3)
    assert base == holdout.held_out_seed(SECRET, "ranked", 1, werewolf, "ranked-1-x", COMMIT, 3)
    for changed in (("cd" * 32, "ranked-1-x", COMMIT), (SECRET, "ranked-1-y", COMMIT), (SECRET, "ranked-1-x", "d" * 40)):
        assert holdout.held_out_seed(changed[0], "ranked", 1, werewolf, changed[1], changed[2], 3) != base
    rules, game = dict(werewolf.rules), games.get("werewolf")
    for k in range(12):
        role, seat = werewolf.slot(k)
        seed = holdout.held_out_seed(SECRET, "ranked", 1, werewolf, "ranked-1-x", COMMIT, k)
        assert game.role_of(rules, game.deal(rules, rng_for(seed, "deal")), seat) == role
        assert seed != suites.deal(suite, werewolf, k).seed  # never the suite's public deal


def test_the_seed_problem_names_epoch_commitment_and_seed():
    suite = suites.find("ranked-1")
    chameleon = next(g for g in suite.games if g.game == "chameleon")
    seed = holdout.held_out_seed(SECRET, "ranked", 1, chameleon, "ranked-1-x", COMMIT, 2)
    claim = {"epoch": 1, "commitment": holdout.commitment_of(SECRET), "row": "ranked-1-x", "commit": COMMIT, "deal": 2}
    open_epoch = holdout.read(epoch(1, SECRET), "f")
    published = holdout.read(epoch(1, SECRET, published=True), "f")
    assert holdout.seed_problem(open_epoch, claim, chameleon, seed + 1, "ranked", 1) is None  # trusted until published
    assert holdout.seed_problem(published, claim, chameleon, seed, "ranked", 1) is None
    field, why = holdout.seed_problem(published, claim, chameleon, seed + 1, "ranked", 1)
    assert field == "seed" and f"is dealt with seed {seed}" in why
    assert holdout.seed_problem(published, {**claim, "epoch": 2}, chameleon, seed, "ranked", 1)[1] == \
        "epoch 2 is not in f"
    assert "commitment in f is" in holdout.seed_problem(published, {**claim, "commitment": "0" * 64}, chameleon, seed,
                                                        "ranked", 1)[1]


def test_a_new_epoch_prints_its_table_and_keeps_the_secret_apart():
    done = subprocess.run([sys.executable, "-m", "runner.holdout", "new"], capture_output=True, text=True, check=True)
    secret = done.stderr.split("\n")[1].strip()
    assert holdout.SECRET.match(secret) and secret not in done.stdout
    # the table it prints is the shipped file's next epoch (numbered after the shipped ones)
    (table,) = tomllib.loads(done.stdout)["epochs"]
    assert table["epoch"] == len(holdout.shipped().epochs) + 1
    assert table["commitment"] == holdout.commitment_of(secret) and set(table) == {"epoch", "commitment", "since"}
