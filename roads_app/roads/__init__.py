"""The roads drawn from a shoe's results, its statistics and replay positions."""
