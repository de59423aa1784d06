import sys

from silkvision.cli.main import main

sys.exit(main())
