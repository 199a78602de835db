"""The replay viewer and the replay list of the site: their pages, their assets, and their data.

The site build (`site_builder.build`) asks `pages` for its two Markdown pages (declared as the
site's other pages are: site_builder/pages/page.py) and for the scripts and styles those pages
load (the viewer page's stylesheet cut to what it can use by `css_subset`), and, once MkDocs has
built the site, `write` to write the data the pages fetch: every replay's compact JSON (`data`)
and the language-model exchanges of those that have any, packed into gzip shards found by a hash
of the game id (`shards`), and a sharded index of every replay for the list page (`listing`).
`files` says where they go and how JSON is written.

Nothing from a replay is ever written into a page. The pages carry only our own markup; the
browser fetches the JSON files and inserts replay text as text (`textContent`).
"""
