"""The benchmarks: what the scorer, the site and the boards' claims cost or are worth, measured.

Each module runs on its own (`python -m site_builder.bench.<name>`; docs/benchmarks.md records
runs): `scale` (scoring and site builds at 10,000 and 100,000 games; also `python -m
site_builder.bench`), `agents` (the site against the number of agents), `repository` (the source
repository's growth), `history` (the published build against the number of merges), `embedding` (Text Distance's embedders), `suite` (what the ranked suite's
duplicate deals buy), `calibration` and `calibration_boards` (whether the boards' claims hold on
simulated boards of known truth), `verification` (whether a verification's verdict does). Nothing
else in the site builder imports them.
"""
