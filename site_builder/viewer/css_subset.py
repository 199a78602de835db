"""A subset of a stylesheet for one page: the rules whose classes the page can hold.

The replay viewer's page is often a visitor's first page (a permalink), and Material's main
stylesheet is most of what it would transfer (23 KB gzipped of a 60 KB budget): it styles
search, code blocks, admonitions, tabs, tooltips... which that page never shows. `subset` keeps
a rule when every class its selector requires is one the page can hold (the classes of its HTML
and of the scripts that draw it), and the custom properties some kept rule, or another
stylesheet of the page, reads. It errs on the side of keeping: classes inside `:not(...)` and
`:has(...)`, attribute selectors, ids and elements never drop a rule; an `:is(...)` or `:where(...)`
drops it only when none of its selectors can match.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

#: Class names in a selector, outside parentheses (checked on the selector with them removed).
CLASS = re.compile(r"\.(-?[_a-zA-Z][\w-]*)")
CUSTOM_PROPERTY = re.compile(r"(--[\w-]+)\s*:")
VAR = re.compile(r"var\(\s*(--[\w-]+)")
#: At-rules whose block holds rules (and is kept only if some rule in it is).
GROUPING = ("@media", "@supports", "@layer", "@container", "@document")


@dataclass
class Rule:
    """A qualified rule (selectors and declarations) or an at-rule with a block or a semicolon."""

    prelude: str
    body: str | None = None  # declarations of a qualified rule, or an at-rule's raw block
    children: list[Rule] = field(default_factory=list)
    grouping: bool = False


def parse(css: str) -> list[Rule]:
    """The top-level rules of a stylesheet (nested in grouping at-rules as children)."""
    rules, _ = _parse_block(_without_comments(css), 0)
    return rules


def _without_comments(css: str) -> str:
    """The stylesheet without its comments (a "/*" inside a string is text)."""
    out, at = [], 0
    while at < len(css):
        if css[at] in "\"'":
            end = _skip_string(css, at)
            out.append(css[at:end])
            at = end
        elif css.startswith("/*", at):
            end = css.find("*/", at + 2)
            at = len(css) if end < 0 else end + 2
        else:
            out.append(css[at])
            at += 1
    return "".join(out)


def _parse_block(css: str, at: int) -> tuple[list[Rule], int]:
    rules: list[Rule] = []
    start = at
    while at < len(css):
        char = css[at]
        if char in "\"'":
            at = _skip_string(css, at)
            continue
        if char == ";" and css[start:at].lstrip().startswith("@"):  # @charset, @import...
            rules.append(Rule(css[start:at + 1].strip()))
            at += 1
            start = at
            continue
        if char == "{":
            prelude = css[start:at].strip()
            if prelude.startswith(GROUPING):
                children, at = _parse_block(css, at + 1)
                rules.append(Rule(prelude, children=children, grouping=True))
            else:
                end = _matching(css, at + 1)
                rules.append(Rule(prelude, css[at + 1:end]))
                at = end + 1
            start = at
            continue
        if char == "}":
            return rules, at + 1
        at += 1
    return rules, at


def _skip_string(css: str, at: int) -> int:
    quote, at = css[at], at + 1
    while at < len(css) and css[at] != quote:
        at += 2 if css[at] == "\\" else 1
    return at + 1


def _matching(text: str, at: int, opening: str = "{", closing: str = "}") -> int:
    """The index of the `closing` bracket that ends the group whose inside starts at `at`
    (nested groups and strings skipped)."""
    depth = 1
    while at < len(text):
        char = text[at]
        if char in "\"'":
            at = _skip_string(text, at)
            continue
        if char == opening:
            depth += 1
        elif char == closing:
            depth -= 1
            if depth == 0:
                return at
        at += 1
    return at


def split_selectors(prelude: str) -> list[str]:
    """A selector list split at its top-level commas (not those inside parentheses or strings)."""
    return [part.strip() for part in _split(prelude, ",")]


def _outside_parentheses(selector: str) -> str:
    out, depth = [], 0
    for char in re.sub(r"\[[^\]]*\]", "", selector):  # attribute values may hold dots
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif depth == 0:
            out.append(char)
    return "".join(out)


def required_classes(selector: str) -> set[str]:
    """The classes an element must have somewhere for the selector to match (outside parentheses)."""
    return set(CLASS.findall(_outside_parentheses(selector)))


#: Pseudo-classes that match when one of their selectors does (`:not`, `:has` never drop a rule).
ANY_OF = re.compile(r":(?:is|where|matches|-webkit-any|-moz-any)\(")


def can_match(selector: str, known: set[str]) -> bool:
    """Whether the selector can match on a page whose elements hold only the `known` classes:
    its classes outside parentheses are all known, and each `:is(...)`/`:where(...)` has an
    alternative that can match."""
    if not required_classes(selector) <= known:
        return False
    return all(any(can_match(alt, known) for alt in split_selectors(inner)) for inner in _any_of(selector))


def _any_of(selector: str) -> list[str]:
    """The insides of the selector's top-level `:is(...)`-like groups."""
    groups, depth, at = [], 0, 0
    while at < len(selector):
        char = selector[at]
        if char in "\"'":
            at = _skip_string(selector, at)
            continue
        if depth == 0 and (match := ANY_OF.match(selector, at)):
            end = _matching(selector, match.end(), "(", ")")
            groups.append(selector[match.end():end])
            at = end + 1
            continue
        depth += char in "(["
        depth -= char in ")]"
        at += 1
    return groups


def subset(css: str, classes: Iterable[str], also_read: Iterable[str] = ()) -> str:
    """The rules of `css` that can apply to a page holding only `classes`, with the custom
    properties read by those rules or by `also_read` (the page's other stylesheets and scripts)."""
    known = set(classes)
    kept = _keep(parse(css), known)
    texts = list(also_read)
    declared = _declared_properties(kept)
    read: set[str] = set()
    for text in texts:
        read |= set(VAR.findall(text))
    read |= set(VAR.findall(_declarations_outside_properties(kept)))
    while True:  # a property read may itself read others
        grown = set(read)
        for declaration, name in declared:
            if name in read:
                grown |= set(VAR.findall(declaration))
        if grown == read:
            break
        read = grown
    return "".join(_render(rule, read) for rule in kept)


def _keep(rules: list[Rule], known: set[str]) -> list[Rule]:
    out = []
    for rule in rules:
        if rule.grouping:
            children = _keep(rule.children, known)
            if children:
                out.append(Rule(rule.prelude, children=children, grouping=True))
        elif rule.body is None or rule.prelude.startswith("@"):
            out.append(rule)
        else:
            selectors = [s for s in split_selectors(rule.prelude) if can_match(s, known)]
            if selectors:
                out.append(Rule(",".join(selectors), rule.body))
    return out


def _walk(rules: list[Rule]) -> Iterable[Rule]:
    for rule in rules:
        if rule.grouping:
            yield from _walk(rule.children)
        else:
            yield rule


def _split(text: str, separator: str) -> list[str]:
    parts, depth, start, at = [], 0, 0, 0
    while at < len(text):
        char = text[at]
        if char in "\"'":
            at = _skip_string(text, at)
            continue
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        elif char == separator and depth == 0:
            parts.append(text[start:at])
            start = at + 1
        at += 1
    parts.append(text[start:])
    return [p for p in parts if p.strip()]


def _declared_properties(rules: list[Rule]) -> list[tuple[str, str]]:
    """(declaration, custom property name) of every custom property declared in `rules`."""
    out = []
    for rule in _walk(rules):
        if rule.body is None or rule.prelude.startswith("@"):
            continue
        for decl in _split(rule.body, ";"):
            match = CUSTOM_PROPERTY.match(decl.strip())
            if match:
                out.append((decl, match.group(1)))
    return out


def _declarations_outside_properties(rules: list[Rule]) -> str:
    """Every declaration that is not a custom property's (what the page's elements use)."""
    parts = []
    for rule in _walk(rules):
        if rule.body is None:
            continue
        if rule.prelude.startswith("@"):
            parts.append(rule.body)
            continue
        parts += [d for d in _split(rule.body, ";") if not CUSTOM_PROPERTY.match(d.strip())]
    return ";".join(parts)


def _render(rule: Rule, read: set[str]) -> str:
    if rule.grouping:
        inner = "".join(_render(child, read) for child in rule.children)
        return f"{rule.prelude}{{{inner}}}" if inner else ""
    if rule.body is None:
        return rule.prelude
    if rule.prelude.startswith("@"):
        return f"{rule.prelude}{{{rule.body}}}"
    decls = [d for d in _split(rule.body, ";")
             if not (m := CUSTOM_PROPERTY.match(d.strip())) or m.group(1) in read]
    return f"{rule.prelude}{{{';'.join(decls)}}}" if decls else ""


def page_classes(html: str, scripts: Iterable[str]) -> set[str]:
    """Every class a page can hold: those of its HTML, and every word of a string in the scripts
    that draw it (a superset of the classes they set, which is what keeping needs)."""
    classes: set[str] = set()
    for _, value in re.findall(r"""class=(["'])(.*?)\1""", html):
        classes.update(value.split())
    for script in scripts:
        for literal in re.findall(r'"((?:[^"\\\n]|\\.)*)"', script):
            classes.update(re.findall(r"-?[_a-zA-Z][\w-]*", literal))
    return classes
