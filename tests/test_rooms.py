"""DESIGN.md's rooms: the pure rules in table/ import no I/O and no other room."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OTHER_ROOMS = {"vision", "display", "firmware_bridge", "hw"}
# Modules that touch files, sockets, processes, threads, clocks or unseeded chance.
IO_MODULES = {
    "asyncio",
    "builtins",
    "ctypes",
    "glob",
    "http",
    "io",
    "logging",
    "mmap",
    "multiprocessing",
    "os",
    "pathlib",
    "pickle",
    "select",
    "selectors",
    "shelve",
    "shutil",
    "signal",
    "socket",
    "socketserver",
    "sqlite3",
    "ssl",
    "subprocess",
    "sys",
    "tempfile",
    "threading",
    "time",
    "urllib",
    "datetime",
    "secrets",
    "uuid",
    "concurrent",
    "queue",
    "fcntl",
    "termios",
    "tty",
}


def imports_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def pure_modules() -> list[Path]:
    return [
        path
        for path in sorted((ROOT / "table").rglob("*.py"))
        if "service" not in path.relative_to(ROOT / "table").parts
    ]


def offending_imports(path: Path) -> list[str]:
    bad = []
    for name in imports_of(path):
        top = name.split(".")[0]
        if (
            top in OTHER_ROOMS
            or top in IO_MODULES
            or (top not in sys.stdlib_module_names and top != "table")
        ):
            bad.append(name)
        if name.startswith("table.service"):
            bad.append(name)
    return bad


def test_table_imports_nothing_but_the_stdlib_and_itself() -> None:
    modules = pure_modules()
    assert len(modules) > 10
    problems = {str(path.relative_to(ROOT)): offending_imports(path) for path in modules}
    assert {path: bad for path, bad in problems.items() if bad} == {}


def test_the_check_catches_an_io_import(tmp_path: Path) -> None:
    sneaky = tmp_path / "sneaky.py"
    sneaky.write_text(
        "import socket\nfrom display.terminal import render_table\nimport numpy\nimport random\n"
    )
    assert sorted(offending_imports(sneaky)) == ["display.terminal", "numpy", "socket"]
