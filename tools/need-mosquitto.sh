#!/usr/bin/env bash
# The MQTT tests start their own Mosquitto broker, with certificates made by openssl
# (hw/mosquitto/make-certs.sh); install whichever the machine lacks.
set -euo pipefail
missing=()
if ! command -v mosquitto >/dev/null 2>&1 && [ ! -x /usr/sbin/mosquitto ]; then
    missing+=(mosquitto mosquitto-clients)
fi
if ! command -v openssl >/dev/null 2>&1; then missing+=(openssl); fi
if [ "${#missing[@]}" -eq 0 ]; then exit 0; fi
if ! command -v apt-get >/dev/null; then
    echo "error: the tests need ${missing[*]}; install them with your package manager" >&2
    exit 1
fi
. "$(dirname "$0")/as-root.sh"
as_root apt-get update -qq
DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${missing[@]}"
