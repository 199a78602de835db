"""The site's pages: Markdown rendered from the Jinja2 templates in templates/pages/, and the JSON
files their charts read, each a pure function of the results dict and a little corpus data.

`labels` says how agents are named, linked and numbers written; `boards` which rows rank where;
`charts` the chart files; `site` renders every page. Strings from replays only ever reach
Markdown through autoescaped HTML blocks; headings and titles that Markdown or the theme would
interpret hold trusted text only.
"""
