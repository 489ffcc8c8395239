"""The graph screen (``page.py``) and its own modules."""
