"""The site's pages: Markdown rendered from the Jinja2 templates in templates/pages/, and the JSON
files their charts read, each a pure function of the results dict and a little corpus data.

A page family is a module with `pages(ctx)`, the pages it declares (`page.Page`: path, where the
navigation lists it, template, context), and, if its pages draw charts, `data(ctx)`: `home`,
`exhibition`, `games`, `agents`, `magic`, `studies`, `cost`, `history`, `glossary`, `downloads`;
`methodology` declares the copied docs. `site` renders them all in the navigation's order, and
`page` reads the navigation and the pages left out of it from the declarations. Below them:
`labels` (how agents are named, linked and numbers written), `boards` (which rows rank where) and
`charts` (the chart files). Strings from replays only ever reach Markdown through autoescaped HTML
blocks; headings and titles that Markdown or the theme would interpret hold trusted text only.
"""
