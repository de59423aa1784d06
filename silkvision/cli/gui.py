"""``silkvision gui [SOURCE]``: the desktop window (live masks, live ROC, parameters).

Qt is imported only when the command runs, so ``silkvision --help`` stays fast.
"""

from __future__ import annotations

import argparse

from silkvision.cli.main import add_config_arguments
from silkvision.config import ALGORITHMS, load_config
from silkvision.errors import ConfigError

EPILOG = """examples:
  silkvision gui                                  empty window; File > Open
  silkvision gui 0                                webcam 0
  silkvision gui video.mp4 --groundtruth gt/      a video with ground-truth images gt%06d.png
  silkvision gui path/to/highway --second mog2    a CDnet sequence, SILK beside MOG2
  silkvision gui path/to/highway --frames 200 --screenshot gui.png
                                                  headless: 200 frames, then a PNG of the window
"""


MIN_WINDOW_SIDE = 200
# Qt cannot draw a window whose image (4 bytes a pixel) passes 2 GiB and crashes instead of failing;
# 16384 x 16384 is 1 GiB (silkvision.gui.app.check_window_size also counts high-DPI device pixels).
MAX_WINDOW_SIDE = 16384


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(x) for x in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected WIDTHxHEIGHT, e.g. 1420x820") from None
    if not (MIN_WINDOW_SIDE <= w <= MAX_WINDOW_SIDE and MIN_WINDOW_SIDE <= h <= MAX_WINDOW_SIDE):
        raise argparse.ArgumentTypeError(
            f"{text!r}: expected WIDTHxHEIGHT with each side from {MIN_WINDOW_SIDE} to "
            f"{MAX_WINDOW_SIDE} pixels, e.g. 1420x820"
        )
    return w, h


def _positive(text: str) -> int:
    try:
        v = int(text)
        if v < 1:
            raise ValueError
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected an integer >= 1") from None
    return v


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "gui",
        help="desktop window: live foreground masks and live ROC",
        description="Open the silkvision window: input, SILK mask, a second algorithm's mask, ground "
        "truth, score heat map, and a live ROC against the ground truth.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "source",
        nargs="?",
        metavar="SOURCE",
        help="webcam index (e.g. 0), video file, image folder or CDnet sequence folder",
    )
    p.add_argument(
        "--groundtruth", metavar="DIR", help="folder of ground-truth images paired with the frames by number"
    )
    p.add_argument(
        "--second",
        choices=[a for a in ALGORITHMS if a != "silk"],
        help="algorithm shown beside SILK (default: gui.second_algorithm)",
    )
    p.add_argument("--start", type=_positive, metavar="INDEX", help="first frame to process")
    p.add_argument(
        "--frames",
        type=_positive,
        metavar="N",
        help="process N frames, then pause (with --screenshot: then exit)",
    )
    p.add_argument(
        "--screenshot",
        metavar="PNG",
        help="headless: process the frames, save a PNG of the window and exit 0",
    )
    p.add_argument(
        "--size",
        type=_size,
        default=None,
        metavar="WxH",
        help=f"window size, each side {MIN_WINDOW_SIDE} to {MAX_WINDOW_SIDE} pixels "
        f"(default 1240x740, smaller on a smaller screen); the window needs about "
        f"840x450 at least (with --screenshot a note says when the picture is larger "
        f"than asked)",
    )
    add_config_arguments(p)
    return p


def run(args) -> int:
    cfg = load_config(args.config, args.overrides)
    if args.second:
        cfg["gui"]["second_algorithm"] = args.second
    if cfg["gui"]["second_algorithm"] == "silk":
        raise ConfigError(
            "gui.second_algorithm: 'silk' is already shown; expected norma, mog2, knn, gsoc or cnt"
        )
    if args.screenshot is not None and not args.screenshot.lower().endswith(".png"):
        raise ConfigError(f"--screenshot {args.screenshot!r}: expected a .png file name")
    from silkvision.gui.app import run_gui

    return run_gui(
        cfg,
        source=args.source,
        groundtruth=args.groundtruth,
        start=args.start,
        frames=args.frames,
        screenshot=args.screenshot,
        size=args.size,
    )
