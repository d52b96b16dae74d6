#!/usr/bin/env bash
# The MQTT tests start their own Mosquitto broker; install it when the machine lacks it.
set -euo pipefail
if command -v mosquitto >/dev/null 2>&1 || [ -x /usr/sbin/mosquitto ]; then exit 0; fi
if ! command -v apt-get >/dev/null; then
    echo "error: the tests need the mosquitto broker; install it with your package manager" >&2
    exit 1
fi
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
as_root apt-get update -qq
DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq mosquitto mosquitto-clients
