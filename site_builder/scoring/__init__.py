"""The scorer: every outcome, metric, rating and bound, recomputed purely from replays."""

#: Bumped whenever a number the scorer produces may change for the same replays.
SCORER_VERSION = "6"  # 6: an unasked answer is no yardstick for the second-order guesses about its seat
# 5: Bradley-Terry ratings; vectorised bootstrap intervals
