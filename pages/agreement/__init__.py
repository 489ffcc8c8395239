"""The agreement screen (``page.py``) and its own modules."""
