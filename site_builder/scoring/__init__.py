"""The scorer: every outcome, metric, rating and bound, recomputed purely from replays."""

#: Bumped whenever a number the scorer produces may change for the same replays.
SCORER_VERSION = "8"  # 8: neural Text Distance from vectors made one statement at a time (differ by ~1e-7 from batched ones); 7: failed judge evaluations (format version 4) counted per dimension; the judge's suspicions (Judgement Variation, LLM reading)
# 5: Bradley-Terry ratings; vectorised bootstrap intervals
