"""Where taught deck profiles live, and how one is found by its name or by its file.

``dealtable teach --name bicycle`` saves ``bicycle.npz`` in the profile folder
(``$DEALTABLE_DECKS``, else ``~/.local/share/dealtable/decks``). Everywhere a deck is named
(``dealtable recognize --deck``, ``[reader] deck`` in a table's config) it may be given by
that name, or by its file with or without ``.npz``: ``profiles/bicycle``.

Light on purpose: reading a config finds the file without loading OpenCV; ``dealtable config
check`` then loads the profile, as ``run`` does.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from vision.errors import ProfileError

PROFILE_SUFFIX = ".npz"
PROFILE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def default_profile_folder() -> Path:
    configured = os.environ.get("DEALTABLE_DECKS")
    if configured:
        return Path(configured)
    return Path.home() / ".local" / "share" / "dealtable" / "decks"


def profile_path(folder: str | Path, name: str) -> Path:
    """Where the profile called ``name`` is kept in ``folder``."""
    if not PROFILE_NAME.match(name):
        raise ProfileError(
            f"deck profile name {name!r} must be letters, digits, '.', '_' or '-' (at most 64)"
        )
    return Path(folder) / f"{name}{PROFILE_SUFFIX}"


def _is_a_file_path(text: str) -> bool:
    return text.endswith(PROFILE_SUFFIX) or "/" in text or os.sep in text


def locate_profile(name_or_path: str | Path, folder: str | Path | None = None) -> Path:
    """The file of a deck profile given by its file (``.npz`` may be left out) or by its
    name in ``folder`` (by default the profile folder)."""
    text = str(name_or_path)
    if _is_a_file_path(text):
        path = Path(text)
        candidates = (
            [path] if path.suffix == PROFILE_SUFFIX else [path, Path(text + PROFILE_SUFFIX)]
        )
        found = next((candidate for candidate in candidates if candidate.is_file()), None)
        if found is None:
            tried = " or ".join(repr(str(candidate)) for candidate in candidates)
            raise ProfileError(f"no deck profile file {tried}")
        return found
    where = Path(folder) if folder is not None else default_profile_folder()
    path = profile_path(where, text)
    if not path.is_file():
        taught = sorted(found.stem for found in where.glob(f"*{PROFILE_SUFFIX}"))
        known = f"taught there: {', '.join(taught)}" if taught else "none taught there yet"
        raise ProfileError(f"no deck profile named {text!r} in {str(where)!r} ({known})")
    return path
