"""`gamenight play`: people take seats of a game in the browser, served from this machine.

`cli` is the command (options, the links it prints, the browser it opens); `server` runs the game
in a thread of its own and serves each person's seat: its page, its view of the game, its answers.
"""
