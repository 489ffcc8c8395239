"""The explorer screen (``page.py``) and its own modules."""
