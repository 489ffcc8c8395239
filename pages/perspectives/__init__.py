"""The perspectives screen (``page.py``) and its own modules."""
