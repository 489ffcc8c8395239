"""The soft_metrics screen (``page.py``) and its own modules."""
