"""Text Distance embedders benchmark: `python -m site_builder.bench.embedding [REPLAYS...]`.

Over the day statements of every valid Werewolf game in the given replay folders (default: the
shipped `replays/`), cleaned as the scorer cleans them, measures in one process:

- the floor: `embedding.distance_matrix` (hashed-bow-v1) of every game's statements, as the
  scorer computes it per game;
- the neural reading: loading all-MiniLM-L6-v2 from the package's zip, then
  `minilm.distance_matrix` of every game's statements, as the scorer computes them (each distinct
  statement of the corpus embedded once, alone, and kept: `minilm.vector`), and the throughput;
- the peak memory of the process (ru_maxrss) after each step, and the model package's size on disk.

Times are printed in seconds and as ratios to the floor measured in the same run (the machine is
shared: ratios compare across runs, seconds do not). docs/benchmarks.md records a run.
"""

from __future__ import annotations

import argparse
import hashlib
import resource
import sys
import time
from pathlib import Path

from site_builder.scoring import embedding, minilm, werewolf
from site_builder.scoring.corpus import check_bytes, iter_replay_files, scored_game

REPO = Path(__file__).resolve().parents[2]


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux


def timed(step) -> tuple[float, object]:
    start = time.perf_counter()
    value = step()
    return time.perf_counter() - start, value


def package_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.parent.rglob("*") if p.is_file())


def read_games(paths: list[str]) -> list:
    """The distinct valid replays under `paths`, checked and re-simulated, with their events (not
    `corpus.load`, whose digests would already run the neural embedder)."""
    games, seen = [], set()
    for path in iter_replay_files(paths):
        raw = Path(path).read_bytes()
        content_hash = hashlib.sha256(raw).hexdigest()
        checked = check_bytes(str(path), raw)
        if checked.ok and content_hash not in seen:
            seen.add(content_hash)
            games.append(scored_game(checked, content_hash))
    return games


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", default=[str(REPO / "replays")])
    args = parser.parse_args(argv)
    reason = minilm.absent_reason()
    if reason is not None:
        print(f"cannot run: {reason}", file=sys.stderr)
        return 2
    games = werewolf.werewolf_games(read_games(args.paths))
    per_game = [[s["text"] for s in werewolf.statements(g)] for g in games]
    texts = [t for said in per_game for t in said]
    distinct = list(dict.fromkeys(texts))
    print(f"{len(games)} Werewolf games, {len(texts)} statements ({len(distinct)} distinct)")
    before = peak_mb()

    floor, _ = timed(lambda: [embedding.distance_matrix(said) for said in per_game])
    print(f"floor: hashed-bow-v1 distance matrices of every game  {floor:8.2f} s   1.0 x   peak {peak_mb():.0f} MB")
    loading, _ = timed(minilm.model)
    print(f"load all-MiniLM-L6-v2 from the zip                    {loading:8.2f} s {loading / floor:5.1f} x   "
          f"peak {peak_mb():.0f} MB")
    minilm.vector.cache_clear()
    neural, _ = timed(lambda: [minilm.distance_matrix(said) for said in per_game])
    tokens = sum(len(ids) for ids in minilm.encode(distinct))
    print(f"all-MiniLM-L6-v2 distance matrices of every game      {neural:8.2f} s {neural / floor:5.1f} x   "
          f"peak {peak_mb():.0f} MB")
    print(f"  {minilm.vector.cache_info().misses} statements embedded ({tokens} tokens): "
          f"{len(distinct) / neural:.1f} statements/s, {tokens / neural:.0f} tokens/s")
    print(f"peak memory: {before:.0f} MB before the embedders, {peak_mb():.0f} MB after")
    archive = minilm.archive()
    print(f"model package {minilm.package_version()}: {package_size(archive) / 1e6:.1f} MB on disk "
          f"({archive.stat().st_size / 1e6:.1f} MB model.zip)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
