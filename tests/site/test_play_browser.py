"""A person plays whole games in Chromium by clicking and typing, against built-in agents.

Each of the six games is played to its end through the page; the replay written validates and
scores. One game has two people, each in their own browser context with their own link.
"""

from __future__ import annotations

import json
import time

import pytest

from runner.rerun.validate import check_file
from runner.table import Person, deal
from site_builder.scoring.corpus import load
from site_builder.scoring.results import assemble
from tests.site.play_helpers import playing

#: Longest a whole game may take in the browser before the test gives up.
GAME_SECONDS = 120
CLUES = {"chameleon": "puddle", "undercover": "sharp", "werewolf": "I am a villager and I trust Player 1."}


def wait_for_turn(tab, acted: str) -> str:
    """Wait until the page asks something new (or the game is over); its state."""
    tab.wait_for_function(
        """acted => { const root = document.querySelector('[data-gn-play]');
                      return root.dataset.state === 'over' || root.dataset.state === 'failed' ||
                             (root.dataset.state === 'asked' && root.dataset.question !== acted); }""",
        arg=acted, timeout=GAME_SECONDS * 1000)
    return tab.locator("[data-gn-play]").get_attribute("data-state")


def take_turn(tab, game: str, turn: int) -> None:
    """Answer the question on the page as a person would: type, tick, click."""
    ask = tab.locator(".gn-ask")
    form = ask.locator("form")
    form.wait_for(timeout=15000)  # the question's form, drawn (a failure shows what the panel held)
    if ask.locator("textarea").count():
        ask.locator("textarea").fill(CLUES[game])
        ask.locator("button.gn-primary").click()
    elif ask.locator("input[type=text]").count():
        box = ask.locator("input[type=text]")
        box.fill(CLUES[game])
        box.press("Enter")  # the keyboard sends it
    elif ask.locator("input[type=number]").count():
        ask.locator("button.gn-primary").click()  # the defaults are legal: an even split, nothing given
    elif ask.locator("input[type=checkbox]").count():
        boxes = ask.locator("input[type=checkbox]")
        for i in range(2):
            boxes.nth(i).check()
        ask.locator("button.gn-primary").click()
    elif ask.locator(".gn-skip").count() and turn % 3 == 2:
        ask.locator(".gn-skip").click()  # a person may skip a belief question
    else:
        ask.locator(".gn-choices button").first.click()
        if ask.locator(".gn-confirm").count():  # a vote or a guess waits for its confirmation
            ask.locator(".gn-confirm").click()


def play_through(tabs: dict, game: str) -> dict:
    """Play every seat's page to the end; the last page's final view data (state, question id)."""
    acted = {seat: "" for seat in tabs}
    turns = 0
    deadline = time.monotonic() + GAME_SECONDS
    over: set = set()
    while len(over) < len(tabs):
        assert time.monotonic() < deadline, "the game did not finish in time"
        for seat, tab in tabs.items():
            if seat in over:
                continue
            root = tab.locator("[data-gn-play]")
            if len(tabs) == 1:
                state = wait_for_turn(tab, acted[seat])
            else:  # several people: whoever is asked something new acts, the others wait their turn
                state = root.get_attribute("data-state")
                if state == "asked" and root.get_attribute("data-question") == acted[seat] or state == "waiting" \
                        or state is None:
                    tab.wait_for_timeout(50)
                    continue
            if state in ("over", "failed"):
                assert state == "over", tab.locator(".gn-ask").inner_text()
                over.add(seat)
                continue
            acted[seat] = tab.locator("[data-gn-play]").get_attribute("data-question")
            take_turn(tab, game, turns)
            turns += 1
    return {"turns": turns}


def finished_replay(tmp_path, game: str):
    [path] = list(tmp_path.rglob("*.jsonl"))
    checked = check_file(str(path))
    assert checked.ok, checked.problems
    corpus = load([tmp_path])
    assert len(corpus.games) == 1 and not corpus.invalid_replays
    results = assemble(corpus)
    assert any(a["kind"] == "human" for a in results["agents"])
    return path


@pytest.mark.parametrize("game", ["chameleon", "undercover", "cost_sharing", "prisoners_dilemma", "public_good",
                                  "werewolf"])
def test_a_person_plays_a_whole_game_in_the_browser(browser, tmp_path, game):
    role = {"chameleon": "chameleon", "werewolf": "seer"}.get(game)
    table = deal(game, {}, 4, [Person("Ann", role=role) if role else Person("Ann", seat=0)])
    seat = next(iter(table.people))
    context = browser.new_context(viewport={"width": 390, "height": 844})
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    with playing(table, tmp_path) as (session, links):
        tab.goto(links[seat])
        wait_for_turn(tab, "")
        if game == "chameleon":  # an empty clue is refused with the rules' message, then asked again
            acted = tab.locator("[data-gn-play]").get_attribute("data-question")
            tab.locator(".gn-ask button.gn-primary").click()
            wait_for_turn(tab, acted)
            assert "Not accepted" in tab.locator(".gn-ask .gn-refused").inner_text()
            tab.reload()  # reopening the link resumes the game where it stood
            wait_for_turn(tab, "")
            assert tab.locator(".gn-ask .gn-refused").count() == 1
        play_through({seat: tab}, game)
        assert tab.locator(".gn-ask h2").inner_text() in ("You won", "The game is over")
        assert tab.evaluate("document.documentElement.scrollWidth") <= 390  # the page fits a phone
    context.close()
    assert not errors, errors
    finished_replay(tmp_path, game)


def test_two_people_play_one_game_in_two_browser_contexts(browser, tmp_path):
    table = deal("werewolf", {}, 9, [Person("Ann", role="seer"), Person("Bob", role="werewolf")])
    contexts = {seat: browser.new_context() for seat in table.people}
    tabs = {seat: contexts[seat].new_page() for seat in table.people}
    with playing(table, tmp_path) as (session, links):
        for seat, tab in tabs.items():
            tab.goto(links[seat])
        play_through(tabs, "werewolf")
        names = {seat: tab.locator(".gn-you-are strong").first.inner_text() for seat, tab in tabs.items()}
        assert sorted(names.values()) == sorted(table.names[s] for s in table.people)
    for context in contexts.values():
        context.close()
    path = finished_replay(tmp_path, "werewolf")
    assert '"kind":"human"' in path.read_text().split("\n")[0].replace(" ", "")


def test_a_whole_game_is_played_with_the_keyboard_alone(browser, tmp_path):
    """Each new question takes the focus; typing, Tab and Enter play it (here Cost Sharing: numbers, then votes)."""
    table = deal("cost_sharing", {"rounds": 2}, 2, [Person("Ann", seat=1)])
    context = browser.new_context()
    tab = context.new_page()
    with playing(table, tmp_path, probes=False) as (session, links):
        tab.goto(links[1])
        acted = ""
        while wait_for_turn(tab, acted) == "asked":
            acted = tab.locator("[data-gn-play]").get_attribute("data-question")
            if tab.locator(".gn-ask input[type=number]").count():
                for share in ("20", "30", "50"):  # the focus starts in the first box
                    tab.keyboard.press("Control+A")
                    tab.keyboard.type(share)
                    tab.keyboard.press("Tab")
                tab.keyboard.press("Enter")  # on the Propose button
            else:
                tab.keyboard.press("Enter")  # the first proposal's button has the focus
                tab.keyboard.press("Enter")  # then the confirm button has it
    context.close()
    records = [line for line in finished_replay(tmp_path, "cost_sharing").read_text().splitlines() if '"seat":1' in line]
    assert any('"split":[20,30,50]' in line.replace(" ", "") for line in records)


def test_the_players_table_fits_a_phone_without_scrolling_sideways(browser, tmp_path):
    """At 390 px the players are a compact list, a line or two each (pov.js), not the table stacked
    into a card per player; wide again, the table."""
    table = deal("werewolf", {}, 4, [Person("Ann", role="seer")])
    seat = next(iter(table.people))
    context = browser.new_context(viewport={"width": 390, "height": 844})
    tab = context.new_page()
    with playing(table, tmp_path) as (session, links):
        tab.goto(links[seat])
        wait_for_turn(tab, "")
        wrap = tab.locator(".gn-players")
        scroll, client = wrap.evaluate("e => [e.scrollWidth, e.clientWidth]")
        assert scroll <= client + 1 and tab.evaluate("document.documentElement.scrollWidth") <= 390
        assert tab.locator(".gn-players table").is_hidden()
        items = tab.locator(".gn-player-list li")
        assert items.count() == tab.locator(".gn-players tbody tr").count() > 1 and items.first.is_visible()
        assert all(item.bounding_box()["height"] < 70 for item in items.all())  # two lines at most
        tab.set_viewport_size({"width": 1366, "height": 900})  # wide again: a plain table
        tab.locator(".gn-players table").wait_for()
        assert tab.locator(".gn-player-list").is_hidden()
        assert "gn-stacked" not in tab.locator(".gn-players table").get_attribute("class")
    context.close()


def test_the_page_gives_the_goal_and_the_rules_and_a_vote_waits_for_its_confirmation(browser, tmp_path):
    """A phone: the goal, the rules the models read and a link to the rules page; the history
    before the players' cards; a vote chosen is sent only when confirmed; the finished game's
    page survives a reload."""
    table = deal("chameleon", {"players": 3}, 4, [Person("Ann", seat=0)], probes=False)
    context = browser.new_context(viewport={"width": 390, "height": 844})
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    with playing(table, tmp_path, probes=False) as (session, links):
        tab.goto(links[0])
        wait_for_turn(tab, "")
        view = session.view(0)
        assert tab.locator(".gn-goal").inner_text() == view["goal"] and "chameleon" in view["goal"]
        rules = tab.locator(".gn-rules-body")
        assert not rules.is_visible()  # a tap away
        tab.locator(".gn-rules summary").click()
        assert rules.inner_text().startswith("You are ") and "How the game works:" in rules.inner_text()
        rules_link = tab.locator(".gn-rules a")
        assert rules_link.get_attribute("href").endswith("/rules")
        rules_page = context.request.get(links[0] + "/rules")
        assert rules_page.ok and "Rules as implemented" in rules_page.text()
        history_top = tab.locator(".gn-history-panel").bounding_box()["y"]
        assert history_top < tab.locator(".gn-players").bounding_box()["y"]  # before the long list of cards
        acted = tab.locator("[data-gn-play]").get_attribute("data-question")
        box = tab.locator(".gn-ask input[type=text]")
        box.fill("puddle")
        box.press("Enter")
        wait_for_turn(tab, acted)
        assert tab.locator(".gn-ask legend").inner_text() == "Vote for:"
        acted = tab.locator("[data-gn-play]").get_attribute("data-question")
        first, second = tab.locator(".gn-ask .gn-choices button").all()[:2]
        first.click()
        assert first.get_attribute("aria-pressed") == "true"
        confirm = tab.locator(".gn-ask .gn-confirm")
        assert confirm.evaluate("b => b === document.activeElement")  # the keyboard is on it
        assert "Nothing is sent until you confirm" in tab.locator(".gn-confirm-question").inner_text()
        tab.wait_for_timeout(300)
        assert session.questions[0][0] == int(acted)  # still asked: nothing was sent
        tab.locator(".gn-change").click()  # choose again
        assert not confirm.is_visible() and first.get_attribute("aria-pressed") == "false"
        second_name = second.inner_text()
        second.click()
        tab.keyboard.press("Enter")  # the confirm button, by keyboard
        turn = 0
        while wait_for_turn(tab, acted) == "asked":  # a guess, if Ann is the accused chameleon
            acted = tab.locator("[data-gn-play]").get_attribute("data-question")
            take_turn(tab, "chameleon", turn)
            turn += 1
        assert session.replay is not None
        tab.reload()  # the server still answers the finished game
        tab.wait_for_function("() => document.querySelector('[data-gn-play]').dataset.state === 'over'")
        assert "until gamenight play is stopped" in tab.locator(".gn-ask").inner_text()
    context.close()
    assert not errors, errors
    records = [json.loads(line) for line in session.replay.read_text().splitlines()]
    [mine] = [r for r in records if r.get("phase") == "vote" and r.get("seat") == 0]
    assert table.names[mine["data"]["vote"]] == second_name  # the confirmed choice, not the first one
