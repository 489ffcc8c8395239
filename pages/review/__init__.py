"""The review screen (``page.py``) and its own modules."""
