"""What each AutoModel release accepts: its versions, entry points and signature tables.

Nothing here is imported on the validate path unless a recipe section needs it: the
tables are JSON files in :mod:`releases`, read on first use.
"""
