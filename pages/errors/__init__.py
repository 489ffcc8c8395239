"""The errors screen (``page.py``) and its own modules."""
