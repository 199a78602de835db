"""The built site is checked against GitHub Pages' limits, and a build that passes one fails clearly."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from site_builder import cli, hosting
from tests.site.test_build import play


def test_measure_counts_bytes_files_and_the_largest_file(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "big.bin").write_bytes(b"x" * 3000)
    (tmp_path / "small.txt").write_bytes(b"y" * 10)
    assert hosting.measure(tmp_path) == hosting.SiteFigures(3010, 2, "a/big.bin", 3000, folders=2)


@pytest.mark.parametrize(("figures", "message"), [
    (hosting.SiteFigures(801_000_000, 10, "x", 1), "the site is 801.0 MB, over the 800 MB allowed"),
    (hosting.SiteFigures(1000, 100_001, "x", 1), "the site has 100,001 files, over the 100,000 allowed"),
    (hosting.SiteFigures(60_000_000, 2, "assets/huge.js", 60_000_000),
     "assets/huge.js is 60.0 MB, over the 50 MB allowed for one file"),
])
def test_each_limit_is_named_with_the_figure(figures, message):
    with pytest.raises(hosting.SiteTooBig, match=message.replace("(", r"\(").replace(".", r"\.")):
        hosting.check(figures)


def test_a_site_within_the_limits_passes():
    hosting.check(hosting.SiteFigures(hosting.MAX_SITE_BYTES, hosting.MAX_FILES, "x", hosting.MAX_FILE_BYTES))


def test_a_build_over_a_limit_fails_with_the_limit_not_a_traceback(tmp_path, monkeypatch):
    corpus = play(tmp_path / "replays", 1)
    monkeypatch.setattr(hosting, "MAX_FILES", 50)  # a real site has hundreds of files
    done = CliRunner().invoke(cli.build, [str(corpus), "--site", str(tmp_path / "site"), "--no-cache"])
    assert done.exit_code == 1 and done.exception is not None and isinstance(done.exception, SystemExit)
    assert "the built site does not fit GitHub Pages: the site has" in done.output
    assert "files, over the 50 allowed" in done.output and "must not be deployed" in done.output


def test_the_tar_estimate_is_an_upper_bound_of_the_real_tar(tmp_path):
    import tarfile

    (tmp_path / "site" / "a").mkdir(parents=True)
    for i, size in enumerate([0, 1, 511, 512, 513, 5000]):
        (tmp_path / "site" / "a" / f"f{i}").write_bytes(b"z" * size)
    with tarfile.open(tmp_path / "artifact.tar", "w", format=tarfile.GNU_FORMAT) as tar:
        tar.add(tmp_path / "site", arcname=".")
    real = (tmp_path / "artifact.tar").stat().st_size
    estimate = hosting.measure(tmp_path / "site").tar_bytes
    assert real <= estimate <= real + 10240 + 511 * 6


def test_the_build_writes_the_sites_size_or_its_refusal_to_a_summary(tmp_path, monkeypatch):
    corpus = play(tmp_path / "replays", 1)
    summary = tmp_path / "summary.md"
    done = CliRunner().invoke(cli.build, [str(corpus), "--site", str(tmp_path / "site"), "--no-cache",
                                          "--summary", str(summary)])
    assert done.exit_code == 0, done.output
    text = summary.read_text(encoding="utf-8")
    figures = hosting.measure(tmp_path / "site")
    assert text.startswith("### Site artifact") and f"| files | {figures.files:,} | 100,000 |" in text
    assert "artifact (tar, upper estimate)" in text
    monkeypatch.setattr(hosting, "MAX_SITE_BYTES", 1000)
    done = CliRunner().invoke(cli.build, [str(corpus), "--site", str(tmp_path / "site"), "--no-cache",
                                          "--summary", str(summary)])
    assert done.exit_code == 1
    refused = summary.read_text(encoding="utf-8")[len(text):]
    assert refused.startswith("### Site not built") and "over the 0 MB allowed" in refused
