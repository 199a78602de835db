"""Playing a game again from its record: the checker that re-derives a replay with the rules.

Beside runner/run.py, which plays a game live, this package plays it again from its JSONL record
(runner/replay/ holds the format): the deal and chance draws from the seed, the built-in agents'
moves, the id from the plan, and every model reply from the recorded calls.
"""
