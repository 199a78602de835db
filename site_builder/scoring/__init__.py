"""The scorer: every outcome, metric, rating and bound, recomputed purely from replays."""

#: Bumped whenever a number the scorer produces may change for the same replays.
SCORER_VERSION = "7"  # 7: failed judge evaluations (format version 4) counted per dimension; the judge's suspicions (Judgement Variation, LLM reading)
# 5: Bradley-Terry ratings; vectorised bootstrap intervals
