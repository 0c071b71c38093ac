#!/usr/bin/env python3
"""Drive real coding-agent CLIs against the fake provider and keep what they print.

    python3 harness/drive.py --install                 # npm install the pins (needs the registry)
    python3 harness/drive.py --run [--cli C]... [--scenario S]... [--mode tui|headless]
    python3 harness/drive.py --manifest                # rebuild testdata/clients/manifest.tsv
    python3 harness/drive.py --drift [--latest] [--cli C] [--scenario S]
    python3 harness/drive.py --install --at codex=0.145.0   # another release than the pin
    python3 harness/drive.py --run --at codex=0.145.0 --cli codex --out DIR

`--run` re-executes this script under `unshare --net --mount`: inside, only the
loopback interface exists. Every launch of a third-party CLI goes through
`launch_guard()`, which refuses to start anything when /sys/class/net (sysfs
remounted for the new namespace) or /proc/self/net/dev shows an interface other
than `lo`. See harness/README.md.

Standard library only.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

from fake_provider import DIALECTS, PLAN_LIMITS, dialect_scenarios

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
FIXTURES = REPO / "testdata" / "clients"
CACHE = Path(os.environ.get("FAULTSIFT_HARNESS_CACHE", Path.home() / ".cache" / "faultsift-harness"))
NETDIR = "/sys/class/net"
PROCNET = "/proc/self/net/dev"
TAIL = 64 * 1024

# the committed regeneration runs these
DEFAULT_SCENARIOS = ["healthy", "overloaded", "rate-limit", "auth", "server-error", "unavailable", "refused", "hang"]
# ask for these with --scenario: the committed regeneration leaves them out
EXTRA_SCENARIOS = ("quota", "reset", "midstream", "bad-gateway", "dns", "forbidden", "gateway-timeout", "tls",
                   "too-long", "not-found", "payment", "account", "flaky", "side-down", "late-overloaded", "unreachable", "closed", "rate-limit-long",
                   "stream-overloaded", "stream-server-error", "stream-rate-limit", "cdn-timeout", "empty-503", "blocked",
                   "maintenance", "no-upstream", "upstream-reset", "stall", "cdn-rate-limit", "tool",
                   "write", "request-timeout", "proxy-auth", "disk-full",
                   *PLAN_LIMITS,
                   "proxy-down", "proxy-tunnel", "proxy-tunnel-auth")
# no fault at all: the answer (HEALTHY_RE) is what a run waits for, and no
# file is `visible` (in `tool` the tools' own output, in `write` the file the agent
# writes, looks like fault text on purpose)
NO_FAULT = ("healthy", "tool", "write")
# a fault the session is to get past: the run waits for the answer, and a
# file shows the fault text (visible) and whether the answer followed
GOT_PAST = ("flaky", "side-down")
# no tool in any request (aider edits through its own text formats): every
# request would be a side call of `side-down`, and `late-overloaded` would
# never reach its outage, so neither is run there
NO_TOOLS = ("aider",)
TOOL_ONLY = ("side-down", "late-overloaded")
# the agent calls tools: it may run them without asking (allow_tools), the pane is
# taller, the run longer, and the provider's answers are noted step by step
TOOL_SCENARIOS = ("tool", "write", "late-overloaded")
# every scenario, in the order of the results table's columns; those with a
# provider are fake_provider.SCENARIOS (a test holds the two together)
SCENARIOS = [*DEFAULT_SCENARIOS, *EXTRA_SCENARIOS]
# no provider listens in these (refused: a closed port; dns: a name that does not
# resolve; unreachable: an address the namespace has no route to; proxy-down: a
# proxy that is not there, before a name that does not resolve)
NO_PROVIDER = ("refused", "dns", "unreachable", "proxy-down")
# the session is told to use a forward proxy (HTTPS_PROXY and its siblings) for
# a provider whose name does not resolve: through the proxy or not, no answer
# comes. proxy-down: nothing listens at the proxy's port; proxy-tunnel: the proxy
# (fake_provider's proxy-tunnel) cannot reach the provider and answers 503.
# proxy-tunnel-auth: the proxy wants credentials the session lacks (407).
PROXY_SCENARIOS = ("proxy-down", "proxy-tunnel", "proxy-tunnel-auth")
DNS_HOST = "llm-provider.invalid"
# A private address (RFC 1918): the loopback-only namespace has no route to it,
# so a connect fails at once with ENETUNREACH, as on a machine whose network is down.
UNREACHABLE_HOST = "10.255.255.1"
HANG_MARKS = (10, 30, 60, 90)
CAP_S = 90
# scenarios whose runs need longer than CAP_S unless --cap says otherwise (`tool`: three turns
# and two commands; opencode took 74 s for one healthy turn)
SCENARIO_CAP_S = {"tool": 240, "write": 240, "late-overloaded": 240}
CAP = int(os.environ.get("FAULTSIFT_HARNESS_CAP", CAP_S))  # --cap sets it for the inner process
WIDTH_COLS = 120
WIDTH = int(os.environ.get("FAULTSIFT_HARNESS_WIDTH", WIDTH_COLS))  # --width sets it for the inner process
HEIGHT_ROWS = 40
# taller panes: `tool` has three turns and two tool blocks, and a full-screen TUI
# (opencode) keeps no scrollback, so its pane holds only what fits on the screen
SCENARIO_ROWS = {"tool": 60, "write": 60, "late-overloaded": 60}
# `tool`, `write`: the key that shows the tools' output in full (Claude Code's
# transcript view, Gemini CLI's and Qwen Code's Ctrl+O, Copilot CLI's "toggle all
# timeline", the OpenHands CLI's "Toggle Cells", which opens every collapsed `▶`
# cell), pressed after the run; the screen then is `<scenario>.pane-expanded`.
# Not Codex's Ctrl+T: it opens a full-screen transcript overlay with a layout
# of its own (`$ cmd`, the output at the left edge, no glyph), a screen a person
# opens and no capture of the session's main view shows; faultsift does not
# read it as a tool's output (GUIDE, "Known limits").
EXPAND_KEYS = {"claude": "C-o", "gemini": "C-o", "qwen": "C-o", "copilot": "C-o", "openhands": "C-o"}
PROMPT = "Reply with one short sentence: what is 2+2?"

# What an orchestrator should do, and the kind, per scenario (README explains).
EXPECT = {
    "healthy": ("charge", "none"),
    "overloaded": ("pause", "overloaded_5xx"),
    "rate-limit": ("retry", "rate_limit"),
    "quota": ("pause", "quota_usage_limit"),
    "auth": ("pause", "auth"),
    "server-error": ("retry", "server_5xx"),
    "unavailable": ("pause", "server_5xx"),
    "refused": ("pause", "connection"),
    "hang": ("retry", "timeout"),
    "reset": ("pause", "connection"),
    "midstream": ("pause", "connection"),
    "bad-gateway": ("retry", "server_5xx"),
    "dns": ("pause", "connection"),
    "forbidden": ("pause", "auth"),
    "gateway-timeout": ("retry", "server_5xx"),
    "tls": ("pause", "tls"),
    "too-long": ("charge", "bad_request"),
    # the model does not exist: the session's configuration, not an outage
    "not-found": ("charge", "bad_request"),
    # the account cannot pay (402, or Google's billing disabled): a person must act
    "payment": ("pause", "quota"),
    # the provider refuses the account or organization with a 400 (disabled, not
    # verified for the model, a region it does not serve): a person must act
    "account": ("pause", "auth"),
    # overloaded twice, then answered: the session got past the outage
    "flaky": ("charge", "none"),
    # the side calls (titles, summaries, model lists, token counts) overloaded,
    # the conversation answered: nothing the session needed failed
    "side-down": ("charge", "none"),
    # the agent ran two commands, then the provider was overloaded: the outage
    # ended the session, whatever work came before it
    "late-overloaded": ("pause", "overloaded_5xx"),
    # a subscription plan's usage is spent (a window, paid extra usage, an admin's
    # setting): the clock or a person must act
    **{s: ("pause", "quota_usage_limit") for s in PLAN_LIMITS},
    # no route to the provider (the network or the VPN is down)
    "unreachable": ("pause", "connection"),
    # a proxy or load balancer in front of the provider dropped the request
    "closed": ("pause", "connection"),
    # a rate limit whose wait (ten minutes) outlasts the client's own retries
    "rate-limit-long": ("retry", "rate_limit"),
    # the answer began, then the provider said it is overloaded inside the stream
    "stream-overloaded": ("pause", "overloaded_5xx"),
    # the answer began, then the API failed internally inside the stream
    "stream-server-error": ("retry", "server_5xx"),
    # the answer began, then a rate limit arrived inside the stream
    "stream-rate-limit": ("retry", "rate_limit"),
    # a CDN in front of the provider gave up on it (524, outside the standard's list)
    "cdn-timeout": ("retry", "server_5xx"),
    # the service is down and the balancer says only the status
    "empty-503": ("pause", "server_5xx"),
    # a CDN firewall refuses the network the session runs from: a person must act
    "blocked": ("pause", "auth"),
    # the provider's front end is down for maintenance
    "maintenance": ("pause", "server_5xx"),
    # a gateway in front of the provider has no backend, or lost its connection to it
    "no-upstream": ("pause", "server_5xx"),
    "upstream-reset": ("pause", "server_5xx"),
    # the answer began, then the provider (or a proxy) went silent on an open connection
    "stall": ("retry", "timeout"),
    # a CDN in front of the provider rate-limits the client (Cloudflare's 1015)
    "cdn-rate-limit": ("retry", "rate_limit"),
    # a balancer in front of the provider timed the request out (408)
    "request-timeout": ("retry", "timeout"),
    # a proxy in the path wants credentials the session lacks (407): a person must act
    "proxy-auth": ("pause", "auth"),
    # the provider answers, but the disk that holds HOME, TMPDIR and the work tree
    # is full: the CLI cannot write its session, its logs or a file; a person must
    # free space, and another attempt on the same machine fails the same way
    "disk-full": ("pause", "disk"),
    # the forward proxy the session must use is down, or cannot reach the provider
    "proxy-down": ("pause", "connection"),
    "proxy-tunnel": ("pause", "connection"),
    # the proxy wants credentials the session lacks, CONNECT included: a person must act
    "proxy-tunnel-auth": ("pause", "auth"),
    # the agent ran two shell commands whose output looks like fault text, the second
    # failed (exit 1), then it answered: nothing failed in the environment
    "tool": ("charge", "none"),
    # the agent wrote a test fixture of provider error lines and edited it, then
    # answered: the file's text is the work's, nothing failed in the environment
    "write": ("charge", "none"),
}

# Text that shows the fault reached the output (used for `visible`, and to stop
# waiting early). Deliberately loose; `notes` say what was actually seen.
FAULT_RE = {
    # (each with the provider routes' own wording: Bedrock's exception
    # messages, Vertex AI's refusals, which the status words may not reach;
    # and the provider dialects': OpenRouter's, LiteLLM's, Ollama's, Z.ai's)
    "overloaded": r"(?i)overload|\b529\b|\b503\b|UNAVAILABLE|at capacity|unable to process your request|"
    r"server busy|provider returned error|访问量过大",
    "rate-limit": r"(?i)\b429\b|rate(?:.?|\s+)limit(?!s\b)|too many requests|RESOURCE_EXHAUSTED|resource has been exhausted|"
    r"速率限制",
    "quota": r"(?i)quota|credit balance|plan and billing|billing details|insufficient balance|budget has been exceeded",
    "auth": r"(?i)\b401\b|unauthori[sz]ed|authentication.?(error|failed|fails)|invalid.{0,20}api.?key|api key not valid|"
    r"incorrect api key|UNAUTHENTICATED|security token included in the request is invalid|"
    r"invalid authentication|user not found|invalid proxy server token",
    "server-error": r"(?i)\b500\b|internal server error|internal error|server had an error|high demand|"
    r"unexpected error during processing|process has terminated",
    "unavailable": r"(?i)\b503\b|unavailable|unable to process your request",
    "refused": r"(?i)ECONNREFUSED|connection refused|unable to connect|connection error|fetch failed|"
    r"error sending request|ConnectionRefused|Connect(ion)?Error|network error|cannot connect|could not connect|"
    r"failed to connect|waiting for network",
    "hang": r"(?i)timed out|ETIMEDOUT|deadline exceeded|request timeout|timeout error|API error · retrying",
    "reset": r"(?i)ECONNRESET|socket hang up|connection reset|\bterminated\b|fetch failed|network error|"
    r"connection error|error sending request|stream disconnected|closed unexpectedly|cannot connect",
    # Not the bare words `stream`, `closed`, `network`: opencode's own log says
    # `message=stream` for every healthy request.
    "midstream": r"(?i)premature|\bterminated\b|incomplete|connection closed|closed (?:unexpectedly|before)|"
    r"stream (?:error|disconnected|closed|ended)|connection error|ECONNRESET|network error|connection reset|"
    r"disconnected|unexpected EOF|decoding response body",
    "bad-gateway": r"(?i)\b502\b|bad gateway|provider returned error",
    "dns": r"(?i)ENOTFOUND|EAI_AGAIN|getaddrinfo|\bresolve|\bdns\b|connection error|fetch failed|unable to connect|"
    r"error sending request|waiting for network|cannot connect|could not connect",
    "forbidden": r"(?i)\b403\b|forbidden|permission_error|permission denied|does not have permission|not supported|"
    r"PERMISSION_DENIED|don't have access to the model|permission '[^']+' denied",
    "gateway-timeout": r"(?i)\b504\b|gateway time-?out",
    # A client that cannot tell a refused certificate from any failed connection
    # says only that (Codex: `error sending request`; Gemini CLI: `fetch failed`).
    "tls": r"(?i)certificate|self[- ]signed|\bSSL\b|\bTLS\b|UnknownIssuer|CERT_|handshake|fetch failed|"
    r"error sending request|connection error|unable to connect|network error|failed to connect|cannot connect|"
    r"waiting for network",
    "too-long": r"(?i)too long|maximum context|context (?:length|window)|exceeds the maximum|context_length_exceeded|"
    r"INVALID_ARGUMENT|input token count",
    "not-found": r"(?i)not[ _]found|does not exist|model_not_found|NOT_FOUND|ListModels|model identifier is invalid|"
    r"not a valid model",
    "payment": r"(?i)\b402\b|credit|billing|payment|BILLING_DISABLED|PERMISSION_DENIED|\b403\b|INVALID_PAYMENT_INSTRUMENT|"
    r"insufficient balance",
}
FAULT_RE["unreachable"] = (r"(?i)ENETUNREACH|network is unreachable|unreachable|connection error|fetch failed|"
                           r"unable to connect|error sending request|waiting for network|cannot connect|"
                           r"could not connect|failed to connect|os error 101")
FAULT_RE["closed"] = (r"(?i)socket hang up|other side closed|disconnected|empty reply|connection (?:closed|error|reset)|"
                      r"closed (?:unexpectedly|before)|ECONNRESET|fetch failed|error sending request|network error|"
                      r"incomplete message|unexpected EOF|\bterminated\b|stream disconnected|cannot connect")
FAULT_RE["disk-full"] = (r"(?i)ENOSPC|EDQUOT|no space left|disk (?:is )?full|out of (?:disk )?space|"
                         r"not enough (?:disk )?space|insufficient (?:disk )?space|os error 28|Errno 28|quota exceeded")
FAULT_RE["flaky"] = FAULT_RE["overloaded"]
FAULT_RE["side-down"] = FAULT_RE["overloaded"]
FAULT_RE["late-overloaded"] = FAULT_RE["overloaded"]
# (a status not after `,`, `.` or `:`: OpenHands' log stamps milliseconds `12:38:20,403`)
FAULT_RE["account"] = (r"(?i)(?<![,.:])\b40[03]\b|bad request|organization has been disabled|disabled organization|"
                       r"must be verified|verify organization|location is not supported|FAILED_PRECONDITION|"
                       r"permission_error|don't have access to the model|permission '[^']+' denied")
# a plan's usage spent: the CLIs' own limit messages (loose, as the rest)
for _s in PLAN_LIMITS:
    FAULT_RE[_s] = (FAULT_RE["quota"] + r"|hit your|usage limit|out of usage|usage credits|spend limit|"
                    r"usage allocation|upgrade to plus|\b429\b|rate.?limit")
FAULT_RE["rate-limit-long"] = FAULT_RE["rate-limit"]
FAULT_RE["cdn-timeout"] = r"(?i)\b524\b|a timeout occurred|timed out|timeout"
FAULT_RE["empty-503"] = FAULT_RE["unavailable"]
# (not `unable to access`: git says it of a clone that cannot reach GitHub)
FAULT_RE["blocked"] = r"(?i)\b403\b|forbidden|have been blocked|attention required"
FAULT_RE["maintenance"] = FAULT_RE["unavailable"] + r"|maintenance"
FAULT_RE["no-upstream"] = FAULT_RE["unavailable"] + r"|no healthy upstream"
FAULT_RE["stall"] = (FAULT_RE["hang"] + r"|idle timeout|stopped arriving|stalled|incomplete|no response|"
                     r"stream (?:error|disconnected|closed|ended)|waiting for api response")
FAULT_RE["cdn-rate-limit"] = FAULT_RE["rate-limit"] + r"|error code: 1015|\b1015\b"
FAULT_RE["request-timeout"] = FAULT_RE["hang"] + r"|\b408\b|request time-?out"
FAULT_RE["proxy-auth"] = r"(?i)\b407\b|proxy auth|cache access denied|proxy-authenticate"
FAULT_RE["upstream-reset"] = FAULT_RE["unavailable"] + r"|upstream connect error|disconnect/reset"
# or, where the client's SDK does not raise the in-stream error, the stream
# that ended without a finish (Gemini CLI: `Model stream ended without a finish reason.`)
STREAM_ENDED = r"|stream ended without|missing finish reason"
FAULT_RE["stream-overloaded"] = FAULT_RE["overloaded"] + STREAM_ENDED + r"|provider disconnected"
# (aider's own 80-column wrap can cut OpenAI's sentence after `server had`)
FAULT_RE["stream-server-error"] = (FAULT_RE["server-error"] + STREAM_ENDED
                                  + r"|error occurred while processing your request|api_error|server had\b")
FAULT_RE["stream-rate-limit"] = FAULT_RE["rate-limit"] + STREAM_ENDED + r"|throttl|rate_limit"
# through the proxy (its refusal, a failed tunnel) or, for a client that does not
# use one, the name that does not resolve
# (not `dns`'s `resolve`: Codex's skill instructions in its transcript say it)
FAULT_RE["proxy-down"] = FAULT_RE["refused"] + r"|proxy|tunnel|ENOTFOUND|EAI_AGAIN|getaddrinfo|dns error|name resolution"
FAULT_RE["proxy-tunnel"] = FAULT_RE["proxy-down"] + r"|\b503\b|service unavailable|could not be retrieved"
FAULT_RE["proxy-tunnel-auth"] = FAULT_RE["proxy-down"] + r"|\b407\b|proxy auth|cache access denied"
HEALTHY_RE = r"All 3 tests pass"


class NotIsolated(RuntimeError):
    """Raised instead of starting a CLI outside a loopback-only namespace."""


# ---------------------------------------------------------------------------
# the safety guard


def net_interfaces(netdir: str = NETDIR, procnet: str = PROCNET) -> tuple[list[str], list[str]]:
    sysfs = sorted(os.listdir(netdir)) if os.path.isdir(netdir) else []
    proc = []
    try:
        with open(procnet, encoding="ascii", errors="replace") as fh:
            for line in fh.readlines()[2:]:
                if ":" in line:
                    proc.append(line.split(":", 1)[0].strip())
    except OSError:
        pass
    return sysfs, sorted(proc)


def assert_loopback_only(netdir: str = NETDIR, procnet: str = PROCNET) -> None:
    sysfs, proc = net_interfaces(netdir, procnet)
    if sysfs != ["lo"] or proc != ["lo"]:
        raise NotIsolated(
            "refusing to start a CLI: network interfaces other than loopback are visible "
            f"({netdir}: {sysfs or 'none'}; {procnet}: {proc or 'none'}). "
            "Run through `drive.py --run`, which enters a loopback-only namespace."
        )


def launch_guard(argv, netdir: str = NETDIR, procnet: str = PROCNET, **popen_kw) -> subprocess.Popen:
    """The only way this script starts a third-party CLI (directly or via tmux)."""
    assert_loopback_only(netdir, procnet)
    return subprocess.Popen(argv, **popen_kw)


# ---------------------------------------------------------------------------
# versions and install


def load_versions(path: Path = HERE / "versions.toml") -> dict:
    with open(path, "rb") as fh:
        return tomllib.load(fh)


def pkg_dir(package: str, version: str) -> Path:
    return CACHE / "pkg" / f"{package.replace('/', '+')}@{version}"


def install(versions: dict, only=None) -> None:
    items = [("node", versions["node"])] + [(k, v) for k, v in versions["cli"].items()]
    for name, spec in items:
        if only and name != "node" and name not in only:
            continue
        d = pkg_dir(spec["package"], spec["version"])
        if spec.get("registry") == "pypi":
            install_pypi(spec, d)
            continue
        marker = d / "node_modules" / spec["package"] / "package.json"
        if marker.exists():
            print(f"install: {spec['package']}@{spec['version']} already in cache")
            continue
        d.mkdir(parents=True, exist_ok=True)
        print(f"install: {spec['package']}@{spec['version']}", flush=True)
        subprocess.run(
            ["npm", "install", "--prefix", str(d), "--no-audit", "--no-fund", "--loglevel=error",
             f"{spec['package']}@{spec['version']}"],
            check=True,
        )


def pypi_python(spec: dict) -> str:
    """The interpreter a Python CLI needs (`python` in its pin), else this one."""
    python = shutil.which(spec["python"]) if spec.get("python") else sys.executable
    if not python:
        raise SystemExit(f"{spec['package']} needs {spec['python']}, which is not on PATH")
    return python


def install_pypi(spec: dict, d: Path) -> None:
    """A Python CLI goes into a virtual environment of its own under the cache."""
    if cli_bin(spec).exists():
        print(f"install: {spec['package']}=={spec['version']} already in cache")
        return
    print(f"install: {spec['package']}=={spec['version']}", flush=True)
    subprocess.run([pypi_python(spec), "-m", "venv", str(d / "venv")], check=True)
    subprocess.run([str(d / "venv" / "bin" / "pip"), "install", "--quiet", "--disable-pip-version-check",
                    f"{spec['package']}=={spec['version']}"], check=True)


def latest_versions(versions: dict) -> dict:
    out = json.loads(json.dumps(versions))
    for spec in out["cli"].values():
        if spec.get("registry") == "pypi":
            # pip lists only the releases its own interpreter can install
            r = subprocess.run([pypi_python(spec), "-m", "pip", "index", "versions", spec["package"]],
                               capture_output=True, text=True)
            m = re.match(r"\S+ \(([^)]+)\)", r.stdout)
            if r.returncode == 0 and m:
                spec["version"] = m.group(1)
            continue
        r = subprocess.run(["npm", "view", spec["package"], "version"], capture_output=True, text=True)
        if r.returncode == 0 and r.stdout.strip():
            spec["version"] = r.stdout.strip().splitlines()[-1]
    return out


def node_bin_dir(versions: dict) -> Path:
    n = versions["node"]
    return pkg_dir(n["package"], n["version"]) / "node_modules" / n["package"] / "bin"


def cli_bin(spec: dict) -> Path:
    if spec.get("registry") == "pypi":
        return pkg_dir(spec["package"], spec["version"]) / "venv" / "bin" / spec["bin"]
    modules = pkg_dir(spec["package"], spec["version"]) / "node_modules"
    named = modules / ".bin" / spec["bin"]
    if named.exists():
        return named
    # An older release may declare its one binary under another name, and npm
    # then links no `.bin/<bin>`: @aaif/goose-binary-linux-x64 0.20.2 carries
    # goose 1.37.0 as `bin/goose` where 1.52.0 declares `goose-binary-linux-x64`.
    try:
        bins = json.loads((modules / spec["package"] / "package.json").read_text()).get("bin")
    except (OSError, ValueError):
        return named
    if isinstance(bins, dict) and len(bins) == 1:
        return modules / spec["package"] / next(iter(bins.values()))
    return named


# ---------------------------------------------------------------------------
# per-CLI wiring: files under the fresh HOME, environment, command lines


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


CLAUDE_KEY = "sk-ant-fake-anthropic-key-0000"


def setup_claude(home: Path, work: Path, base: str) -> dict:
    _write(
        home / ".claude.json",
        json.dumps(
            {
                "hasCompletedOnboarding": True,
                "lastOnboardingVersion": "9.9.9",
                "theme": "dark",
                "bypassPermissionsModeAccepted": True,
                "customApiKeyResponses": {"approved": [CLAUDE_KEY[-20:]], "rejected": []},
                "projects": {str(work): {"hasTrustDialogAccepted": True, "hasCompletedProjectOnboarding": True,
                                         "allowedTools": []}},
            }
        ),
    )
    _write(home / ".claude" / "settings.json", json.dumps({"autoUpdates": False}))
    return {
        "ANTHROPIC_BASE_URL": base,
        "ANTHROPIC_API_KEY": CLAUDE_KEY,
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
        "CLAUDE_CODE_MAX_RETRIES": "3",
        "API_TIMEOUT_MS": "60000",
    }


def setup_codex(home: Path, work: Path, base: str) -> dict:
    _write(
        home / ".codex" / "config.toml",
        f"""model = "fake-model-1"
model_provider = "fake"
approval_policy = "never"
sandbox_mode = "read-only"
check_for_update_on_startup = false

[model_providers.fake]
name = "Fake provider"
base_url = "{base}/v1"
env_key = "FAKE_OPENAI_API_KEY"
wire_api = "responses"
request_max_retries = 2
stream_max_retries = 2
stream_idle_timeout_ms = 60000

[projects."{work}"]
trust_level = "trusted"

[analytics]
enabled = false
""",
    )
    return {"FAKE_OPENAI_API_KEY": "sk-fake-openai-key-0000", "CODEX_HOME": str(home / ".codex")}


def setup_gemini(home: Path, work: Path, base: str) -> dict:
    settings = {
        "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}},
        "general": {"disableAutoUpdate": True, "disableUpdateNag": True, "enableAutoUpdate": False,
                    "enableAutoUpdateNotification": False, "maxAttempts": 3},
        "privacy": {"usageStatisticsEnabled": False},
        "model": {"name": "gemini-2.5-flash"},
        "ui": {"hideTips": True, "hideBanner": False},
        "ide": {"enabled": False},
    }
    _write(home / ".gemini" / "settings.json", json.dumps(settings, indent=1))
    return {
        "GOOGLE_GEMINI_BASE_URL": base,
        "GEMINI_API_KEY": "fake-gemini-key-0000",
        "GEMINI_CLI_NO_RELAUNCH": "true",
    }


def setup_qwen(home: Path, work: Path, base: str) -> dict:
    settings = {
        "security": {"auth": {"selectedType": "openai"}, "folderTrust": {"enabled": False}},
        "general": {"disableAutoUpdate": True, "disableUpdateNag": True, "enableAutoUpdate": False},
        "privacy": {"usageStatisticsEnabled": False},
        "model": {"name": "fake-model-1", "generationConfig": {"maxRetries": 2}},
        "ide": {"enabled": False},
    }
    _write(home / ".qwen" / "settings.json", json.dumps(settings, indent=1))
    return {
        "OPENAI_BASE_URL": base + "/v1",
        "OPENAI_API_KEY": "sk-fake-qwen-key-0000",
        "OPENAI_MODEL": "fake-model-1",
        "QWEN_DEFAULT_AUTH_TYPE": "openai",
    }


def _opencode_config(home: Path, model: str, provider: dict) -> None:
    """opencode's config file: no updates or sharing, `model`, the `provider` table."""
    cfg = {"$schema": "https://opencode.ai/config.json", "autoupdate": False, "share": "disabled",
           "model": model, "provider": provider}
    _write(home / ".config" / "opencode" / "opencode.json", json.dumps(cfg, indent=1))


def setup_opencode(home: Path, work: Path, base: str) -> dict:
    _opencode_config(home, "fake/fake-model-1", {
        "fake": {
            "npm": "@ai-sdk/openai-compatible",
            "name": "Fake provider",
            "options": {"baseURL": base + "/v1", "apiKey": "sk-fake-opencode-key-0000"},
            "models": {"fake-model-1": {"name": "Fake Model 1"}},
        }
    })
    return {"OPENCODE_DISABLE_AUTOUPDATE": "true", "OPENCODE_DISABLE_MODELS_FETCH": "true",
            "OPENCODE_DISABLE_SHARE": "true"}


def setup_copilot(home: Path, work: Path, base: str) -> dict:
    return {
        "COPILOT_PROVIDER_BASE_URL": base + "/v1",
        "COPILOT_PROVIDER_TYPE": "openai",
        "COPILOT_PROVIDER_API_KEY": "sk-fake-copilot-key-0000",
        "COPILOT_MODEL": "fake-model-1",
        "COPILOT_OFFLINE": "true",
        "COPILOT_AUTO_UPDATE": "false",
        "COPILOT_ALLOW_ALL": "true",
    }


def setup_aider(home: Path, work: Path, base: str) -> dict:
    # Aider reads every option from an AIDER_* variable; litellm's model map
    # stays the packaged one (it would fetch a newer one at start). Aider
    # still tries to fetch its own copy of that map and prints the failure
    # at start, as it does for any user without that host: a healthy run
    # shows it, and it must be charged.
    return {
        "AIDER_MODEL": "openai/fake-model-1",
        "OPENAI_API_BASE": base + "/v1",
        "OPENAI_API_KEY": "sk-fake-aider-key-0000",
        "AIDER_YES_ALWAYS": "true",
        "AIDER_GIT": "false",
        "AIDER_CHECK_UPDATE": "false",
        "AIDER_ANALYTICS_DISABLE": "true",
        "AIDER_SHOW_MODEL_WARNINGS": "false",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    }


def setup_openhands(home: Path, work: Path, base: str) -> dict:
    # `--override-with-envs` makes the CLI take its model from LLM_*; it
    # still tries to clone its public skills at start and logs the failure,
    # as it does for any user without that host: a healthy run shows it.
    return {
        "LLM_MODEL": "openai/fake-model-1",
        "LLM_BASE_URL": base + "/v1",
        "LLM_API_KEY": "sk-fake-openhands-key-0000",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "OPENHANDS_SUPPRESS_BANNER": "1",
    }


def setup_goose(home: Path, work: Path, base: str) -> dict:
    # goose reads its provider from GOOSE_PROVIDER and the OpenAI provider's
    # host from OPENAI_HOST (it appends v1/chat/completions); no keyring in a
    # fresh HOME, no telemetry prompt, and no tool asks for approval.
    return {
        "GOOSE_PROVIDER": "openai",
        "GOOSE_MODEL": "fake-model-1",
        "OPENAI_HOST": base,
        "OPENAI_API_KEY": "sk-fake-goose-key-0000",
        "GOOSE_DISABLE_KEYRING": "1",
        "GOOSE_TELEMETRY_ENABLED": "false",
        "GOOSE_MODE": "auto",
        "GOOSE_CLI_THEME": "dark",
    }


# ---------------------------------------------------------------------------
# provider routes: the same CLI reaching its model another way (a cloud that
# carries Anthropic's API, or the CLI's Anthropic or Google provider in place
# of an OpenAI-compatible one). Each SDK words the same failure its own way.

ANTHROPIC_MODEL = "claude-sonnet-4-5"


def setup_claude_bedrock(home: Path, work: Path, base: str) -> dict:
    # CLAUDE_CODE_SKIP_BEDROCK_AUTH: no AWS credentials, no request signing
    env = {k: v for k, v in setup_claude(home, work, base).items() if not k.startswith("ANTHROPIC_")}
    return env | {"CLAUDE_CODE_USE_BEDROCK": "1", "ANTHROPIC_BEDROCK_BASE_URL": base,
                  "CLAUDE_CODE_SKIP_BEDROCK_AUTH": "1", "AWS_REGION": "us-east-1"}


def setup_claude_plan(home: Path, work: Path, base: str) -> dict:
    # a Claude subscription's sign-in instead of an API key: the long-lived token
    # `claude setup-token` prints, in the variable Claude Code reads it from
    env = {k: v for k, v in setup_claude(home, work, base).items() if k != "ANTHROPIC_API_KEY"}
    return env | {"CLAUDE_CODE_OAUTH_TOKEN": "sk-ant-oat01-" + "fake" * 20}


def setup_claude_vertex(home: Path, work: Path, base: str) -> dict:
    # the SDK appends projects/…/locations/…/publishers/anthropic/models/M:streamRawPredict
    env = {k: v for k, v in setup_claude(home, work, base).items() if not k.startswith("ANTHROPIC_")}
    return env | {"CLAUDE_CODE_USE_VERTEX": "1", "ANTHROPIC_VERTEX_BASE_URL": base + "/v1",
                  "CLAUDE_CODE_SKIP_VERTEX_AUTH": "1", "ANTHROPIC_VERTEX_PROJECT_ID": "fake-project",
                  "CLOUD_ML_REGION": "us-east5"}


def setup_gemini_vertex(home: Path, work: Path, base: str) -> dict:
    # Vertex AI's express mode: an API key, no project; @google/genai takes
    # the endpoint from GOOGLE_VERTEX_BASE_URL
    env = setup_gemini(home, work, base)
    settings = json.loads((home / ".gemini" / "settings.json").read_text())
    settings["security"]["auth"]["selectedType"] = "vertex-ai"
    _write(home / ".gemini" / "settings.json", json.dumps(settings, indent=1))
    del env["GOOGLE_GEMINI_BASE_URL"], env["GEMINI_API_KEY"]
    return env | {"GOOGLE_GENAI_USE_VERTEXAI": "true", "GOOGLE_VERTEX_BASE_URL": base,
                  "GOOGLE_API_KEY": "fake-vertex-key-0000"}


def setup_opencode_anthropic(home: Path, work: Path, base: str) -> dict:
    # opencode's own Anthropic provider (@ai-sdk/anthropic), its endpoint moved
    env = setup_opencode(home, work, base)
    _opencode_config(home, "anthropic/" + ANTHROPIC_MODEL,
                     {"anthropic": {"options": {"baseURL": base + "/v1", "apiKey": CLAUDE_KEY}}})
    return env


def setup_aider_anthropic(home: Path, work: Path, base: str) -> dict:
    # litellm's Anthropic handler (AnthropicException), not its OpenAI one
    env = {k: v for k, v in setup_aider(home, work, base).items() if not k.startswith("OPENAI_")}
    return env | {"AIDER_MODEL": "anthropic/" + ANTHROPIC_MODEL, "ANTHROPIC_API_BASE": base,
                  "ANTHROPIC_API_KEY": CLAUDE_KEY}


def setup_openhands_anthropic(home: Path, work: Path, base: str) -> dict:
    return setup_openhands(home, work, base) | {"LLM_MODEL": "anthropic/" + ANTHROPIC_MODEL, "LLM_BASE_URL": base,
                                                "LLM_API_KEY": CLAUDE_KEY}


def setup_qwen_anthropic(home: Path, work: Path, base: str) -> dict:
    # Qwen Code's `anthropic` auth type: its Anthropic content generator
    env = {k: v for k, v in setup_qwen(home, work, base).items() if not k.startswith("OPENAI_")}
    settings = json.loads((home / ".qwen" / "settings.json").read_text())
    settings["security"]["auth"]["selectedType"] = "anthropic"
    settings["model"]["name"] = ANTHROPIC_MODEL
    _write(home / ".qwen" / "settings.json", json.dumps(settings, indent=1))
    return env | {"QWEN_DEFAULT_AUTH_TYPE": "anthropic", "ANTHROPIC_BASE_URL": base, "ANTHROPIC_API_KEY": CLAUDE_KEY,
                  "ANTHROPIC_MODEL": ANTHROPIC_MODEL}


def setup_copilot_anthropic(home: Path, work: Path, base: str) -> dict:
    # Copilot CLI's bring-your-own-key provider of type `anthropic`
    return setup_copilot(home, work, base) | {"COPILOT_PROVIDER_TYPE": "anthropic", "COPILOT_PROVIDER_BASE_URL": base,
                                              "COPILOT_PROVIDER_API_KEY": CLAUDE_KEY, "COPILOT_MODEL": ANTHROPIC_MODEL}


# Bedrock's model id as the Converse API names it; fake keys, which the fake
# provider never checks (the SDKs sign with them, or send the bearer token)
BEDROCK_MODEL = "anthropic.claude-sonnet-4-5-20250929-v1:0"
AWS_FAKE = {"AWS_ACCESS_KEY_ID": "AKIAFAKEFAKEFAKE0000", "AWS_SECRET_ACCESS_KEY": "fake-secret-key-0000",
            "AWS_REGION": "us-east-1", "AWS_DEFAULT_REGION": "us-east-1", "AWS_EC2_METADATA_DISABLED": "true"}


def setup_opencode_bedrock(home: Path, work: Path, base: str) -> dict:
    # opencode's `amazon-bedrock` provider (@ai-sdk/amazon-bedrock, Converse),
    # its `endpoint` option moved; the bearer token needs no signing
    env = setup_opencode(home, work, base)
    _opencode_config(home, "amazon-bedrock/" + BEDROCK_MODEL,
                     {"amazon-bedrock": {"options": {"region": "us-east-1", "endpoint": base}}})
    return env | {"AWS_BEARER_TOKEN_BEDROCK": "fake-bedrock-token-0000", "AWS_REGION": "us-east-1"}


def setup_goose_bedrock(home: Path, work: Path, base: str) -> dict:
    # goose's `aws_bedrock` provider (the AWS SDK for Rust), its endpoint moved
    env = {k: v for k, v in setup_goose(home, work, base).items() if not k.startswith("OPENAI_")}
    return env | AWS_FAKE | {"GOOSE_PROVIDER": "aws_bedrock", "GOOSE_MODEL": BEDROCK_MODEL,
                             "AWS_ENDPOINT_URL_BEDROCK_RUNTIME": base, "AWS_ENDPOINT_URL": base}


def setup_openhands_bedrock(home: Path, work: Path, base: str) -> dict:
    return setup_openhands(home, work, base) | AWS_FAKE | {
        "LLM_MODEL": "bedrock/" + BEDROCK_MODEL, "LLM_BASE_URL": base, "AWS_REGION_NAME": "us-east-1",
        "AWS_BEDROCK_RUNTIME_ENDPOINT": base}


# (cli, route) -> setup; `--route R` runs the CLIs that have R, into `<cli>@<version>+R`
ROUTES = {
    ("claude", "bedrock"): setup_claude_bedrock,
    ("claude", "vertex"): setup_claude_vertex,
    ("claude", "plan"): setup_claude_plan,
    ("opencode", "bedrock"): setup_opencode_bedrock,
    ("goose", "bedrock"): setup_goose_bedrock,
    ("openhands", "bedrock"): setup_openhands_bedrock,
    ("gemini", "vertex"): setup_gemini_vertex,
    ("opencode", "anthropic"): setup_opencode_anthropic,
    ("aider", "anthropic"): setup_aider_anthropic,
    ("openhands", "anthropic"): setup_openhands_anthropic,
    ("qwen", "anthropic"): setup_qwen_anthropic,
    ("copilot", "anthropic"): setup_copilot_anthropic,
}


def setup_of(cli: str, spec: dict):
    """The setup of `cli` on the route `spec` names (its default without one)."""
    route = spec.get("route")
    return ROUTES[(cli, route)] if route else CLIS[cli][0]


# provider dialects: the CLIs whose default setup speaks the OpenAI-compatible
# API, which a third-party provider or gateway serves with its own error
# bodies (fake_provider.DIALECTS); `--dialect D` runs them into `<cli>@<version>+D`
DIALECT_CLIS = ("codex", "qwen", "opencode", "copilot", "aider", "openhands", "goose")


def fixture_dir_name(cli: str, spec: dict) -> str:
    """`<cli>@<version>`, then `+<route>` or `+<dialect>`, then `+<locale>` (`zh_CN`)."""
    tails = [spec.get("route") or spec.get("dialect"), spec.get("locale", "").split(".")[0]]
    return f"{cli}@{spec['version']}" + "".join(f"+{t}" for t in tails if t)


# `write`: Codex's metadata for fake-model-1 (`model_catalog_json`), so that its
# requests offer the freeform `apply_patch` tool
CODEX_MODEL_INFO = {
    "slug": "fake-model-1",
    "display_name": "Fake Model 1",
    "description": "the faultsift harness's fake model",
    "supported_reasoning_levels": [],
    "shell_type": "unified_exec",
    "visibility": "list",
    "supported_in_api": True,
    "priority": 1,
    "upgrade": None,
    "base_instructions": "You are a coding agent running in a terminal.",
    "supports_reasoning_summaries": False,
    "support_verbosity": False,
    "default_verbosity": None,
    "apply_patch_tool_type": "freeform",
    "truncation_policy": {"mode": "bytes", "limit": 10000},
    "supports_parallel_tool_calls": False,
    "context_window": 128000,
    "experimental_supported_tools": [],
}


def allow_tools(cli: str, home: Path, work: Path, scenario: str = "tool") -> list[str]:
    """`tool`, `write`: let the CLI run its shell and file tools without asking
    (the setup has written its config already); the options to add after the
    program's name."""
    if cli == "claude":
        # `--dangerously-skip-permissions` refuses to run as root; an allow rule does
        # not. The default mode, as "auto" (2.1.3xx's own default) sets such rules
        # aside and asks its server-side classifier, which the fake provider is not.
        path = home / ".claude" / "settings.json"
        settings = json.loads(path.read_text())
        settings["permissions"] = {"defaultMode": "default", "allow": ["Bash", "Write", "Edit"]}
        path.write_text(json.dumps(settings))
        # and no "Make auto mode your default permission mode?" dialog after the turn
        path = home / ".claude.json"
        path.write_text(json.dumps(dict(json.loads(path.read_text()), hasSeenAutoDefaultNudge=True)))
    elif cli == "codex":
        # approval_policy is `never` already; no sandbox either, so that what the
        # command prints is its own output, not a sandbox's refusal
        path = home / ".codex" / "config.toml"
        path.write_text(path.read_text().replace('sandbox_mode = "read-only"', 'sandbox_mode = "danger-full-access"'))
        if scenario == "write":
            # Codex offers its `apply_patch` tool only to models whose metadata asks
            # for it; fake-model-1 has none: a catalog of its own gives it some
            catalog = home / ".codex" / "models.json"
            catalog.write_text(json.dumps({"models": [CODEX_MODEL_INFO]}, indent=1))
            text = path.read_text().replace('model_provider = "fake"\n', 'model_provider = "fake"\n'
                                            f'model_catalog_json = "{catalog}"\n')
            path.write_text(text)
    elif cli in ("gemini", "qwen"):
        return ["--yolo"]
    elif cli == "opencode":
        path = home / ".config" / "opencode" / "opencode.json"
        cfg = json.loads(path.read_text())
        cfg["permission"] = {"bash": "allow", "edit": "allow", "external_directory": "allow"}
        path.write_text(json.dumps(cfg, indent=1))
    elif cli == "copilot":
        return ["--allow-all-tools"]
    return []


# Headless variants run for the log file the CLI writes under HOME, kept as
# `{scenario}.{variant}.log`: Claude Code's debug log, Copilot CLI's process log.
LOG_VARIANTS = {
    ("claude", "debug"): ".claude/debug/*.txt",
    ("copilot", "process"): ".copilot/logs/*.log",
}

# name -> (setup, tui argv, [(variant, argv, stdout form)], transcript globs under HOME)
CLIS = {
    "claude": (
        setup_claude,
        ["{bin}", PROMPT],
        [
            ("stream-json", ["{bin}", "-p", PROMPT, "--output-format", "stream-json", "--verbose"], "jsonl"),
            # one line at exit: a JSON array of every message, the result last
            ("json", ["{bin}", "-p", PROMPT, "--output-format", "json", "--verbose"], "json"),
            # the default text output a shell pipeline logs: the result's text
            ("text", ["{bin}", "-p", PROMPT], "stdout"),
            # the debug log (~/.claude/debug/<session>.txt) is what is kept of this run
            ("debug", ["{bin}", "-p", PROMPT, "--debug"], "out"),
        ],
        [".claude/projects/*/*.jsonl"],
    ),
    "codex": (
        setup_codex,
        ["{bin}", PROMPT],
        [
            ("exec-json", ["{bin}", "exec", "--json", "--skip-git-repo-check", PROMPT], "jsonl"),
            # the human output a CI job logs: the answer on stdout, progress,
            # warnings and `ERROR: …` on stderr
            ("exec", ["{bin}", "exec", "--skip-git-repo-check", PROMPT], "stdout"),
        ],
        [".codex/sessions/**/*.jsonl"],
    ),
    "gemini": (
        setup_gemini,
        ["{bin}", "-i", PROMPT],
        [
            ("json", ["{bin}", "-p", PROMPT, "--output-format", "json"], "json"),
            ("stream-json", ["{bin}", "-p", PROMPT, "--output-format", "stream-json"], "jsonl"),
            # the default text output: the answer on stdout, errors on stderr
            ("text", ["{bin}", "-p", PROMPT], "stdout"),
        ],
        [".gemini/tmp/*/chats/*.json*", ".gemini/tmp/*/chats/*/*.json*"],
    ),
    "qwen": (
        setup_qwen,
        ["{bin}", "-i", PROMPT],
        [
            ("text", ["{bin}", "-p", PROMPT], "stdout"),
            ("stream-json", ["{bin}", "-p", PROMPT, "--output-format", "stream-json"], "jsonl"),
            # one line at exit: a JSON array of every message, the result last
            ("json", ["{bin}", "-p", PROMPT, "--output-format", "json"], "json"),
        ],
        [".qwen/tmp/*/chats/*.jsonl", ".qwen/projects/*/chats/*.jsonl"],
    ),
    "opencode": (
        setup_opencode,
        ["{bin}", "--prompt", PROMPT],
        [
            ("run-json", ["{bin}", "run", "--format", "json", PROMPT], "jsonl"),
            # the default human output of `opencode run`
            ("run", ["{bin}", "run", PROMPT], "stdout"),
        ],
        [".local/share/opencode/storage/message/*/*.json", ".local/share/opencode/log/*.log",
         ".local/share/opencode/*.db"],
    ),
    "copilot": (
        setup_copilot,
        ["{bin}", "-i", PROMPT],
        [
            ("text", ["{bin}", "-p", PROMPT], "stdout"),
            ("json", ["{bin}", "-p", PROMPT, "--output-format", "json"], "jsonl"),
            # the process log (~/.copilot/logs/process-*.log) is what is kept of this run
            ("process", ["{bin}", "-p", PROMPT, "--log-level", "all"], "out"),
        ],
        [".copilot/session-state/*/events.jsonl"],
    ),
    # `--message` runs one prompt and exits, in the pane as in a pipeline;
    # aider keeps its chat history in the work tree, not under HOME.
    "aider": (
        setup_aider,
        ["{bin}", "--message", PROMPT],
        [("text", ["{bin}", "--no-pretty", "--message", PROMPT], "stdout")],
        [],
    ),
    "openhands": (
        setup_openhands,
        ["{bin}", "--override-with-envs", "--always-approve", "--exit-without-confirmation", "-t", PROMPT],
        [
            ("text", ["{bin}", "--override-with-envs", "--headless", "-t", PROMPT], "stdout"),
            ("json", ["{bin}", "--override-with-envs", "--headless", "--json", "-t", PROMPT], "jsonl"),
            # as a CI job runs it: the agent SDK then logs JSON records, not
            # Rich rows, on standard error (its setup_logging reads CI)
            ("ci", ["env", "CI=true", "{bin}", "--override-with-envs", "--headless", "-t", PROMPT], "stdout"),
        ],
        [],
    ),
    # `run -t` runs one prompt and exits, as a loop or a CI job runs goose; its
    # log (JSON lines of tracing events) is the run's record.
    "goose": (
        setup_goose,
        ["{bin}", "run", "--no-session", "-t", PROMPT],
        [
            ("text", ["{bin}", "run", "--no-session", "-t", PROMPT], "stdout"),
            ("stream-json", ["{bin}", "run", "--no-session", "--output-format", "stream-json", "-t", PROMPT], "jsonl"),
        ],
        [".local/state/goose/logs/cli/**/*.log"],
    ),
}


# ---------------------------------------------------------------------------
# scrubbing and cutting


def scrub(data: bytes, subs: list[tuple[str, str]]) -> bytes:
    """`data` with paths, ports, hosts and keys replaced, row by row; a row that
    a replacement lengthened gives back as many of its trailing blanks, so that
    a pane row padded to the pane's width stays that wide."""
    rows = data.decode("utf-8", errors="surrogateescape").split("\n")
    out = []
    for row in rows:
        new = _scrub_text(row, subs)
        grown = len(new) - len(row)
        if grown > 0:
            blanks = len(new) - len(new.rstrip(" "))
            new = new[: len(new) - min(grown, blanks)]
        out.append(new)
    return "\n".join(out).encode("utf-8", errors="surrogateescape")


def _scrub_text(text: str, subs: list[tuple[str, str]]) -> str:
    for old, new in subs:
        if old:
            text = text.replace(old, new)
    # CLIs that try to reach a package registry at start log its address: not kept
    text = re.sub(r"\bhttps?://registry\.[A-Za-z0-9.-]+", "<REGISTRY>", text)
    text = re.sub(r"fsh-[A-Za-z0-9_]{8}", "<RUNS>", text)
    text = re.sub(r"fsrun-[A-Za-z0-9_]{8}", "<RUN>", text)
    text = re.sub(r"\b(?:%s)-(?:%s)-[A-Za-z0-9_]{8}\b" % ("|".join(CLIS), "|".join(SCENARIOS)), "<RUN>", text)
    text = re.sub(r"(?<![\w.<])/root(?=/)", "<USERHOME>", text)
    text = re.sub(r"/root(?=/(?:\.\.\.|\.cache|\.local|\.config|\.npm)/)", "<USERHOME>", text)
    host = socket.gethostname()
    if len(host) >= 4:
        text = re.sub(r"(?<![\w.-])%s(?![\w-])" % re.escape(host), "<HOST>", text)
    elif host:
        # a short name only where a field names it (the OpenHands SDK's terminal
        # observations carry `"hostname": …` in their metadata)
        text = re.sub(r'("hostname":\s*")%s(")' % re.escape(host), r"\1<HOST>\2", text)
    text = re.sub(r"127\.0\.0\.1:\d{2,5}", "127.0.0.1:<PORT>", text)
    text = re.sub(r"localhost:\d{2,5}", "localhost:<PORT>", text)
    text = re.sub(r"%s:\d{2,5}" % re.escape(DNS_HOST), DNS_HOST + ":<PORT>", text)
    text = re.sub(r"%s:\d{2,5}" % re.escape(UNREACHABLE_HOST), UNREACHABLE_HOST + ":<PORT>", text)
    text = re.sub(r"\bsk-[A-Za-z0-9_\-*]{8,}", "<FAKE_KEY>", text)
    text = re.sub(r"\bfake-[a-z]+-key-0000\b", "<FAKE_KEY>", text)
    text = re.sub(r"\bAIza[0-9A-Za-z_\-]{20,}", "<KEY>", text)
    text = re.sub(r"\bgh[pousr]_[A-Za-z0-9]{20,}", "<TOKEN>", text)
    text = re.sub(r"(?i)(bearer\s+)[A-Za-z0-9._\-]{12,}", r"\1<TOKEN>", text)
    return text


def shorten_records(data: bytes, line_max: int = 4096, str_max: int = 800) -> bytes:
    """In JSON Lines, shorten the long strings and lists of oversized records (tool
    lists, system prompts, attachments) so that the tail keeps whole records. A record
    still over 16 KiB keeps only its top-level scalar fields."""

    def cut(o, smax, lmax):
        if isinstance(o, str) and len(o) > smax:
            return o[: smax // 2] + f"…[harness: {len(o) - smax // 2} chars cut]"
        if isinstance(o, list):
            if len(o) > lmax:
                o = o[:lmax] + [f"…[harness: {len(o) - lmax} items cut]"]
            return [cut(v, smax, lmax) for v in o]
        if isinstance(o, dict):
            return {k: cut(v, smax, lmax) for k, v in o.items()}
        return o

    def dump(o) -> bytes:
        return json.dumps(o, ensure_ascii=False, separators=(",", ":")).encode()

    out = []
    for line in data.split(b"\n"):
        if len(line) > line_max:
            try:
                obj = json.loads(line)
            except ValueError:
                out.append(line)
                continue
            new = dump(cut(obj, str_max, 40))
            if len(new) > 4 * line_max:
                new = dump(cut(obj, 200, 10))
            if len(new) > 4 * line_max and isinstance(obj, dict):
                stub = {k: v for k, v in obj.items() if not isinstance(v, (dict, list))}
                stub["harness_cut"] = f"{len(line)} bytes; nested fields dropped"
                new = dump(cut(stub, str_max, 40))
            line = new
        out.append(line)
    return b"\n".join(out)


ANSI_RE = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-_]")


def plain(text: str) -> str:
    """Text without escape sequences, for the loose `visible` check."""
    return ANSI_RE.sub(" ", text)


def tail_at_line(data: bytes, limit: int = TAIL) -> bytes:
    if len(data) <= limit:
        return data
    cut = data[-limit:]
    for sep in (b"\n", b"\r"):
        i = cut.find(sep)
        if 0 <= i < len(cut) - 1:
            return cut[i + 1 :]
    return cut


# ---------------------------------------------------------------------------
# one run (inside the namespace)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Provider:
    def __init__(self, scenario: str, logdir: Path, dialect: str | None = None):
        self.scenario = scenario
        self.proc = None
        self.log = logdir / "provider.log"
        self.host = {"dns": DNS_HOST, "unreachable": UNREACHABLE_HOST}.get(scenario, "127.0.0.1")
        self.scheme = "https" if scenario == "tls" else "http"
        self.proxy_port = None
        if scenario in PROXY_SCENARIOS:
            # a provider as the Internet has it (HTTPS, a name), reached only
            # through the proxy; this server, if any, is the proxy
            self.host, self.scheme, self.port = DNS_HOST, "https", free_port()
            if scenario == "proxy-down":
                self.proxy_port = free_port()  # nothing will listen there
                return
        elif scenario in NO_PROVIDER:
            self.port = free_port()  # nothing will listen there
            return
        pf = logdir / "port"
        tls = []
        if scenario == "tls":
            # A certificate no client trusts, made for this run: what a proxy that
            # re-signs traffic presents.
            cert, key = logdir / "cert.pem", logdir / "key.pem"
            subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                            "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
            tls = ["--tls-cert", str(cert), "--tls-key", str(key)]
        self.proc = subprocess.Popen(
            [sys.executable, str(HERE / "fake_provider.py"), "--port", "0", "--scenario", scenario,
             "--log", str(self.log), "--port-file", str(pf), *tls,
             *(["--dialect", dialect] if dialect else [])],
            stdout=subprocess.DEVNULL,
            stderr=open(logdir / "provider.stderr", "wb"),
        )
        for _ in range(100):
            if pf.exists() and pf.read_text().strip():
                break
            time.sleep(0.05)
        if scenario in PROXY_SCENARIOS:
            self.proxy_port = int(pf.read_text())
        else:
            self.port = int(pf.read_text())

    def proxy_env(self) -> dict:
        """The variables that name the forward proxy, in both spellings the
        programs read (curl's lower case, the rest's upper case); none outside
        the proxy scenarios."""
        if self.proxy_port is None:
            return {}
        url = f"http://127.0.0.1:{self.proxy_port}"
        return {k: url for n in ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY") for k in (n, n.lower())}

    def requests(self) -> list[dict]:
        try:
            return [json.loads(x) for x in self.log.read_text().splitlines() if x.strip()]
        except OSError:
            return []

    def stop(self):
        if self.proc:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def base_env(home: Path, versions: dict, locale: str | None = None) -> dict:
    """The environment every CLI starts from: `locale` (`zh_CN.UTF-8`) for LANG and
    LC_ALL, the way a person's shell sets them, else C.UTF-8."""
    env = {
        "HOME": str(home),
        "USER": "user",
        "LOGNAME": "user",
        "PATH": f"{node_bin_dir(versions)}:/usr/local/bin:/usr/bin:/bin",
        "TERM": "xterm-256color",
        "LANG": locale or "C.UTF-8",
        "LC_ALL": locale or "C.UTF-8",
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "TMPDIR": str(home / "tmp"),
        "NO_UPDATE_NOTIFIER": "1",
        "COLORTERM": "truecolor",
    }
    (home / "tmp").mkdir(parents=True, exist_ok=True)
    return env


# `disk-full`: the size of each filesystem put under HOME and the work tree
# before it is filled; big enough for what the setup writes there
DISK_FULL_BYTES = 32 * 1024 * 1024


def fill_up(root: Path) -> None:
    """`disk-full`: move HOME and the work tree each onto a small tmpfs of this
    (private) mount namespace and fill it, so that every write the CLI makes
    under them fails with ENOSPC while the provider, its log and the fixtures,
    which live elsewhere under `root`, go on. `unmount_under` undoes it."""
    for d in (root / "home", root / "work"):
        src = d.with_name(d.name + ".src")
        d.rename(src)
        d.mkdir()
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={DISK_FULL_BYTES},mode=0755", "tmpfs", str(d)], check=True)
        subprocess.run(["cp", "-a", f"{src}/.", str(d)], check=True)
        shutil.rmtree(src)
        # unbuffered, so that nothing is left to flush (and fail) on close; the
        # last write is a short one that takes the space to the byte
        with open(d / ".fill", "wb", buffering=0) as fh:
            try:
                while fh.write(b"\0" * 65536):
                    pass
            except OSError:
                pass


def unmount_under(root: Path) -> None:
    """Unmount what `fill_up` mounted under `root` (deepest first)."""
    mounts = [ln.split()[1] for ln in Path("/proc/self/mounts").read_text().splitlines() if len(ln.split()) > 1]
    for m in sorted((m for m in mounts if m.startswith(str(root) + "/")), key=len, reverse=True):
        subprocess.run(["umount", "-l", m], check=False)


def make_workdir(root: Path, scenario: str = "") -> Path:
    work = root / "work"
    work.mkdir(parents=True)
    (work / "README.md").write_text("# demo\n\nA tiny project for the faultsift harness.\n")
    if scenario == "write":
        # the directory the fixture goes in (Copilot CLI's `create` makes no parent directory)
        (work / "fixtures").mkdir()
    return work


def tmux(sock: str, *args, check=True, capture=False):
    r = subprocess.run(["tmux", "-L", sock, *args], capture_output=True, text=True)
    if check and r.returncode != 0:
        raise RuntimeError(f"tmux {' '.join(args)}: {r.stderr.strip()}")
    return r.stdout if capture else r


def capture(sock: str, join: bool = True) -> str:
    """The screen with its scrollback; with join=False without `-J`: every row ends
    with a line break, a line wider than the pane is cut into rows WIDTH wide."""
    opts = ["-p", "-J"] if join else ["-p"]
    return tmux(sock, "capture-pane", *opts, "-S", "-", "-t", "h:0.0", capture=True, check=False)


def run_cap(scenario: str) -> int:
    """The run's time cap: --cap when given, else the scenario's own or CAP_S."""
    if "FAULTSIFT_HARNESS_CAP" in os.environ:
        return CAP
    return SCENARIO_CAP_S.get(scenario, CAP)


def cli_argv(cli: str, argv_t: list[str], spec: dict, home: Path, work: Path, scenario: str) -> list[str]:
    """The command line of a run; in `tool` and `write` with what lets the CLI run its tools."""
    extra = allow_tools(cli, home, work, scenario) if scenario in TOOL_SCENARIOS else []
    argv = [a.replace("{bin}", str(cli_bin(spec))) for a in argv_t]
    return argv[:1] + extra + argv[1:]


def run_tui(cli, spec, scenario, root, out, versions, log):
    _, tui_argv, _, _ = CLIS[cli]
    setup = setup_of(cli, spec)
    home, work = root / "home", make_workdir(root, scenario)
    prov = Provider(scenario, root, spec.get("dialect"))
    base = f"{prov.scheme}://{prov.host}:{prov.port}"
    env = base_env(home, versions, spec.get("locale"))
    env.update(setup(home, work, base))
    env.update(prov.proxy_env())
    if scenario == "disk-full":
        fill_up(root)
    argv = cli_argv(cli, tui_argv, spec, home, work, scenario)
    sock = f"faultsift-{os.getpid()}-{cli}-{scenario}"
    raw = out / f"{scenario}.raw"
    envfile = root / "env.sh"
    envfile.write_text("".join(f"export {k}={shq(v)}\n" for k, v in env.items()))
    script = root / "start.sh"
    script.write_text(f"cd {shq(str(work))}\n. {shq(str(envfile))}\nsleep 1\nexec {' '.join(shq(a) for a in argv)}\n")
    note = {}
    t0 = time.time()
    # tmux itself is started through the guard: the server it forks runs the CLI.
    p = launch_guard(["tmux", "-L", sock, "-f", "/dev/null", "new-session", "-d", "-s", "h", "-x", str(WIDTH),
                      "-y", str(SCENARIO_ROWS.get(scenario, HEIGHT_ROWS)), "sh", str(script)],
                     env={"PATH": env["PATH"], "TERM": "xterm-256color", "HOME": str(home), "LANG": "C.UTF-8"})
    p.wait()
    tmux(sock, "set-option", "-g", "history-limit", "5000", check=False)
    tmux(sock, "set-option", "-g", "remain-on-exit", "on", check=False)
    tmux(sock, "pipe-pane", "-o", "-t", "h:0.0", f"cat >> {shq(str(raw))}")
    fault = re.compile(FAULT_RE.get(scenario, HEALTHY_RE))
    done_re = re.compile(HEALTHY_RE) if scenario in (*NO_FAULT, *GOT_PAST) else fault
    if scenario == "disk-full":
        # a CLI that never writes where the disk is full just answers
        done_re = re.compile(f"{FAULT_RE[scenario]}|{HEALTHY_RE}")
    last, static_since, seen_at = None, time.time(), None
    marks = list(HANG_MARKS) if scenario == "hang" else []
    cap = run_cap(scenario)
    while True:
        time.sleep(1)
        el = time.time() - t0
        scr = capture(sock)
        if marks and el >= marks[0]:
            (out / f"{scenario}.pane.t{marks[0]:03d}").write_text(scr)
            marks.pop(0)
            if not marks:
                break
            continue
        if scr != last:
            last, static_since = scr, time.time()
        if scenario != "hang" and seen_at is None:
            m = done_re.search(screen_without_prompt(scr))
            if m:
                seen_at = el
                # keep the line: some CLIs show a fault only for a moment
                text = screen_without_prompt(scr)
                a, b = text.rfind("\n", 0, m.start()) + 1, text.find("\n", m.end())
                note["fault_seen_line"] = text[a : b if b >= 0 else None].strip()[:240]
        if seen_at is not None and time.time() - static_since >= 6:
            break
        if el >= cap:
            note["capped"] = cap
            break
        dead = tmux(sock, "display-message", "-p", "-t", "h:0.0", "#{pane_dead}", capture=True, check=False)
        if dead.strip() == "1" and time.time() - static_since >= 2:
            note["exited"] = True
            break
    final = capture(sock)
    (out / f"{scenario}.pane").write_text(final)
    (out / f"{scenario}.pane-nj").write_text(capture(sock, join=False))  # the timed hang captures keep -J only
    if scenario in TOOL_SCENARIOS and cli in EXPAND_KEYS and not note.get("exited"):
        tmux(sock, "send-keys", "-t", "h:0.0", EXPAND_KEYS[cli], check=False)
        time.sleep(3)
        (out / f"{scenario}.pane-expanded").write_text(capture(sock))
    tmux(sock, "kill-server", check=False)
    left = reap(root)
    if left:
        note["reaped"] = len(left)
    note["elapsed_s"] = round(time.time() - t0)
    note["fault_seen_s"] = None if seen_at is None else round(seen_at)
    collect_transcripts(cli, home, out, scenario, "tui")
    note["requests"] = summarize_requests(prov.requests())
    if scenario in TOOL_SCENARIOS:
        note["tool_steps"] = tool_steps(prov.requests())
    prov.stop()
    return note


def reap(root: Path) -> list[int]:
    """End what a run left behind (Codex starts an app-server daemon from a copy of
    itself under its HOME that outlives the TUI): every process whose command line
    or working directory lies under this run's directory, by pid."""
    mark = str(root)
    found = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit() or int(d.name) == os.getpid():
            continue
        try:
            cmd = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            cwd = os.readlink(d / "cwd")
        except OSError:
            continue
        if mark in cmd or cwd.startswith(mark):
            found.append(int(d.name))
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in found:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        if sig == signal.SIGTERM and found:
            time.sleep(1)
    return found


def screen_without_prompt(scr: str) -> str:
    return scr.replace(PROMPT, "")


def run_headless(cli, spec, scenario, root, out, versions, variant, argv_t, form):
    setup = setup_of(cli, spec)
    home, work = root / "home", make_workdir(root, scenario)
    prov = Provider(scenario, root, spec.get("dialect"))
    base = f"{prov.scheme}://{prov.host}:{prov.port}"
    env = base_env(home, versions, spec.get("locale"))
    env.update(setup(home, work, base))
    env.update(prov.proxy_env())
    if scenario == "disk-full":
        fill_up(root)
    env["TERM"] = "dumb"
    argv = cli_argv(cli, argv_t, spec, home, work, scenario)
    so = out / f"{scenario}.{variant}.{form}"
    se = out / f"{scenario}.{variant}.stderr"
    cap = min(60, CAP) if scenario == "hang" else run_cap(scenario)
    t0 = time.time()
    with open(so, "wb") as fo, open(se, "wb") as fe:
        p = launch_guard(argv, cwd=work, env=env, stdin=subprocess.DEVNULL, stdout=fo, stderr=fe,
                         start_new_session=True)
        note = {}
        try:
            note["exit"] = p.wait(cap)
        except subprocess.TimeoutExpired:
            note["capped"] = cap
            os.killpg(p.pid, signal.SIGTERM)
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
    left = reap(root)
    if left:
        note["reaped"] = len(left)
    note["elapsed_s"] = round(time.time() - t0)
    log_glob = LOG_VARIANTS.get((cli, variant))
    if log_glob:
        # the CLI's own log file, not the run's stdout (another variant has
        # that) nor its transcript (the same as the other variant's)
        logs = sorted(home.glob(log_glob), key=lambda p: p.stat().st_mtime)
        if logs:
            (out / f"{scenario}.{variant}.log").write_bytes(drop_wire_dumps(logs[-1].read_bytes()))
        so.unlink(missing_ok=True)
        se.unlink(missing_ok=True)
    else:
        collect_transcripts(cli, home, out, scenario, variant)
    note["requests"] = summarize_requests(prov.requests())
    if scenario in TOOL_SCENARIOS:
        note["tool_steps"] = tool_steps(prov.requests())
    prov.stop()
    return note


def drop_wire_dumps(data: bytes) -> bytes:
    """A log without the request bodies Copilot CLI dumps at `--log-level all`
    (`[rust:model_wire] Wire request: {` to the `}` that closes it): they
    hold the CLI's own system prompt and tool texts, which the fixtures must
    not copy, and no fault."""
    out, skipping = [], False
    for line in data.splitlines(keepends=True):
        if skipping:
            skipping = line.rstrip(b"\r\n") != b"}"
            continue
        if b"[rust:model_wire] Wire " in line and line.rstrip(b"\r\n").endswith(b"{"):
            skipping = True
            continue
        out.append(line)
    return b"".join(out)


def summarize_requests(reqs: list[dict]) -> str:
    counts: dict[str, int] = {}
    for r in reqs:
        key = f"{r['method']} {r['path'].split('?')[0]} {r.get('status')}"
        counts[key] = counts.get(key, 0) + 1
    return "; ".join(f"{k} x{v}" for k, v in counts.items())


def tool_steps(reqs: list[dict]) -> str:
    """`tool`, `write`: what the provider answered each generation request, in
    order (`call 1: Bash(command, description)`, …, `answer after 2 tool
    result(s)`), without the list of the request's tools."""
    steps = []
    for r in reqs:
        note = r.get("note") or ""
        if note.startswith("tool: "):
            step = note[len("tool: "):].split(" (tools: ")[0]
            m = re.match(r"(\d+) tool result\(s\), answer", step)
            steps.append(f"answer after {m.group(1)} tool result(s)" if m else step)
    return "; ".join(steps)


def collect_transcripts(cli, home: Path, out: Path, scenario: str, tag: str):
    files = []
    for pat in CLIS[cli][3]:
        files += [Path(p) for p in glob.glob(str(home / pat), recursive=True)]
    files = sorted(set(files), key=lambda p: p.stat().st_mtime)
    if not files:
        return
    if cli == "opencode":
        # >= 1.2 keeps sessions in SQLite: dump the message and part rows as JSON lines
        dbs = [f for f in files if f.suffix == ".db"]
        if dbs:
            rows = dump_opencode_db(dbs[-1])
            if rows:
                (out / f"{scenario}.{tag}.transcript.jsonl").write_text("\n".join(rows) + "\n")
        # message files (<= 1.1) are one JSON object each: keep them as JSON lines
        msgs = [f for f in files if f.suffix == ".json"]
        logs = [f for f in files if f.suffix == ".log"]
        if msgs:
            lines = []
            for f in msgs:
                try:
                    lines.append(json.dumps(json.loads(f.read_text())))
                except ValueError:
                    pass
            (out / f"{scenario}.{tag}.transcript.jsonl").write_text("\n".join(lines) + "\n")
        if logs:
            shutil.copy(logs[-1], out / f"{scenario}.{tag}.log")
        return
    if cli == "goose":
        # goose's tracing log (JSON lines), not a transcript: `run --no-session` keeps none
        shutil.copy(files[-1], out / f"{scenario}.{tag}.log")
        return
    src = files[-1]
    dest = out / f"{scenario}.{tag}.transcript{''.join(src.suffixes[-1:]) or '.jsonl'}"
    if dest.suffix == ".json":
        dest = dest.with_suffix(".json")
    shutil.copy(src, dest)


def dump_opencode_db(db: Path) -> list[str]:
    import sqlite3

    rows = []
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        tables = [r[0] for r in con.execute("select name from sqlite_master where type='table'")]
        for table in ("session", "message", "part"):
            if table not in tables:
                continue
            cur = con.execute(f"select * from {table}")
            cols = [c[0] for c in cur.description]
            for r in cur.fetchall():
                rec = {"table": table}
                for c, v in zip(cols, r):
                    if isinstance(v, str) and v[:1] in "{[":
                        try:
                            v = json.loads(v)
                        except ValueError:
                            pass
                    if isinstance(v, bytes):
                        v = v.decode("utf-8", "replace")
                    rec[c] = v
                rows.append(json.dumps(rec, ensure_ascii=False))
    finally:
        con.close()
    rows.sort(key=lambda x: json.loads(x).get("time_created") or 0)
    return rows


def shq(s: str) -> str:
    return "'" + s.replace("'", "'\\''") + "'"


def run_inner(args) -> int:
    # We are in fresh net + mount namespaces: give sysfs our view, bring lo up.
    subprocess.run(["mount", "-t", "sysfs", "sysfs", "/sys"], check=True)
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    assert_loopback_only()
    versions = json.loads(args.versions_json) if args.versions_json else load_versions()
    dest_root = Path(args.dest) if args.dest else FIXTURES
    clis = args.cli or list(CLIS)
    # a dialect's own scenarios by default: the others are OpenAI's answers again
    scenarios = args.scenario or (dialect_scenarios(args.dialect) if args.dialect else DEFAULT_SCENARIOS)
    modes = [args.mode] if args.mode else ["tui", "headless"]
    work_root = Path(tempfile.mkdtemp(prefix="fsh-", dir=str(CACHE / "runs") if (CACHE / "runs").is_dir() else None))
    for cli in clis:
        spec = versions["cli"][cli]
        if args.route:
            if (cli, args.route) not in ROUTES:
                print(f"skip {cli}: no route {args.route}", flush=True)
                continue
            spec = dict(spec, route=args.route)
        if args.dialect:
            if cli not in DIALECT_CLIS:
                print(f"skip {cli}: it does not speak the OpenAI-compatible API", flush=True)
                continue
            spec = dict(spec, dialect=args.dialect)
        if args.locale:
            spec = dict(spec, locale=args.locale)
        if not cli_bin(spec).exists():
            print(f"skip {cli}: {cli_bin(spec)} missing (run --install)", flush=True)
            continue
        out = dest_root / fixture_dir_name(cli, spec)
        staging = work_root / fixture_dir_name(cli, spec)
        staging.mkdir(parents=True, exist_ok=True)
        out.mkdir(parents=True, exist_ok=True)
        meta_path = out / "runs.json"
        for scenario in scenarios:
            if scenario in TOOL_ONLY and cli in NO_TOOLS:
                print(f"skip {cli} {scenario}: it offers the model no tools", flush=True)
                continue
            for mode in modes:
                jobs = []
                if mode == "tui":
                    jobs.append(("tui", None, None, None))
                else:
                    jobs += [("headless", v, a, f) for v, a, f in CLIS[cli][2] if args.variant in (None, v)]
                for kind, variant, argv_t, form in jobs:
                    # no scenario in the name: CLIs show the working directory, and the
                    # name must not look like fault text on screen
                    root = Path(tempfile.mkdtemp(prefix="fsrun-", dir=work_root))
                    label = "tui" if kind == "tui" else variant
                    print(f"run {fixture_dir_name(cli, spec)} {scenario} {label} ...", flush=True)
                    try:
                        if kind == "tui":
                            note = run_tui(cli, spec, scenario, root, staging, versions, None)
                        else:
                            note = run_headless(cli, spec, scenario, root, staging, versions, variant, argv_t, form)
                    except NotIsolated:
                        raise
                    except Exception as e:  # keep going with the next run
                        note = {"error": f"{type(e).__name__}: {e}"}
                    note = json.loads(scrub(json.dumps(note).encode(), path_subs(root)).decode())
                    print(f"    {json.dumps(note)}", flush=True)
                    publish(staging, out, scenario, label, root, args.no_scrub)
                    # re-read: another --run may have written notes for other scenarios meanwhile
                    meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}
                    meta[f"{scenario}.{label}"] = note
                    meta_path.write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n")
                    unmount_under(root)
                    if not args.keep:
                        shutil.rmtree(root, ignore_errors=True)
    write_manifest(dest_root)
    print(f"fixtures in {dest_root}")
    return 0


def size_limit(name: str) -> int:
    """Bytes kept of a fixture: the last 64 KiB, and 32 KiB of the bulky kinds
    (raw terminal streams, stderr with stack traces, transcripts), so that
    testdata/clients stays a few megabytes (7.9 MB on 2026-12-02)."""
    if name.endswith((".raw", ".stderr", ".log")) or ".transcript." in name:
        return TAIL // 2
    return TAIL


def cut_fixture(name: str, data: bytes) -> bytes:
    if "json" in name:
        data = shorten_records(data)
    return tail_at_line(data, size_limit(name))


def recut(root: Path = FIXTURES) -> None:
    for f in sorted(root.glob("*@*/*")):
        data = f.read_bytes()
        clean = scrub(data, [(str(CACHE), "<CACHE>")])
        new = clean if f.name == "runs.json" else cut_fixture(f.name, clean)
        if new != data:
            f.write_bytes(new)


def publish(staging: Path, out: Path, scenario: str, label: str, root: Path, keep_text: bool = False):
    """Scrub, cut and move one run's files from staging to the fixture dir
    (keep_text: not scrubbed, for scratch runs; scrubbing changes row widths)."""
    subs = path_subs(root)
    for f in staging.glob(f"{scenario}.*"):
        name = f.name
        mine = name.startswith(f"{scenario}.{label}.") or (
            label == "tui"
            and (name in (f"{scenario}.pane", f"{scenario}.pane-nj", f"{scenario}.pane-expanded", f"{scenario}.raw")
                 or ".pane.t" in name)
        )
        if not mine:
            continue
        data = f.read_bytes()
        (out / name).write_bytes(cut_fixture(name, data if keep_text else scrub(data, subs)))
        f.unlink()


def path_subs(root: Path) -> list[tuple[str, str]]:
    return [
        (str(root / "home" / "tmp"), "<TMP>"),
        (str(root / "work"), "<WORK>"),
        (re.sub(r"[^A-Za-z0-9]", "-", str(root / "work")), "<WORK_SLUG>"),
        (str(root / "home"), "<HOME>"),
        (str(root), "<RUN>"),
        (str(CACHE), "<CACHE>"),
        (str(root / "work").lstrip("/"), "<WORK>"),
        (str(root).lstrip("/"), "<RUN>"),
        (str(CACHE).lstrip("/"), "<CACHE>"),
    ]


# ---------------------------------------------------------------------------
# manifest


def form_of(name: str, scenario: str) -> str:
    rest = name[len(scenario) + 1 :]
    return rest


def write_manifest(root: Path = FIXTURES) -> Path:
    rows = []
    for d in sorted(p for p in root.iterdir() if p.is_dir() and "@" in p.name):
        cli, version = d.name.split("@", 1)
        meta = json.loads((d / "runs.json").read_text()) if (d / "runs.json").exists() else {}
        for f in sorted(d.iterdir()):
            if f.name == "runs.json":
                continue
            scenario = f.name.split(".", 1)[0]
            if scenario not in EXPECT:
                continue
            form = f.name[len(scenario) + 1 :]
            action, kind = EXPECT[scenario]
            data = plain(tail_at_line(f.read_bytes()).decode("utf-8", errors="replace"))
            if scenario in NO_FAULT:
                visible = "no"
                answered = "answer shown" if re.search(HEALTHY_RE, data) else "answer not in this file"
                extra = [answered]
            else:
                visible = "yes" if re.search(FAULT_RE[scenario], data.replace(PROMPT, "")) else "no"
                extra = []
                if scenario in GOT_PAST:
                    extra.append("answer shown" if re.search(HEALTHY_RE, data) else "answer not in this file")
                if scenario == "disk-full" and visible == "yes":
                    # A CLI that only warned of the full disk and then answered got
                    # past it (aider): the file shows a session that went on, which
                    # is charged, as `flaky`'s are; one whose notice stays below the
                    # answer (Claude Code's footer) or that died is the fault.
                    # A raw stream holds every repaint in the order it was drawn;
                    # its pane says what the screen ended with.
                    pane = d / f"{scenario}.pane"
                    seen = (plain(tail_at_line(pane.read_bytes()).decode("utf-8", errors="replace"))
                            if form == "raw" and pane.exists() else data)
                    faults = [m.end() for m in re.finditer(FAULT_RE[scenario], seen)]
                    if faults and re.search(HEALTHY_RE, seen[faults[-1]:]):
                        action, kind = "charge", "none"
                        extra.append("answered after the disk warnings")
            label = ("tui" if form in ("pane", "pane-nj", "pane-expanded", "raw") or form.startswith("pane.t")
                     else form.split(".")[0])
            note = meta.get(f"{scenario}.{label}", {})
            if note.get("capped"):
                extra.append(f"run capped at {note['capped']}s")
            if "exit" in note:
                extra.append(f"exit {note['exit']}")
            if note.get("error"):
                extra.append("harness error: " + note["error"])
            if note.get("fault_seen_line") and label == "tui" and scenario not in (*NO_FAULT, *GOT_PAST):
                extra.append(f"first fault text on screen at {note.get('fault_seen_s')}s: {note['fault_seen_line']}")
            if note.get("tool_steps"):
                extra.append("tool steps: " + note["tool_steps"])
            if note.get("requests"):
                extra.append("requests: " + note["requests"])
            elif scenario not in NO_PROVIDER and note:
                extra.append("no request reached the provider")
            rows.append([f"{d.name}/{f.name}", cli, version, form, scenario, action, kind, visible,
                         " | ".join(extra).replace("\t", " ")])
    path = root / "manifest.tsv"
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("path\tcli\tversion\tform\tscenario\texpect_action\texpect_kind\tvisible\tnotes\n")
        for r in rows:
            fh.write("\t".join(r) + "\n")
    return path


def manifest_table(root: Path = FIXTURES) -> str:
    """Markdown table CLI x form x scenario from manifest.tsv: Y fault visible, n not, ok healthy."""
    rows = [r.rstrip("\n").split("\t") for r in (root / "manifest.tsv").read_text().splitlines()[1:]]
    scen = [s for s in SCENARIOS if any(r[4] == s for r in rows)]
    cells: dict[tuple[str, str], dict[str, str]] = {}
    for path, cli, version, form, scenario, _a, _k, visible, notes in rows:
        if scenario == "hang" and form.startswith("pane.t"):
            continue
        mark = ("ok" if "answer shown" in notes else "-") if scenario in NO_FAULT else ("Y" if visible == "yes" else "n")
        cells.setdefault((f"{cli}@{version}", form), {})[scenario] = mark
    out = ["| CLI | form | " + " | ".join(scen) + " |", "|---|---|" + "---|" * len(scen)]
    for (cli, form), marks in sorted(cells.items()):
        out.append(f"| {cli} | {form} | " + " | ".join(marks.get(s, "") for s in scen) + " |")
    return "\n".join(out)


TABLE_DOC = HERE / "TABLE.md"


def table_doc(root: Path = FIXTURES) -> str:
    """harness/TABLE.md: the manifest's table with its heading and legend."""
    return (
        "# Captures by CLI, file and scenario\n\n"
        "Written by `python3 harness/drive.py --table > harness/TABLE.md` from\n"
        "`testdata/clients/manifest.tsv`; `test_drive.py` checks that it is current.\n"
        "`Y`: the fault text is in the file (`visible=yes`); `n`: it is not; for a\n"
        "scenario with no fault at all (`healthy`, `tool`, `write`), `ok`: the\n"
        "answer is in the file, `-`: it is not (standard error, or a stream that\n"
        "splits the answer into deltas). Empty: not captured. `hang.pane.tNNN` rows\n"
        "are left out.\n\n" + manifest_table(root) + "\n"
    )


# ---------------------------------------------------------------------------
# drift


def normalize(line: str) -> str:
    """Forget what changes from run to run (ids, times, counters) in a fault line."""
    line = re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "<UUID>", line)
    line = re.sub(r"\b(req|msg|resp|chatcmpl|ses|prt)_?[A-Za-z0-9]{12,}", r"<\1-ID>", line)
    line = re.sub(r"\d{4}-\d\d-\d\dT[\d:.\-]+Z?", "<TS>", line)
    line = re.sub(r"\b\d+(\.\d+)?\s?(ms|s|seconds?)\b", "<N>s", line)
    line = re.sub(r"\b\d{4,}\b", "<N>", line)
    return line.strip()[:200]


def fault_lines(text: str, scenario: str) -> set[str]:
    """The lines (or, in JSON, the string fields) that carry the fault, normalized."""
    if scenario in NO_FAULT:
        return set()
    rx = re.compile(FAULT_RE[scenario])
    out = set()

    def strings(o, path):
        if isinstance(o, dict):
            for k, v in o.items():
                yield from strings(v, f"{path}/{k}")
        elif isinstance(o, list):
            for v in o:
                yield from strings(v, f"{path}/*")
        elif isinstance(o, str):
            yield path, o

    for line in re.split(r"[\r\n]+", plain(text)):
        line = line.strip()
        if not line or PROMPT in line:
            continue
        if line.startswith("{"):
            try:
                obj = json.loads(line)
            except ValueError:
                obj = None
            if obj is not None:
                for path, val in strings(obj, ""):
                    if rx.search(val) and PROMPT not in val:
                        out.add(f"{path}: {normalize(val)}")
                continue
        if rx.search(line):
            out.add(normalize(line))
    return out


def json_keys(text: str) -> set[str]:
    keys = set()

    def walk(o, pfx):
        if isinstance(o, dict):
            for k, v in o.items():
                keys.add(pfx + "/" + k)
                walk(v, pfx + "/" + k)
        elif isinstance(o, list):
            for v in o[:3]:
                walk(v, pfx + "/*")

    for line in text.splitlines():
        try:
            o = json.loads(line)
        except ValueError:
            continue
        walk(o, "")
    return keys


def newest_fixture(old_root: Path, name: str) -> Path | None:
    """The committed directory to compare a new `<cli>@<version>[+variant]`
    with: the same CLI and variant (a route, dialect or locale run is not
    the plain one), the highest version by number (2.1.332 above 2.1.99)."""
    cli, _, rest = name.partition("@")
    variant = rest.partition("+")[2]

    def version(p: Path):
        return tuple(int(x) if x.isdigit() else 0 for x in p.name.partition("@")[2].partition("+")[0].split("."))

    same = [p for p in old_root.glob(f"{cli}@*") if p.is_dir() and p.name.partition("+")[2] == variant]
    return max(same, key=version, default=None)


def drift_report(old_root: Path, new_root: Path) -> int:
    changes = 0
    for nd in sorted(p for p in new_root.iterdir() if p.is_dir()):
        od = newest_fixture(old_root, nd.name)
        print(f"== {nd.name} against {od.name if od else '(no committed fixtures)'}")
        if not od:
            continue
        for nf in sorted(nd.iterdir()):
            if nf.name == "runs.json":
                continue
            scenario = nf.name.split(".", 1)[0]
            of = od / nf.name
            new = nf.read_text(errors="replace")
            if not of.exists():
                print(f"  + {nf.name}: new file")
                changes += 1
                continue
            old = of.read_text(errors="replace")
            if scenario in FAULT_RE:
                ov = bool(re.search(FAULT_RE[scenario], old.replace(PROMPT, "")))
                nv = bool(re.search(FAULT_RE[scenario], new.replace(PROMPT, "")))
                if ov != nv:
                    print(f"  ! {nf.name}: fault visible {ov} -> {nv}")
                    changes += 1
            ol, nl = fault_lines(old, scenario), fault_lines(new, scenario)
            for line in sorted(nl - ol):
                print(f"  + {nf.name}: {line}")
                changes += 1
            for line in sorted(ol - nl):
                print(f"  - {nf.name}: {line}")
                changes += 1
            if nf.name.endswith(("json", "jsonl")):
                ok, nk = json_keys(old), json_keys(new)
                for k in sorted(nk - ok):
                    print(f"  + {nf.name}: new JSON field {k}")
                    changes += 1
                for k in sorted(ok - nk):
                    print(f"  - {nf.name}: JSON field gone {k}")
                    changes += 1
    print(f"{changes} change(s)")
    return 0


# ---------------------------------------------------------------------------


def enter_namespace_and_run(argv_rest: list[str], versions: dict | None = None) -> int:
    cmd = ["unshare", "--net", "--mount", "--propagation", "private", "--",
           sys.executable, str(Path(__file__).resolve()), "--inner", *argv_rest]
    if versions is not None:
        cmd += ["--versions-json", json.dumps(versions)]
    return subprocess.run(cmd).returncode


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="faultsift real-client harness")
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--install", action="store_true", help="npm install the pinned CLIs into the cache")
    g.add_argument("--run", action="store_true", help="run CLIs x scenarios in a loopback-only namespace")
    g.add_argument("--manifest", action="store_true",
                   help="re-apply the size limits and rebuild testdata/clients/manifest.tsv")
    g.add_argument("--drift", action="store_true", help="re-run and compare with the committed fixtures")
    g.add_argument("--table", action="store_true", help="print the CLI x form x scenario table of the manifest")
    g.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--cli", action="append", choices=list(CLIS))
    ap.add_argument("--scenario", action="append", choices=SCENARIOS)
    ap.add_argument("--mode", choices=["tui", "headless"])
    ap.add_argument("--variant", help="with --mode headless: only this headless variant (claude: stream-json, debug; copilot: text, json, process)")
    ap.add_argument("--latest", action="store_true", help="with --drift: the newest versions, not the pins")
    ap.add_argument("--at", action="append", metavar="CLI=VERSION",
                    help="with --install or --run --out: this release of CLI instead of its pin (repeatable)")
    ap.add_argument("--route", choices=sorted({r for _, r in ROUTES}),
                    help="run the CLIs that have this provider route on it, into <cli>@<version>+ROUTE")
    ap.add_argument("--dialect", choices=sorted(DIALECTS),
                    help="the fake provider answers as this third-party OpenAI-compatible provider; "
                         "runs the CLIs that speak that API, into <cli>@<version>+DIALECT")
    ap.add_argument("--locale", metavar="LL_CC.UTF-8",
                    help="the CLIs' LANG and LC_ALL (default C.UTF-8), as a person's shell sets them: a CLI with a "
                         "translated interface shows it; into <cli>@<version>+LL_CC")
    ap.add_argument("--keep", action="store_true", help="keep the per-run temporary directories")
    ap.add_argument("--cap", type=int, help=f"per-run time cap in seconds (default {CAP_S})")
    ap.add_argument("--width", type=int,
                    help=f"interactive runs: the tmux pane's width in columns (default {WIDTH_COLS})")
    ap.add_argument("--out", help="with --run: write into this scratch directory, not testdata/clients/")
    ap.add_argument("--no-scrub", action="store_true",
                    help="with --out: keep the captures as printed (scrubbing paths and ports changes row widths)")
    ap.add_argument("--dest", help=argparse.SUPPRESS)
    ap.add_argument("--versions-json", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    rest = []
    for c in args.cli or []:
        rest += ["--cli", c]
    for s in args.scenario or []:
        rest += ["--scenario", s]
    if args.mode:
        rest += ["--mode", args.mode]
    if args.variant:
        rest += ["--variant", args.variant]
    if args.keep:
        rest += ["--keep"]
    if args.route and args.dialect:
        ap.error("--route and --dialect are two ways to reach a model: give one")
    if args.route:
        rest += ["--route", args.route]
    if args.dialect:
        rest += ["--dialect", args.dialect]
    if args.locale:
        if not re.fullmatch(r"[a-z]{2,3}_[A-Z]{2}\.UTF-8", args.locale):
            ap.error("--locale takes a locale such as zh_CN.UTF-8")
        rest += ["--locale", args.locale]
    if args.no_scrub:
        if not (args.out or args.dest):
            ap.error("--no-scrub needs --out (never unscrubbed files in testdata/clients/)")
        rest += ["--no-scrub"]
    if args.dest and not args.drift:
        rest += ["--dest", args.dest]
    if args.out and not args.drift and not args.dest:
        rest += ["--dest", str(Path(args.out).resolve())]

    versions_at = None
    if args.at:
        if not (args.install or args.run):
            ap.error("--at goes with --install or --run (--drift compares the pins, or --latest)")
        if args.run and not args.out:
            ap.error("--at with --run needs --out: testdata/clients/ holds the pinned releases only")
        versions_at = load_versions()
        for item in args.at:
            cli, _, version = item.partition("=")
            if cli not in versions_at["cli"] or not version:
                ap.error(f"--at {item}: expected CLI=VERSION with CLI one of {', '.join(CLIS)}")
            versions_at["cli"][cli]["version"] = version

    if args.cap:
        os.environ["FAULTSIFT_HARNESS_CAP"] = str(args.cap)
    if args.width:
        os.environ["FAULTSIFT_HARNESS_WIDTH"] = str(args.width)
    if args.inner:
        return run_inner(args)
    if args.install:
        install(versions_at or load_versions(), args.cli)
        return 0
    if args.manifest:
        recut()
        print(write_manifest())
        # the table of captures follows the manifest (test_drive.py holds it)
        TABLE_DOC.write_text(table_doc())
        print(TABLE_DOC)
        return 0
    if args.table:
        sys.stdout.write(table_doc())
        return 0
    (CACHE / "runs").mkdir(parents=True, exist_ok=True)
    if args.run:
        if os.geteuid() != 0:
            print("drive.py --run needs root (unshare --net, mount sysfs)", file=sys.stderr)
            return 2
        return enter_namespace_and_run(rest, versions_at)
    # drift
    versions = load_versions()
    if args.latest:
        versions = latest_versions(versions)
        install(versions, args.cli)
    tmp = Path(tempfile.mkdtemp(prefix="drift-", dir=CACHE / "runs"))
    rc = enter_namespace_and_run(rest + ["--dest", str(tmp)], versions)
    if rc != 0:
        return rc
    return drift_report(FIXTURES, tmp)


if __name__ == "__main__":
    sys.exit(main())
