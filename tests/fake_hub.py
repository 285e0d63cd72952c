"""A real HTTP server on 127.0.0.1 that answers like the Hugging Face hub (the network boundary of the hub tests).

``FakeHub`` implements the endpoints huggingface_hub uses (``GET /api/{models,datasets}/{repo}/revision/{rev}``
with siblings, LFS sha256 and blob ids; ``HEAD``/``GET /[datasets/]{repo}/resolve/{rev}/{file}`` with
``X-Repo-Commit``, ``ETag``, ``Content-Length`` and ``Range``), and real faults: a connection dropped mid-file, a
flipped byte, a 503 outage.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit


@dataclass
class RepoFile:
    path: Path
    lfs: bool
    size: int = 0
    sha256: str = ""
    git_sha1: str = ""

    def __post_init__(self):
        data = self.path.read_bytes()
        self.size = len(data)
        self.sha256 = hashlib.sha256(data).hexdigest()
        self.git_sha1 = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()

    @property
    def etag(self) -> str:
        return self.sha256 if self.lfs else self.git_sha1


@dataclass
class Repo:
    repo_type: str
    commit: str
    files: dict[str, RepoFile]
    refs: dict[str, str] = field(default_factory=dict)

    def resolve(self, revision: str) -> str | None:
        if revision == self.commit:
            return self.commit
        return self.refs.get(revision)


class FakeHub:
    """A threaded HTTP server on a free local port; ``requests`` logs (method, path, range)."""

    def __init__(self, repos: dict[tuple[str, str], Repo]):
        self.repos = repos
        self.requests: list[tuple[str, str, str | None]] = []
        self.drop: dict[str, float] = {}  # remote path -> fraction sent before the connection drops (once)
        self.outage_after_drop = False
        self.outage = False
        self.corrupt: set[str] = set()
        self.lock = threading.Lock()
        hub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"

            def log_message(self, *args):
                pass

            def do_HEAD(self):
                hub._serve(self, head=True)

            def do_GET(self):
                hub._serve(self, head=False)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()

    def files_requested(self) -> list[str]:
        return [p for m, p, _ in self.requests if m == "GET" and "/resolve/" in p]

    # -- request handling

    def _serve(self, h: BaseHTTPRequestHandler, head: bool) -> None:
        path = urlsplit(h.path).path
        with self.lock:
            self.requests.append((h.command, path, h.headers.get("Range")))
        if self.outage:
            return self._error(h, 503, None, head)
        api = re.fullmatch(r"/api/(models|datasets)/([^/]+/[^/]+)/revision/([^/]+)", path)
        if api:
            return self._info(h, "model" if api[1] == "models" else "dataset", unquote(api[2]), unquote(api[3]), head)
        res = re.fullmatch(r"/(?:(datasets)/)?([^/]+/[^/]+)/resolve/([^/]+)/(.+)", path)
        if res:
            kind = "dataset" if res[1] else "model"
            return self._file(h, kind, unquote(res[2]), unquote(res[3]), unquote(res[4]), head)
        self._error(h, 404, None, head)

    def _repo(self, h, kind, repo_id, revision, head):
        repo = self.repos.get((kind, repo_id))
        if repo is None:
            self._error(h, 404, "RepoNotFound", head)
            return None, None
        commit = repo.resolve(revision)
        if commit is None:
            self._error(h, 404, "RevisionNotFound", head)
            return None, None
        return repo, commit

    def _info(self, h, kind, repo_id, revision, head):
        repo, commit = self._repo(h, kind, repo_id, revision, head)
        if repo is None:
            return
        siblings = []
        for name, f in repo.files.items():
            entry = {"rfilename": name, "size": f.size, "blobId": f.git_sha1}
            if f.lfs:
                entry["blobId"] = hashlib.sha1(name.encode()).hexdigest()  # the pointer file's id
                entry["lfs"] = {"size": f.size, "sha256": f.sha256, "pointerSize": 134}
            siblings.append(entry)
        body = json.dumps({"id": repo_id, "sha": commit, "private": False, "siblings": siblings}).encode()
        h.send_response(200)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        if not head:
            h.wfile.write(body)

    def _file(self, h, kind, repo_id, revision, name, head):
        repo, commit = self._repo(h, kind, repo_id, revision, head)
        if repo is None:
            return
        f = repo.files.get(name)
        if f is None:
            return self._error(h, 404, "EntryNotFound", head, commit)
        start = 0
        rng = h.headers.get("Range")
        if rng:
            start = int(re.fullmatch(r"bytes=(\d+)-\d*", rng)[1])
        h.send_response(206 if rng else 200)
        h.send_header("X-Repo-Commit", commit)
        h.send_header("ETag", f'"{f.etag}"')
        if f.lfs:
            h.send_header("X-Linked-Etag", f'"{f.sha256}"')
            h.send_header("X-Linked-Size", str(f.size))
        h.send_header("Accept-Ranges", "bytes")
        h.send_header("Content-Length", str(f.size - start))
        if rng:
            h.send_header("Content-Range", f"bytes {start}-{f.size - 1}/{f.size}")
        h.end_headers()
        if head:
            return
        data = f.path.read_bytes()
        if name in self.corrupt:
            data = data[:-1] + bytes([data[-1] ^ 0xFF])
        data = data[start:]
        with self.lock:
            cut = self.drop.pop(name, None)
        if cut is not None:
            h.wfile.write(data[: int(len(data) * cut)])
            h.wfile.flush()
            if self.outage_after_drop:
                self.outage = True
            return  # HTTP/1.0: the connection closes short of Content-Length
        h.wfile.write(data)

    def _error(self, h, status, code, head, commit=None):
        body = json.dumps({"error": code or "error"}).encode()
        h.send_response(status)
        if code:
            h.send_header("X-Error-Code", code)
        if commit:
            h.send_header("X-Repo-Commit", commit)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        if not head:
            h.wfile.write(body)
