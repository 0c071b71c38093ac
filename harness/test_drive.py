"""Tests of the harness that need no network, no npm and no namespace.

    python3 -m unittest discover -s harness
"""

import contextlib
import io
import json
import os
import sys
import tempfile
import time
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import drive  # noqa: E402
import fake_provider  # noqa: E402


def fake_net(root: Path, ifaces):
    netdir = root / "net"
    netdir.mkdir()
    for name in ifaces:
        (netdir / name).mkdir()
    procnet = root / "dev"
    lines = [
        "Inter-|   Receive                            |  Transmit\n",
        " face |bytes    packets errs drop fifo frame |bytes    packets\n",
    ]
    lines += [f"{name:>6}: 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n" for name in ifaces]
    procnet.write_text("".join(lines))
    return str(netdir), str(procnet)


class LaunchGuardTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = Path(self.tmp.name)
        self.marker = self.root / "cli-ran"

    def tearDown(self):
        self.tmp.cleanup()

    def test_refuses_when_a_real_interface_is_visible(self):
        netdir, procnet = fake_net(self.root, ["lo", "eth0"])
        with self.assertRaises(drive.NotIsolated) as cm:
            drive.launch_guard(["touch", str(self.marker)], netdir=netdir, procnet=procnet)
        self.assertIn("eth0", str(cm.exception))
        self.assertFalse(self.marker.exists(), "the CLI must not have been started")

    def test_refuses_when_only_proc_shows_the_host_interfaces(self):
        # sysfs not remounted in the namespace would show the host; the reverse
        # (sysfs clean, /proc/self/net/dev not) must be refused as well.
        netdir, _ = fake_net(self.root, ["lo"])
        other = self.root / "other"
        other.mkdir()
        _, procnet = fake_net(other, ["lo", "wlan0"])
        with self.assertRaises(drive.NotIsolated):
            drive.launch_guard(["touch", str(self.marker)], netdir=netdir, procnet=procnet)
        self.assertFalse(self.marker.exists())

    def test_refuses_when_no_interface_list_is_readable(self):
        with self.assertRaises(drive.NotIsolated):
            drive.launch_guard(
                ["touch", str(self.marker)],
                netdir=str(self.root / "missing"),
                procnet=str(self.root / "missing-dev"),
            )
        self.assertFalse(self.marker.exists())

    def test_starts_when_only_loopback_exists(self):
        netdir, procnet = fake_net(self.root, ["lo"])
        p = drive.launch_guard(["touch", str(self.marker)], netdir=netdir, procnet=procnet)
        self.assertEqual(p.wait(10), 0)
        self.assertTrue(self.marker.exists())

    def test_refuses_on_this_host_outside_a_namespace(self):
        sysfs, proc = drive.net_interfaces()
        if sysfs == ["lo"] and proc == ["lo"]:
            self.skipTest("already inside a loopback-only namespace")
        with self.assertRaises(drive.NotIsolated):
            drive.launch_guard(["touch", str(self.marker)])
        self.assertFalse(self.marker.exists())

    def test_every_cli_start_goes_through_the_guard(self):
        # No other subprocess call in drive.py names a CLI binary: the runs
        # start the CLI (or the tmux server that runs it) with launch_guard only.
        src = Path(drive.__file__).read_text()
        self.assertEqual(src.count("= launch_guard("), 2)  # the tmux start, the headless start
        # the only other Popen starts our own fake provider
        self.assertEqual(src.count("subprocess.Popen("), 2)
        self.assertIn("subprocess.Popen(\n            [sys.executable, str(HERE / \"fake_provider.py\")", src)


class CliBinTest(unittest.TestCase):
    def test_a_package_s_one_binary_under_another_name_is_found(self):
        spec = {"package": "@aaif/goose-binary-linux-x64", "version": "0.20.2", "bin": "goose-binary-linux-x64"}
        with tempfile.TemporaryDirectory() as tmp:
            old = drive.CACHE
            drive.CACHE = Path(tmp)
            try:
                pkg = drive.pkg_dir(spec["package"], spec["version"]) / "node_modules" / spec["package"]
                (pkg / "bin").mkdir(parents=True)
                (pkg / "bin" / "goose").write_text("")
                # no package.json yet: the named link, which does not exist
                self.assertEqual(drive.cli_bin(spec).name, "goose-binary-linux-x64")
                (pkg / "package.json").write_text(json.dumps({"bin": {"goose": "bin/goose"}}))
                self.assertEqual(drive.cli_bin(spec), pkg / "bin" / "goose")
                # two binaries: no guess
                (pkg / "package.json").write_text(json.dumps({"bin": {"goose": "bin/goose", "g": "bin/g"}}))
                self.assertEqual(drive.cli_bin(spec).parent.name, ".bin")
                # the named link wins when npm made it
                link = pkg.parent.parent / ".bin" / spec["bin"]
                link.parent.mkdir()
                link.write_text("")
                self.assertEqual(drive.cli_bin(spec), link)
            finally:
                drive.CACHE = old


# A Chat Completions shell tool, as the CLIs offer one.
BASH_TOOL = {"type": "function", "function": {"name": "bash", "parameters": {
    "type": "object", "required": ["command"], "properties": {"command": {"type": "string"}}}}}


class FixtureHelpersTest(unittest.TestCase):
    def test_the_table_of_captures_is_current(self):
        # harness/TABLE.md is written from the manifest; a merge that adds
        # captures must write it again (`drive.py --table`).
        self.assertEqual(drive.TABLE_DOC.read_text(), drive.table_doc(),
                         "run: python3 harness/drive.py --table > harness/TABLE.md")

    def test_the_table_marks_a_visible_fault_and_a_shown_answer(self):
        with tempfile.TemporaryDirectory() as d:
            root = Path(d)
            header = "path\tcli\tversion\tform\tscenario\texpect_action\texpect_kind\tvisible\tnotes\n"
            (root / "manifest.tsv").write_text(
                header
                + "x@1/auth.pane\tx\t1\tpane\tauth\tpause\tauth\tyes\t\n"
                + "x@1/healthy.pane\tx\t1\tpane\thealthy\tcharge\tnone\tno\tanswer shown\n"
                + "x@1/auth.text.stderr\tx\t1\ttext.stderr\tauth\tpause\tauth\tno\t\n")
            table = drive.manifest_table(root).splitlines()
        self.assertEqual(table[0], "| CLI | form | healthy | auth |")
        self.assertIn("| x@1 | pane | ok | Y |", table)
        self.assertIn("| x@1 | text.stderr |  | n |", table)

    def test_tail_cuts_at_a_line_boundary(self):
        data = b"".join(b"line %05d\n" % i for i in range(20000))
        out = drive.tail_at_line(data, 1000)
        self.assertLessEqual(len(out), 1000)
        self.assertTrue(out.startswith(b"line "))
        self.assertTrue(data.endswith(out))

    def test_scrub_replaces_paths_ports_and_keys(self):
        raw = b"cwd /tmp/run1/work at 127.0.0.1:41234 key sk-ant-fake-anthropic-key-0000 on box7"
        out = drive.scrub(raw, [("/tmp/run1/work", "<WORK>"), ("box7", "<HOST>")]).decode()
        self.assertEqual(out, "cwd <WORK> at 127.0.0.1:<PORT> key <FAKE_KEY> on <HOST>")

    def test_scrub_keeps_a_padded_row_as_wide_as_it_was(self):
        row = "  call 127.0.0.1:41234 now".ljust(40)
        out = drive.scrub((row + "\nnext\n").encode(), []).decode().split("\n")
        self.assertEqual(out[0], "  call 127.0.0.1:<PORT> now".ljust(40))
        # a row without trailing blanks just grows
        self.assertEqual(drive.scrub(b"127.0.0.1:41234", []), b"127.0.0.1:<PORT>")

    def test_a_disk_full_run_that_answered_after_its_warnings_is_expected_charged(self):
        answer = "Done. All 3 tests pass."
        self.assertRegex(answer, drive.HEALTHY_RE)
        with tempfile.TemporaryDirectory() as t:
            root = Path(t)
            d = root / "x@1"
            d.mkdir()
            # warned, then answered: the session went on
            (d / "disk-full.text.stdout").write_text(
                "Unable to write to input history file: [Errno 28] No space left on device\n" + answer + "\n")
            # answered, then the notice stays below it: the fault
            (d / "disk-full.pane").write_text(answer + "\n  ⚠ Transcript writes are failing (disk full — ENOSPC)\n")
            # a raw stream repaints the answer after the notice; its pane decides
            (d / "disk-full.raw").write_text("⚠ Transcript writes are failing (disk full — ENOSPC)\n" + answer + "\n")
            rows = drive.write_manifest(root).read_text().splitlines()[1:]
            expect = {r.split("\t")[0]: r.split("\t")[5] for r in rows}
            self.assertEqual(expect, {"x@1/disk-full.pane": "pause", "x@1/disk-full.raw": "pause",
                                      "x@1/disk-full.text.stdout": "charge"})

    def test_a_process_log_keeps_its_lines_but_not_the_request_dumps(self):
        log = (
            b"2026-12-02T10:27:28.600Z [DEBUG] [rust:model_wire] Wire request: {\n"
            b' "messages": [\n   {"role": "system", "content": "You are a CLI"}\n ]\n'
            b"}\n"
            b"2026-12-02T10:27:28.697Z [WARNING] [rust:model_events::producer] Model provider request failed "
            b'{"http_status":503}\n'
        )
        out = drive.drop_wire_dumps(log)
        self.assertNotIn(b"You are a CLI", out)
        self.assertIn(b'"http_status":503', out)
        self.assertEqual(out.count(b"\n"), 1)

    def test_shorten_records_keeps_json_valid(self):
        rec = {"type": "system", "tools": ["t%d" % i for i in range(100)], "prompt": "x" * 20000}
        out = drive.shorten_records(json.dumps(rec).encode() + b"\n" + b'{"a":1}')
        first, second = out.split(b"\n")
        obj = json.loads(first)
        self.assertLess(len(first), 8192)
        self.assertEqual(obj["type"], "system")
        self.assertEqual(second, b'{"a":1}')


class ScenarioTablesTest(unittest.TestCase):
    def test_every_scenario_with_a_provider_is_one_the_provider_serves(self):
        with_provider = [s for s in drive.SCENARIOS if s not in drive.NO_PROVIDER]
        self.assertEqual(sorted(with_provider), sorted(fake_provider.SCENARIOS))
        self.assertEqual(len(set(drive.SCENARIOS)), len(drive.SCENARIOS))

    def test_every_scenario_has_an_expected_verdict_and_a_fault_pattern(self):
        for s in drive.SCENARIOS:
            self.assertIn(s, drive.EXPECT)
            if s not in drive.NO_FAULT:
                self.assertIn(s, drive.FAULT_RE)


class RouteTest(unittest.TestCase):
    def test_every_route_points_its_cli_at_the_provider_and_names_its_directory(self):
        base = "http://127.0.0.1:9"
        for (cli, route), setup in drive.ROUTES.items():
            self.assertIn(cli, drive.CLIS)
            with tempfile.TemporaryDirectory() as d:
                home, work = Path(d) / "home", Path(d) / "work"
                env = setup(home, work, base)
                files = "".join(f.read_text() for f in home.rglob("*") if f.is_file())
                self.assertTrue(any(v.startswith(base) for v in env.values()) or base in files, (cli, route))
                # the route changes what the CLI's default setup gives it
                default_home = Path(d) / "h2"
                default = drive.CLIS[cli][0](default_home, work, base)
                default_files = "".join(f.read_text() for f in default_home.rglob("*") if f.is_file())
                self.assertNotEqual((env, files), (default, default_files), (cli, route))
            spec = {"version": "1.2.3", "route": route}
            self.assertEqual(drive.fixture_dir_name(cli, spec), f"{cli}@1.2.3+{route}")
            self.assertIs(drive.setup_of(cli, spec), setup)
        self.assertEqual(drive.fixture_dir_name("claude", {"version": "1.2.3"}), "claude@1.2.3")


class DialectTest(unittest.TestCase):
    def test_every_dialect_plays_scenarios_the_harness_knows(self):
        for dialect, table in fake_provider.DIALECTS.items():
            for scenario in fake_provider.dialect_scenarios(dialect):
                self.assertIn(scenario, fake_provider.SCENARIOS, dialect)
                self.assertIn(scenario, drive.EXPECT, dialect)
            for scenario, entry in table.items():
                self.assertIn(entry[0], range(400, 600), (dialect, scenario))
                self.assertIn("error", entry[1], (dialect, scenario))
        self.assertIn("stream-overloaded", fake_provider.dialect_scenarios("openrouter"))
        self.assertNotIn("stream-overloaded", fake_provider.dialect_scenarios("deepseek"))

    def test_a_locale_is_the_cli_s_lang_and_names_its_directory(self):
        self.assertEqual(drive.fixture_dir_name("qwen", {"version": "1.2.3", "locale": "zh_CN.UTF-8"}),
                         "qwen@1.2.3+zh_CN")
        self.assertEqual(drive.fixture_dir_name("qwen", {"version": "1.2.3", "dialect": "zai", "locale": "de_DE.UTF-8"}),
                         "qwen@1.2.3+zai+de_DE")
        with tempfile.TemporaryDirectory() as d:
            env = drive.base_env(Path(d), drive.load_versions(), "ja_JP.UTF-8")
            self.assertEqual((env["LANG"], env["LC_ALL"]), ("ja_JP.UTF-8", "ja_JP.UTF-8"))
            self.assertEqual(drive.base_env(Path(d), drive.load_versions())["LANG"], "C.UTF-8")

    def test_a_dialect_names_its_directory_and_runs_only_the_openai_speaking_clis(self):
        self.assertEqual(drive.fixture_dir_name("opencode", {"version": "1.2.3", "dialect": "zai"}),
                         "opencode@1.2.3+zai")
        base = "http://127.0.0.1:9"
        for cli in drive.CLIS:
            with tempfile.TemporaryDirectory() as d:
                home = Path(d) / "home"
                env = drive.CLIS[cli][0](home, Path(d) / "work", base)
                files = "".join(f.read_text() for f in home.rglob("*") if f.is_file())
            # the OpenAI-compatible endpoint is `<base>/v1`, or goose's host it appends v1/… to
            speaks_openai = base + "/v1" in env.values() or base + "/v1" in files or env.get("OPENAI_HOST") == base
            self.assertEqual(cli in drive.DIALECT_CLIS, speaks_openai, cli)

    def test_route_and_dialect_are_not_given_together(self):
        with self.assertRaises(SystemExit), contextlib.redirect_stderr(io.StringIO()):
            drive.main(["--run", "--cli", "opencode", "--route", "bedrock", "--dialect", "zai"])


class ProxyScenarioTest(unittest.TestCase):
    def test_a_proxy_scenario_names_the_proxy_and_a_provider_only_it_could_reach(self):
        with tempfile.TemporaryDirectory() as d:
            prov = drive.Provider("proxy-down", Path(d))
            self.assertEqual((prov.scheme, prov.host), ("https", drive.DNS_HOST))
            env = prov.proxy_env()
            self.assertEqual(sorted(env), sorted(["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy",
                                                  "ALL_PROXY", "all_proxy"]))
            self.assertEqual(set(env.values()), {f"http://127.0.0.1:{prov.proxy_port}"})
            self.assertNotEqual(prov.proxy_port, prov.port)
            self.assertEqual(drive.Provider("refused", Path(d)).proxy_env(), {})


class ProviderAnswerTest(unittest.TestCase):
    """The fake provider on 127.0.0.1, asked as a client would ask it."""

    def serve(self, scenario, path="/v1/chat/completions", dialect=None, **extra):
        """POST a one-message request to a fresh provider; the connection."""
        import http.client
        import threading
        from http.server import ThreadingHTTPServer

        handler = fake_provider.handler_for(scenario)
        handler.scenario = scenario
        handler.dialect = dialect
        handler.log_path = None
        srv = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        srv.daemon_threads = True
        threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        self.addCleanup(srv.server_close)
        self.addCleanup(srv.shutdown)
        conn = http.client.HTTPConnection("127.0.0.1", srv.server_address[1], timeout=5)
        self.addCleanup(conn.close)
        body = dict({"model": fake_provider.MODEL, "messages": [{"role": "user", "content": "hi"}]}, **extra)
        conn.request("POST", path, json.dumps(body), {"content-type": "application/json"})
        return conn

    def test_closed_reads_the_request_and_answers_nothing(self):
        import http.client

        conn = self.serve("closed")
        with self.assertRaises(http.client.RemoteDisconnected):
            conn.getresponse()

    def test_a_dialect_answers_the_openai_families_its_own_way(self):
        for path in ("/v1/chat/completions", "/v1/responses"):
            resp = self.serve("payment", path, dialect="openrouter").getresponse()
            body = json.loads(resp.read())
            self.assertEqual((resp.status, body["error"]["code"]), (402, 402), path)
            self.assertTrue(body["error"]["message"].startswith("Insufficient credits"), path)
        # Z.ai's spent balance is a 429 whose code is a string
        resp = self.serve("quota", dialect="zai").getresponse()
        self.assertEqual((resp.status, json.loads(resp.read())["error"]["code"]), (429, "1113"))
        # the Anthropic API is not an OpenAI family: its own body
        resp = self.serve("payment", "/v1/messages", dialect="openrouter", max_tokens=8).getresponse()
        self.assertEqual(json.loads(resp.read())["error"]["type"], "billing_error")

    def test_a_scenario_a_dialect_does_not_define_keeps_openai_s_answer(self):
        resp = self.serve("server-error", dialect="deepseek").getresponse()
        self.assertEqual(resp.status, 500)
        self.assertIn("server had an error", json.loads(resp.read())["error"]["message"])

    def test_a_dialect_s_rate_limit_sends_a_retry_after_only_where_it_does(self):
        waits = {d: self.serve("rate-limit", dialect=d).getresponse().getheader("retry-after")
                 for d in (None, "litellm", "deepseek")}
        self.assertEqual(waits, {None: "2", "litellm": "2", "deepseek": None})

    def test_a_dialect_ends_a_begun_chat_stream_with_its_own_error(self):
        resp = self.serve("stream-overloaded", dialect="openrouter", stream=True).getresponse()
        self.assertEqual(resp.status, 200)
        frames = resp.read().decode().strip().split("\n\n")
        self.assertNotIn("data: [DONE]", frames)
        last = json.loads(frames[-1].removeprefix("data: "))
        self.assertEqual(last["choices"][0]["finish_reason"], "error")
        self.assertEqual(last["error"]["message"], "Provider disconnected unexpectedly")
        self.assertIn("delta", json.loads(frames[0].removeprefix("data: "))["choices"][0])

    def test_every_dialect_s_answer_is_a_fresh_copy(self):
        status, body, _ = fake_provider.dialect_error("litellm", "auth")
        body["error"]["message"] = "changed"
        self.assertNotEqual(fake_provider.dialect_error("litellm", "auth")[1]["error"]["message"], "changed")
        self.assertIsNone(fake_provider.dialect_error(None, "auth"))
        self.assertIsNone(fake_provider.dialect_error("openrouter", "stream-overloaded"))
        # the proxy passes the upstream's own message on behind its classes
        rate = fake_provider.dialect_error("litellm", "rate-limit")[1]["error"]["message"]
        self.assertEqual(rate, "litellm.RateLimitError: RateLimitError: OpenAIException - "
                         + fake_provider.openai_error("rate-limit")[1]["error"]["message"])

    def test_a_plan_limit_names_its_window_in_anthropic_s_headers(self):
        resp = self.serve("plan-weekly", "/v1/messages", max_tokens=8).getresponse()
        resp.read()
        self.assertEqual(resp.status, 429)
        self.assertEqual(resp.getheader("anthropic-ratelimit-unified-status"), "rejected")
        self.assertEqual(resp.getheader("anthropic-ratelimit-unified-representative-claim"), "seven_day")
        # the weekly window resets days on, the five-hour one within hours
        self.assertGreater(int(resp.getheader("anthropic-ratelimit-unified-reset")) - time.time(), 2 * 86400)
        self.assertIsNone(resp.getheader("anthropic-ratelimit-unified-overage-status"))
        resp = self.serve("plan-disabled", "/v1/messages", max_tokens=8).getresponse()
        resp.read()
        self.assertEqual(resp.getheader("anthropic-ratelimit-unified-overage-disabled-reason"), "member_level_disabled")
        self.assertLess(int(resp.getheader("anthropic-ratelimit-unified-reset")) - time.time(), 4 * 3600)

    def test_a_plan_limit_is_codex_s_usage_body_on_the_responses_api(self):
        error = json.loads(self.serve("plan-session", "/v1/responses").getresponse().read())["error"]
        self.assertEqual((error["type"], error["plan_type"]), ("usage_limit_reached", "plus"))
        self.assertIn("resets_at", error)
        error = json.loads(self.serve("plan-disabled", "/v1/responses").getresponse().read())["error"]
        self.assertEqual(error["plan_type"], "free")
        self.assertNotIn("resets_at", error)
        self.assertEqual(json.loads(self.serve("plan-credits", "/v1/responses").getresponse().read())["error"]["type"],
                         "usage_not_included")
        self.assertLessEqual(set(fake_provider.PLAN_LIMITS), set(drive.EXPECT) & set(drive.FAULT_RE))
        # Chat Completions, a route or a dialect: their own quota answer, not Codex's plan body
        chat = json.loads(self.serve("plan-session").getresponse().read())["error"]
        self.assertEqual(chat["code"], "insufficient_quota")
        zai = json.loads(self.serve("plan-session", "/v1/responses", dialect="zai").getresponse().read())["error"]
        self.assertEqual(zai["code"], "1113")

    def test_a_plan_limit_is_google_s_quota_with_the_details_gemini_cli_reads(self):
        path = "/v1beta/models/%s:generateContent" % fake_provider.MODEL
        details = {d["@type"].rsplit(".", 1)[1]: d for d in
                   json.loads(self.serve("plan-weekly", path).getresponse().read())["error"]["details"]}
        self.assertIn("PerDay", details["QuotaFailure"]["violations"][0]["quotaId"])
        self.assertIn("RetryInfo", details)
        error = json.loads(self.serve("plan-session", path).getresponse().read())["error"]
        info = error["details"][0]
        self.assertEqual((info["reason"], info["domain"]), ("QUOTA_EXHAUSTED", "cloudcode-pa.googleapis.com"))
        self.assertIn("limit: 0,", json.loads(self.serve("plan-model", path).getresponse().read())["error"]["message"])

    def test_unavailable_answers_a_status(self):
        conn = self.serve("unavailable")
        self.assertEqual(conn.getresponse().status, 503)

    def test_stream_overloaded_ends_a_begun_stream_with_the_error(self):
        resp = self.serve("stream-overloaded", "/v1/messages", stream=True, max_tokens=8).getresponse()
        self.assertEqual(resp.status, 200)
        frames = resp.read().decode().strip().split("\n\n")
        self.assertTrue(frames[0].startswith("event: message_start"))
        self.assertEqual(frames[-1].splitlines()[0], "event: error")
        self.assertIn("overloaded_error", frames[-1])

    def test_drift_compares_with_the_same_variant_s_highest_version(self):
        with tempfile.TemporaryDirectory() as d:
            root = Path(d)
            for name in ("claude@2.1.99", "claude@2.1.332", "claude@2.1.332+vertex", "codex@0.171.0"):
                (root / name).mkdir()
            self.assertEqual(drive.newest_fixture(root, "claude@2.1.337").name, "claude@2.1.332")
            self.assertEqual(drive.newest_fixture(root, "claude@2.1.337+vertex").name, "claude@2.1.332+vertex")
            self.assertIsNone(drive.newest_fixture(root, "claude@2.1.337+bedrock"))

    def test_stream_server_error_ends_a_begun_stream_with_the_api_s_internal_error(self):
        resp = self.serve("stream-server-error", "/v1/messages", stream=True, max_tokens=8).getresponse()
        self.assertEqual(resp.status, 200)
        last = resp.read().decode().strip().split("\n\n")[-1].splitlines()
        self.assertEqual(last[0], "event: error")
        self.assertEqual(json.loads(last[1][len("data: "):])["error"]["type"], "api_error")
        resp = self.serve("stream-server-error", "/v1/responses", stream=True, input="hi").getresponse()
        failed = json.loads(resp.read().decode().strip().split("\n\n")[-1].splitlines()[1][len("data: "):])
        self.assertEqual((failed["type"], failed["response"]["error"]["code"]), ("response.failed", "server_error"))
        # a request that does not stream gets the plain scenario's status
        self.assertEqual(self.serve("stream-server-error", "/v1/messages", max_tokens=8).getresponse().status, 500)

    def test_stream_rate_limit_ends_a_begun_stream_with_a_rate_limit(self):
        resp = self.serve("stream-rate-limit", "/v1/messages", stream=True, max_tokens=8).getresponse()
        self.assertEqual(resp.status, 200)
        last = resp.read().decode().strip().split("\n\n")[-1].splitlines()
        self.assertEqual(json.loads(last[1][len("data: "):])["error"]["type"], "rate_limit_error")
        resp = self.serve("stream-rate-limit", "/v1/responses", stream=True, input="hi").getresponse()
        failed = json.loads(resp.read().decode().strip().split("\n\n")[-1].splitlines()[1][len("data: "):])
        error = failed["response"]["error"]
        self.assertEqual((failed["type"], error["code"]), ("response.failed", "rate_limit_exceeded"))
        self.assertIn("try again in", error["message"])
        self.assertEqual(self.serve("stream-rate-limit", "/v1/messages", max_tokens=8).getresponse().status, 429)

    @staticmethod
    def eventstream_messages(data):
        """Decode AWS event-stream frames, checking both CRCs: (headers, payload) each."""
        import struct
        import zlib

        out = []
        while data:
            total, hlen, pcrc = struct.unpack(">III", data[:12])
            assert pcrc == zlib.crc32(data[:8]), "prelude CRC"
            assert struct.unpack(">I", data[total - 4 : total])[0] == zlib.crc32(data[: total - 4]), "message CRC"
            h, headers = data[12 : 12 + hlen], {}
            while h:
                n = h[0]
                name, vlen = h[1 : 1 + n].decode(), struct.unpack(">H", h[2 + n : 4 + n])[0]
                assert h[1 + n] == 7, "string header"
                headers[name], h = h[4 + n : 4 + n + vlen].decode(), h[4 + n + vlen :]
            out.append((headers, data[12 + hlen : total - 4]))
            data = data[total:]
        return out

    def test_bedrock_streams_the_messages_events_in_event_stream_frames(self):
        import base64

        resp = self.serve("healthy", "/model/us.anthropic.fake-v1%3A0/invoke-with-response-stream",
                          max_tokens=8).getresponse()
        self.assertEqual((resp.status, resp.getheader("content-type")), (200, "application/vnd.amazon.eventstream"))
        msgs = self.eventstream_messages(resp.read())
        self.assertTrue(all(h[":event-type"] == "chunk" for h, _ in msgs))
        events = [json.loads(base64.b64decode(json.loads(p)["bytes"])) for _, p in msgs]
        self.assertEqual((events[0]["type"], events[-1]["type"]), ("message_start", "message_stop"))

    def test_bedrock_converse_streams_its_own_events(self):
        resp = self.serve("healthy", "/model/anthropic.fake-v1%3A0/converse-stream").getresponse()
        msgs = self.eventstream_messages(resp.read())
        kinds = [h[":event-type"] for h, _ in msgs]
        self.assertEqual((kinds[0], kinds[-2], kinds[-1]), ("messageStart", "messageStop", "metadata"))
        text = "".join(json.loads(p)["delta"]["text"] for h, p in msgs if h[":event-type"] == "contentBlockDelta")
        self.assertEqual(text, fake_provider.HEALTHY_TEXT)
        whole = json.loads(self.serve("healthy", "/model/m/converse").getresponse().read())
        self.assertEqual(whole["output"]["message"]["content"][0]["text"], fake_provider.HEALTHY_TEXT)

    def test_bedrock_ends_a_begun_stream_with_its_own_exception(self):
        resp = self.serve("stream-overloaded", "/model/m/invoke-with-response-stream").getresponse()
        headers, payload = self.eventstream_messages(resp.read())[-1]
        self.assertEqual((headers[":message-type"], headers[":exception-type"]),
                         ("exception", "serviceUnavailableException"))
        self.assertIn("Bedrock is unable", json.loads(payload)["message"])

    def test_bedrock_errors_name_the_exception_in_a_header(self):
        resp = self.serve("rate-limit", "/model/m/invoke").getresponse()
        self.assertEqual(resp.status, 429)
        self.assertTrue(resp.getheader("x-amzn-ErrorType").startswith("ThrottlingException:"))
        self.assertEqual(json.loads(resp.read()), {"message": "Too many requests, please wait before trying again."})

    def test_vertex_answers_google_s_refusals_and_the_model_s_own_errors(self):
        path = "/v1/projects/p/locations/us-east5/publishers/anthropic/models/m:streamRawPredict"
        resp = self.serve("rate-limit", path, stream=True).getresponse()
        self.assertEqual(resp.status, 429)
        self.assertEqual(json.loads(resp.read())["error"]["status"], "RESOURCE_EXHAUSTED")
        resp = self.serve("overloaded", path, stream=True).getresponse()
        self.assertEqual(resp.status, 529)
        self.assertEqual(json.loads(resp.read())["error"]["type"], "overloaded_error")
        resp = self.serve("healthy", path, stream=True).getresponse()
        self.assertTrue(resp.read().decode().startswith("event: message_start"))

    def test_vertex_words_a_gemini_model_s_rate_limit_its_own_way(self):
        resp = self.serve("rate-limit", "/v1beta1/publishers/google/models/g:generateContent").getresponse()
        self.assertEqual(resp.status, 429)
        self.assertTrue(json.loads(resp.read())["error"]["message"].startswith("Resource exhausted. Please try again"))
        resp = self.serve("rate-limit", "/v1beta/models/g:generateContent").getresponse()
        self.assertIn("Resource has been exhausted", json.loads(resp.read())["error"]["message"])

    def test_only_the_clouds_paths_are_routes(self):
        route = fake_provider.cloud_route
        self.assertEqual(route("/model/x/invoke"), "bedrock")
        self.assertEqual(route("/v1/projects/p/locations/l/publishers/anthropic/models/m:rawPredict"), "vertex")
        self.assertEqual(route("/v1/projects/p/locations/l/publishers/anthropic/models/count-tokens:rawPredict"),
                         "vertex")
        self.assertIsNone(route("/v1/messages"))
        self.assertIsNone(route("/v1beta/models/m:streamGenerateContent"))

    def test_blocked_and_maintenance_answer_an_html_page(self):
        for scenario, status in (("blocked", 403), ("maintenance", 503)):
            resp = self.serve(scenario).getresponse()
            self.assertEqual((resp.status, resp.getheader("content-type")), (status, "text/html"))
            self.assertTrue(resp.read().startswith(b"<!DOCTYPE html>"))

    def test_request_timeout_and_proxy_auth_answer_their_pages(self):
        resp = self.serve("request-timeout").getresponse()
        self.assertEqual(resp.status, 408)
        self.assertIn(b"didn't send a complete request in time", resp.read())
        resp = self.serve("proxy-auth").getresponse()
        self.assertEqual((resp.status, resp.getheader("proxy-authenticate")), (407, 'Basic realm="Squid proxy"'))
        self.assertIn(b"Cache Access Denied", resp.read())

    def test_proxy_tunnel_refuses_a_tunnel_and_a_proxied_request(self):
        import http.client

        conn = self.serve("proxy-tunnel", "https://llm-provider.invalid:8443/v1/chat/completions")
        resp = conn.getresponse()
        self.assertEqual((resp.status, resp.getheader("x-squid-error")), (503, "ERR_CONNECT_FAIL 111"))
        resp.read()
        conn = http.client.HTTPConnection("127.0.0.1", conn.port, timeout=5)
        self.addCleanup(conn.close)
        conn.request("CONNECT", "llm-provider.invalid:8443")
        resp = conn.getresponse()
        self.assertEqual(resp.status, 503)
        self.assertIn(b"could not be retrieved", resp.read())
        conn = self.serve("proxy-tunnel-auth", "https://llm-provider.invalid:8443/v1/chat/completions")
        resp = conn.getresponse()
        self.assertEqual(resp.status, 407)
        resp.read()
        conn = http.client.HTTPConnection("127.0.0.1", conn.port, timeout=5)
        self.addCleanup(conn.close)
        conn.request("CONNECT", "llm-provider.invalid:8443")
        resp = conn.getresponse()
        self.assertEqual((resp.status, resp.getheader("proxy-authenticate")), (407, 'Basic realm="Squid proxy"'))
        self.assertIn(b"Cache Access Denied", resp.read())

    def test_gateway_scenarios_answer_their_plain_text(self):
        for scenario, status, first in (("no-upstream", 503, b"no healthy upstream"),
                                        ("upstream-reset", 503, b"upstream connect error"),
                                        ("cdn-rate-limit", 429, b"error code: 1015")):
            resp = self.serve(scenario).getresponse()
            self.assertEqual((resp.status, resp.getheader("content-type")), (status, "text/plain"))
            self.assertTrue(resp.read().startswith(first))

    def test_stall_sends_the_first_events_then_nothing(self):
        import socket

        conn = self.serve("stall", "/v1/messages", stream=True, max_tokens=8)
        conn.sock.settimeout(1.5)
        resp = conn.getresponse()
        self.assertEqual(resp.status, 200)
        got = b""
        with self.assertRaises(socket.timeout):
            while True:
                chunk = resp.read1(65536)
                if not chunk:
                    break
                got += chunk
        self.assertIn(b"event: message_start", got)
        self.assertNotIn(b"message_stop", got)

    def test_rate_limit_long_names_a_ten_minute_wait(self):
        resp = self.serve("rate-limit-long").getresponse()
        self.assertEqual(resp.status, 429)
        self.assertEqual(resp.getheader("retry-after"), "600")
        self.assertIn("try again in 10m0s", json.loads(resp.read())["error"]["message"])

    def test_tool_calls_the_shell_tool_twice_then_answers(self):
        bash = {"name": "Bash", "description": "run", "input_schema": {
            "type": "object", "required": ["command"],
            "properties": {"command": {"type": "string"}, "description": {"type": "string"}}}}
        msg = json.loads(self.serve("tool", "/v1/messages", max_tokens=8, tools=[bash]).getresponse().read())
        self.assertEqual(msg["stop_reason"], "tool_use")
        use = msg["content"][-1]
        self.assertEqual((use["type"], use["name"]), ("tool_use", "Bash"))
        self.assertIn("last line of the first tool", use["input"]["command"])
        self.assertTrue(use["input"]["description"])
        # a streamed Chat Completions request with one tool result: the failing command
        shell = {"type": "function", "function": {"name": "run_shell_command", "parameters": {
            "type": "object", "required": ["command", "is_background"],
            "properties": {"command": {"type": "string"}, "is_background": {"type": "boolean"}}}}}
        history = [{"role": "user", "content": "hi"}, {"role": "tool", "tool_call_id": "c1", "content": "out"}]
        raw = self.serve("tool", stream=True, tools=[shell], messages=history).getresponse().read().decode()
        args = "".join(
            tc["function"].get("arguments", "")
            for frame in raw.split("\n\n") if frame.startswith("data: {")
            for choice in json.loads(frame[6:])["choices"] for tc in choice["delta"].get("tool_calls", []))
        self.assertEqual(json.loads(args)["is_background"], False)
        self.assertIn("exit 1", json.loads(args)["command"])
        self.assertIn('"finish_reason": "tool_calls"', raw)
        # two tool results, or no shell tool offered: the healthy answer
        for extra in ({"tools": [shell], "messages": history + history[1:]}, {}):
            body = json.loads(self.serve("tool", **extra).getresponse().read())
            self.assertEqual(body["choices"][0]["message"]["content"], fake_provider.HEALTHY_TEXT)

    def test_side_down_fails_only_the_side_calls(self):
        shell = BASH_TOOL
        overloaded = fake_provider.openai_error("overloaded")[0]
        # the conversation's request offers the agent its tools: answered
        conn = self.serve("side-down", tools=[shell])
        body = json.loads(conn.getresponse().read())
        self.assertEqual(body["choices"][0]["message"]["content"], fake_provider.HEALTHY_TEXT)
        # a model list on the same provider: a side call
        conn.request("GET", "/v1/models")
        self.assertEqual(conn.getresponse().status, overloaded)
        # no tools, or a JSON-schema answer wanted (a title): a side call
        titled = {"tools": [shell], "response_format": {"type": "json_schema", "json_schema": {}}}
        for extra in ({}, titled):
            self.assertEqual(self.serve("side-down", **extra).getresponse().status, overloaded)
        # a token count, whatever it holds
        status = self.serve("side-down", "/v1/messages/count_tokens", tools=[shell]).getresponse().status
        self.assertEqual(status, fake_provider.anthropic_error("overloaded")[0])

    def test_late_overloaded_works_twice_then_fails(self):
        shell = BASH_TOOL
        history = [{"role": "user", "content": "hi"}]

        def answer(results, tools=(shell,)):
            done = [{"role": "tool", "tool_call_id": "c%d" % i, "content": "ok"} for i in range(results)]
            return self.serve("late-overloaded", tools=list(tools), messages=history + done).getresponse()

        for step, command in enumerate(fake_provider.LATE_COMMANDS):
            call, = json.loads(answer(step).read())["choices"][0]["message"]["tool_calls"]
            self.assertEqual(json.loads(call["function"]["arguments"])["command"], command)
        self.assertEqual(answer(2).status, fake_provider.openai_error("overloaded")[0])
        # a request without a shell tool (a title) is answered
        body = json.loads(answer(2, tools=()).read())
        self.assertEqual(body["choices"][0]["message"]["content"], fake_provider.HEALTHY_TEXT)

    def test_write_writes_the_fixture_then_edits_it_then_answers(self):
        path_prop = {"type": "string", "description": "The absolute path to the file"}
        write = {"name": "Write", "input_schema": {"type": "object", "required": ["file_path", "content"],
                 "properties": {"file_path": path_prop, "content": {"type": "string"}}}}
        edit = {"name": "Edit", "input_schema": {"type": "object",
                "required": ["file_path", "old_string", "new_string"],
                "properties": {"file_path": path_prop, "old_string": {"type": "string"},
                               "new_string": {"type": "string"}, "replace_all": {"type": "boolean"}}}}
        bash = {"name": "Bash", "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}}}
        system = "You are an agent.\n<env>\nWorking directory: /tmp/proj/work\nPlatform: linux\n</env>"
        tools = [bash, write, edit]
        msg = json.loads(self.serve("write", "/v1/messages", max_tokens=8, tools=tools,
                                    system=system).getresponse().read())
        use = msg["content"][-1]
        self.assertEqual(use["name"], "Write")
        self.assertEqual(use["input"]["file_path"], "/tmp/proj/work/fixtures/provider-errors.txt")
        self.assertEqual(use["input"]["content"].splitlines(), list(fake_provider.WRITE_LINES))
        # one tool result: the edit
        history = [{"role": "user", "content": "hi"},
                   {"role": "assistant", "content": [dict(use)]},
                   {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use["id"], "content": "ok"}]}]
        msg = json.loads(self.serve("write", "/v1/messages", max_tokens=8, tools=tools, system=system,
                                    messages=history).getresponse().read())
        use = msg["content"][-1]
        self.assertEqual(use["name"], "Edit")
        self.assertEqual(use["input"]["old_string"], "Rate limit exceeded. Please try again later.")
        self.assertEqual(use["input"]["new_string"],
                         "Rate limit exceeded. Please try again in 20s.\nError: 500 Internal Server Error")
        self.assertNotIn("replace_all", use["input"])
        # Codex: a streamed Responses request with a freeform apply_patch tool
        patch_tool = {"type": "custom", "name": "apply_patch", "format": {"type": "grammar"}}
        raw = self.serve("write", "/v1/responses", stream=True, tools=[patch_tool],
                         input=[{"type": "message", "role": "user", "content": "hi"}]).getresponse().read().decode()
        items = [json.loads(f.split("data: ", 1)[1])["item"] for f in raw.split("\n\n")
                 if "response.output_item.done" in f.split("\n")[0]]
        call = items[-1]
        self.assertEqual((call["type"], call["name"]), ("custom_tool_call", "apply_patch"))
        self.assertTrue(call["input"].startswith("*** Begin Patch\n*** Add File: fixtures/provider-errors.txt\n"
                                                 "+API Error: 529 Overloaded\n"))
        # two tool results, or a side request for a JSON object (Codex's thread title): the healthy answer
        done = [{"type": "custom_tool_call_output", "call_id": "c%d" % i, "output": "ok"} for i in (1, 2)]
        title = {"format": {"type": "json_schema", "name": "codex_output_schema", "schema": {}}}
        for extra in ({"input": done}, {"input": [], "text": title}):
            body = json.loads(self.serve("write", "/v1/responses", tools=[patch_tool], **extra).getresponse().read())
            self.assertEqual(body["output"][-1]["content"][0]["text"], fake_provider.HEALTHY_TEXT)
        # the edit as a patch: the changed line, the new one, context around them
        patch = fake_provider.write_patch(1)
        self.assertIn("-Rate limit exceeded. Please try again later.\n+Rate limit exceeded. Please try again "
                      "in 20s.\n+Error: 500 Internal Server Error\n", patch)


    def test_openhands_gets_its_terminal_and_file_editor_calls(self):
        # the OpenHands SDK's shapes: `summary` (optional) and `security_risk`
        # (required, an enum beginning with UNKNOWN) on every tool; one
        # `file_editor` for create and str_replace, whose path must be absolute
        # (the working directory is in that tool's description)
        meta = {"security_risk": {"type": "string", "enum": ["UNKNOWN", "LOW", "MEDIUM", "HIGH"]},
                "summary": {"type": "string", "description": "A concise summary (approximately 10 words)"}}
        terminal = {"type": "function", "function": {
            "name": "terminal", "description": "Execute a bash command in the terminal.",
            "parameters": {"type": "object", "required": ["command", "security_risk"], "properties": dict(
                {"command": {"type": "string"}, "is_input": {"type": "boolean"},
                 "timeout": {"type": "number"}, "reset": {"type": "boolean"}}, **meta)}}}
        editor = {"type": "function", "function": {
            "name": "file_editor",
            "description": "Custom editing tool.\n\nYour current working directory is: /tmp/oh/work\n",
            "parameters": {"type": "object", "required": ["command", "path", "security_risk"], "properties": dict(
                {"command": {"type": "string", "enum": ["view", "create", "str_replace", "insert", "undo_edit"]},
                 "path": {"type": "string", "description": "Absolute path to file or directory."},
                 "file_text": {"type": "string"}, "old_str": {"type": "string"}, "new_str": {"type": "string"},
                 "insert_line": {"type": "integer"}}, **meta)}}}
        others = [{"type": "function", "function": {"name": n, "parameters": {"type": "object", "properties": {}}}}
                  for n in ("task_tracker", "task", "finish", "think")]
        tools = [terminal, editor, *others]
        system = {"role": "system", "content": "You are OpenHands agent. Do NOT assume a path is relative to the "
                                               "current working directory."}

        def call(scenario, results=0):
            history = [system, {"role": "user", "content": "hi"}]
            history += [{"role": "tool", "tool_call_id": "c%d" % i, "content": "ok"} for i in range(results)]
            body = json.loads(self.serve(scenario, tools=tools, messages=history).getresponse().read())
            calls = body["choices"][0]["message"].get("tool_calls") or []
            return [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in calls]

        (name, args), = call("tool")
        self.assertEqual(name, "terminal")
        self.assertIn("last line of the first tool", args["command"])
        self.assertEqual((args["summary"], args["security_risk"]), ("Print the service check log", "LOW"))
        self.assertNotIn("is_input", args)
        # the failing command exits from a subshell: a top-level `exit` would end
        # the SDK's persistent shell (its result then the SDK's reset error)
        (name, args), = call("tool", 1)
        self.assertEqual((name, args["summary"]), ("terminal", "Re-run the failing check"))
        self.assertTrue(args["command"].startswith("(printf 'API Error: 529 Overloaded"))
        self.assertTrue(args["command"].endswith("; exit 1)"))
        self.assertEqual(call("tool", 2), [])
        (name, args), = call("write")
        self.assertEqual(name, "file_editor")
        self.assertEqual(args["command"], "create")
        self.assertEqual(args["path"], "/tmp/oh/work/fixtures/provider-errors.txt")
        self.assertEqual(args["file_text"].splitlines(), list(fake_provider.WRITE_LINES))
        self.assertEqual((args["summary"], args["security_risk"]), ("Add the provider error fixture", "LOW"))
        (name, args), = call("write", 1)
        self.assertEqual((name, args["command"]), ("file_editor", "str_replace"))
        self.assertEqual((args["old_str"], args["new_str"]), (fake_provider.EDIT_OLD, fake_provider.EDIT_NEW))
        self.assertNotIn("file_text", args)
        self.assertEqual(call("write", 2), [])


class ReapTest(unittest.TestCase):
    def test_ends_what_a_run_left_behind_and_nothing_else(self):
        import subprocess

        with tempfile.TemporaryDirectory() as run, tempfile.TemporaryDirectory() as other:
            inside = subprocess.Popen(["sleep", "30"], cwd=run)
            outside = subprocess.Popen(["sleep", "30"], cwd=other)
            try:
                found = drive.reap(Path(run))
                self.assertIn(inside.pid, found)
                self.assertNotIn(outside.pid, found)
                self.assertIsNotNone(inside.wait(5))
                self.assertIsNone(outside.poll())
            finally:
                for p in (inside, outside):
                    if p.poll() is None:
                        p.kill()
                    p.wait()


class DriftTest(unittest.TestCase):
    def test_reports_new_wording_new_fields_and_lost_visibility(self):
        import contextlib
        import io

        with tempfile.TemporaryDirectory() as tmp:
            old, new = Path(tmp, "old", "demo@1"), Path(tmp, "new", "demo@2")
            old.mkdir(parents=True)
            new.mkdir(parents=True)
            (old / "overloaded.pane").write_text("● API Error: 529 Overloaded (req_fake0123456789abcdef)\n")
            (new / "overloaded.pane").write_text("● API Error: 529 Overloaded (req_fakefedcba9876543210)\n")
            (old / "overloaded.x.jsonl").write_text('{"type":"error","message":"529 overloaded"}\n')
            (new / "overloaded.x.jsonl").write_text('{"type":"error","message":"529 overloaded","code":1}\n')
            (old / "auth.pane").write_text("API Error: 401 invalid x-api-key\n")
            (new / "auth.pane").write_text("thinking...\n")
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf):
                drive.drift_report(Path(tmp, "old"), Path(tmp, "new"))
            out = buf.getvalue()
        self.assertNotIn("overloaded.pane", out)  # only a request id changed
        self.assertIn("+ overloaded.x.jsonl: new JSON field /code", out)
        self.assertIn("! auth.pane: fault visible True -> False", out)
        self.assertIn("- auth.pane: API Error: 401 invalid x-api-key", out)


if __name__ == "__main__":
    unittest.main()
