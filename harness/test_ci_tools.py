"""Unit tests of the CI-tools harness: its guard, its hosts file, its manifest.

    python3 -m unittest discover -s harness

No network, no tool is run.
"""

from __future__ import annotations

import json
import re
import tempfile
import unittest
from pathlib import Path

import ci_tools

HERE = Path(__file__).resolve().parent


class Guard(unittest.TestCase):
    def test_every_tool_starts_through_the_loopback_guard(self):
        src = (HERE / "ci_tools.py").read_text()
        self.assertNotIn("subprocess.Popen(", src)
        # the tools (and their version commands) start only through launch_guard
        self.assertEqual(src.count("launch_guard(argv"), 2)
        # what subprocess.run starts: the namespace's own set-up (and the
        # unmounting of what a killed daemon left), faultsift,
        # and the install (npm, a venv and its pip, cargo install), which runs outside the
        # namespace as drive.py's does and starts no tool; keytool writes a
        # JVM tool's trust store from the run's CA (java_trust), offline; git
        # commits a job's checkout (git_job), offline
        firsts = re.findall(r"subprocess\.run\(\s*\[\s*([^,\]]+)", src)
        allowed = {'"mount"', '"umount"', '"ip"', '"npm"', '"cargo"', '"keytool"', '"git"', "str(binary)", "sys.executable",
                   'str(d / "bin" / "python")'}
        self.assertTrue(set(firsts) <= allowed, firsts)
        self.assertIn('run("openssl"', src)

    def test_every_process_of_a_run_dies_with_its_namespace(self):
        # a PID namespace whose init is the run: killing `unshare` (a run
        # stopped from outside) kills every tool it started, which a plain
        # net namespace let live on
        src = (HERE / "ci_tools.py").read_text()
        self.assertIn('"--pid", "--kill-child", "--mount-proc"', src)

    def test_parallel_runs_do_not_share_a_hosts_file(self):
        # inside a PID namespace every run's pid is the same small number: a
        # hosts file named from the pid was one file that parallel runs
        # overwrote (a `refused` run then read another run's names). Each
        # run's file is in its own temporary directory.
        src = (HERE / "ci_tools.py").read_text()
        self.assertNotIn("getpid", src)
        self.assertIn('hosts = root / "hosts"', src)

    def test_the_guard_is_drives_own(self):
        # the guard's refusals are tested in test_drive.py; here: this module
        # uses that very function, not a copy
        import drive
        self.assertIs(ci_tools.launch_guard, drive.launch_guard)


class Hosts(unittest.TestCase):
    def test_a_percy_run_expects_charge_in_the_manifest(self):
        # Percy's CLI logs that it could not create a build and exits 0:
        # whatever failed the job, it was not Percy (GOES_ON)
        with tempfile.TemporaryDirectory() as d:
            for tool in ("percy@1.32.12", "next@16.5.0"):
                (Path(d) / tool).mkdir()
                (Path(d) / tool / "unavailable.log").write_text("503 Service Unavailable\n")
            rows = ci_tools.write_manifest(Path(d)).read_text().splitlines()[1:]
            expect = {row.split("\t")[1]: row.split("\t")[4] for row in rows}
        self.assertEqual(expect, {"percy": "charge", "next": "fault"})


class ChunkedBody(unittest.TestCase):
    class Conn:
        """A connection whose recv hands out the given pieces, then nothing."""
        def __init__(self, pieces):
            self.pieces = list(pieces)

        def recv(self, n):
            return self.pieces.pop(0) if self.pieces else b""

    def test_a_chunk_ending_like_the_last_one_is_only_data(self):
        # `1.0.0\r\n` inside a multipart value, the recv boundary right after
        # the chunk's own CRLF: the body's end is the size-0 chunk, not bytes
        # that look like it
        conn = self.Conn([b"7\r\n1.0.0\r\n", b"\r\n", b"5\r\nhello\r\n", b"0\r\n\r\n", b"NEXT"])
        ci_tools.drain_chunked(conn, b"")
        self.assertEqual(conn.pieces, [b"NEXT"])

    def test_trailers_end_at_their_empty_line(self):
        conn = self.Conn([b"3\r\nabc\r\n0\r\nX-Sum: 1\r\n", b"\r\n", b"NEXT"])
        ci_tools.drain_chunked(conn, b"")
        self.assertEqual(conn.pieces, [b"NEXT"])

    def test_a_connection_closed_mid_body_ends_the_read(self):
        with self.assertRaises(EOFError):
            ci_tools.drain_chunked(self.Conn([b"a\r\nabc"]), b"")

    def test_registries_resolve_to_the_fake_one_but_in_dns_and_refused(self):
        names = {spec[2] for spec in ci_tools.TOOLS.values()}
        ok = ci_tools.hosts_file("unavailable")
        for n in names:
            self.assertIn(f"{ci_tools.ADDR}\t{n}\n", ok)
        refused = ci_tools.hosts_file("refused")
        for n in names:
            self.assertIn(f"{ci_tools.DEAD_ADDR}\t{n}\n", refused)
            self.assertNotIn(n, ci_tools.hosts_file("dns"))

    def test_the_address_is_not_one_ci_reads_as_the_jobs_own(self):
        # loopback, private and documentation ranges are `local-service-refused`
        for addr in (ci_tools.ADDR, ci_tools.DEAD_ADDR):
            self.assertFalse(re.match(r"127\.|10\.|192\.168\.|172\.(1[6-9]|2[0-9]|3[01])\.|169\.254\.|"
                                      r"192\.0\.2\.|198\.51\.100\.|203\.0\.113\.", addr), addr)
        for n in (spec[2] for spec in ci_tools.TOOLS.values()):
            self.assertFalse(re.search(r"\.(invalid|test|example|local|internal|localhost)$", n), n)


class RunnerLog(unittest.TestCase):
    """The step log `runner_log` writes from a node action's output."""

    def rows(self, out: bytes) -> list[str]:
        inputs = [("node-version", "22.11.0"), ("token", ci_tools.TOKEN)]
        return ci_tools.runner_log("actions/setup-node@v7", inputs, out, 1_700_000_000.25).decode().split("\n")

    def test_each_row_is_stamped_and_the_group_names_the_action_with_its_inputs(self):
        rows = self.rows(b"Attempting to download 22.11.0...\n")
        stamp = re.compile(r"^2023-11-14T22:13:[0-9]{2}\.[0-9]{7}Z ")
        self.assertTrue(all(stamp.match(r) for r in rows[:-1]), rows)
        self.assertEqual(rows[-1], "")
        bodies = [stamp.sub("", r) for r in rows[:-1]]
        self.assertEqual(bodies[0], "##[group]Run actions/setup-node@v7")
        self.assertEqual(bodies[1], "with:")
        self.assertIn("  node-version: 22.11.0", bodies)
        self.assertEqual(bodies[-2:], ["##[endgroup]", "Attempting to download 22.11.0..."])

    def test_workflow_commands_become_the_runners_tags(self):
        out = (b"::debug::Getting manifest\n::add-mask::hunter2\nkey hunter2\n::group::Environment details\n"
               b"::endgroup::\n::warning file=a.js,line=3::slow%25 down\n"
               b"::error::<html>%0D%0A<head><title>503 Service Unavailable</title></head>\n")
        text = "\n".join(self.rows(out))
        self.assertNotIn("Getting manifest", text)
        self.assertNotIn("hunter2", text)
        self.assertIn("Z key ***\n", text)
        self.assertNotIn("::", text)
        self.assertRegex(text, r"Z ##\[group\]Environment details\n[^\n]*Z ##\[endgroup\]\n")
        self.assertRegex(text, r"Z ##\[warning\]slow% down\n")
        # the message's own line break: one stamp, the page's next row bare
        self.assertRegex(text, r"Z ##\[error\]<html>\r\n<head><title>503 Service Unavailable</title></head>\n$")

    def test_the_token_is_masked(self):
        text = "\n".join(self.rows(f"Authorization: token {ci_tools.TOKEN}\n".encode()))
        self.assertNotIn(ci_tools.TOKEN, text)
        self.assertIn("  token: ***", text)
        self.assertIn("Authorization: token ***", text)

    def test_the_steps_inputs_come_first_then_the_manifests_defaults(self):
        manifest = (
            "name: 'Setup'\ninputs:\n  version:\n    description: 'which'\n  check-latest:\n"
            "    default: false\n  token:\n    default: ${{ github.server_url == 'https://github.com'"
            " && github.token || '' }}\n  filter:\n    default: null\n  cache:\n    default: 'true'\n"
            "outputs:\n  cache-hit:\n    description: 'hit'\nruns:\n  using: 'node24'\n"
            "  main: 'dist/setup/index.js'\n  post: 'dist/cache-save/index.js'\n"
        )
        main, inputs = ci_tools.action_manifest(manifest, [("version", "1.2"), ("cache", "false")])
        self.assertEqual(main, "dist/setup/index.js")
        # the step's own, then the defaults in order, the token evaluated,
        # a null and an input without a default left out
        self.assertEqual(inputs, [("version", "1.2"), ("cache", "false"), ("check-latest", "false"),
                                  ("token", ci_tools.TOKEN)])

    def test_the_actions_names_resolve_to_the_fake_server(self):
        ok = ci_tools.hosts_file("unavailable")
        for n in ci_tools.ACTION_NAMES:
            self.assertIn(f"{ci_tools.ADDR}\t{n}\n", ok)
            self.assertNotIn(n, ci_tools.hosts_file("dns"))


class Scenarios(unittest.TestCase):
    def test_the_tarball_is_the_same_every_run_and_its_half_is_cut(self):
        import gzip
        tgz = ci_tools.make_tarball()
        self.assertEqual(tgz, ci_tools.make_tarball())
        self.assertIn(b"package/package.json", gzip.decompress(tgz))
        with self.assertRaises(EOFError):
            gzip.decompress(tgz[: len(tgz) // 2])

    def test_unreachable_and_proxy_down_names(self):
        self.assertIn(f"{ci_tools.NOROUTE_ADDR}\tregistry.npmjs.org\n", ci_tools.hosts_file("unreachable"))
        proxy_host = ci_tools.PROXY_HOST
        for scenario in ("proxy-down", "dns", "unavailable"):
            self.assertIn(f"{ci_tools.DEAD_ADDR}\t{proxy_host}\n", ci_tools.hosts_file(scenario))
        self.assertEqual(ci_tools.proxy_env("npm", "unavailable"), {})
        self.assertNotIn("YARN_PROXY", ci_tools.proxy_env("yarn4", "proxy-down"))
        self.assertEqual(ci_tools.proxy_env("yarn", "proxy-down")["YARN_PROXY"], ci_tools.PROXY)


class Docker(unittest.TestCase):
    def test_the_daemon_is_the_runs_own_and_checks_the_chain_under_tls(self):
        with tempfile.TemporaryDirectory() as d:
            work, home = Path(d) / "work", Path(d) / "home"
            for tool in ("docker", "docker-build", "docker-login", "docker-push"):
                for scenario in ("unavailable", "tls"):
                    argv, env = ci_tools.TOOLS[tool][0](work, home, ci_tools.base_url(tool, scenario))
                    job = (work / "job.sh").read_text()
                    config = json.loads((home / "daemon.json").read_text())
                    # the client talks to this run's daemon, which the job stops
                    self.assertEqual(env["DOCKER_HOST"], f"unix://{home / 'd.sock'}")
                    self.assertIn(f"-H {env['DOCKER_HOST']} ", job)
                    self.assertIn(f'kill "$(cat {home}/d.pid)"', job)
                    self.assertEqual(argv, ["sh", str(work / "job.sh")])
                    # plain http but under `tls`, where nothing is insecure
                    want = {} if scenario == "tls" else {"insecure-registries": ["http://ghcr.io"]}
                    self.assertEqual(config, want, (tool, scenario))


class HttpsOnly(unittest.TestCase):
    def test_terraform_is_served_https_in_every_scenario(self):
        for scenario in ("unavailable", "refused", "tls"):
            self.assertTrue(ci_tools.base_url("terraform", scenario).startswith("https://"))
            self.assertTrue(ci_tools.base_url("terraform-plain", scenario).startswith("https://"))
        self.assertTrue(ci_tools.base_url("npm", "unavailable").startswith("http://"))

    def test_the_cloud_clis_reach_their_names_over_https_with_a_chain_they_trust(self):
        # the AWS CLI, kubectl, gh and gcloud speak https only: every name
        # they reach resolves to the fake server and is in its certificate
        with tempfile.TemporaryDirectory() as d:
            ci_tools.make_cert(Path(d))
            san = (Path(d) / "san.ext").read_text()
        ok = ci_tools.hosts_file("unavailable")
        for tool in ("aws-s3", "aws-ecr", "kubectl", "kubectl-get", "gh", "gh-pr", "gcloud-storage", "gcloud-run",
                     "wget", "playwright", "cypress", "puppeteer", "pre-commit", "rustup", "twine"):
            self.assertTrue(ci_tools.base_url(tool, "unavailable").startswith("https://"), tool)
            host = ci_tools.TOOLS[tool][2]
            self.assertIn(f"{ci_tools.ADDR}\t{host}\n", ok)
            self.assertIn(f"DNS:{host}", san)
        for name in ci_tools.OTHER_NAMES:
            self.assertIn(f"DNS:{name}", san)
            self.assertNotIn(name, ci_tools.hosts_file("dns"))



class Requests(unittest.TestCase):
    def test_a_requests_body_is_read_before_the_answer(self):
        # an answer over an unread upload resets the connection (twine's
        # POST saw the reset, not the status): the body is read and dropped,
        # and what follows it on the connection is left
        import socket
        import threading
        ours, theirs = socket.socketpair()
        with ours, theirs:
            theirs.sendall(b"POST /legacy/ HTTP/1.1\r\nHost: upload.pypi.org\r\nContent-Length: 11\r\n\r\nhello")
            # (the body's rest arrives after the head has been read)
            later = threading.Timer(0.3, lambda: theirs.sendall(b" worldNEXT"))
            later.start()
            head, host = ci_tools.Registry.read_head(None, ours)
            later.join()
            self.assertEqual((head, host), ("POST /legacy/ HTTP/1.1", "upload.pypi.org"))
            ours.settimeout(1)
            self.assertEqual(ours.recv(16), b"NEXT")

class Wrappers(unittest.TestCase):
    def test_a_wrapper_not_in_the_cache_is_skipped_and_one_in_it_is_set_up(self):
        with tempfile.TemporaryDirectory() as d:
            cache = Path(d) / "cache"
            saved = {k: dict(v) for k, v in ci_tools.WRAPPERS.items()}
            try:
                for w in ci_tools.WRAPPERS.values():
                    w["dir"] = cache
                self.assertIsNone(ci_tools.tool_version("gradle-wrapper"))
                for f in ("gradlew", "gradle/wrapper/gradle-wrapper.jar", "mvnw"):
                    (cache / f).parent.mkdir(parents=True, exist_ok=True)
                    (cache / f).write_text("#!/bin/sh\n")
                self.assertEqual(ci_tools.tool_version("gradle-wrapper"), "9.3.1")
                work, home = Path(d) / "work", Path(d) / "home"
                url = ci_tools.base_url("gradle-wrapper", "unavailable")
                argv, env = ci_tools.setup_gradle_wrapper(work, home, url)
                props = (work / "gradle" / "wrapper" / "gradle-wrapper.properties").read_text()
                # a properties file escapes the URL's colon
                self.assertIn("distributionUrl=http\\://services.gradle.org/distributions/", props)
                self.assertTrue((work / "gradlew").exists())
                self.assertNotIn("proxyHost", env["JAVA_OPTS"])
                _, env = ci_tools.setup_gradle_wrapper(work, home, url, ci_tools.PROXY)
                self.assertIn(f"-Dhttps.proxyHost={ci_tools.PROXY_HOST}", env["JAVA_OPTS"])
                _, quiet = ci_tools.setup_mvnw(work, home, ci_tools.base_url("mvnw", "unavailable"))
                _, verbose = ci_tools.setup_mvnw_v(work, home, ci_tools.base_url("mvnw-v", "unavailable"))
                self.assertNotIn("MVNW_VERBOSE", quiet)
                self.assertEqual(verbose["MVNW_VERBOSE"], "true")
            finally:
                for k, v in saved.items():
                    ci_tools.WRAPPERS[k].update(v)


class Releases(unittest.TestCase):
    def test_buf_before_1_32_updates_a_v1_module(self):
        saved = dict(ci_tools.AT)
        try:
            with tempfile.TemporaryDirectory() as d:
                for version, verb, layout in (("1.30.0", "mod", "v1"), ("1.75.0", "dep", "v2")):
                    ci_tools.AT["buf"] = version
                    work, home = Path(d) / version / "work", Path(d) / version / "home"
                    argv, env = ci_tools.setup_buf(work, home, ci_tools.base_url("buf", "unavailable"))
                    self.assertEqual(argv[-2:], [verb, "update"])
                    self.assertTrue((work / "buf.yaml").read_text().startswith(f"version: {layout}\n"))
                    self.assertIn("BUF_CACHE_DIR", env)
        finally:
            ci_tools.AT.clear()
            ci_tools.AT.update(saved)

    def test_an_older_release_starts_by_the_command_it_had(self):
        saved = (ci_tools.TOOLCACHE, dict(ci_tools.AT))
        try:
            with tempfile.TemporaryDirectory() as d:
                ci_tools.TOOLCACHE = Path(d)
                ci_tools.AT["sonar-scanner"] = "4.3.0"
                bins = Path(d) / "sonar-scanner@4.3.0" / "node_modules" / ".bin"
                bins.mkdir(parents=True)
                (bins / "sonar-scanner").write_text("#!/bin/sh\n")
                self.assertEqual(ci_tools.tool_bin("sonar-scanner"), [str(bins / "sonar-scanner")])
                (bins / "sonar-scanner-npm").write_text("#!/bin/sh\n")
                self.assertEqual(ci_tools.tool_bin("sonar-scanner"), [str(bins / "sonar-scanner-npm")])
        finally:
            ci_tools.TOOLCACHE = saved[0]
            ci_tools.AT.clear()
            ci_tools.AT.update(saved[1])

class Manifest(unittest.TestCase):
    def test_visible_and_expect_come_from_the_scenario(self):
        with tempfile.TemporaryDirectory() as d:
            root = Path(d)
            t = root / "npm@1.0.0"
            t.mkdir()
            (t / "unavailable.log").write_text("npm error 503 Service Unavailable - GET https://x\n")
            (t / "hang.log").write_text("npm http fetch GET https://x\n")  # killed, nothing said
            (t / "not-found.log").write_text("npm error 404 Not Found - GET https://x\n")
            (t / "runs.json").write_text(json.dumps({"hang": {"exit": -9, "capped": True, "requests": "GET / x1"}}))
            rows = ci_tools.write_manifest(root).read_text().splitlines()
            self.assertEqual(rows[0].split("\t"), ["path", "tool", "version", "scenario", "expect", "visible", "notes"])
            by = {r.split("\t")[3]: r.split("\t") for r in rows[1:]}
            self.assertEqual(by["unavailable"][4:6], ["fault", "yes"])
            self.assertEqual(by["hang"][4:6], ["fault", "no"])
            self.assertIn("(capped)", by["hang"][6])
            self.assertEqual(by["not-found"][4:6], ["charge", "yes"])


if __name__ == "__main__":
    unittest.main()
