"""The site's own Plotly bundle: small, pinned, and holding every trace type the charts draw."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUNDLE = ROOT / "site_builder" / "assets" / "gamenight" / "plotly.min.js"
SITE_JS = ROOT / "site_builder" / "assets" / "gamenight" / "site.js"
LOCK = ROOT / "site_builder" / "plotly" / "package-lock.json"
ENTRY = ROOT / "site_builder" / "plotly" / "index.js"
#: `type:` values in site.js that are not trace types (axis types, error bar types).
NOT_TRACES = {"category", "data", "linear", "log", "date", "percent"}


def used_trace_types() -> set[str]:
    return set(re.findall(r'\btype: "(\w+)"', SITE_JS.read_text(encoding="utf-8"))) - NOT_TRACES


def test_the_bundle_is_small():
    zipped = len(gzip.compress(BUNDLE.read_bytes(), compresslevel=9))
    assert zipped < 600_000, f"plotly.min.js is {zipped:,} bytes gzipped"


def test_the_bundle_is_the_pinned_version_built_by_the_script():
    locked = json.loads(LOCK.read_text(encoding="utf-8"))["packages"]["node_modules/plotly.js"]["version"]
    first_line = BUNDLE.read_text(encoding="utf-8").splitlines()[0]
    assert f"plotly.js v{locked} " in first_line and "site_builder/plotly/build.sh" in first_line
    registered = set(re.findall(r'require\("plotly\.js/lib/(\w+)"\)', ENTRY.read_text(encoding="utf-8")))
    assert used_trace_types() - {"scatter"} <= registered  # the core brings scatter


@pytest.mark.parametrize("width", [1366])
def test_the_bundle_registers_every_trace_type_the_site_draws(browser, width, tmp_path):
    page = browser.new_page(viewport={"width": width, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.set_content("<div id='chart' style='width:600px;height:400px'></div>")
    page.add_script_tag(content=BUNDLE.read_text(encoding="utf-8"))
    traces = set(page.evaluate("Object.keys(Plotly.PlotSchema.get().traces)"))
    used = used_trace_types()
    assert used and used <= traces, f"site.js draws {sorted(used - traces)}, which the bundle lacks"
    for kind in sorted(used):  # each one really draws
        data = {"scatterpolar": {"r": [1, 2, 3], "theta": ["a", "b", "c"]},
                "heatmap": {"z": [[1, 2], [3, 4]]}}.get(kind, {"x": [1, 2], "y": [3, 4]})
        page.evaluate("([kind, data]) => Plotly.newPlot('chart', [Object.assign({type: kind}, data)])", [kind, data])
        assert page.locator("#chart .main-svg").count() > 0, kind
    assert errors == []
    page.close()
