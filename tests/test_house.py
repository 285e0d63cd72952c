"""The house's rules that a reader of one module cannot see: checked over the whole package."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "ambigdemo"


def environment_reads(tree: ast.AST) -> list[int]:
    """Lines that read the environment: ``os.environ.get``, ``os.environ[...]`` read, ``os.getenv``, ``in os.environ``.
    Passing the whole environment to a child process (``{**os.environ, ...}``) and setting a variable for a
    library (``os.environ.setdefault``, an assignment) are not reads of the app's configuration."""
    def is_environ(node: ast.AST) -> bool:
        return isinstance(node, ast.Attribute) and node.attr == "environ" and isinstance(node.value, ast.Name) \
            and node.value.id == "os"

    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in ("get", "copy", "items", "keys", "values") and is_environ(node.func.value):
                lines.append(node.lineno)
            if node.func.attr == "getenv" and isinstance(node.func.value, ast.Name) and node.func.value.id == "os":
                lines.append(node.lineno)
        elif isinstance(node, ast.Subscript) and is_environ(node.value) and isinstance(node.ctx, ast.Load):
            lines.append(node.lineno)
        elif isinstance(node, ast.Compare) and any(is_environ(c) for c in node.comparators):
            lines.append(node.lineno)
    return sorted(lines)


def test_only_config_reads_the_environment():
    """Issue 49: about 17 environment reads lived outside config.py, though it says all configuration is there."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == PACKAGE / "config.py":
            continue
        lines = environment_reads(ast.parse(path.read_text(encoding="utf-8")))
        if lines:
            found[str(path.relative_to(PACKAGE))] = lines
    assert found == {}, f"environment read outside config.py (add it to config.py): {found}"


def test_the_check_sees_each_kind_of_read():
    source = """
import os
a = os.environ.get("X")
b = os.environ["Y"]
c = os.getenv("Z")
d = "W" in os.environ
child = {**os.environ, "TMPDIR": "/tmp"}
os.environ.setdefault("QT", "1")
os.environ["SET"] = "1"
"""
    assert environment_reads(ast.parse(source)) == [3, 4, 5, 6]
