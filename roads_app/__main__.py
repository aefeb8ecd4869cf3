"""`python -m roads_app` is the `roads-app` command."""

import sys

from roads_app.cli import main

sys.exit(main())
