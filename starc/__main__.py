"""Entry point for ``python -m starc``."""

import sys

from starc.cli import main

sys.exit(main())
