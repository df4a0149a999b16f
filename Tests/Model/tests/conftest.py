"""The binary under test (--binary or env TOKENVERIFY), the Hypothesis profiles, the session's key pool and the
summary line ("model: N sequences, M steps, K lines checked")."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from tvmodel.pool import Pool
from tvmodel.stats import STATS

_SLOW = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]
settings.register_profile(
    "ci",
    max_examples=150,
    stateful_step_count=12,
    deadline=None,
    derandomize=False,
    print_blob=True,
    suppress_health_check=_SLOW,
)
settings.register_profile(
    "long",
    max_examples=1200,
    stateful_step_count=30,
    deadline=None,
    derandomize=False,
    print_blob=True,
    suppress_health_check=_SLOW,
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
STARTED = time.monotonic()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--binary", default=None, help="the tokenverify binary (default: env TOKENVERIFY)")


def pytest_configure(config: pytest.Config) -> None:
    binary = config.getoption("--binary") or os.environ.get("TOKENVERIFY")
    if binary:
        os.environ["TOKENVERIFY"] = str(Path(binary).resolve())


def binary_path() -> str:
    binary = os.environ.get("TOKENVERIFY")
    if not binary or not os.access(binary, os.X_OK):
        raise pytest.UsageError(f"no tokenverify binary: give --binary PATH or TOKENVERIFY (got {binary!r})")
    return binary


@pytest.fixture(scope="session")
def binary() -> str:
    return binary_path()


@pytest.fixture(scope="session")
def pool(binary: str, tmp_path_factory: pytest.TempPathFactory) -> Pool:
    return Pool(binary, tmp_path_factory.mktemp("pool"))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    minutes = (time.monotonic() - STARTED) / 60
    terminalreporter.write_line(
        f"model: {STATS.sequences} sequences, {STATS.steps} steps, {STATS.lines} lines checked"
        f" in {minutes:.1f} min ({STATS.sequences / max(minutes, 1e-9):.1f} sequences/min)"
    )
