"""gamenight runner: rules engines, agents, the replay contract and tournaments."""

__version__ = "0.1.0"
