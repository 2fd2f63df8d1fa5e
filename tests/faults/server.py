"""A real server for the fault tests and the floor benchmark: ``dealer-assist serve``
(gunicorn) on a free 127.0.0.1 port, in its own process group so the test can SIGKILL the
master and every worker at once, as a power cut or the OOM killer would; and a tiny HTTP
client on http.client (one keep-alive connection per thread)."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

COMMAND = str(Path(sys.executable).with_name("dealer-assist"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Server:
    url: str
    instance: Path
    port: int = field(default_factory=free_port)
    workers: int | None = None
    threads: int = 8
    log_path: Path | None = None
    proc: subprocess.Popen[bytes] | None = None
    insecure_cookies: bool = True

    def start(self, timeout: float = 60.0) -> Server:
        args = [COMMAND, "serve", "--port", str(self.port), "--database-url", self.url,
                "--instance", str(self.instance), "--threads", str(self.threads)]
        if self.insecure_cookies:
            args.append("--insecure-cookies")
        if self.workers:
            args += ["--workers", str(self.workers)]
        self.log_path = self.log_path or self.instance / f"server-{self.port}.log"
        log = open(self.log_path, "ab")  # noqa: SIM115 - the child keeps it
        env = {**os.environ, "DEALER_ASSIST_SECRET_KEY": "fault-tests-not-secret"}
        self.proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, env=env,
                                     start_new_session=True)
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited {self.proc.returncode}: {self.log()[-2000:]}")
            probe = Client(self.port, timeout=2)
            try:
                status, _ = probe.request("GET", "/healthz")
                if status == 200:
                    return self
            except OSError:
                pass
            finally:
                probe.close()
            time.sleep(0.1)
        self.kill()
        raise RuntimeError(f"server did not come up: {self.log()[-2000:]}")

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path else ""

    def pids(self) -> list[int]:
        """The gunicorn master and its workers."""
        assert self.proc is not None
        out = [self.proc.pid]
        try:
            children = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children").read_text()
            out += [int(p) for p in children.split()]
        except OSError:
            pass
        return out

    def kill(self) -> None:
        """SIGKILL the master and every worker (the whole process group we started)."""
        if self.proc is None or self.proc.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=30)

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.kill()


class Client:
    """One keep-alive HTTP/1.1 connection to 127.0.0.1; reconnects after an error."""

    def __init__(self, port: int, token: str | None = None, timeout: float = 30.0) -> None:
        self.port, self.token, self.timeout = port, token, timeout
        self.conn: http.client.HTTPConnection | None = None

    def request(self, method: str, path: str, body: Any = None,
                headers: dict[str, str] | None = None) -> tuple[int, Any]:
        if self.conn is None:
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
        all_headers = {"Accept": "application/json", **(headers or {})}
        if self.token:
            all_headers["Authorization"] = f"Bearer {self.token}"
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            all_headers["Content-Type"] = "application/json"
        try:
            self.conn.request(method, path, body=data, headers=all_headers)
            response = self.conn.getresponse()
            raw = response.read()
        except (OSError, http.client.HTTPException):
            self.close()
            raise
        if response.getheader("Connection", "").lower() == "close":
            self.close()
        kind = response.getheader("Content-Type", "")
        return response.status, (json.loads(raw) if "json" in kind and raw else raw)

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
