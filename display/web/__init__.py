"""The web table: the page, its style and script, served by dealtable web."""
