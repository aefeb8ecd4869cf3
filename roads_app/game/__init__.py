"""The game itself: cards, the drawing rules, the shoe, the rounds frame."""

MAX_DECKS = 8
"""The most decks a shoe holds (the usual baccarat shoe): what every door allows, from a
shoe's metadata and a table's rules to the API and the command line. Here, in the
package itself, so the command line's parser reads it without loading the game."""
