"""The serial protocol to the table's microcontroller."""
