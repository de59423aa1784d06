"""``python -m silkvision``: the same command line as the ``silkvision`` script."""

import sys

from silkvision.cli.main import main

sys.exit(main())
