"""The microcontroller firmware (MicroPython); see dealfw.py."""
