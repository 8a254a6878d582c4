"""Shared helpers: the repository's fixtures and their .tsv tables."""

from __future__ import annotations

import pathlib

import pytest

FIXTURES = pathlib.Path(__file__).resolve().parents[2] / "fixtures"


def table(name: str, columns: int) -> list[list[str]]:
    """The rows of fixtures/NAME below its header, `#` lines skipped, each
    with exactly COLUMNS cells (as the Rust tests read them)."""
    lines = [
        line
        for line in (FIXTURES / name).read_text(encoding="utf-8").splitlines()
        if not line.startswith("#")
    ]
    assert len(lines[0].split("\t")) == columns, f"{name}: header"
    rows = [line.split("\t") for line in lines[1:]]
    for row in rows:
        assert len(row) == columns, f"{name}: {row!r}"
    assert rows, f"{name} has no rows"
    return rows


@pytest.fixture
def fixtures() -> pathlib.Path:
    return FIXTURES
