"""Print a pip constraint that keeps the OS's numpy, when the OS's picamera2 needs it.

Raspberry Pi OS's python3-picamera2 (and its python3-simplejpeg) are built against the OS's
numpy 1.x. The venv sees them (--system-site-packages), but pip would install numpy 2 from
PyPI beside them for a newer OpenCV, and picamera2 then fails to import ("numpy.dtype size
changed"): the camera would never open. Holding numpy at the OS's version makes pip choose an
OpenCV built for it. Elsewhere this prints nothing.
"""

import importlib.util
import sys


def main() -> int:
    if importlib.util.find_spec("picamera2") is None:
        return 0
    try:
        import numpy
    except ImportError:
        return 0
    print(f"numpy=={numpy.__version__}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
