"""The home screen (``page.py``) and its own modules."""
