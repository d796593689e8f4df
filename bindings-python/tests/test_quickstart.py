"""The Python quickstart (docs/quickstart/python.md) as a newcomer runs it: examples/quickstart/server.py
started on a free port of 127.0.0.1, examples/quickstart/client.py run against it with the user's answer on
its stdin; the client prints the tool's final result, which only the second round can give. The page's code
blocks are these very files (scripts/quickstart-docs)."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
QUICKSTART = ROOT / "bindings-python" / "examples" / "quickstart"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture
def url() -> Iterator[str]:
    port = free_port()
    server = subprocess.Popen([sys.executable, str(QUICKSTART / "server.py"), str(port)])
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert server.poll() is None, "the quickstart server exited"
                assert time.monotonic() < deadline, "the quickstart server did not listen"
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_the_page_quotes_the_files() -> None:
    subprocess.run([sys.executable, str(ROOT / "scripts" / "quickstart-docs"), "python"], check=True)


def test_the_client_gets_the_final_result_after_the_ask(url: str) -> None:
    run = subprocess.run([sys.executable, str(QUICKSTART / "client.py"), url], input="Ada\n", capture_output=True, text=True, timeout=30)
    assert run.returncode == 0, run.stderr
    assert run.stdout == "What is your name? Hello, Ada!\n"


def test_a_request_without_its_meta_is_refused(url: str) -> None:
    import json
    import urllib.error
    import urllib.request

    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "greet"}}).encode()
    request = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=10)
    assert refused.value.code == 400
    assert json.loads(refused.value.read())["error"]["data"]["rule"] == "request-meta-missing"
