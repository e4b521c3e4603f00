"""Shared test fixtures: where the shared corpus is, and skipping without it."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"


@pytest.fixture
def shared_dir() -> Path:
    """`../shared/`, or skip the test when it is absent (users run tests without it)."""
    if not SHARED.is_dir():
        pytest.skip("../shared is absent")
    return SHARED
