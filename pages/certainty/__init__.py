"""The certainty screen (``page.py``) and its own modules."""
