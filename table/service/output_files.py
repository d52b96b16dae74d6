"""The files a command writes for the user (an export, a snapshot, a plot): whole or not
at all.

A file written in place and cut short (the disk full, Ctrl-C) would be left half written
where the user looks for it, and would have replaced a good one there. So it is written
beside, under a hidden name, and moved onto its name only once whole and on the disk, with
the owner and permissions of the file it replaces.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path


@contextmanager
def written_whole(path: str | Path) -> Iterator[Path]:
    """The name to write ``path`` under: beside it, moved onto it when the block ends well.
    A failure leaves nothing written behind and a file that was at ``path`` as it was; an
    error of the disk names ``path``, the file the user asked for. A device or a pipe
    (``/dev/stdout``, a fifo) is written as it is: it cannot be written beside."""
    named = Path(path)
    if named.exists() and not named.is_file():
        yield named
        return
    # A symbolic link is written through, as a plain write would: the file it leads to is
    # replaced, not the link.
    target = Path(os.path.realpath(named))
    part = target.with_name(f".{target.stem}.{os.getpid()}.part{target.suffix}")
    try:
        yield part
        _keep_access(target, part)
        with part.open("rb") as written:
            os.fsync(written.fileno())
        os.replace(part, target)
    except OSError as error:
        # A write to a full disk says only "No space left on device": which file it was is
        # the one thing the user needs to know, and the hidden name would mislead.
        raise OSError(error.errno, error.strerror or str(error), str(named)) from error
    finally:
        part.unlink(missing_ok=True)


def _keep_access(replaced: Path, written: Path) -> None:
    """``written`` takes the permissions of the file it replaces, and its owner where this
    user may give it: a file another program reads as its own user (the broker's access list)
    stays readable to it, as it would have been had the file been written in place."""
    try:
        kept = replaced.stat()
    except FileNotFoundError:
        return
    with suppress(PermissionError):  # only root gives a file away
        os.chown(written, kept.st_uid, kept.st_gid)
    os.chmod(written, stat.S_IMODE(kept.st_mode))
