"""Whether a built site fits GitHub Pages, with room to spare.

GitHub Pages publishes at most 1 GB per site, and a deployment that takes over 10 minutes fails;
GitHub refuses files over 100 MB in a repository and warns from 50 MB. A build that would pass
these is stopped with a message naming the limit and the figure, instead of being uploaded and
failing (or being cut) at deployment. The limits below keep a margin under GitHub's.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

MB = 1_000_000
#: At most this many bytes: 80% of Pages' 1 GB per published site.
MAX_SITE_BYTES = 800 * MB
#: At most this many files: an upload and deployment of many more small files nears Pages' 10-minute
#: deployment timeout (GitHub documents no file count; this is four times the design target of 25,000).
MAX_FILES = 100_000
#: No single file over this: half of the 100 MB GitHub refuses, where it starts to warn.
MAX_FILE_BYTES = 50 * MB


@dataclass(frozen=True)
class SiteFigures:
    """The size of a built site: its bytes, its files, and its largest file."""

    bytes: int
    files: int
    largest: str
    largest_bytes: int
    folders: int = 0

    @property
    def tar_bytes(self) -> int:
        """The size of the artifact upload-pages-artifact makes: a plain tar of the folder (a
        512-byte header per file and folder, contents padded to 512 bytes, 10 KB records).
        An estimate from the totals: each file's padding is counted as its worst case."""
        raw = 512 * (self.files + self.folders) + self.bytes + 511 * self.files + 1024
        return -(-raw // 10240) * 10240

    def line(self) -> str:
        return (f"{self.bytes / MB:.1f} MB in {self.files:,} files; largest file {self.largest} "
                f"({self.largest_bytes / MB:.2f} MB)")


def summary_markdown(figures: SiteFigures) -> str:
    """The site's size against the limits, as a Markdown table (for a CI job summary)."""
    rows = [("site", f"{figures.bytes / MB:.1f} MB", f"{MAX_SITE_BYTES / MB:.0f} MB (Pages: 1 GB)"),
            ("files", f"{figures.files:,}", f"{MAX_FILES:,}"),
            ("largest file", f"{figures.largest_bytes / MB:.2f} MB (`{figures.largest}`)",
             f"{MAX_FILE_BYTES / MB:.0f} MB (GitHub: 100 MB)"),
            ("artifact (tar, upper estimate)", f"{figures.tar_bytes / MB:.1f} MB", "")]
    return "\n".join(["| | measured | allowed |", "| --- | ---: | ---: |",
                      *(f"| {a} | {b} | {c} |" for a, b, c in rows)])


class SiteTooBig(ValueError):
    """The site passes a hosting limit; the message names it and the figure."""


def measure(site: str | os.PathLike[str]) -> SiteFigures:
    """Bytes, files and the largest file (relative path) of a site folder."""
    root = Path(site)
    total = files = largest_bytes = folders = 0
    largest = ""
    for folder, _, names in os.walk(root):
        folders += 1
        for name in names:
            size = os.stat(os.path.join(folder, name)).st_size
            total += size
            files += 1
            if size > largest_bytes:
                largest_bytes, largest = size, os.path.relpath(os.path.join(folder, name), root)
    return SiteFigures(total, files, largest, largest_bytes, folders)


def check(figures: SiteFigures, max_bytes: int | None = None, max_files: int | None = None,
          max_file_bytes: int | None = None) -> None:
    """Raise SiteTooBig naming every limit the site passes (by default the limits above)."""
    max_bytes = MAX_SITE_BYTES if max_bytes is None else max_bytes
    max_files = MAX_FILES if max_files is None else max_files
    max_file_bytes = MAX_FILE_BYTES if max_file_bytes is None else max_file_bytes
    problems = []
    if figures.bytes > max_bytes:
        problems.append(f"the site is {figures.bytes / MB:.1f} MB, over the {max_bytes / MB:.0f} MB allowed "
                        f"(GitHub Pages publishes at most 1 GB per site)")
    if figures.files > max_files:
        problems.append(f"the site has {figures.files:,} files, over the {max_files:,} allowed "
                        f"(deployments time out after 10 minutes)")
    if figures.largest_bytes > max_file_bytes:
        problems.append(f"{figures.largest} is {figures.largest_bytes / MB:.1f} MB, over the "
                        f"{max_file_bytes / MB:.0f} MB allowed for one file (GitHub refuses files over 100 MB)")
    if problems:
        raise SiteTooBig("the built site does not fit GitHub Pages: " + "; ".join(problems))
