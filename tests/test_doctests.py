"""The examples in the pure modules' docstrings are true."""

from __future__ import annotations

import doctest
import importlib

import pytest


@pytest.mark.parametrize(
    "module",
    [
        "memcli.cluster",
        "memcli.resolve",
        "memcli.signatures",
        "memcli.writer",
        "memcli.connectors.slack",
        "memcli.connectors.jira",
        "memcli.llm.extract",
    ],
)
def test_docstring_examples(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module))
    assert result.failed == 0
