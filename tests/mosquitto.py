"""A real Mosquitto broker for the tests: its own process, a free port, a temp config."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest


def mosquitto_binary() -> str:
    found = shutil.which("mosquitto") or next(
        (
            path
            for path in ("/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto")
            if os.path.exists(path)
        ),
        None,
    )
    if found is None:
        pytest.fail(
            "mosquitto is not installed: `make test` installs it (apt-get install mosquitto)"
        )
    return found


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_until(
    condition: Callable[[], bool], timeout: float = 30.0, step: Callable[[], None] | None = None
) -> bool:
    """Poll ``condition`` (running ``step`` each time round) until it holds or time runs out:
    a deadline only a failing test reaches, far past what a busy machine takes."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if step is not None:
            step()
        if condition():
            return True
        time.sleep(0.005)
    return condition()


@dataclass
class Broker:
    directory: Path
    extra_config: str = ""
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None
    # A whole configuration, its listeners (``port`` among them) and all, as hw/mosquitto's
    # dealtable.conf: used as it is.
    whole_config: str = ""

    @property
    def config_path(self) -> Path:
        return self.directory / "mosquitto.conf"

    def write_config(self) -> None:
        lines = (
            [self.whole_config]
            if self.whole_config
            else [
                f"listener {self.port} 127.0.0.1",
                "persistence true",
                f"persistence_location {self.directory}/",
            ]
        )
        lines += [
            "log_dest stderr",
            "log_type error",
            "log_type warning",
        ]
        if os.geteuid() == 0:
            lines.append("user root")  # as root it would drop to 'mosquitto' and lose the temp dir
        if not self.extra_config and not self.whole_config:
            lines.append("allow_anonymous true")
        self.config_path.write_text("\n".join(lines) + "\n" + self.extra_config)

    def start(self) -> None:
        self.write_config()
        self.process = subprocess.Popen(
            [mosquitto_binary(), "-c", str(self.config_path)],
            stdout=subprocess.DEVNULL,
            stderr=open(self.directory / "broker.log", "ab"),  # noqa: SIM115 - lives with the process
        )
        if not wait_until(self.accepting):
            self.stop()
            log = (self.directory / "broker.log").read_text(errors="replace")
            pytest.fail(f"mosquitto did not start on port {self.port}: {log}")

    def accepting(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                return True
        except OSError:
            return False

    def cut_power(self) -> None:
        """End the broker as a power cut would: no chance to write anything on the way out."""
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            self.process = None
