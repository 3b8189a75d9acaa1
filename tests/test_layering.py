"""The shape of the package: the CLI sits on top, the core is pure.

``memcli.cli`` parses and prints; nothing below it may import it (the library must work
without the command line). The core modules take data in and give data out: they
import neither the store, nor the api, nor the CLI, so each can be tested with literals.
Imports are read from the source (every ``import`` statement, also those inside
functions), not from a running interpreter.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "memcli"

CORE = [
    "readers",
    "extract",
    "resolve",
    "signatures",
    "cluster",
    "analysis",
    "lifecycle",
    "writer",
    "search",
    "digest",
    "visualize",
    "contract",
    "models",
]


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path, name: str | None = None) -> set[str]:
    """Every module ``path`` (the module ``name``) imports, as absolute dotted names."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    name = name or module_name(path)
    package = name.rsplit(".", 1)[0] if path.name != "__init__.py" else None
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: resolve against this module's package
                anchor = (package or name).split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def sources(prefix: str) -> list[Path]:
    base = PACKAGE / prefix.replace(".", "/")
    return sorted(base.rglob("*.py")) if base.is_dir() else [base.with_suffix(".py")]


def reaches(imported: set[str], target: str) -> list[str]:
    return sorted(i for i in imported if i == target or i.startswith(target + "."))


def test_the_core_list_names_real_modules() -> None:
    for name in CORE:
        assert sources(name)[0].exists(), name


@pytest.mark.parametrize(
    "path",
    [
        p
        for p in sorted(PACKAGE.rglob("*.py"))
        if p.relative_to(PACKAGE).parts[0] not in ("cli", "__main__.py")  # the entry points
    ],
    ids=lambda p: module_name(p),
)
def test_nothing_below_the_cli_imports_it(path: Path) -> None:
    assert reaches(imports(path), "memcli.cli") == []


@pytest.mark.parametrize(
    "path", [p for name in CORE for p in sources(name)], ids=lambda p: module_name(p)
)
def test_core_modules_import_no_store_api_or_cli(path: Path) -> None:
    imported = imports(path)
    assert [
        i
        for t in ("memcli.store", "memcli.api", "memcli.reads", "memcli.analyze", "memcli.cli")
        for i in reaches(imported, t)
    ] == []


def test_the_checker_sees_upward_imports(tmp_path: Path) -> None:
    # The tests above must be able to fail: imports inside functions and relative
    # imports count.
    probe = tmp_path / "probe.py"
    probe.write_text(
        "def f():\n    from memcli.cli import app\n    return app\nfrom .store import Store\n"
    )
    found = imports(probe, "memcli.probe")
    assert reaches(found, "memcli.cli") == ["memcli.cli", "memcli.cli.app"]
    assert reaches(found, "memcli.store") == ["memcli.store", "memcli.store.Store"]
