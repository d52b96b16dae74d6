"""The files the commands write for the user: whole or not at all, and a failure that names
the file. The failure is a real one: the commands run as processes that may write no file
past a size (``RLIMIT_FSIZE``: "File too large", as a full disk says "No space left")."""

from __future__ import annotations

import resource
import subprocess
from pathlib import Path
from typing import IO

import pytest

from table.service.output_files import written_whole
from tests.test_service_run import CLI, dealtable

# More than a journal reader's shared memory file (32 KiB), less than any file written here.
SIZE_LIMIT = 40_000
Done = subprocess.CompletedProcess[str]


def no_file_past_the_limit() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (SIZE_LIMIT, SIZE_LIMIT))


def limited_dealtable(*args: str, stdout: IO[str] | int = subprocess.PIPE) -> Done:
    return subprocess.run(
        [*CLI, *args],
        stdin=subprocess.DEVNULL,
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        timeout=120,
        preexec_fn=no_file_past_the_limit,
        check=False,
    )


@pytest.fixture(scope="module")
def journal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("journal") / "table.sqlite"
    done = dealtable("run", "--journal", str(path), "--deals", "2", "--speed", "0")
    assert done.returncode == 0, done.stderr
    return path


@pytest.mark.parametrize(
    ("name", "command", "told"),
    [
        ("events.jsonl", ("export", "{journal}", "--out", "{out}"), None),
        ("events.csv", ("export", "{journal}", "--format", "csv", "--out", "{out}"), None),
        ("table.png", ("snapshot", "--out", "{out}"), None),
        ("table.svg", ("snapshot", "--journal", "{journal}", "--out", "{out}"), None),
        ("curves.png", ("simulate", "--deals", "1000", "--plot", "{out}"), None),
        ("stickers.pdf", ("barcodes", "--decks", "2", "--out", "{out}"), "cannot write '{out}'"),
    ],
)
def test_a_write_that_fails_names_the_file_and_leaves_the_one_there_as_it_was(
    tmp_path: Path, journal: Path, name: str, command: tuple[str, ...], told: str | None
) -> None:
    out = tmp_path / name
    out.write_bytes(b"what an earlier run wrote")
    argv = [word.format(journal=journal, out=out) for word in command]
    done = limited_dealtable(*argv)
    assert done.returncode == 2
    said = (told or "cannot write {out}").format(out=out)
    assert done.stderr.endswith(f"dealtable {argv[0]}: {said}: File too large\n"), done.stderr
    assert [found.name for found in tmp_path.iterdir()] == [name]  # no part left beside it
    assert out.read_bytes() == b"what an earlier run wrote"


def test_an_export_that_fails_leaves_no_file_where_there_was_none(
    tmp_path: Path, journal: Path
) -> None:
    out = tmp_path / "events.jsonl"
    done = limited_dealtable("export", str(journal), "--out", str(out))
    assert done.returncode == 2
    assert done.stderr == f"dealtable export: cannot write {out}: File too large\n"
    assert list(tmp_path.iterdir()) == []
    written = dealtable("export", str(journal), "--out", str(out))
    assert written.returncode == 0, written.stderr
    assert len(out.read_text().splitlines()) == int(written.stderr.split()[1])
    assert [found.name for found in tmp_path.iterdir()] == ["events.jsonl"]


def test_an_export_to_the_standard_output_that_fails_says_so(tmp_path: Path, journal: Path) -> None:
    with (tmp_path / "events.jsonl").open("w") as redirected:  # dealtable export J > FILE
        done = limited_dealtable("export", str(journal), stdout=redirected)
    assert done.returncode == 2
    assert done.stderr == "dealtable export: cannot write the standard output: File too large\n"


def test_a_device_is_written_as_it_is() -> None:
    """Nothing can be written beside /dev/stdout or a fifo, and nothing needs to be."""
    with written_whole("/dev/null") as part:
        assert part == Path("/dev/null")
        part.write_text("discarded")


def test_a_link_is_written_through_and_stays_a_link(tmp_path: Path) -> None:
    kept = tmp_path / "kept" / "events.jsonl"
    kept.parent.mkdir()
    kept.write_text("older\n")
    link = tmp_path / "latest.jsonl"
    link.symlink_to(kept)
    with written_whole(link) as part:
        part.write_text("newer\n")
    assert link.is_symlink() and kept.read_text() == "newer\n"
    assert sorted(found.name for found in kept.parent.iterdir()) == ["events.jsonl"]
