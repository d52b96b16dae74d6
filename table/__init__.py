"""dealtable's pure rules: cards, decks, the games, their events and language.

Nothing in this package (outside ``table.service``) performs I/O, reads a clock or
draws unseeded randomness; it imports the standard library only.
"""
