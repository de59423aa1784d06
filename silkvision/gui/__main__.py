import sys

from silkvision.gui.app import main

sys.exit(main())
