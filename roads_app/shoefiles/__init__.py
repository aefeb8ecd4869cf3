"""Shoe files in and out: reading and checking them, writing them atomically, files of
many shoes read a batch at a time, the files' schemas, the sample shoes. Never the
database, which is `roads_app.store`."""
