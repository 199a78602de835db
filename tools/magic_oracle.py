"""Run the MAgIC reference script, unchanged, on a `gamenight export magic` folder.

    python tools/magic_oracle.py EXPORT_DIR PATH/TO/metrics_release.py oracle.json

`metrics_release.py` is the file of the public repository cathyxl/MAgIC at commit e66dd73
(`git show e66dd73:metrics_release.py`). It is imported as it is and its methods are called on
each exported agent's folders: `metric_calculation` itself needs all seven folders of one
challenger and exits the process, so the driver calls what it calls, one metric at a time, and
records a metric the script cannot compute (it raises, e.g. ZeroDivisionError) as that error.

Per agent (the export's `a01`, ...), the output holds the script's own numbers: Judgement,
Deception, Reasoning, Self-Awareness, Cooperation, Coordination, Rationality (rounded to 3
decimals by the script), and each folder's role score. A folder's score is computed with
`num_of_game` = its number of files, so the script divides by min(files, 20) (its lines 35-38).
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import sys
from pathlib import Path

FOLDERS = {  # the export's setting -> (folder of the game, the script's role)
    "as_chameleon": "chameleon", "as_non_chameleon": "chameleon", "as_undercover": "undercover",
    "as_non_undercover": "undercover", "prisoner": "prisoner", "public_good": "public_good",
    "airportfee": "airportfee",
}


def load_script(path: Path):
    spec = importlib.util.spec_from_file_location("metrics_release", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run(script, call):
    """Call the script quietly (it prints a lot); (result, None) or (None, error name)."""
    with contextlib.redirect_stdout(io.StringIO()):
        try:
            return call(), None
        except Exception as err:  # the script's own failures are what is recorded
            return None, type(err).__name__


def agent_numbers(script, root: Path, name: str, games: dict[str, int]) -> dict:
    path = {s: str(root / name / "results" / FOLDERS[s] / f"{name}_competition_{s}_vs_gpt4") for s in games}
    most = max(games.values())
    out: dict = {"metrics": {}, "errors": {}, "role_scores": {}}

    def pooled(metric_keys, method, settings):
        chosen = [path[s] for s in settings if s in path]
        if not chosen:
            return
        metric = script.Metric(num_of_game=most)
        _, error = run(script, lambda: getattr(metric, method)(chosen, [""] * len(chosen)))
        for key in metric_keys:
            if error:
                out["errors"][key] = error
            else:
                out["metrics"][key] = metric.data[0]["train_split"][key]

    pooled(["Judgement"], "judge", ["as_non_chameleon", "as_non_undercover"])
    pooled(["Deception"], "decept", ["as_chameleon", "as_undercover", "as_non_chameleon"])
    pooled(["Reasoning", "Self-Awareness"], "consist_pgm",
           ["as_chameleon", "as_undercover", "as_non_chameleon", "as_non_undercover"])
    pooled(["Cooperation", "Coordination"], "collabration", ["airportfee"])
    pooled(["Rationality"], "rational", ["prisoner", "public_good"])
    # Each folder's role score, with num_of_game = its own number of files.
    for setting, count in games.items():
        metric = script.Metric(num_of_game=count)
        # `judge` scores any Chameleon or Undercover folder by its path (`decept` alone would stop
        # at its lambda term without a non-chameleon folder).
        method = {"airportfee": "collabration", "prisoner": "rational", "public_good": "rational"}.get(setting, "judge")
        scores, error = run(script, lambda: getattr(metric, method)([path[setting]], [""]))
        out["role_scores"][setting] = {"score": scores[0], "num_of_game": count} if scores else {"error": error}
    return out


def main(export_dir: str, script_path: str, out: str) -> None:
    root = Path(export_dir)
    manifest = json.loads((root / "manifest.json").read_text(encoding="utf-8"))
    with contextlib.redirect_stdout(io.StringIO()):  # the script prints as it goes
        script = load_script(Path(script_path))
        result = {name: {"label": entry["label"], **agent_numbers(script, root, name, entry["games"])}
                  for name, entry in sorted(manifest["agents"].items())}
    Path(out).write_text(json.dumps(result, indent=1, sort_keys=True) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(*sys.argv[1:])
