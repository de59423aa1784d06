"""``python run_export_with_fake.py ARGS...`` = ``silkvision export ARGS...`` with the fake detector
of ``fake_detector.py`` (settings from FAKE_SLEEP / FAKE_CHECKPOINT). Used by the kill/resume tests."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fake_detector  # noqa: E402

import silkvision.export.engine as export  # noqa: E402
from silkvision.cli.main import main  # noqa: E402

export.create_subtractor = lambda name, config=None: fake_detector.from_env()

if __name__ == "__main__":
    sys.exit(main(["export", *sys.argv[1:]]))
