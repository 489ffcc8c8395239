"""The glossary screen (``page.py``) and its own modules."""
