"""The replay contract: one JSONL file per game (see docs/replay-format.md)."""
