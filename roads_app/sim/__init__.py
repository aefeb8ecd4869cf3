"""Simulation: the compiled engine, strategies and backtests."""
