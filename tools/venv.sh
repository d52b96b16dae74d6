#!/usr/bin/env bash
# Creates .venv with a Python >= 3.11 and installs dealtable with the extras named
# in $1 (comma-separated). A fresh Debian / Raspberry Pi OS may lack the venv
# module (package python3-venv): it is installed when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1:-}"

. tools/as-root.sh

find_python() {
    for candidate in python3.13 python3.12 python3.11 python3; do
        if command -v "$candidate" >/dev/null 2>&1 &&
            "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
            echo "$candidate"; return 0
        fi
    done
    echo "error: dealtable needs Python 3.11 or newer (apt-get install python3)" >&2
    return 1
}

if [ ! -x .venv/bin/python ]; then
    python=$(find_python)
    # --system-site-packages lets a Pi's OS-packaged picamera2 and lgpio be seen.
    if ! "$python" -m venv --system-site-packages .venv 2>/dev/null; then
        rm -rf .venv
        if command -v apt-get >/dev/null; then
            version=$("$python" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
            as_root apt-get update -qq
            as_root apt-get install -y -qq "python${version}-venv" || as_root apt-get install -y -qq python3-venv
            "$python" -m venv --system-site-packages .venv
        else
            echo "error: '$python -m venv' failed and apt-get is not available" >&2
            exit 1
        fi
    fi
    .venv/bin/python -m pip install --quiet --upgrade pip
fi

target="."
[ -n "$extras" ] && target=".[${extras}]"
stamp=".venv/.installed-$(echo "$extras" | tr ',' '-')"
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
    # On Raspberry Pi OS the OS's picamera2 needs the OS's numpy (tools/os-numpy.py).
    .venv/bin/python tools/os-numpy.py > .venv/constraints.txt
    .venv/bin/python -m pip install -qq -c .venv/constraints.txt -e "$target"
    touch "$stamp"
fi
