"""``python -m hlv_core``: see :mod:`hlv_core.cli`."""

import sys

from .cli import main

sys.exit(main())
