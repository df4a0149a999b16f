"""Counts for the one-line summary the test session prints at its end."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Stats:
    sequences: int = 0
    steps: int = 0
    lines: int = 0


STATS = Stats()
