"""The scorer: every outcome, metric, rating and bound, recomputed purely from replays."""

#: Bumped whenever a number the scorer produces may change for the same replays.
SCORER_VERSION = "11"  # 11: the ranked board from the suite's games (paired by deal); 10: each language-model row counts its free-text moves that copy the answer form (placeholders); 9: role-aware ratings (an advantage per role), no rating of cooperative games, the overall table weighs each game the same and resamples each apart; the board scores the maintainers' games alone and each contributor's rows against them; 8: EWAVM per judge (each judge's values over the games it judged, never pooled), neural Text Distance from vectors made one statement at a time (they differ by ~1e-7 from batched ones); 7: failed judge evaluations (format version 4) counted per dimension; the judge's suspicions (Judgement Variation, LLM reading)
# 5: Bradley-Terry ratings; vectorised bootstrap intervals
