"""``python -m voxeval`` runs the command line."""

import sys

from voxeval.cli import main

sys.exit(main())
