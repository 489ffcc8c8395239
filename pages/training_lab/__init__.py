"""The training_lab screen (``page.py``) and its own modules."""
