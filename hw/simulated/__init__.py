"""Simulated devices that stand in for the table's hardware."""
