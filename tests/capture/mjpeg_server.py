"""An MJPEG-over-HTTP stream served from the loopback address by a thread, for the stream tests:
it can be stopped (its connections are cut) and started again on the same port."""

from __future__ import annotations

import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import cv2
import numpy as np

BOUNDARY = b"silkvisionframe"


def make_frames(n: int = 16, size=(64, 48)) -> list[bytes]:
    """``n`` JPEG frames of a grey background with a bright square moving across it."""
    w, h = size
    out = []
    for i in range(n):
        img = np.full((h, w, 3), 90, np.uint8)
        x = (i * 4) % (w - 12)
        img[h // 2 - 6 : h // 2 + 6, x : x + 12] = 230
        out.append(cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 95])[1].tobytes())
    return out


class MjpegServer:
    """``multipart/x-mixed-replace`` JPEG frames at ``fps`` on ``http://127.0.0.1:PORT/video.mjpg``.

    Use as a context manager; :meth:`stop` cuts every connection and closes the port,
    :meth:`start` serves again on the same port. :attr:`served` counts frames sent.
    """

    def __init__(self, fps: float = 50.0, frames: list[bytes] | None = None):
        self.fps = fps
        self.frames = frames or make_frames()
        self.port = 0
        self.served = 0
        self._srv = None
        self._stop = threading.Event()
        #: while set, connections stay open but no frame is sent (a stalled stream)
        self.paused = threading.Event()
        self._conns: list[socket.socket] = []
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/video.mjpg"

    def _handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                with server._lock:
                    server._conns.append(self.connection)
                self.send_response(200)
                self.send_header("Content-Type", "multipart/x-mixed-replace; boundary=" + BOUNDARY.decode())
                self.end_headers()
                i = 0
                try:
                    while not server._stop.is_set():
                        if server.paused.is_set():
                            time.sleep(0.01)
                            continue
                        data = server.frames[i % len(server.frames)]
                        i += 1
                        self.wfile.write(
                            b"--" + BOUNDARY + b"\r\nContent-Type: image/jpeg\r\n"
                            b"Content-Length: %d\r\n\r\n" % len(data) + data + b"\r\n"
                        )
                        self.wfile.flush()
                        server.served += 1
                        time.sleep(1.0 / server.fps)
                except OSError:
                    pass

        return Handler

    def start(self) -> MjpegServer:
        self._stop.clear()
        self._srv = ThreadingHTTPServer(("127.0.0.1", self.port), self._handler())
        self._srv.daemon_threads = True
        self.port = self._srv.server_address[1]
        threading.Thread(target=self._srv.serve_forever, name="mjpeg-server", daemon=True).start()
        return self

    def stop(self) -> None:
        """Cut the stream: close the listening port and every open connection."""
        self._stop.set()
        if self._srv is not None:
            self._srv.shutdown()
            self._srv.server_close()
            self._srv = None
        with self._lock:
            conns, self._conns = self._conns, []
        for c in conns:
            try:
                c.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def __enter__(self) -> MjpegServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
