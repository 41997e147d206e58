"""Text handling: cleaning per dialect (clean.py), normalising (normalize.py), name resolution (names.py)."""
