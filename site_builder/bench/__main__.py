"""`python -m site_builder.bench`: the scoring and site build benchmark (site_builder/bench/scale.py)."""

from site_builder.bench.scale import main

raise SystemExit(main())
