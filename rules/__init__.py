"""The built-in table rules, one TOML file each: installed as the package ``roads_app.rules``.

This file only makes the folder a package, so `importlib.resources` finds the tables
wherever roads-app is installed (a wheel, or this checkout in editable mode).
"""
