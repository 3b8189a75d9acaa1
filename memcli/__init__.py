"""memcli: a memory layer for agents that says what the stored facts add up to.

``memcli.Client`` (see :mod:`memcli.client`) is imported on first use, so ``import
memcli`` and the CLI stay cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

# The one place the version is written: pyproject.toml reads it (dynamic version), and
# ``memcli --version``, the MCP server and CHANGELOG.md name it.
__version__ = "0.2.0"

if TYPE_CHECKING:
    from memcli.client import Client

__all__ = ["Client", "__version__"]


def __getattr__(name: str) -> Any:
    if name == "Client":
        from memcli.client import Client

        return Client
    raise AttributeError(f"module 'memcli' has no attribute {name!r}")
