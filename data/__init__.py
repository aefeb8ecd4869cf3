"""The sample shoes (``sample-*.parquet``): installed as the package ``roads_app.sample_shoes``.

This file only makes the folder a package, so `importlib.resources` finds the samples
wherever roads-app is installed; the wheel carries the samples and nothing else from here.
"""
