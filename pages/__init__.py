"""The screens of HLV Lens: one folder per screen, each with its ``page.py`` (the script
``app.py``'s navigation runs) and the modules only that screen uses."""
