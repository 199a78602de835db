"""Run axe-core over every page of a built site at phone and desktop widths, in both palettes.

The whole site, by hand (tests/site/test_axe.py runs axe over one page of each kind in the suite):

    python tools/axe_site.py /tmp/site                       # axe-core bundled by axe-playwright-python
    python tools/axe_site.py /tmp/site --axe node_modules/axe-core/axe.min.js --scheme dark

Serves the folder on a free local port, opens each ``index.html`` (and 404.html)
in headless Chromium at 390 and 1366 px, in the light and the dark palette (the browser's
preferred colour scheme picks Material's palette), waits for the charts to draw, and prints
one line per page, width and palette with the number of failing nodes per axe rule.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import sys
import threading
from pathlib import Path

from playwright.sync_api import sync_playwright

WIDTHS = (390, 1366)
SCHEMES = {"light": "default", "dark": "slate"}  # the browser's preference -> Material's palette


def page_paths(site: Path) -> list[str]:
    """URL paths of the site's pages; replay viewer pages are sampled (one per game)."""
    paths: list[str] = []
    seen_replay_dirs: set[Path] = set()
    for html in sorted(site.rglob("*.html")):
        rel = html.relative_to(site)
        if rel.parts[0] == "assets":
            continue
        if rel.parts[0] == "replays" and len(rel.parts) > 3:
            if rel.parent.parent in seen_replay_dirs:
                continue
            seen_replay_dirs.add(rel.parent.parent)
        url = "/" + rel.as_posix()
        paths.append(url[: -len("index.html")] if url.endswith("/index.html") else url)
    return paths


def serve(site: Path) -> http.server.ThreadingHTTPServer:
    handler = functools.partial(QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:  # keep the report readable
        pass


def failures(page, axe_source: str) -> dict[str, list[str]]:
    page.add_script_tag(content=axe_source)
    result = page.evaluate("async () => (await axe.run(document)).violations")
    return {v["id"]: [n["target"][0] if n["target"] else "?" for n in v["nodes"]] for v in result}


def bundled_axe() -> str:
    from axe_playwright_python.base import AXE_SCRIPT

    return AXE_SCRIPT


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path)
    parser.add_argument("--axe", type=Path, help="path to axe.min.js (default: axe-playwright-python's copy)")
    parser.add_argument("--scheme", choices=["light", "dark", "both"], default="both")
    parser.add_argument("--only", default="", help="check only paths containing this text")
    parser.add_argument("--verbose", action="store_true", help="print each failing node")
    args = parser.parse_args()
    axe_source = args.axe.read_text() if args.axe else bundled_axe()
    schemes = list(SCHEMES) if args.scheme == "both" else [args.scheme]
    server = serve(args.site)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    total = 0
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        for width, scheme in [(w, s) for s in schemes for w in WIDTHS]:
            # the site forbids inline scripts; let the injected axe run anyway
            tab = browser.new_page(viewport={"width": width, "height": 900}, bypass_csp=True, color_scheme=scheme)
            for path in page_paths(args.site):
                if args.only not in path:
                    continue
                tab.goto(base + path, wait_until="networkidle")
                tab.wait_for_timeout(300)  # charts draw after their data arrives
                found = failures(tab, axe_source)
                count = sum(len(nodes) for nodes in found.values())
                total += count
                summary = ", ".join(f"{rule}={len(nodes)}" for rule, nodes in sorted(found.items()))
                print(f"{width:>5} {scheme:<5} {count:>3} {path} {summary}")
                if args.verbose:
                    for rule, nodes in found.items():
                        for node in nodes:
                            print(f"        {rule}: {json.dumps(node)}")
            tab.close()
        browser.close()
    server.shutdown()
    print(f"total failing nodes: {total}")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
