"""The live feed: an HTTP API (FastAPI on uvicorn) over the same store as the dashboard.

A card-reading shoe, a table system or any program appends rounds here; displays and
other programs follow a shoe through its event stream. Only `app` imports the web
framework; `models` are the request/response schemas (pydantic), `stream` follows a
shoe in the database, `feeder` is the example client.
"""
