#!/usr/bin/env bash
# The web tests drive Debian's headless Chromium; install it and its driver when missing.
set -euo pipefail
if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then exit 0; fi
if ! command -v apt-get >/dev/null; then
    echo "error: the web tests need chromium and chromedriver (/usr/bin); install them" >&2
    exit 1
fi
. "$(dirname "$0")/as-root.sh"
as_root apt-get update -qq
DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq chromium chromium-driver
