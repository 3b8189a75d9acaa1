"""The store boundary: no module outside ``memcli/store/`` runs SQL or reaches into the
store's private state. Every query has a name (a store method), so following one piece
of data never means crossing back and forth between the library and the database."""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "memcli"
STORE = PACKAGE / "store"

# Methods that take SQL text: on a connection, on sqlite-utils, or the store's own
# low-level helpers (public for tests and the store's rooms, not for the library).
SQL_CALLS = {"execute", "executemany", "executescript", "query", "rows", "rows_in", "scalar"}
# What a store hands out only to its own rooms.
PRIVATE_STORE_ATTRS = {"conn", "db"}
MESSAGE = "# SQL for the user to run"
SQL_TEXT = re.compile(
    r"\b(SELECT\b[\s\S]+\bFROM|INSERT\s+(OR\s+\w+\s+)?INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM"
    r"|CREATE\s+(TEMP\s+|VIRTUAL\s+)?(TABLE|INDEX|TRIGGER|VIEW)|PRAGMA\s+\w+\s*(=|\(|;|$)|WITH\s+RECURSIVE)\b"
)


def violations(path: Path, source: str) -> list[str]:
    """Every SQL call, SQL text and private store access in one module, as FILE:LINE."""
    found: list[str] = []
    where = path.relative_to(PACKAGE.parent)

    def hit(node: ast.AST, what: str) -> None:
        found.append(f"{where}:{getattr(node, 'lineno', 0)}: {what}")

    lines = source.splitlines()

    def shown(node: ast.AST) -> bool:
        """SQL written for a person to run (a repair hint) is marked where it stands."""
        n = getattr(node, "lineno", 0)
        return any(MESSAGE in lines[i] for i in range(max(0, n - 2), min(len(lines), n)))

    for node in ast.walk(ast.parse(source, filename=str(path))):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in SQL_CALLS
        ):
            hit(node, f".{node.func.attr}(...) runs SQL outside memcli/store/")
        elif isinstance(node, ast.Attribute) and _is_store(node.value):
            private = node.attr.startswith("_") and not node.attr.startswith("__")
            if private or node.attr in PRIVATE_STORE_ATTRS:
                hit(node, f"store.{node.attr}: the store's private state")
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and SQL_TEXT.search(node.value)
            and not shown(node)
        ):
            hit(node, f"SQL text {node.value.strip()[:40]!r}")
    return found


def _is_store(node: ast.AST) -> bool:
    """``store``, ``self.store``, ``self._store``: a name that holds a Store."""
    if isinstance(node, ast.Name):
        return "store" in node.id.lower()
    if isinstance(node, ast.Attribute):
        return "store" in node.attr.lower()
    return False


def test_no_sql_or_private_store_state_outside_the_store() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if STORE in path.parents:
            continue
        found += violations(path, path.read_text(encoding="utf-8"))
    assert found == [], "SQL belongs in memcli/store/ (add a named method):\n" + "\n".join(found)


def test_the_scan_catches_what_it_is_for(tmp_path: Path) -> None:
    """The scan itself must be able to fail: each kind of breach in a sample module."""
    sample = PACKAGE / "sample.py"
    source = (
        "def f(store, conn):\n"
        "    store.rows('SELECT id FROM episodes WHERE graph_id = ?', ('g',))\n"
        "    conn.execute(sql)\n"
        "    for chunk in store._chunks([1]):\n"
        "        pass\n"
        "    return store.conn\n"
    )
    found = violations(sample, source)
    lines = sorted({int(f.split(":")[1]) for f in found})
    assert lines == [2, 3, 4, 6]
    assert any("SQL text" in f for f in found)
