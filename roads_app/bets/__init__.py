"""Bets: the tables as data, settlement, exact and live odds, a shoe's bets."""
