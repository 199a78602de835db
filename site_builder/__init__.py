"""gamenight site builder: the scorer and the static leaderboard site, built from replays only."""
