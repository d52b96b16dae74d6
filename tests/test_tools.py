"""tools/*.sh, which `make test` runs to get a fresh Debian ready: each installs what the
tests need and the machine lacks."""

from __future__ import annotations

import os
import subprocess
import sys
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
    stub(bin_folder, "dirname", 'echo "${1%/*}"')
    environment = {**os.environ, "PATH": str(bin_folder)}
    subprocess.run(["/bin/bash", str(TOOLS / "need-mosquitto.sh")], env=environment, check=True)
    lines = asked.read_text().splitlines() if asked.exists() else []
    installs = [line.split() for line in lines if "install" in line]
    assert installs, "apt-get install was never run"
    assert "openssl" in installs[-1]


def test_the_venv_keeps_the_os_numpy_where_the_os_picamera2_is_seen(tmp_path: Path) -> None:
    """Raspberry Pi OS's picamera2 is built against its numpy 1.x: numpy 2 installed beside it
    in the venv would stop the camera from opening. Elsewhere nothing is held."""
    os_packages = tmp_path / "dist-packages"
    (os_packages / "numpy").mkdir(parents=True)
    (os_packages / "numpy" / "__init__.py").write_text('__version__ = "1.24.2"\n')

    def constraints() -> str:
        environment = {**os.environ, "PYTHONPATH": str(os_packages)}
        return subprocess.run(
            [sys.executable, str(TOOLS / "os-numpy.py")],
            env=environment,
            capture_output=True,
            text=True,
            check=True,
        ).stdout

    assert constraints() == ""  # a machine with no picamera2: pip chooses freely
    (os_packages / "picamera2").mkdir()
    (os_packages / "picamera2" / "__init__.py").write_text("")
    assert constraints() == "numpy==1.24.2\n"


def test_a_machine_without_sudo_is_told_what_to_run_as_root(tmp_path: Path) -> None:
    bin_folder = tmp_path / "bin"
    bin_folder.mkdir()
    stub(bin_folder, "apt-get", "exit 0")
    stub(bin_folder, "id", "echo 1000")  # not root, and no sudo on the PATH
    stub(bin_folder, "dirname", 'echo "${1%/*}"')
    environment = {**os.environ, "PATH": str(bin_folder)}
    refused = subprocess.run(
        ["/bin/bash", str(TOOLS / "need-mosquitto.sh")],
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )
    assert refused.returncode != 0
    assert "need root to run: apt-get update" in refused.stderr
    assert "there is no sudo" in refused.stderr
