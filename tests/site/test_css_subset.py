"""The viewer page's stylesheet: a subset of Material's that keeps every rule the page can use."""

from __future__ import annotations

import pytest

from site_builder.viewer import css_subset

CSS = ('@charset "UTF-8";:root{--used:1px;--chain:var(--used);--unused:url("data:image/svg+xml;a{b}");--x:2}'
       'a{color:red}.kept{margin:var(--chain)}.gone{color:blue}.kept .gone,.kept>.also{padding:0}'
       '@media screen{.gone{top:0}.kept{top:1px}}@media print{.gone{top:0}}'
       '.kept:not(.gone){left:0}.kept:is(.gone,.other){right:0}[class="a.gone"]{bottom:0}'
       '@keyframes spin{0%{opacity:0}to{opacity:1}}@font-face{font-family:f;src:url("f.woff")}'
       '.kept::after{content:"}.gone{"}')


@pytest.mark.parametrize("selector, classes", [
    ("a", set()),
    (".a .b", {"a", "b"}),
    (".a:not(.b)", {"a"}),
    (".a:is(.b, .c) > .d", {"a", "d"}),
    ('[data-x=".y"] .z', {"z"}),
    ("#id.a::before", {"a"}),
    (".md-typeset .gn-x:hover", {"md-typeset", "gn-x"}),
])
def test_the_classes_a_selector_requires(selector, classes):
    assert css_subset.required_classes(selector) == classes


@pytest.mark.parametrize("selector, matches", [
    (".a:is(.b, .c)", True),
    (".a:is(.x, .y)", False),
    (".a :where(.x, p)", True),
    (".a:is(p:is(.b, .y), .z)", True),
    (".a:is(.x:is(.y), .z)", False),
    (".a:not(.x)", True),
    (".a:has(.x)", True),
    ('.a:is([x=")"], .y)', True),
])
def test_an_any_of_group_needs_one_alternative_that_can_match(selector, matches):
    assert css_subset.can_match(selector, {"a", "b", "c"}) is matches


def test_selector_lists_split_at_top_level_commas_only():
    assert css_subset.split_selectors('.a, .b:is(.c,.d), [x=","]') == [".a", ".b:is(.c,.d)", '[x=","]']


def test_a_subset_keeps_what_the_page_can_use_and_nothing_it_cannot():
    out = css_subset.subset(CSS, {"kept"})
    assert out.startswith('@charset "UTF-8";:root{--used:1px;--chain:var(--used)}')  # read through --chain
    assert "--unused" not in out and "--x" not in out
    assert "a{color:red}" in out and ".kept{margin:var(--chain)}" in out
    assert ".gone{color:blue}" not in out and ".kept .gone" not in out and ".kept>.also" not in out
    assert "@media screen{.kept{top:1px}}" in out and "@media print" not in out  # an emptied block goes
    assert ".kept:not(.gone){left:0}" in out  # :not(.gone) matches without .gone
    assert ".kept:is(.gone,.other){right:0}" not in out  # no alternative of :is() can match
    assert '[class="a.gone"]{bottom:0}' in out  # attributes never drop a rule
    assert "@keyframes spin{0%{opacity:0}to{opacity:1}}" in out and '@font-face{font-family:f;src:url("f.woff")}' in out
    assert '.kept::after{content:"}.gone{"}' in out  # braces in strings are text


def test_comments_go_and_strings_stay():
    assert css_subset.subset('/* .a{x:1} */.b{content:"/* not a comment */"}/**/p{y:2}', {"b"}) == \
        '.b{content:"/* not a comment */"}p{y:2}'


def test_a_rule_keeps_the_selectors_the_page_can_match():
    assert css_subset.subset(".a,.b,.c .a{x:1}", {"a"}) == ".a{x:1}"


def test_custom_properties_read_elsewhere_are_kept():
    assert css_subset.subset(":root{--x:2;--y:3}", set(), ["p{top:var(--x)}"]) == ":root{--x:2}"


def test_everything_kept_gives_the_stylesheet_back():
    assert css_subset.subset(CSS.replace("--unused", "--u").replace("--x:2", "--x:var(--u)") + "p{top:var(--x)}",
                             {"kept", "gone", "also", "other"}) == \
        CSS.replace("--unused", "--u").replace("--x:2", "--x:var(--u)") + "p{top:var(--x)}"


def test_the_page_classes_are_its_html_classes_and_the_words_of_its_scripts_strings():
    classes = css_subset.page_classes('<p class="a b"><i class=\'c\'>', ['el("div", { class: "gn-x gn-y" })'])
    assert {"a", "b", "c", "gn-x", "gn-y", "div"} <= classes and "class" not in classes
