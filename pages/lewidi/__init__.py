"""The lewidi screen (``page.py``) and its own modules."""
