"""tools/*.sh, which `make test` runs to get a fresh Debian ready: each installs what the
tests need and the machine lacks."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

TOOLS = Path(__file__).resolve().parent.parent / "tools"


def stub(folder: Path, name: str, body: str) -> None:
    path = folder / name
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)


def test_need_mosquitto_installs_openssl_on_a_machine_without_it(tmp_path: Path) -> None:
    """The broker tests' certificates come from hw/mosquitto/make-certs.sh, which runs openssl:
    a minimal Debian without it would fail them all."""
    bin_folder = tmp_path / "bin"
    bin_folder.mkdir()
    asked = tmp_path / "apt-get.log"
    stub(bin_folder, "apt-get", f'echo "$@" >> {asked}')
    stub(bin_folder, "id", "echo 0")  # root: apt-get is run as it is, no sudo
    stub(bin_folder, "mosquitto", "exit 0")  # the broker is there; openssl is not
    environment = {**os.environ, "PATH": str(bin_folder)}
    subprocess.run(["/bin/bash", str(TOOLS / "need-mosquitto.sh")], env=environment, check=True)
    lines = asked.read_text().splitlines() if asked.exists() else []
    installs = [line.split() for line in lines if "install" in line]
    assert installs, "apt-get install was never run"
    assert "openssl" in installs[-1]
