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


def imports(path: Path) -> set[str]:
    """The ambigdemo modules ``path`` imports, at its top or inside a function (TYPE_CHECKING imports too)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("ambigdemo"):
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("ambigdemo"))
    return found


def modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def layer_of(module: str) -> int | None:
    from ambigdemo import LAYERS

    top = module.split(".")[1] if "." in module else None
    return next((n for n, names in enumerate(LAYERS) if top in names), None)


def test_every_module_has_a_layer_and_imports_none_above_it():
    """Issue 49: the answer path stood on training and evaluation (pipeline -> presets -> evaluation) and
    evaluation imported the pipeline back."""
    known = modules()
    unplaced = sorted(m for m in known if m != "ambigdemo" and layer_of(m) is None)
    assert unplaced == [], f"modules in no layer of ambigdemo.LAYERS: {unplaced}"
    upward = []
    for module, path in known.items():
        mine = layer_of(module)
        for target in imports(path):
            target = next((t for t in (target, target.rsplit(".", 1)[0]) if t in known), None)
            if target and target != "ambigdemo" and mine is not None and layer_of(target) < mine:
                upward.append(f"{module} -> {target}")
    assert upward == [], f"imports of a layer above: {sorted(upward)}"


def test_no_import_circle():
    known = modules()
    graph = {m: {t for t in (x if x in known else x.rsplit(".", 1)[0] for x in imports(p)) if t in known and t != m}
             for m, p in known.items()}
    graph = {m: {t for t in targets if t != "ambigdemo" and not m.startswith(t + ".")} for m, targets in graph.items()}
    circles, index, low, stack, on, counter = [], {}, {}, [], set(), [0]

    def visit(v):  # Tarjan's strongly connected components
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    assert circles == [], f"import circles: {circles}"


def test_the_answer_path_imports_nothing_from_training_evaluation_or_judging():
    import subprocess
    import sys

    probe = ("import sys, ambigdemo.pipeline; print(sorted(m for m in sys.modules if m.split('.')[1:2] and "
             "m.split('.')[1] in ('building', 'evaluation', 'judging', 'ui', 'cli', 'bench')))")
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                            cwd=PACKAGE.parent).stdout.strip()
    assert loaded == "[]"
