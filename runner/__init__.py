"""gamenight runner: rules engines, agents, the replay contract and tournaments."""

__version__ = "0.2.0"
