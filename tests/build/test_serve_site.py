"""The workshop server: answers on 127.0.0.1 by default with the right MIME types, and says where it serves."""

from __future__ import annotations

import threading
import urllib.request

from tools import serve_site


def test_it_serves_a_folder_on_the_loopback_address_by_default(tmp_path):
    (tmp_path / "index.html").write_text("<p>hello</p>")
    (tmp_path / "a.wasm").write_bytes(b"\0asm")
    with serve_site.make_server(str(tmp_path), port=0) as server:
        assert server.server_address[0] == "127.0.0.1"
        threading.Thread(target=server.serve_forever, daemon=True).start()
        port = server.server_address[1]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/") as page:
            assert page.read() == b"<p>hello</p>"
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/a.wasm") as wasm:
            assert wasm.headers["Content-Type"] == "application/wasm"
        server.shutdown()


def test_the_room_option_says_how_learners_reach_it():
    assert serve_site.where("127.0.0.1", 8000) == "at http://127.0.0.1:8000/ (this machine only)"
    assert "http://ADDRESS:8080/" in serve_site.where("0.0.0.0", 8080)
