"""The examples in the docstrings run as written."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "table.cards",
    "table.faro",
    "table.faro.rules",
    "table.faro.engine",
    "table.baccarat",
    "table.baccarat.tableau",
    "table.baccarat.rules",
    "table.baccarat.engine",
    "table.baccarat.roads",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0
    assert result.attempted > 0
