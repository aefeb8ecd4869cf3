"""`python -m roads_app` is the `roads-app` command."""

from roads_app.cli import run

run()
