"""`dealtable` commands run in the test's own process, where what is checked is what a command
says and does to its files, not how a process starts or ends: a process of its own costs the
imports of the whole table again, about half a second of a core each time."""

from __future__ import annotations

import io
import logging
import subprocess
from contextlib import redirect_stderr, redirect_stdout

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
