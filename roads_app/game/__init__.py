"""The game itself: cards, the drawing rules, the shoe, the rounds frame."""
