"""The running table: config, journal, MQTT, the reading filter, the main loop and the CLI."""
