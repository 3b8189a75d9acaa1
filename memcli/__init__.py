"""memcli: a memory layer for agents that says what the stored facts add up to."""

__version__ = "0.1.0"
