# Sourced by the tools that install Debian packages: run a command as root, through sudo
# unless already root; a machine with neither says what to run instead.
as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null; then
        sudo "$@"
    else
        echo "error: need root to run: $* (there is no sudo: run it as root, then make again)" >&2
        return 1
    fi
}
