"""`dealtable` commands run without a process each, where what is checked is what a command
says and does to its files, not how a process starts or ends: a process of its own costs the
imports of the whole table again, about half a second of a core each time.

:func:`dealtable_here` runs a command in the test's own process; :func:`dealtable_each` runs
several one after another in one process of their own, for commands that set up logging or
read the configuration of a table that would run (``config check``, ``run``'s refusals)."""

from __future__ import annotations

import io
import json
import logging
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

from table.service.cli import main


def dealtable_here(*args: str) -> subprocess.CompletedProcess[str]:
    """``dealtable ARGS`` as :func:`tests.test_service_run.dealtable` gives it, its code, its
    standard output and its standard error, run here. A warning logged goes to the standard
    error as in a process of its own, where no handler is set for it."""
    out, err = io.StringIO(), io.StringIO()
    said = logging.StreamHandler(err)
    said.setLevel(logging.WARNING)
    root = logging.getLogger()
    root.addHandler(said)
    try:
        with redirect_stdout(out), redirect_stderr(err):
            try:
                code = main(list(args))
            except SystemExit as exit_:  # argparse refusing the arguments
                code = exit_.code if isinstance(exit_.code, int) else 1
    finally:
        root.removeHandler(said)
    return subprocess.CompletedProcess(list(args), code, out.getvalue(), err.getvalue())


_EACH_COMMAND = """
import contextlib, io, json, logging, sys
from table.service.cli import main
done = []
for argv in json.loads(sys.argv[1]):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as ended:
            code = ended.code
    for handler in logging.root.handlers[:]:  # what `run` set up writes to the next command's
        logging.root.removeHandler(handler)
    done.append([code, out.getvalue(), err.getvalue()])
print(json.dumps(done))
"""


def dealtable_each(
    commands: list[list[str]], cwd: Path | None = None
) -> list[subprocess.CompletedProcess[str]]:
    """``dealtable ARGS`` for each of ``commands``, with nothing typed, each one's status and
    what it said: the commands one after another in a single process, where each in a process
    of its own would start Python and the table's modules afresh, a second or so each.

    Only for commands that write through ``sys.stdout`` and ``sys.stderr`` as they are when
    called: one that took the stream when its module was read (the exhibit's ``out``
    defaults to ``sys.stdout``) writes the second time into the first command's output."""
    ran = subprocess.run(
        [sys.executable, "-c", _EACH_COMMAND, json.dumps(commands)],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=cwd,
    )
    assert ran.returncode == 0, ran.stderr  # a command ended in a traceback
    return [
        subprocess.CompletedProcess(argv, code, out, err)
        for argv, (code, out, err) in zip(commands, json.loads(ran.stdout), strict=True)
    ]
