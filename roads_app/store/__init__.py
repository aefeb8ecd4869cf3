"""The library database: saved shoes, their rounds, versions, history and trash, bets,
tokens, the change feed, the data folder. Files in and out are `roads_app.shoefiles`."""
