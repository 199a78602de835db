"""escape_markdown: any string from a submission renders as that literal text in GitHub-flavoured Markdown;
cut_to_fit: a report too long for GitHub's step summary is cut, in bytes, where a line ends."""

from __future__ import annotations

import re
from html import unescape

import pytest
from markdown_it import MarkdownIt

from site_builder.submission.report import SUMMARY_LIMIT_BYTES, cut_to_fit, escape_markdown

ZWSP = "\u200b"
MARKDOWN = MarkdownIt("commonmark").enable(["table", "strikethrough"])  # raw HTML is on, as a worst case

# input -> the exact escaped Markdown
ESCAPES = {
    "plain words": "plain words",
    "gpt-4o-2024-08-06": "gpt-4o-2024-08-06",
    "a|b": "a\\|b",
    "`rm -rf /`": "\\`rm -rf /\\`",
    "<script>alert(1)</script>": "&lt;script&gt;alert(1)&lt;/script&gt;",
    "[x](javascript:alert(1))": "\\[x\\](javascript:alert(1))",
    "![img](https://evil.example/x.png)": "!\\[img\\](https:&#8203;//evil.example/x.png)",
    "@octocat": "@&#8203;octocat",
    "fixes #12": "fixes #&#8203;12",
    "line1\nline2\r\n": "line1\\\\x0aline2\\\\x0d\\\\x0a",
    "**bold** _it_ ~~gone~~": "\\*\\*bold\\*\\* \\_it\\_ \\~\\~gone\\~\\~",
    "# heading": "\\#&#8203; heading",
    "- item": "\\- item",
    "+ item": "\\+ item",
    "1. first": "1\\. first",
    "2) second": "2\\) second",
    "    indented code": "&#32;&#32;&#32;&#32;indented code",
    "&lt;b&gt; &amp;": "&amp;lt;b&amp;gt; &amp;amp;",
    "back\\slash": "back\\\\slash",
    "$x^2$": "\\$x^2\\$",
    "www.evil.example": "www&#8203;.evil.example",
    "<https://evil.example>": "&lt;https:&#8203;//evil.example&gt;",
    "right\u202eto left": "right\\\\u202eto left",
    "\ud800 lone surrogate": "\\\\ud800 lone surrogate",
    "": "",
}


@pytest.mark.parametrize("raw", list(ESCAPES))
def test_escape(raw):
    assert escape_markdown(raw) == ESCAPES[raw]


def seen(html: str) -> str:
    """The text a reader sees in rendered HTML (tags dropped, entities decoded, zero-width spaces removed)."""
    return unescape(re.sub(r"<[^>]+>", "", html)).replace(ZWSP, "").strip("\n")


#: Characters shown as escapes rather than as themselves: line breaks, a direction override, a lone surrogate.
SHOWN_ESCAPED = {0x0A: "\\x0a", 0x0D: "\\x0d", 0x202E: "\\u202e", 0xD800: "\\ud800"}


NASTY = [raw for raw in ESCAPES if raw] + [
    "|a|b|c|", "<img src=x onerror=alert(1)>", "<a href='javascript:alert(1)'>x</a>", "[ref]: https://x.example",
    "> quoted", "---", "===", "***", "<!-- hidden -->", "&#60;script&#62;", "\\<script>", "`` `x` ``",
    "http://evil.example/?q=<b>", "@org/team please look", "[![x](a)](b)", "<details><summary>x</summary>",
]


@pytest.mark.parametrize("raw", NASTY)
@pytest.mark.parametrize("where", ["table", "list", "paragraph"])
def test_renders_as_the_literal_text_and_nothing_else(raw, where):
    cell = escape_markdown(raw)
    if where == "table":
        html = MARKDOWN.render(f"| name | n |\n| --- | --- |\n| {cell} | 1 |\n")
        body = html.split("<tbody>")[1]
        assert body.count("<td>") == 2  # no '|' in the text split the row
        shown = seen(body.split("<td>")[1])
    elif where == "list":
        html = MARKDOWN.render(f"- {cell}\n")
        assert html.count("<li>") == 1
        shown = seen(html)
    else:
        html = MARKDOWN.render(f"{cell}\n")
        shown = seen(html)
    tags = set(re.findall(r"<([a-z0-9]+)", html))
    assert tags <= {"table", "thead", "tbody", "tr", "th", "td", "ul", "li", "p"}, tags
    assert shown == raw.translate(SHOWN_ESCAPED)


def test_nothing_notifies_or_links():
    for raw in ["@octocat", "#1", "https://evil.example", "www.evil.example", "mail me: a@b.example"]:
        text = unescape(escape_markdown(raw))
        assert not re.search(r"@\w|#\d|https?://|www\.", text), text


WHERE = "The whole report is in the check's log."


def wide_report(rows: int) -> str:
    """A report of a table whose cells are multi-byte text (2, 3 and 4 bytes a character) and escapes."""
    cell = escape_markdown("é€😀 |<b>| ") * 40
    return "\n".join(["## Replay submission check", "", "| n | name |", "| --- | --- |",
                      *(f"| {i} | {cell} |" for i in range(rows))]) + "\n"


@pytest.mark.parametrize("limit", [SUMMARY_LIMIT_BYTES, 10_000, 10_001, 10_002, 10_003])
def test_a_report_over_the_limit_is_cut_in_bytes_where_a_line_ends(limit):
    report = wide_report(rows=limit // 880)  # about 770 characters, 1,010 bytes a row
    assert len(report) < limit < len(report.encode("utf-8"))  # over the limit in bytes, not in characters
    cut = cut_to_fit(report, limit, WHERE)
    assert len(cut.encode("utf-8")) <= limit
    kept, note = cut.split("\n> ✂ ")
    assert report.startswith(kept) and kept.endswith(" |\n")  # whole rows only, so whole characters and escapes
    left = report.encode("utf-8")[len(kept.encode("utf-8")):]
    lines = left.count(b"\n")
    assert f"{len(left):,} more bytes ({lines:,} line(s)) are left out" in note and note.endswith(WHERE + "\n")
    html = MARKDOWN.render(cut)
    assert html.count("<tr>") == kept.count("\n") - 3  # a header row and every kept row, nothing torn
    assert "<blockquote>" in html.split("</table>")[1]  # the note is not a row of the table


def test_a_report_that_fits_is_left_whole():
    report = wide_report(rows=3)
    size = len(report.encode("utf-8"))
    assert cut_to_fit(report, size, WHERE) == report
    assert cut_to_fit(report, size - 1, WHERE) != report
