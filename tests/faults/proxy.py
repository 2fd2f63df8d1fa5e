"""A TCP proxy on 127.0.0.1 in front of PostgreSQL that a test can cut (connections reset,
the port closed: the database is unreachable), freeze (connections stay open and TCP still
acknowledges, but nothing passes: a hung server, or a link that stalls) and restore,
without touching the machine's PostgreSQL."""

from __future__ import annotations

import contextlib
import selectors
import socket
import threading


class Proxy:
    def __init__(self, target_port: int, target_host: str = "127.0.0.1") -> None:
        self.target = (target_host, target_port)
        self.port = 0
        self.frozen = False
        self._listener: socket.socket | None = None
        self._pairs: list[tuple[socket.socket, socket.socket]] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    def up(self) -> Proxy:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        listener.settimeout(0.1)
        self.port = listener.getsockname()[1]
        self._listener = listener
        self._stop = threading.Event()
        self.frozen = False
        thread = threading.Thread(target=self._accept, args=(listener, self._stop), daemon=True)
        thread.start()
        self._threads.append(thread)
        return self

    def _accept(self, listener: socket.socket, stop: threading.Event) -> None:
        while not stop.is_set():
            try:
                client, _ = listener.accept()
            except (TimeoutError, OSError):
                continue
            try:
                upstream = socket.create_connection(self.target, timeout=5)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._pairs.append((client, upstream))
            thread = threading.Thread(target=self._relay, args=(client, upstream, stop),
                                      daemon=True)
            thread.start()

    def _relay(self, a: socket.socket, b: socket.socket, stop: threading.Event) -> None:
        with selectors.DefaultSelector() as sel:
            sel.register(a, selectors.EVENT_READ, b)
            sel.register(b, selectors.EVENT_READ, a)
            while not stop.is_set():
                if self.frozen:
                    stop.wait(0.05)
                    continue
                for key, _ in sel.select(timeout=0.1):
                    src: socket.socket = key.fileobj  # type: ignore[assignment]
                    try:
                        data = src.recv(65536)
                    except OSError:
                        data = b""
                    if not data:
                        self._close(a, b)
                        return
                    try:
                        key.data.sendall(data)
                    except OSError:
                        self._close(a, b)
                        return
        self._close(a, b)

    def _close(self, *socks: socket.socket) -> None:
        for s in socks:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            with contextlib.suppress(OSError):
                s.close()

    def down(self) -> None:
        """The database is gone: the port refuses, every open connection is reset."""
        self._stop.set()
        if self._listener is not None:
            self._listener.close()
            self._listener = None
        with self._lock:
            pairs, self._pairs = self._pairs, []
        for a, b in pairs:
            self._close(a, b)
        for thread in self._threads:
            thread.join(timeout=5)
        self._threads = []

    def freeze(self) -> None:
        """A hung server: connections stay open but nothing passes (new ones hang too)."""
        self.frozen = True

    def thaw(self) -> None:
        """The server answers again; whatever was held back passes now."""
        self.frozen = False
