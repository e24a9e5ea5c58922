"""Total Recall: a memory for coding agents that keeps the exact words."""

__version__ = "0.1.0"
