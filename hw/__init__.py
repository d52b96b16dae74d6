"""The hardware: board definitions, firmware, broker and systemd configs, simulated devices."""
