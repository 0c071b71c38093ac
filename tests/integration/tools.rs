//! The real CI tools' own output: the package managers, build tools and
//! clients, GitHub's own actions and the cloud CLIs that
//! `harness/ci_tools.py` runs (its `TOOLS`, listed in harness/README.md,
//! "The CI tools") against a registry on loopback that fails on purpose,
//! each log classified with `ci` as `classify` reads it, against what
//! `testdata/tools/manifest.tsv` says the run was.

use std::collections::BTreeMap;

use faultsift::pipeline::window;
use faultsift::{Pipeline, WindowSpec};

use crate::util::{builtin_pipeline, root, testdata, word_rows};

/// One row of the manifest.
struct Capture {
    path: String,
    tool: String,
    scenario: String,
    /// `fault` (the registry failed) or `charge` (the job's own error).
    expect: String,
    /// Whether the fault's words reached the log at all.
    visible: bool,
}

fn manifest() -> Vec<Capture> {
    let text = std::fs::read_to_string(testdata("tools/manifest.tsv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap_or_else(|| panic!("no column {name}"));
    let (path, tool, scenario, expect, visible) =
        (col("path"), col("tool"), col("scenario"), col("expect"), col("visible"));
    lines
        .map(|l| {
            let c: Vec<&str> = l.split('\t').collect();
            Capture {
                path: c[path].to_string(),
                tool: c[tool].to_string(),
                scenario: c[scenario].to_string(),
                expect: c[expect].to_string(),
                visible: c[visible] == "yes",
            }
        })
        .collect()
}

fn classify(pipeline: &mut Option<Pipeline>, c: &Capture) -> faultsift::Verdict {
    let p = pipeline.get_or_insert_with(|| builtin_pipeline("ci", Some("failed")));
    let bytes = std::fs::read(testdata(&format!("tools/{}", c.path))).unwrap();
    p.classify_window(&c.path, window::from_bytes(&bytes, WindowSpec::default())).verdict
}

/// Visible faults `ci` leaves on purpose, each with its reason; a capture
/// listed here must still be missed, so the list cannot go stale.
const INTEGRITY: &str = "a tarball whose integrity does not match reads as a lockfile whose recorded integrity no longer matches the package (EINTEGRITY is a counterexample of `ci`): ambiguous, charged";
/// kubectl's status lines name no server: a kind or k3d cluster the job
/// started itself answers them too (an API server still starting, an
/// aggregated API not ready), and that is the work's own failure.
const KUBE_STATUS: &str = "kubectl's client-go status sentence names no server, and a cluster the job runs on the runner prints the same: charged";
const KUBE_BARE: &str = "kubectl's transport error names no server (`context deadline exceeded`, an x509 failure against the kubeconfig's own CA, a body cut short): a cluster of the job's own says the same, charged";
const GH_GRAPHQL: &str = "the GitHub CLI's GraphQL client words a failed answer as shurcooL-graphql does (`non-200 OK status code: {status} body: {body}`), the sentence of many Go GraphQL clients, naming no host: a job's own gateway's 502 reads the same, charged";
const GO_EOF: &str = "a cut answer ends the GitHub CLI in Go's bare `unexpected EOF`, any Go program's words: charged";
const AWS_500: &str = "botocore makes a bare 500 the code when the body is no AWS error, as moto's server (a job's own emulator) answers an unhandled error: charged";
/// pipenv 2023's resolver: urllib3's retry warning for the connection, then
/// `ResolutionFailure` (`Your dependencies could not be resolved`).
const PIPENV_RETRY: &str = "pipenv 2023's only cause is urllib3's `WARNING:…connectionpool:Retrying (…) after connection \
     broken by …` row, a retry that pip's own runs print and get past";
/// Vercel CLI 39's API error, seen only in a release run after the rules.
const VERCEL_STATUS: &str = "Vercel CLI 39's `Error: An unexpected error occurred in deploy: Error: Response Error (503)` names \
     no host; 60 hides the status: left for a rule of Vercel's own client";
/// PDM's one-line report names no host (session 53's second review).
const PDM_REPORT: &str = "PDM's `[{class}]: {message}` report names no host: a job's own index killed mid-answer and a plugin's \
     test that mocks the error print it alike";
/// libzypp's curl message row names no host for a reset or a certificate.
const ZYPP_HOSTLESS: &str = "libzypp's `Error message: Recv failure: …` and `SSL certificate problem: …` rows name no host (the \
     heading above does; a job's own server reads alike): left";
/// rclone's S3 client (aws-sdk-go v1) names no endpoint with a status.
const AWS_V1_STATUS: &str = "rclone's S3 status is aws-sdk-go v1's tab-led `status code: {code}, request id: …` row below \
     `SerializationError: failed to unmarshal error message` (a body that is no S3 error), and no row names the \
     endpoint: a job's own MinIO answers alike, charged";
/// s3cmd's rows name no endpoint.
const S3CMD_HOSTLESS: &str = "s3cmd's `WARNING: Retrying failed request: {path} ({cause})`, `WARNING: Upload failed: {path} \
     ({cause})` and `Upload of '{file}' failed too many times` name no endpoint (its `host_base` is the job's): a job's \
     own MinIO fails alike, charged";
/// urllib3 1.26's NewConnectionError under gdown's wrap.
const URLLIB3_WRAP: &str = "urllib3 1.26's NewConnectionError names no host and gdown's wrap splits it: a name's failure is \
     read only where the row names the host (the second review)";
/// An audit step's endpoint failing: a side check a job may go on past.
const AUDIT_SIDE: &str = "an audit is a side check a job may go on past (pnpm's `--ignore-registry-errors` prints the \
     sentence and exits 0, `npm audit || true`): its endpoint's status, npm's `warn audit {status} … - POST {url}`, \
     pnpm's `The audit endpoint … responded with {status}`, yarn 1's crash, is not read (the twentieth round's review); \
     yarn's bare `error Error: read ECONNRESET` and `aborted` name no host";
/// gdown's `Error:` head over a connection dropped or cut names no host.
const GDOWN_HOSTLESS: &str = "gdown's `Error:` head over requests' `('Connection aborted.', RemoteDisconnected(…))` or \
     `IncompleteRead(…)` names no host (its `HTTPSConnectionPool(host=…)` head is only for a failed connect): charged";
const WDM_BODY: &str = "webdriver-manager prints no status for a failed answer, only `ValueError: response body:`, the \
     body the server sent and the URL below it: the status is whatever the body's page says, charged";
const GECKO_BODY: &str = "the geckodriver package reads a failed answer's body as Cargo.toml (`Couldn't find version \
     property in Cargo.toml file: \"<html>…\"`): the status only in the page's words, charged";
const NODE_FETCH: &str = "Node's `TypeError: fetch failed` (or `terminated`) over `[cause]: Error: read ECONNRESET` or \
     `SocketError: other side closed` names no host: any Node program's, charged";
const GSUTIL_HOSTLESS: &str = "gsutil's `OSError: Connection refused.` and `OSError: [SSL: CERTIFICATE_VERIFY_FAILED] …` \
     (on its `/ [0 files][…]` counter row) and http.client's `IncompleteRead` in a traceback name no host: charged";
const ZIG_HOSTLESS: &str = "Zig's fetch errors (`error: bad HTTP response code: '503 Service Unavailable'`, `error: \
     server connection failed: ConnectionRefused`, `error: HTTP response read failure: …`) name no URL on their row \
     (`zig build` prints it on the source row below; 0.13 says `unable to connect to server:` and `invalid HTTP \
     response:`): a dependency on a job's own mirror fails alike, charged";
const BODY_CUT_HOSTLESS: &str = "a body cut short in words shared with other failures: DVC's `failed to transfer '{md5}' - \
     Response payload is not completed` (aiohttp) and Selenium Manager's `error decoding response body for url` (which \
     also says it of a body that is no JSON) or 4.15's `request or response body error` (no URL), charged";
const NODEENV_TRACEBACK: &str = "nodeenv through at least 1.10 (and 1.12's index.json fetch) crashes on urllib's bare \
     `urllib.error.HTTPError: HTTP Error 503: …` or `URLError: <urlopen error [Errno 111] Connection refused>`, or on \
     http.client's `RemoteDisconnected`/`IncompleteRead` (1.6 on an AttributeError for a cut body): no host named, charged";
const VSCODE_RUNNER: &str = "@vscode/test-electron rejects with Node's bare error (`Error: socket hang up`, `connect \
     ECONNREFUSED {addr}`, `self-signed certificate in certificate chain`, `aborted`) or its own hostless strings \
     (`Failed to get JSON`, `request timeout out after 15000ms`), which the project's runner prints behind its own \
     `Failed to run tests` (the sample's sentence): a runner's words and no host, charged";
const SNYK_PASSED: &str = "the snyk package's binary download was cut, its fallback (the legacy CLI) tested the \
     project and exited 0: the job did not fail";
const SNYK_LEGACY: &str = "the snyk package's wrapper falls back to its legacy CLI when it cannot fetch the binary (its \
     download rows are not what the job died of), and the legacy CLI words a 5xx or 429 of Snyk's API as `Service \
     unavailable error` or `Failed to get vulns`, which name neither host nor status: charged";
const WANDB_HOSTLESS: &str = "W&B's SDK names no host or status in these rows: 0.17's `{code} response executing \
     GraphQL.`, `Network error (HTTPError), entering retry loop.` and `Run initialization has timed out after {n} \
     sec.`, 0.31's `Error initializing run: unexpected EOF` (a self-hosted W&B server reads the same): charged";
const APP_BUILDER_EOF: &str = "electron-builder 24's app-builder ends a cut body in Go's bare `⨯ unexpected EOF`: any Go \
     program's words, charged";
const DATADOG_UPLOAD: &str = "datadog-ci's test-report upload (`❌ Failed upload jUnitXML for [{file}]: {error}` after its \
     `[attempt N] Retrying …` rows) names no host for a status, a reset, a cut answer or a chain, and a job runs it \
     `if: always()` after its own tests have failed too, as it runs the artifact upload, whose statuses are left \
     alike; when its last attempt got a status it goes on and exits 0 (`✅ Uploaded 1 files …`): charged";
const HUB_RESET: &str = "the Hub's client does not retry a connection dropped before the answer: it dies on an \
     uncaught `httpx2.RemoteProtocolError: Server disconnected without sending a response.`, naming no host, as a \
     test of a job's own server does (transformers 5 then says `OSError: Can't load the configuration of '{repo}'`, \
     as for a mistyped model id): charged";
const BUF_HOSTLESS: &str = "buf words a 5xx, a 429 and a failed connection alike (`Failure: the server hosted at that \
     remote is unavailable.`) and a 500, a TLS failure or its own deadline with no host (`Failure: unknown: 500 \
     Internal Server Error`, `tls certificate verification: …`, `Failure: context deadline exceeded`): a company's \
     own Buf Schema Registry fails alike, charged";
const MISE_HOSTLESS: &str = "mise names no URL on these rows: a name that did not resolve is not retried, so no retry \
     warning names the URL above mise 2026's last error, and mise 2024 words a cut body `error decoding response \
     body` without one; a mirror of the job's own fails alike, charged";
const MSAL_HOSTLESS: &str = "MSAL raises a 5xx from the identity authority's OpenID discovery as a bare `HTTP Error: \
     {code}` (msal.exceptions.MsalServiceError) and the Azure CLI prints it behind `ERROR: `, naming no host; a \
     cloud's authority may be a company's own (Azure Stack Hub's AD FS): charged, as other hostless rows are";
const REQUESTS_BARE: &str = "the kaggle CLI prints requests' bare exception text, `('Connection aborted.', \
     RemoteDisconnected(…))` or `('Connection broken: IncompleteRead(…)', …)`, naming no host: a job's own server \
     that drops the connection reads the same, charged";
const MATURIN_HOSTLESS: &str = "maturin's upload chain names no repository: `Failed to upload the wheel with status \
     {code}: {body}` and ureq 3's `io: {cause}` rows; an upload to a job's own index (`--repository-url`, a \
     pypiserver its tests start) reads the same, charged (ureq 2, in maturin 1.4, names the URL on its transport \
     rows: ureq-transport and ureq-dns read those)";
const SAFETY2_BARE: &str = "Safety 2's handler prints its errors' messages alone: `Check your network connection, the \
     request timed out.` and `Too many requests. Reason: …` name neither the program nor a host (its ServerError \
     names the program, and safety2-server-error reads it): charged";
const LEFT: &[(&str, &str)] = &[
    ("az@2.91.0/bad-gateway.log", MSAL_HOSTLESS),
    ("az@2.91.0/gateway-timeout.log", MSAL_HOSTLESS),
    ("az@2.91.0/server-error.log", MSAL_HOSTLESS),
    ("az@2.91.0/unavailable.log", MSAL_HOSTLESS),
    (
        "chromatic@18.14.3/hang.log",
        "the run's cap came before Chromatic's own request gave up; the only timeout row is its update check's \
         `Timed out after 5000ms`, a side check it goes on past",
    ),
    ("kaggle@2.2.5/reset.log", REQUESTS_BARE),
    ("kaggle@2.2.5/truncated.log", REQUESTS_BARE),
    ("maturin@1.16.0/bad-gateway.log", MATURIN_HOSTLESS),
    ("maturin@1.16.0/dns.log", MATURIN_HOSTLESS),
    ("maturin@1.16.0/gateway-timeout.log", MATURIN_HOSTLESS),
    ("maturin@1.16.0/proxy-down.log", MATURIN_HOSTLESS),
    ("maturin@1.16.0/rate-limit.log", MATURIN_HOSTLESS),
    ("maturin@1.16.0/refused.log", MATURIN_HOSTLESS),
    ("maturin@1.16.0/reset.log", MATURIN_HOSTLESS),
    ("maturin@1.16.0/server-error.log", MATURIN_HOSTLESS),
    ("maturin@1.16.0/tls.log", MATURIN_HOSTLESS),
    ("maturin@1.16.0/unavailable.log", MATURIN_HOSTLESS),
    ("maturin@1.16.0/unreachable.log", MATURIN_HOSTLESS),
    ("maturin@1.4.0/bad-gateway.log", MATURIN_HOSTLESS),
    ("maturin@1.4.0/gateway-timeout.log", MATURIN_HOSTLESS),
    ("maturin@1.4.0/rate-limit.log", MATURIN_HOSTLESS),
    ("maturin@1.4.0/server-error.log", MATURIN_HOSTLESS),
    ("maturin@1.4.0/unavailable.log", MATURIN_HOSTLESS),
    ("safety@2.3.5/hang.log", SAFETY2_BARE),
    ("safety@2.3.5/rate-limit.log", SAFETY2_BARE),
    ("npm@10.9.9/cut-tarball.log", INTEGRITY),
    ("npm@11.19.1/cut-tarball.log", INTEGRITY),
    ("npm@6.14.18/cut-tarball.log", INTEGRITY),
    ("npm@8.19.4/cut-tarball.log", INTEGRITY),
    ("npm@9.9.4/cut-tarball.log", INTEGRITY),
    ("pnpm@10.34.9/cut-tarball.log", INTEGRITY),
    ("pnpm@8.15.9/cut-tarball.log", INTEGRITY),
    ("pnpm@9.15.9/cut-tarball.log", INTEGRITY),
    ("bun@1.4.5/cut-tarball.log", INTEGRITY),
    (
        "yarn@1.22.22/cut-tarball.log",
        "yarn 1's bare `error Error: unexpected end of file` names no tarball: zlib's words, any program's",
    ),
    (
        "corepack@0.34.6/truncated.log",
        "Node's fetch (undici) dies uncaught with `TypeError: terminated` over `[cause]: SocketError: other side closed`, \
         naming no host: a job's own fetch of its own server that dies says the same",
    ),
    ("aws-ecr@1.45.11/server-error.log", AWS_500),
    ("aws-s3@1.45.11/server-error.log", AWS_500),
    ("kubectl@1.33.1/unavailable.log", KUBE_STATUS),
    ("kubectl@1.33.1/gateway-timeout.log", KUBE_STATUS),
    ("kubectl@1.33.1/rate-limit.log", KUBE_STATUS),
    ("kubectl@1.33.1/truncated.log", KUBE_BARE),
    ("kubectl-get@1.33.1/unavailable.log", KUBE_STATUS),
    ("kubectl-get@1.33.1/gateway-timeout.log", KUBE_STATUS),
    ("kubectl-get@1.33.1/rate-limit.log", KUBE_STATUS),
    ("kubectl-get@1.33.1/hang.log", KUBE_BARE),
    ("kubectl-get@1.33.1/tls.log", KUBE_BARE),
    ("kubectl-get@1.33.1/truncated.log", KUBE_BARE),
    ("gh@2.23.0/bad-gateway.log", GH_GRAPHQL),
    ("gh@2.23.0/rate-limit.log", GH_GRAPHQL),
    ("gh@2.23.0/truncated.log", GO_EOF),
    ("gh-pr@2.23.0/truncated.log", GO_EOF),
    (
        "firebase@15.37.0/dns.log",
        "not a DNS word: the Firebase CLI reads every failure of its token refresh as `Authentication \
         Error: Your credentials are no longer valid`, and the harness's `resolv` finds its later assertion \
         `resolving hosting target …`; the fault is hidden, as in the CLI's other runs",
    ),
    ("hf@2.4.0/reset.log", HUB_RESET),
    (
        "hg@6.3.2/truncated.log",
        "Mercurial crashes on a cut answer: its traceback ends on Python's bare `http.client.IncompleteRead: \
         IncompleteRead(…)`, naming no host, as any Python program's does",
    ),
    (
        "pecl@1.10.13/proxy-down.log",
        "not the fault's words: PEAR's own PHP warning (`Undefined variable $proxy_host in PEAR/Proxy.php`) when \
         a proxy is set; pecl reads every failure, this one too, as `No releases available for package`",
    ),
    (
        "pipenv@2026.10.3/dns.log",
        "visible only by the harness's word list (`Resolving dependencies...`): pipenv's resolver says \
         `No matching distribution found`, whatever pip met",
    ),
    (
        "pipenv@2026.10.3/truncated.log",
        "requests' `ChunkedEncodingError` in a traceback that Rich wrapped at 80 columns: the class on one row, \
         `('Connection broken: IncompleteRead(…` on the next",
    ),
    (
        "platformio@6.2.0/dns.log",
        "visible only by the harness's word list (`Resolving uno dependencies...`): PlatformIO's \
         `HTTPClientError: ` names no cause",
    ),
    (
        "platformio@6.2.0/rate-limit.log",
        "PlatformIO's `HTTPClientError: ` followed by the 429's HTML page on the rows below: the status only in \
         the page's title",
    ),
    (
        "ivy@2.5.0/dns.log",
        "visible only by the harness's word list (Ant's `impossible to resolve dependencies`): Ivy says `module not \
         found` unless its level is verbose",
    ),
    (
        "ivy@2.5.0/truncated.log",
        "Ivy reads a cut answer as `module not found`: the harness's word list matched its banner",
    ),
    ("pdm@2.29.4/proxy-down.log", PDM_REPORT),
    ("pdm@2.29.4/refused.log", PDM_REPORT),
    ("pdm@2.29.4/reset.log", PDM_REPORT),
    ("pdm@2.29.4/truncated.log", PDM_REPORT),
    ("zypper@1.14.42/reset.log", ZYPP_HOSTLESS),
    ("zypper@1.14.42/tls.log", ZYPP_HOSTLESS),
    ("pipenv@2023.12.1/dns.log", PIPENV_RETRY),
    ("pipenv@2023.12.1/hang.log", PIPENV_RETRY),
    ("pipenv@2023.12.1/proxy-down.log", PIPENV_RETRY),
    ("pipenv@2023.12.1/refused.log", PIPENV_RETRY),
    ("pipenv@2023.12.1/reset.log", PIPENV_RETRY),
    ("pipenv@2023.12.1/unreachable.log", PIPENV_RETRY),
    ("vercel@39.0.0/bad-gateway.log", VERCEL_STATUS),
    ("vercel@39.0.0/gateway-timeout.log", VERCEL_STATUS),
    ("vercel@39.0.0/server-error.log", VERCEL_STATUS),
    ("vercel@39.0.0/unavailable.log", VERCEL_STATUS),
    (
        "pdm@2.12.4/truncated.log",
        "PDM 2.12's `[ChunkedEncodingError]: ('Connection broken: IncompleteRead(…)')`: requests' class, which a \
         test of any client prints alike",
    ),
    (
        "rebar3@3.19.0/tls.log",
        "Erlang/OTP's `TLS client: … CLIENT ALERT: Fatal - Unknown CA` row names no host: an eunit run against the \
         project's own TLS server prints it too (session 53's review)",
    ),
    (
        "aria2@1.36.0/truncated.log",
        "aria2's retry of a cut answer ends on `Invalid range header` (the full body answered its range request): no \
         network cause named, charged",
    ),
    (
        "cargo-audit@0.22.2/tls.log",
        "cargo-audit names its chain only in rustls-platform-verifier's tracing row (`failed to verify TLS \
         certificate: invalid peer certificate: UnknownIssuer`), which no rule reads (a test of any rustls client \
         logs it); its error says only `error sending request for url`: charged",
    ),
    ("gdown@4.7.3/reset.log", GDOWN_HOSTLESS),
    ("gdown@4.7.3/truncated.log", GDOWN_HOSTLESS),
    ("gdown@5.2.0/reset.log", GDOWN_HOSTLESS),
    ("gdown@5.2.0/truncated.log", GDOWN_HOSTLESS),
    ("s3cmd@2.3.0/bad-gateway.log", S3CMD_HOSTLESS),
    ("s3cmd@2.3.0/dns.log", S3CMD_HOSTLESS),
    ("s3cmd@2.3.0/gateway-timeout.log", S3CMD_HOSTLESS),
    ("s3cmd@2.3.0/hang.log", S3CMD_HOSTLESS),
    ("s3cmd@2.3.0/proxy-down.log", S3CMD_HOSTLESS),
    ("s3cmd@2.3.0/rate-limit.log", S3CMD_HOSTLESS),
    ("s3cmd@2.3.0/refused.log", S3CMD_HOSTLESS),
    ("s3cmd@2.3.0/reset.log", S3CMD_HOSTLESS),
    ("s3cmd@2.3.0/server-error.log", S3CMD_HOSTLESS),
    ("s3cmd@2.3.0/tls.log", S3CMD_HOSTLESS),
    ("s3cmd@2.3.0/truncated.log", S3CMD_HOSTLESS),
    ("s3cmd@2.3.0/unavailable.log", S3CMD_HOSTLESS),
    ("s3cmd@2.3.0/unreachable.log", S3CMD_HOSTLESS),
    ("npm-audit@11.19.1/bad-gateway.log", AUDIT_SIDE),
    ("npm-audit@11.19.1/gateway-timeout.log", AUDIT_SIDE),
    ("npm-audit@11.19.1/rate-limit.log", AUDIT_SIDE),
    ("npm-audit@11.19.1/server-error.log", AUDIT_SIDE),
    ("npm-audit@11.19.1/unavailable.log", AUDIT_SIDE),
    ("pnpm-audit@10.34.9/bad-gateway.log", AUDIT_SIDE),
    ("pnpm-audit@10.34.9/gateway-timeout.log", AUDIT_SIDE),
    ("pnpm-audit@10.34.9/rate-limit.log", AUDIT_SIDE),
    ("pnpm-audit@10.34.9/server-error.log", AUDIT_SIDE),
    ("pnpm-audit@10.34.9/truncated.log", AUDIT_SIDE),
    ("pnpm-audit@10.34.9/unavailable.log", AUDIT_SIDE),
    ("yarn-audit@1.22.22/bad-gateway.log", AUDIT_SIDE),
    ("yarn-audit@1.22.22/gateway-timeout.log", AUDIT_SIDE),
    ("yarn-audit@1.22.22/reset.log", AUDIT_SIDE),
    ("yarn-audit@1.22.22/server-error.log", AUDIT_SIDE),
    ("yarn-audit@1.22.22/truncated.log", AUDIT_SIDE),
    ("yarn-audit@1.22.22/unavailable.log", AUDIT_SIDE),
    ("rclone@1.60.1/bad-gateway.log", AWS_V1_STATUS),
    ("rclone@1.60.1/gateway-timeout.log", AWS_V1_STATUS),
    ("rclone@1.60.1/rate-limit.log", AWS_V1_STATUS),
    ("rclone@1.60.1/server-error.log", AWS_V1_STATUS),
    ("rclone@1.60.1/unavailable.log", AWS_V1_STATUS),
    ("webdriver-manager@4.1.2/bad-gateway.log", WDM_BODY),
    ("webdriver-manager@4.1.2/gateway-timeout.log", WDM_BODY),
    ("webdriver-manager@4.1.2/rate-limit.log", WDM_BODY),
    ("webdriver-manager@4.1.2/server-error.log", WDM_BODY),
    ("webdriver-manager@4.1.2/unavailable.log", WDM_BODY),
    ("geckodriver@7.0.0/bad-gateway.log", GECKO_BODY),
    ("geckodriver@7.0.0/gateway-timeout.log", GECKO_BODY),
    ("geckodriver@7.0.0/rate-limit.log", GECKO_BODY),
    ("geckodriver@7.0.0/server-error.log", GECKO_BODY),
    ("geckodriver@7.0.0/unavailable.log", GECKO_BODY),
    ("geckodriver@7.0.0/reset.log", NODE_FETCH),
    ("geckodriver@7.0.0/truncated.log", NODE_FETCH),
    ("gsutil@5.38/proxy-down.log", GSUTIL_HOSTLESS),
    ("gsutil@5.38/refused.log", GSUTIL_HOSTLESS),
    ("gsutil@5.38/tls.log", GSUTIL_HOSTLESS),
    ("gsutil@5.38/truncated.log", GSUTIL_HOSTLESS),
    ("zig@0.17.1/bad-gateway.log", ZIG_HOSTLESS),
    ("zig@0.17.1/gateway-timeout.log", ZIG_HOSTLESS),
    ("zig@0.17.1/proxy-down.log", ZIG_HOSTLESS),
    ("zig@0.17.1/rate-limit.log", ZIG_HOSTLESS),
    ("zig@0.17.1/refused.log", ZIG_HOSTLESS),
    ("zig@0.17.1/reset.log", ZIG_HOSTLESS),
    ("zig@0.17.1/server-error.log", ZIG_HOSTLESS),
    ("zig@0.17.1/unavailable.log", ZIG_HOSTLESS),
    ("zig@0.17.1/unreachable.log", ZIG_HOSTLESS),
    ("dvc@3.67.1/truncated.log", BODY_CUT_HOSTLESS),
    ("selenium@4.48.0/truncated.log", BODY_CUT_HOSTLESS),
    ("geckodriver@4.5.1/bad-gateway.log", GECKO_BODY),
    ("geckodriver@4.5.1/gateway-timeout.log", GECKO_BODY),
    ("geckodriver@4.5.1/rate-limit.log", GECKO_BODY),
    ("geckodriver@4.5.1/server-error.log", GECKO_BODY),
    ("geckodriver@4.5.1/unavailable.log", GECKO_BODY),
    (
        "geckodriver@4.5.1/truncated.log",
        "the geckodriver package 4.5's node-fetch `FetchError: Invalid response body while trying to fetch {url}: aborted` \
         under Node's stack: not read outside the supabase script's frame",
    ),
    ("gsutil@5.27/proxy-down.log", GSUTIL_HOSTLESS),
    ("gsutil@5.27/refused.log", GSUTIL_HOSTLESS),
    ("gsutil@5.27/tls.log", GSUTIL_HOSTLESS),
    ("gsutil@5.27/truncated.log", GSUTIL_HOSTLESS),
    ("nodeenv@1.6.0/bad-gateway.log", NODEENV_TRACEBACK),
    ("nodeenv@1.6.0/gateway-timeout.log", NODEENV_TRACEBACK),
    ("nodeenv@1.6.0/proxy-down.log", NODEENV_TRACEBACK),
    ("nodeenv@1.6.0/rate-limit.log", NODEENV_TRACEBACK),
    ("nodeenv@1.6.0/refused.log", NODEENV_TRACEBACK),
    ("nodeenv@1.6.0/reset.log", NODEENV_TRACEBACK),
    ("nodeenv@1.6.0/server-error.log", NODEENV_TRACEBACK),
    ("nodeenv@1.6.0/tls.log", NODEENV_TRACEBACK),
    ("nodeenv@1.6.0/truncated.log", NODEENV_TRACEBACK),
    ("nodeenv@1.6.0/unavailable.log", NODEENV_TRACEBACK),
    ("nodeenv@1.8.0/proxy-down.log", NODEENV_TRACEBACK),
    ("nodeenv@1.8.0/refused.log", NODEENV_TRACEBACK),
    ("nodeenv@1.8.0/reset.log", NODEENV_TRACEBACK),
    ("nodeenv@1.8.0/tls.log", NODEENV_TRACEBACK),
    ("nodeenv@1.8.0/truncated.log", NODEENV_TRACEBACK),
    ("selenium@4.15.2/truncated.log", BODY_CUT_HOSTLESS),
    (
        "semgrep@1.50.0/truncated.log",
        "Semgrep 1.50 reads a cut ruleset as a bad one (`Invalid YAML file remote-registry`): a rules file of the job's \
         own says the same",
    ),
    ("zig@0.13.0/bad-gateway.log", ZIG_HOSTLESS),
    ("zig@0.13.0/gateway-timeout.log", ZIG_HOSTLESS),
    ("zig@0.13.0/proxy-down.log", ZIG_HOSTLESS),
    ("zig@0.13.0/rate-limit.log", ZIG_HOSTLESS),
    ("zig@0.13.0/refused.log", ZIG_HOSTLESS),
    ("zig@0.13.0/reset.log", ZIG_HOSTLESS),
    ("zig@0.13.0/server-error.log", ZIG_HOSTLESS),
    ("zig@0.13.0/unavailable.log", ZIG_HOSTLESS),
    ("zig@0.13.0/unreachable.log", ZIG_HOSTLESS),
    ("webdriver-manager@3.8.6/bad-gateway.log", WDM_BODY),
    ("webdriver-manager@3.8.6/gateway-timeout.log", WDM_BODY),
    ("webdriver-manager@3.8.6/rate-limit.log", WDM_BODY),
    ("webdriver-manager@3.8.6/server-error.log", WDM_BODY),
    ("webdriver-manager@3.8.6/unavailable.log", WDM_BODY),
    // session 56's programs
    ("electron-builder@24.13.3/truncated.log", APP_BUILDER_EOF),
    ("snyk@1.1200.0/bad-gateway.log", SNYK_LEGACY),
    ("snyk@1.1200.0/gateway-timeout.log", SNYK_LEGACY),
    ("snyk@1.1200.0/rate-limit.log", SNYK_LEGACY),
    ("snyk@1.1200.0/server-error.log", SNYK_LEGACY),
    ("snyk@1.1200.0/unavailable.log", SNYK_LEGACY),
    ("snyk@1.1200.0/truncated.log", SNYK_PASSED),
    ("snyk@1.1307.4/bad-gateway.log", SNYK_LEGACY),
    ("snyk@1.1307.4/gateway-timeout.log", SNYK_LEGACY),
    ("snyk@1.1307.4/rate-limit.log", SNYK_LEGACY),
    ("snyk@1.1307.4/server-error.log", SNYK_LEGACY),
    ("snyk@1.1307.4/unavailable.log", SNYK_LEGACY),
    ("snyk@1.1307.4/truncated.log", SNYK_PASSED),
    ("vscode-test@2.4.1/hang.log", VSCODE_RUNNER),
    ("vscode-test@2.4.1/proxy-down.log", VSCODE_RUNNER),
    ("vscode-test@2.4.1/refused.log", VSCODE_RUNNER),
    ("vscode-test@2.4.1/reset.log", VSCODE_RUNNER),
    ("vscode-test@2.4.1/tls.log", VSCODE_RUNNER),
    ("vscode-test@2.4.1/truncated.log", VSCODE_RUNNER),
    ("vscode-test@2.4.1/unreachable.log", VSCODE_RUNNER),
    ("vscode-test@3.1.0/hang.log", VSCODE_RUNNER),
    ("vscode-test@3.1.0/proxy-down.log", VSCODE_RUNNER),
    ("vscode-test@3.1.0/refused.log", VSCODE_RUNNER),
    ("vscode-test@3.1.0/reset.log", VSCODE_RUNNER),
    ("vscode-test@3.1.0/tls.log", VSCODE_RUNNER),
    ("vscode-test@3.1.0/truncated.log", VSCODE_RUNNER),
    ("vscode-test@3.1.0/unreachable.log", VSCODE_RUNNER),
    ("wandb@0.17.9/bad-gateway.log", WANDB_HOSTLESS),
    ("wandb@0.17.9/gateway-timeout.log", WANDB_HOSTLESS),
    ("wandb@0.17.9/hang.log", WANDB_HOSTLESS),
    ("wandb@0.17.9/proxy-down.log", WANDB_HOSTLESS),
    ("wandb@0.17.9/rate-limit.log", WANDB_HOSTLESS),
    ("wandb@0.17.9/server-error.log", WANDB_HOSTLESS),
    ("wandb@0.17.9/unavailable.log", WANDB_HOSTLESS),
    ("wandb@0.31.0/truncated.log", WANDB_HOSTLESS),
    ("datadog-ci@2.42.0/bad-gateway.log", DATADOG_UPLOAD),
    ("datadog-ci@2.42.0/gateway-timeout.log", DATADOG_UPLOAD),
    ("datadog-ci@2.42.0/rate-limit.log", DATADOG_UPLOAD),
    ("datadog-ci@2.42.0/reset.log", DATADOG_UPLOAD),
    ("datadog-ci@2.42.0/server-error.log", DATADOG_UPLOAD),
    ("datadog-ci@2.42.0/tls.log", DATADOG_UPLOAD),
    ("datadog-ci@2.42.0/truncated.log", DATADOG_UPLOAD),
    ("datadog-ci@2.42.0/unavailable.log", DATADOG_UPLOAD),
    ("datadog-ci@5.25.0/bad-gateway.log", DATADOG_UPLOAD),
    ("datadog-ci@5.25.0/gateway-timeout.log", DATADOG_UPLOAD),
    ("datadog-ci@5.25.0/rate-limit.log", DATADOG_UPLOAD),
    ("datadog-ci@5.25.0/reset.log", DATADOG_UPLOAD),
    ("datadog-ci@5.25.0/server-error.log", DATADOG_UPLOAD),
    ("datadog-ci@5.25.0/tls.log", DATADOG_UPLOAD),
    ("datadog-ci@5.25.0/truncated.log", DATADOG_UPLOAD),
    ("datadog-ci@5.25.0/unavailable.log", DATADOG_UPLOAD),
    ("transformers@5.25.0/reset.log", HUB_RESET),
    ("buf@1.30.0/hang.log", BUF_HOSTLESS),
    ("buf@1.30.0/server-error.log", BUF_HOSTLESS),
    ("buf@1.30.0/tls.log", BUF_HOSTLESS),
    ("buf@1.75.0/server-error.log", BUF_HOSTLESS),
    ("buf@1.75.0/tls.log", BUF_HOSTLESS),
    ("mise@2026.9.15/dns.log", MISE_HOSTLESS),
    (
        "mise@2026.9.15/hang.log",
        "mise's retry warnings name the URL and the timeout, but a retry is not what a job died of (a recovered \
         public request's warning sits above a private mirror's failure alike); its last error, read, comes after the \
         run's cap",
    ),
    ("mise@v2024.10.0/truncated.log", MISE_HOSTLESS),
];

#[test]
fn the_tool_manifest_names_every_capture_and_only_captures() {
    let rows = manifest();
    assert!(rows.len() >= 250, "captures: {}", rows.len());
    for c in &rows {
        assert!(testdata(&format!("tools/{}", c.path)).is_file(), "{} is missing", c.path);
        assert!(["fault", "charge"].contains(&c.expect.as_str()), "{}: expect {}", c.path, c.expect);
    }
    let tools: std::collections::BTreeSet<&str> = rows.iter().map(|c| c.tool.as_str()).collect();
    let required = "npm yarn yarn4 pnpm bun pip pip-v uv cargo go git curl maven apt gem bundler aws-s3 aws-ecr \
                    kubectl kubectl-get gh gh-pr gcloud-storage gcloud-run skopeo podman wget \
                    playwright cypress puppeteer puppeteer-npm pre-commit rustup twine npm-publish codecov ansible-galaxy hf \
                    sentry-cli firebase deno";
    for tool in required.split_whitespace() {
        assert!(tools.contains(tool), "no captures of {tool}");
    }
    // every file on disk is a row
    let rows: std::collections::BTreeSet<String> = rows.into_iter().map(|c| c.path).collect();
    for dir in std::fs::read_dir(testdata("tools")).unwrap() {
        let dir = dir.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(&dir).unwrap() {
            let f = f.unwrap().path();
            if f.extension().is_some_and(|e| e == "log") {
                let rel = format!(
                    "{}/{}",
                    dir.file_name().unwrap().to_string_lossy(),
                    f.file_name().unwrap().to_string_lossy()
                );
                assert!(rows.contains(&rel), "{rel} is not in the manifest");
            }
        }
    }
}

/// A package the registry does not have (404) is the job's own error: no
/// tool's answer to it may pause or retry the job.
#[test]
fn a_missing_package_is_charged_under_every_tool() {
    let mut pipeline = None;
    let controls: Vec<Capture> = manifest().into_iter().filter(|c| c.expect == "charge").collect();
    assert!(controls.len() >= 20, "controls: {}", controls.len());
    let paused: Vec<String> = controls
        .iter()
        .filter_map(|c| {
            let v = classify(&mut pipeline, c);
            v.env_fault.then(|| format!("{} -> {:?} {:?}: {:?}", c.path, v.action, v.rule, v.evidence))
        })
        .collect();
    assert!(paused.is_empty(), "a missing package paused:\n{}", paused.join("\n"));
}

/// Every fault whose words reached the log is caught, but those `LEFT`
/// names; the README states the figure.
#[test]
fn every_visible_fault_of_the_ci_tools_is_caught() {
    let mut pipeline = None;
    let mut per_tool: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut missed = Vec::new();
    let mut left_missed = Vec::new();
    let mut member_rows = Vec::new();
    let faults: Vec<Capture> = manifest().into_iter().filter(|c| c.expect == "fault" && c.visible).collect();
    assert!(faults.len() >= 200, "visible faults: {}", faults.len());
    for c in &faults {
        let v = classify(&mut pipeline, c);
        let cell = per_tool.entry(c.tool.clone()).or_default();
        cell.1 += 1;
        if v.env_fault {
            cell.0 += 1;
            // the evidence names the cause: not a member row of the error
            // object npm dumps below its own line (`npm error   code: '…',`)
            let ev = v.evidence.as_deref().unwrap_or_default();
            if member_row(ev) {
                member_rows.push(format!("{}: {ev}", c.path));
            }
        } else if LEFT.iter().any(|(p, _)| *p == c.path) {
            left_missed.push(c.path.clone());
        } else {
            missed.push(format!("{} ({}): {:?}", c.path, c.scenario, v.reason));
        }
    }
    for (tool, (caught, all)) in &per_tool {
        eprintln!("{tool:<6} {caught}/{all}");
    }
    assert!(missed.is_empty(), "visible faults missed:\n{}", missed.join("\n"));
    assert!(member_rows.is_empty(), "evidence on an error object's member row:\n{}", member_rows.join("\n"));
    let stale = stale(LEFT, &left_missed);
    assert!(stale.is_empty(), "listed as left but caught now (or gone): {stale:?}");
    let (caught, all) = per_tool.values().fold((0, 0), |(c, a), (caught, all)| (c + caught, a + all));
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let sentence = format!("{caught} of {all} visible faults of the CI tools caught");
    let flat = readme.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains(&sentence), "README.md should say {sentence:?}");
}

/// The entries of a list of what is left on purpose that no longer read
/// otherwise (`seen` holds those that still do): a list that cannot go stale.
fn stale<'a>(left: &[(&'a str, &str)], seen: &[impl AsRef<str>]) -> Vec<&'a str> {
    left.iter().map(|(p, _)| *p).filter(|p| !seen.iter().any(|s| s.as_ref() == *p)).collect()
}

/// `npm error   code: 'ECONNREFUSED',`: a member of the error object npm
/// prints below its own message, not the line that names the cause.
fn member_row(line: &str) -> bool {
    let Some(rest) = line.strip_prefix("npm error").or_else(|| line.strip_prefix("npm ERR!")) else {
        return false;
    };
    rest.trim_start().split_once(": ").is_some_and(|(key, value)| {
        !key.is_empty()
            && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && value.starts_with(['\'', '{', '['])
    })
}

/// A job's log as the runner stores it stamps every row
/// (`2026-12-05T23:05:31.0000031Z `), and `gh run view --log` puts the job
/// and the step before the stamp, tab-separated: every capture reads the
/// same under either.
#[test]
fn every_tool_capture_reads_the_same_under_the_runners_prefixes() {
    let mut pipeline = None;
    let mut changed = Vec::new();
    let rows = manifest();
    for c in &rows {
        let bytes = std::fs::read(testdata(&format!("tools/{}", c.path))).unwrap();
        let base = classify(&mut pipeline, c);
        let text = String::from_utf8_lossy(&bytes);
        for (name, lead) in [("actions", ""), ("gh run view", "build\tInstall dependencies\t")] {
            let stamped: String = text
                .lines()
                .enumerate()
                .map(|(i, l)| format!("{lead}2026-12-05T23:05:{:02}.{i:07}Z {l}\n", i % 60))
                .collect();
            let p = pipeline.get_or_insert_with(|| builtin_pipeline("ci", Some("failed")));
            let v = p.classify_window(&c.path, window::from_bytes(stamped.as_bytes(), WindowSpec::default())).verdict;
            if (v.action, v.env_fault) != (base.action, base.env_fault) {
                changed.push(format!("{} ({name}): {:?} -> {:?} {:?}", c.path, base.action, v.action, v.evidence));
            }
        }
    }
    assert!(rows.len() >= 250);
    assert!(changed.is_empty(), "captures that read otherwise when stamped:\n{}", changed.join("\n"));
}

/// The kind a scenario's fault should carry: what the registry did.
fn scenario_kind(scenario: &str) -> &'static str {
    match scenario {
        "unavailable" | "bad-gateway" | "server-error" | "gateway-timeout" => "server_error",
        "rate-limit" => "rate_limit",
        "hang" => "timeout",
        "dns" => "dns",
        "tls" => "tls",
        _ => "connection",
    }
}

/// The verdict's kind names what the registry did, for all but the
/// captures where a tool's generic line is the last word (harness/README.md,
/// "Kinds"): held to a floor, so that a rule placed where it shadows a
/// named cause shows here.
#[test]
fn the_kind_of_a_caught_fault_is_the_registrys_fault() {
    let mut pipeline = None;
    let (mut right, mut all) = (0, 0);
    for c in manifest().into_iter().filter(|c| c.expect == "fault" && c.visible) {
        let v = classify(&mut pipeline, &c);
        all += 1;
        right += usize::from(v.kind.as_deref() == Some(scenario_kind(&c.scenario)));
    }
    eprintln!("kind as the scenario's: {right}/{all}");
    assert!(right >= 1995, "kind as the scenario's in {right} of {all}");
}

/// Terraform word-wraps its diagnostic itself (`│ ` rows of 78 columns), so
/// where a cause's words fall depends on the provider's name: each captured
/// paragraph, re-wrapped at 76 columns under names from three characters to
/// forty-six, is still caught.
#[test]
fn a_terraform_cause_is_caught_wherever_its_wrap_falls() {
    let names = [
        "a/b",
        "hashicorp/aws",
        "integrations/github",
        "cloudflare/cloudflare",
        "hashicorp/google-beta",
        "terraform-aws-modules/very-long-provider-name-x",
    ];
    let p = builtin_pipeline("ci", Some("failed"));
    let mut tried = 0;
    let mut missed = Vec::new();
    for c in manifest().into_iter().filter(|c| c.tool == "terraform" && c.expect == "fault" && c.visible) {
        let raw = std::fs::read_to_string(testdata(&format!("tools/{}", c.path))).unwrap();
        let plain = strip_ansi_escapes::strip_str(&raw);
        let rows: Vec<&str> = plain.lines().collect();
        let head = rows.iter().position(|r| r.starts_with("│ Could not retrieve")).expect("the query's paragraph");
        let end = head + rows[head..].iter().position(|r| r.trim_end() == "│").expect("the paragraph's end");
        let para = rows[head..end].iter().map(|r| r.trim_start_matches('│').trim()).collect::<Vec<_>>().join(" ");
        for name in names {
            let text = {
                let wrapped: Vec<String> =
                    word_rows(&para.replace("hashicorp/null", name), 76).iter().map(|r| format!("│ {r}")).collect();
                let mid = wrapped.iter().map(String::as_str);
                rows[..head]
                    .iter()
                    .copied()
                    .chain(mid)
                    .chain(rows[end..].iter().copied())
                    .collect::<Vec<_>>()
                    .join("\n")
            };
            tried += 1;
            let v = p.classify_window(&c.path, window::from_bytes(text.as_bytes(), WindowSpec::default())).verdict;
            if !v.env_fault {
                missed.push(format!("{} under {name}:\n{text}", c.path));
            }
        }
    }
    assert_eq!(tried, 13 * names.len());
    assert!(missed.is_empty(), "re-wrapped Terraform causes missed:\n{}", missed.join("\n\n"));
}

/// The review logs `ci` reads otherwise than `manifest.tsv` says, each with
/// the reason it is left; a log listed here must still read otherwise.
const REVIEW_LEFT: &[(&str, &str)] = &[
    (
        "healthy-07.log",
        "the job's own registry whose CA it never installed: a chain that does not verify reads as a proxy's",
    ),
    ("healthy-08.log", "a mistyped registry name: Go's `no such host` reads as DNS failing, as every tool's does"),
    ("healthy-09.log", "a vendored provider zip cut short: `unexpected EOF` in the box reads as a cut download"),
    (
        "healthy-21.log",
        "a program's own refusal right below the wrapper's finished download, no row between: within reach of its framing",
    ),
    (
        "healthy-38.log",
        "wget -nv's bare `Read error (…) in headers.` below no `Connecting` row (read so before this session)",
    ),
    (
        "healthy-43.log",
        "the daemon's bare `Error response from daemon: EOF` from the job's own registry (read so before this session)",
    ),
    ("fault-21.log", "wget -nv's bare `failed: Connection timed out.` names no host"),
    ("fault-28.log", "a status after a download URL mid-row: no printer's source shows the form"),
    ("fault-31.log", "terragrunt's own row prefix before the box: its wording not checked against terragrunt"),
    ("fault-37.log", "a status after `unsuccessful request to` mid-row: no printer's source shows the form"),
    ("fault-38.log", "`giving up after 3 attempt(s)` names no cause"),
];

/// Logs of the forty-ninth session's review (`testdata/review/s49/`, of the
/// rules for GitHub's own actions) read otherwise than judged, each with
/// its reason.
const UI_COPY: &str = "the UI's copy of an annotation (`Error: ` with no runner tag) reads as Node's own uncaught \
                       error and a test runner's print of it: only the runner's `##[error]` frames an action's page or cause";
const REVIEW49_LEFT: &[(&str, &str)] = &[
    ("fault-03.log", UI_COPY),
    ("fault-06.log", UI_COPY),
    ("fault-09.log", UI_COPY),
    ("fault-20.log", UI_COPY),
    ("fault-33.log", UI_COPY),
    (
        "fault-27.log",
        "Cloudflare's rate-limit page shares its `Access denied | …` title with a firewall's block (a 403): no status to read",
    ),
    (
        "healthy-13.log",
        "an action repository's own tests print tool-cache's `Unexpected HTTP response: 429` rows (read as a 5xx before this session)",
    ),
    (
        "healthy-20.log",
        "the cache pointed at the job's own build of the service (ACTIONS_RESULTS_URL in the step's env): the log names no address",
    ),
    (
        "healthy-26.log",
        "curl's `(22) The requested URL returned error: 502` names no URL: the job's own compose stack reads as a registry (an older rule)",
    ),
    (
        "healthy-33.log",
        "a deploy refused by the project's own host at a public address: only loopback, private and local names are the job's own",
    ),
];

/// Logs of the fiftieth session's review (`testdata/review/s50/`, of the
/// rules for the AWS CLI and kubectl) read otherwise than judged, each with
/// its reason.
const REVIEW50_LEFT: &[(&str, &str)] = &[
    (
        "healthy-07.log",
        "a unittest run's bare traceback tail of a mocked ClientError carrying the retry note is a boto3 deploy \
         script's death line for line; only the runner's summary below tells them apart",
    ),
    (
        "healthy-10.log",
        "a placeholder kubeconfig naming `example.com` (RFC 2606): the older `dns` rule reads its lookup, as any name's",
    ),
    (
        "healthy-15.log",
        "a log classifier's own test echoes an `upload failed: …` fixture in pytest's captured stdout, at the first column",
    ),
    (
        "healthy-16.log",
        "an upload the workflow lets fail meets a real outage, then Go's tests fail: no rule or progress row reads \
         `go test`'s FAIL rows, so the outage is the last word",
    ),
    ("healthy-34.log", "the job's own k3s VM on a public address, refused before k3s starts: the line is an outage's"),
];

/// Logs of the fiftieth session's second review (`testdata/review/s50b/`,
/// of the Google Cloud SDK's patterns and the proxy rules) read otherwise
/// than judged, each with its reason.
const REVIEW50B_LEFT: &[(&str, &str)] = &[
    (
        "healthy-08.log",
        "the job's own proxy container on a private address: a Go dial to the runner's proxy reads the same",
    ),
    (
        "healthy-24.log",
        "the job's own proxy on loopback at a well-known port: a proxy agent on the runner reads the same",
    ),
    (
        "healthy-10.log",
        "an upload's 503 the script let pass, then jest fails: no rule or progress row reads jest's summary",
    ),
    (
        "fault-17.log",
        "workload identity's impersonation answered 503 inside google-auth's JSON-escaped body under the refresh \
         sentence: no printer's source shows where the status falls",
    ),
    (
        "fault-19.log",
        "the GCE metadata server unreachable: a hosted runner with no credentials configured ends the same way, \
         the job's own setup",
    ),
    (
        "fault-25.log",
        "the token refresh answered with Google's 502 page: the page's status sits rows below the refresh sentence",
    ),
];

/// The fifty-first session's review of the browser and binary downloads'
/// rules (`testdata/review/s51/`): what it left, with why.
const REVIEW51_LEFT: &[(&str, &str)] = &[
    (
        "healthy-09.log",
        "a mocha diff's context row quoting Puppeteer's provider row: Node's lookup error of a named host \
         after a `- ` row, which the older dns rule reads as well",
    ),
    (
        "healthy-19.log",
        "Cypress's `Corrupted download` from a mirror of the job's own: only the job's environment block \
         names CYPRESS_DOWNLOAD_MIRROR; Cypress 15 prints no URL",
    ),
    ("healthy-20.log", "Cypress's `Response code: 503` from the job's own mirror, named only in the environment block"),
    (
        "fault-12.log",
        "jest's globalSetup wrapping the downloader's sentence after `reason: `: a test runner's frame, \
         which the sentence is not read inside",
    ),
    ("fault-17.log", "pnpm's lifecycle prefix before Puppeteer's provider row, worded from memory, unchecked"),
];

/// The fifty-first session's second review, of the rules for rustup, twine,
/// Codecov's CLI, ansible-galaxy and the Hub's client
/// (`testdata/review/s51b/`): what it left, with why.
const REVIEW51B_LEFT: &[(&str, &str)] = &[
    (
        "healthy-02.log",
        "twine's status sentence that rich wrapped before its URL, here the job's own devpi: the wrapped \
         form is read without its host, as PyPI's answer wraps too",
    ),
    (
        "healthy-21.log",
        "the Hub client's try rows inside pytest's captured stderr: a test's captured output is not told \
         from the job's own rows",
    ),
    ("healthy-23.log", "twine's status row inside pytest's captured stderr, as healthy-21"),
    (
        "fault-02.log",
        "rustup 1.18's status on its own `info: caused by:` row: read as `connection` by its head (the row \
         alone names no host, and a mirror of the job's own prints it too)",
    ),
    (
        "fault-13.log",
        "Codecov's CLI before it retried a 502, its page row by row: no row names a host (worded from memory)",
    ),
    (
        "fault-29.log",
        "ansible 2.9's `Unexpected Exception, this is probably a bug: The read operation timed out`: no \
         host, any Python program's timeout",
    ),
];

/// The fifty-second session's review, of the rules for Mercurial, Subversion,
/// Mix, cabal-install, node-gyp, Electron's postinstall, git-lfs, bazelisk and
/// Conan (`testdata/review/s52/`): what it left, with why.
const REVIEW52_LEFT: &[(&str, &str)] = &[
    (
        "healthy-22.log",
        "a step that prints an old incident log: its svn rows stand at the first column as svn prints them, \
         and nothing after them reads as the job's own failure",
    ),
    (
        "fault-14.log",
        "Hex's own client (`Request failed (503)`, then `Package fetch failed and no cached copy available`): \
         not run by the harness, and its status row names no host",
    ),
    ("fault-15.log", "Hex's registry client's bare `:timeout` row, as fault-14: no host, not run"),
    (
        "fault-20.log",
        "node-gyp's `FetchError: … reason: connect ETIMEDOUT …` is read as `connection`, as npm's FetchError \
         with that reason is",
    ),
    (
        "fault-22.log",
        "got's bare `HTTPError: Response code 503 (…)` without npm's frame: the class's own sentence, which a \
         test of any got client prints too",
    ),
    ("fault-24.log", "got's bare HTTPError in yarn 1's script output block, as fault-22"),
];

/// The fifty-second session's second review, of the rules for Prisma,
/// chromedriver, bazelisk 1.8, opam and axios's statuses
/// (`testdata/review/s52b/`): what it left, with why.
const REVIEW52B_LEFT: &[(&str, &str)] = &[
    (
        "healthy-07.log",
        "a jest `console.error` of a mocked Prisma download: Prisma's sentence behind the indent that tools' \
         own rows carry too",
    ),
    ("healthy-11.log", "opam's row in pytest's captured stdout, at the first column, as opam prints it"),
    (
        "fault-04.log",
        "Prisma 2's `Error: {reason} {url}` (a public log's 404 form, generalised to a 502): a bare reason \
         phrase before a URL",
    ),
    (
        "fault-13.log",
        "axios's bare `Request failed with status code 502` behind a deploy script's own words: any app's \
         and test's sentence, read only in a tool's frame",
    ),
    (
        "fault-17.log",
        "opam fetching through wget: the status only in wget's last row quoted inside opam's `Download \
         command failed: … exited with code 8 \"…\"` (wget's 8 is any server error, a 404 too)",
    ),
    (
        "fault-25.log",
        "an svn external's 503 warning, then the checkout's own `Checked out revision N.` (worded from \
         memory): read as recovered",
    ),
    ("fault-26.log", "turbo's `{package}:{task}: ` prefix (worded from memory), not among a row's leads"),
];

/// The fifty-third session's review, of the rules for librepo (dnf), Nix,
/// CMake and OTP's alert (`testdata/review/s53/`): what it left, with why.
const REVIEW53_LEFT: &[(&str, &str)] = &[
    (
        "healthy-05.log",
        "Nix's retry warning, then the job's own test failure: Nix's later rows are not progress patterns",
    ),
    (
        "healthy-08.log",
        "curl's `curl: (22) The requested URL returned error: 503` for a job's own health probe: an older rule's, as before session 53",
    ),
    ("healthy-09.log", "pytest's captured stdout prints a fixture's dnf row at dnf's own two-column indent"),
    ("healthy-13.log", "a step that prints an old incident log: dnf's rows stand as dnf prints them"),
    ("fault-06.log", "dnf5's timeout, then an `if: always()` step's artifact upload, read as progress: recovered"),
    (
        "fault-11.log",
        "Nix's `HTTP error 403` with GitHub's rate-limit body: a 403 is read as the job's, whatever the body",
    ),
    ("fault-20.log", "Erlang/OTP's alert row names no host: not read (rebar3@3.19.0/tls.log)"),
    ("fault-21.log", "Elixir Logger's form of OTP's alert row, as fault-20"),
    ("fault-22.log", "rebar3's `Hex get_package request failed: {ok,{503,…}}`, only under DEBUG=1: not run"),
    ("fault-23.log", "OTP's alert row behind Jenkins' stamp, as fault-20"),
];

/// The fifty-third session's second review, of the rules for CMake's rows,
/// zypper, flatpak, Ivy, native modules' downloads, PDM, PlatformIO and
/// Netlify (`testdata/review/s53b/`): what it left, with why.
const REVIEW53B_LEFT: &[(&str, &str)] = &[
    (
        "healthy-10.log",
        "flatpak's 502, retried by the job's loop, then an install whose quiet transaction prints no completion row",
    ),
    (
        "healthy-12.log",
        "Ivy's problems summary lists the first resolver's 502 even when the chain's second resolved every module",
    ),
    (
        "healthy-13.log",
        "prebuild-install's `warn install socket hang up` names no host: a job's own prebuild server reads alike",
    ),
    ("healthy-14.log", "node-gyp's undici `SocketError: other side closed` names no host, as healthy-13"),
    (
        "healthy-17.log",
        "PlatformIO's `You are not connected to the Internet.` in a job that runs without a network on purpose",
    ),
    ("fault-01.log", "libzypp's MediaCurl2 rows (`Error code: 500` without `HTTP response:`), worded from memory"),
    ("fault-02.log", "MediaCurl2's 429, as fault-01"),
    ("fault-03.log", "libzypp's `Error message: OpenSSL SSL_read: … unexpected eof` names no host (ZYPP_HOSTLESS)"),
    ("fault-04.log", "libzypp's HTTP/2 stream error (`Curl error (92)`) names no host"),
    ("fault-05.log", "Ivy's HttpClientHandler wording (`Connect to … failed: Connection refused url=…`): not run"),
    ("fault-06.log", "Ivy's HttpClientHandler resolver wording, as fault-05"),
    ("fault-08.log", "Ivy 2.4's HttpClientHandler `Read timed out url=…`, as fault-05"),
    (
        "fault-12.log",
        "flatpak-builder's `Failed to download sources: module …: The requested URL returned error: 503` names no host",
    ),
    ("fault-19.log", "PDM hides an install's TLS failure in a traceback above `[InstallationError]`"),
    ("fault-20.log", "netlify-cli 20's `{proxy} is not available.` wording: not read"),
    ("fault-21.log", "a CDN's many headers put the log's `Host:` echo more than fifty rows above curl's status row"),
    (
        "fault-22.log",
        "PlatformIO's `Package Mirror: Got the unrecognized status code` warning, which a later mirror gets past",
    ),
];

const REVIEW54_LEFT: &[(&str, &str)] = &[
    ("fault-03.log", "NLTK's textwrap splits `HTTP Error` from its `503:` across two rows"),
    ("fault-07.log", URLLIB3_WRAP),
    ("fault-08.log", GDOWN_HOSTLESS),
    ("fault-17.log", "cargo-audit 0.20 prints no cause under `An IO error occurred when talking to the server`"),
    ("fault-19.log", "http-client 0.4's StatusCodeException comes with no Request record that names the host"),
    ("fault-20.log", "an hspec run indents the Request record and wraps its status row: not read"),
    (
        "fault-22.log",
        "nltk.download returns False and the job goes on: pytest's run below reads as the job getting past it",
    ),
    ("healthy-01.log", NLTK_INDEX),
    ("healthy-02.log", NLTK_INDEX),
    ("healthy-03.log", NLTK_INDEX),
    (
        "healthy-04.log",
        "aria2's input list: a local download's 503 rows sit within sixteen rows of a public download's heading",
    ),
    (
        "healthy-06.log",
        "aria2 through the job's own dead proxy: `Failed to establish connection, cause: Connection refused` names \
         no address",
    ),
    ("healthy-08.log", "a wildcard name for 127.0.0.1 (`*.127.0.0.1.nip.io`) reads as a public host"),
    (
        "healthy-09.log",
        "the wrapped-tail rule reads a bare `socket hang up` at a stamped log's end, as before this session",
    ),
    ("healthy-12.log", "a Kubernetes short name whose namespace is a real TLD (`.tools`) reads as a public host"),
    ("healthy-16.log", "a test prints aria2's real rows verbatim at column 0"),
    ("healthy-17.log", "a test prints gdown's real rows verbatim, the tab at column 0 kept"),
];

const REVIEW54B_LEFT: &[(&str, &str)] = &[
    (
        "fault-01.log",
        "another NLTK package's `Unzipping …` after the failed one reads as the job getting past it (recovery)",
    ),
    ("fault-02.log", "another NLTK package's `already up-to-date!` row after the failed one reads as recovery"),
    ("fault-04.log", "NLTK's wrap ends a row on `error` and starts the next on `[Errno 104]`"),
    ("fault-08.log", "gdown's row naming the host comes before the one with the timeout's errno: read as a connection"),
    ("fault-09.log", URLLIB3_WRAP),
    ("fault-13.log", "`cargo audit --json` prints no heading above the cause row"),
    ("fault-15.log", "pkg-fetch's GitHub status comes before its nodejs.org heading"),
    (
        "healthy-01.log",
        "the window does not tie a cause row to its own program's heading: cargo-audit's above aria2's local refusal",
    ),
    ("healthy-05.log", "aria2's `Failed to load trusted CA certificates` (the job's own CA file) is not read"),
    ("healthy-06.log", "a test that asks httpbin.org for a 503 on purpose: the record names a public host"),
    ("healthy-07.log", "a timeout the job set too short (`ResponseTimeoutMicro 5000`) is not read from the record"),
    ("healthy-09.log", "an image build's stage run with no network on purpose: NLTK's rows name no host"),
    ("healthy-11.log", "NLTK's failure before a restore from the team's cache, which prints no progress row"),
    (
        "healthy-12.log",
        "requests' ConnectionError for a `.internal` host is read as a connection: `.internal` names a company's \
         registry mirror too, whose failure s50b/fault-23 judges the environment's",
    ),
    ("healthy-13.log", "sharp's `Via proxy {url}` row (the job's own proxy) is not read"),
    ("healthy-17.log", "aria2 through the job's own proxy: its rows name no address"),
    ("healthy-18.log", "a misspelt public mirror name (NXDOMAIN) reads as a public host's failure"),
];

/// A test that prints a program's real rows reads as the program.
const PRINTS_REAL_ROWS: &str = "a test prints the program's real rows at a row's start: read as the program";
/// A loopback proxy on the proxies' usual port reads as the runner's.
const LOOPBACK_PROXY: &str = "a dead proxy of the job's own on 127.0.0.1:3128: the row names only the public host \
     (Sphinx's ProxyError, nodeenv's `[Errno 111]`), read as the runner's path to it";

const REVIEW55_LEFT: &[(&str, &str)] = &[
    ("fault-02.log", "Sphinx 1.5's row carries its own `WARNING: ` prefix, which sphinx_inv does not take: not read"),
    ("fault-03.log", "Sphinx 1.4 on Python 2.7 names urllib2's classes: not read"),
    ("fault-04.log", "Sphinx's heading in the console's locale (French): only the English heading frames the rows"),
    ("fault-05.log", "docker compose's `docs-1  | ` service prefix is no lead a rule reads"),
    ("fault-13.log", "Semgrep 1.30's `Failed to download config from {url}:` wraps its status onto the next row"),
    ("fault-14.log", "Semgrep 1.30's `Failed to download config from {url}:` wraps its cause onto the next rows"),
    ("healthy-05.log", LOOPBACK_PROXY),
    ("healthy-06.log", PRINTS_REAL_ROWS),
    (
        "healthy-08.log",
        "nodeenv 1.9.1's bare `urllib.error.URLError: <urlopen error [Errno -2] Name or service not known>` names no \
         host, and the dns rule reads urllib's resolver error at a row's start (an earlier round's reading)",
    ),
    ("healthy-09.log", LOOPBACK_PROXY),
    ("healthy-14.log", PRINTS_REAL_ROWS),
    (
        "healthy-15.log",
        "gsutil's `Operation completed over N objects` counts the objects it processed, failed ones too: no progress row",
    ),
    (
        "healthy-16.log",
        "gpg never names the keyserver: a job's own keyserver that dies reads as the public one's reset",
    ),
];

const REVIEW55B_LEFT: &[(&str, &str)] = &[
    ("fault-03.log", NODEENV_TRACEBACK),
    (
        "fault-06.log",
        "gsutil's `ResumableDownloadException: Transfer failed after 23 retries` buries the status in a bytes repr",
    ),
    (
        "fault-07.log",
        "the public inventory is a project's third location, three rows below the heading: past the window of two",
    ),
    ("fault-08.log", "a URL whose masked credentials (`https://***@…`) no host define reads"),
    ("fault-09.log", "TeamCity's `[hh:mm:ss]W:\\t [Step 2/3] ` prefix is no lead the Sphinx rules read"),
    ("fault-10.log", "gpg's timeout only inside Ansible's quoted JSON record: a quoted cause is not read"),
    ("fault-11.log", "Semgrep's 503 only inside `--json`'s quoted message: a quoted cause is not read"),
    ("fault-12.log", "gpg's WKD rows (`error retrieving '…' via WKD: …`, `error reading key: …`) are not read"),
    ("fault-17.log", NODEENV_TRACEBACK),
    ("healthy-01.log", "a wildcard name for 127.0.0.1 (`*.localtest.me`) reads as a public host"),
    ("healthy-02.log", "Sphinx prints no row when an inventory loads: a retry loop's later success is no progress"),
    ("healthy-03.log", "a job's own CA file (`tls_cacerts`) that the row does not name"),
    ("healthy-04.log", "a misspelt public name (NXDOMAIN) reads as a public host's failure"),
    ("healthy-05.log", GSUTIL_EMULATOR),
    ("healthy-06.log", "Cloud Storage's 429 for one object's mutation rate is a rate limit, read as one (retry)"),
    ("healthy-07.log", "a build sandbox without network (Nix's) reads as the resolver down"),
    ("healthy-08.log", "a job's own service under a public-looking name"),
    ("healthy-10.log", "Semgrep's scan that followed prints no row `ci` reads as progress"),
    ("healthy-11.log", "a container the job runs with `--network none` reads as the resolver down"),
    ("healthy-12.log", "a public-looking name the job maps to its own server in /etc/hosts"),
    ("healthy-13.log", "gpg's fallback through `--dearmor` prints no `imported` row"),
    ("healthy-14.log", "a mistyped private keyserver: gpg never names the keyserver"),
    ("healthy-09.log", "pre-commit's hook rows are no progress (pre-commit runs every hook after one fails)"),
    ("healthy-15.log", "a script prints a notes file with gpg's real row at a row's start"),
    ("healthy-16.log", "a stale pre-commit.log from the cache, printed after the failure, holds nodeenv's real row"),
];

/// Session 56's review (`testdata/review/s56/`): what it left on purpose.
const REVIEW56_LEFT: &[(&str, &str)] = &[
    (
        "healthy-05.log",
        "electron-builder's error row names no host: a job's own Electron mirror (ELECTRON_MIRROR on a private \
         address) answering 503 reads as GitHub's",
    ),
    (
        "healthy-08.log",
        "meson prints no row when a retry gets through: its earlier 503 rows stay the last hit above the hash \
         error the job died of",
    ),
    ("healthy-10.log", "a test that prints meson's heading and a urllib row below it reads as meson's download"),
    ("healthy-16.log", "pip's retry row stays the last hit above pip-compile's own conflict, which no rule reads"),
    ("fault-03.log", "app-builder's `part download request failed with status code 502` names no host"),
    ("fault-15.log", SNYK_LEGACY),
];

/// Session 56's second review (`testdata/review/s56b/`): what it left on
/// purpose.
const REVIEW56B_LEFT: &[(&str, &str)] = &[
    (
        "healthy-04.log",
        "the older `timeout` rule reads Go's `context deadline exceeded (Client.Timeout exceeded while awaiting \
         headers)` in W&B's traceback row whatever the host, as it reads any Go client's",
    ),
    (
        "healthy-05.log",
        "electron-builder's error row names no host: a silent build hook's got 503 two rows below the download's \
         row reads as Electron's",
    ),
    (
        "healthy-07.log",
        "the snyk legacy CLI's `failed to connect to Snyk API` names no host: SNYK_API on a stub of the job's own \
         reads as Snyk's",
    ),
    (
        "healthy-09.log",
        "pip's `Could not install packages due to an OSError: HTTPSConnectionPool(host=…)` is read by an older rule whatever the host",
    ),
    (
        "fault-06.log",
        "W&B's bare last status is read only within five rows of a row naming W&B's host; an early \
         `wandb.login()` put it eleven rows up",
    ),
    (
        "fault-09.log",
        "W&B's traceback row repeats the error last, and the older `connection` rule reads Windows' `connectex` \
         there: a fault, of kind connection",
    ),
    ("fault-10.log", "docker compose's `trainer-1  | ` prefix: no lead a rule reads"),
    ("fault-11.log", "electron-builder's later tool downloads (the AppImage toolset) have no heading the rules read"),
    ("fault-12.log", "docker compose's `desktop-1  | ` prefix: no lead a rule reads"),
    (
        "fault-16.log",
        "pip's `ResponseError('too many 503 error responses')` inside urllib3's pool error reads as a connection \
         fault (the older rule), not a 5xx",
    ),
    (
        "fault-17.log",
        "a second service's snyk result row after the first one's refused API reads as recovery (progress is \
         not per service)",
    ),
];

/// Session 57's review (`testdata/review/s57/`): what it left on purpose.
const REVIEW57_LEFT: &[(&str, &str)] = &[
    (
        "healthy-12.log",
        "a test's mock raising urllib's own 503 through scikit-learn's real `_openml.py` frames reads as the fetch it \
         stands for",
    ),
    (
        "healthy-13.log",
        "`after` binds a row to any framing row within its window: the next test's own urllib 503, 18 rows below a \
         scikit-learn frame of the test before, reads as a fetch",
    ),
    (
        "healthy-17.log",
        "the older `wrapped-server-error-tail` reads a status text right below any npm error row whatever the host, \
         as it reads a hard-wrapped registry error",
    ),
    ("fault-01.log", BUF_HOSTLESS),
    ("fault-02.log", BUF_HOSTLESS),
    ("fault-03.log", BUF_HOSTLESS),
    ("fault-04.log", BUF_HOSTLESS),
    (
        "fault-14.log",
        "scikit-learn's urlopen sets no timeout: a `TimeoutError` comes from a socket default the job set, and no \
         `sklearn-fetch-*` rule reads it",
    ),
    (
        "fault-16.log",
        "the SonarScanner's verbose rows put its error 22 rows below its `Server URL:` row, past the 16 rows of the \
         `named-download-*` heading",
    ),
];

/// Session 57's second review (`testdata/review/s57b/`): what it left on
/// purpose.
const REVIEW57B_LEFT: &[(&str, &str)] = &[
    (
        "healthy-03.log",
        "a docs page `cat` after the job's own failure quotes mise's rows at the line's start, where mise prints them",
    ),
    ("healthy-08.log", "a passing test's mocked 503 under node-pre-gyp 2 prints its real row, bare"),
    (
        "healthy-09.log",
        "a job that points scikit-learn's fetcher at its own mirror (ARCHIVE replaced at run time) keeps the \
         fetcher's frames, whose hosts `sk_frame` takes as fixed",
    ),
    (
        "healthy-11.log",
        "an error the app caught and logged (pytest's captured log) reads as the fetch's, above the test's own \
         failure: no rule knows an error was recovered from",
    ),
    ("fault-03.log", MISE_HOSTLESS),
    (
        "fault-04.log",
        "mise's progress rows put its last retry warning five rows above the hostless cause, past the three rows of \
         `mise-request-*` (mise installs tools in parallel)",
    ),
    (
        "fault-05.log",
        "several tools' failures: mise's bare `{backend}:{tool}@{version}: …` cause rows sit four rows below its \
         last retry warning, past the three rows of `mise-request-*`",
    ),
    (
        "fault-11.log",
        "pytest's long layout has no `File \"…\", line N, in` rows (`sk_frame`) and prints urllib's error behind \
         its `E` column",
    ),
];

/// gsutil's rows name no host: a job's own emulator reads as Google's.
const GSUTIL_EMULATOR: &str = "gsutil's rows name no host: a job's own Cloud Storage emulator's 5xx reads as Google's";

/// NLTK's rows name no host: read as its default index's.
const NLTK_INDEX: &str = "NLTK's rows name no host and are read as its default index's (GitHub's raw host): a job that \
     serves its own index (`-u`, NLTK_DOWNLOAD_URL) or mocks the error reads alike";

/// A review's logs left on purpose: file, and why.
type Left = &'static [(&'static str, &'static str)];

/// Percy's error rows that name no host under the commands that end on them.
const PERCY_HOSTLESS: &str = "Percy's `build:wait` error for a lost connection (`[percy] Error: read ECONNRESET`) is \
     Node's bare error, naming no host, as a job's own server's is (its API's 5xx and 429 are read: percy-api-*)";
/// next/font's webpack sentence, which carries no status.
const NEXT_FONT_WEBPACK: &str = "next/font's webpack loader words a failed answer with no status, the same for a 404: \
     Next 16's `Failed to fetch font `{family}`: {url}`, Next 14's `Failed to fetch font `{family}`.` with the URL on \
     the next row: not read";
/// Session 58's review (`testdata/review/s58/`): what it left on purpose.
const REVIEW58_LEFT: &[(&str, &str)] = &[
    (
        "healthy-02.log",
        "a build made offline on purpose (`RUN --network=none`) prints Turbopack's connect failure for the public \
         font host as an outage does: nothing on the row or its heading tells them apart",
    ),
    ("healthy-08.log", PRINTS_REAL_ROWS),
    ("healthy-09.log", PRINTS_REAL_ROWS),
    (
        "healthy-10.log",
        "the older `connection` rule reads requests' class-qualified `ConnectionError: ('Connection aborted.', …)` \
         row, naming no host (the project's own `safety.errors` rows are no longer read)",
    ),
    (
        "healthy-13.log",
        "Safety's `--db` mirror on a company's host fails as Safety's own service does, and its error rows name no \
         host",
    ),
    (
        "healthy-14.log",
        "a test suite that logs Next.js's rows at column 0, the issue's file row included, reads as the build it \
         quotes",
    ),
    ("fault-03.log", NEXT_FONT_WEBPACK),
    ("fault-06.log", NEXT_FONT_WEBPACK),
    ("fault-07.log", "Chromatic's `Build N failed due to system error` names no cause"),
    (
        "fault-08.log",
        "a later `if: always()` step's success row counts as progress: the Chromatic failure reads as recovered",
    ),
    ("fault-09.log", "Chromatic's `Failed to upload iframe.html` names neither a host nor a cause"),
    ("fault-11.log", PERCY_HOSTLESS),
    (
        "fault-13.log",
        "Safety 3's handled ServerError prints its message alone (`Sorry, something went wrong.` …), naming neither \
         the program nor a host",
    ),
    ("fault-14.log", SAFETY2_BARE),
    ("fault-16.log", MSAL_HOSTLESS),
];

/// Session 58's second review (`testdata/review/s58b/`): what it left on
/// purpose.
const REVIEW58B_LEFT: &[(&str, &str)] = &[
    (
        "healthy-08.log",
        "the older `connection` rule reads the bare `Caused by: Connection refused (os error 111)` below ureq's row \
         for a job's own pypiserver on a public name that resolves to loopback (ureq's own row, on a port of its \
         own, is not read)",
    ),
    ("healthy-09.log", PRINTS_REAL_ROWS),
    ("healthy-10.log", PRINTS_REAL_ROWS),
    ("fault-07.log", SAFETY2_BARE),
    (
        "fault-12.log",
        "wasm-pack prints only its context, `Error: failed to download from {url}`, the same for a release asset \
         that does not exist",
    ),
];

/// The hostile reviews of the sessions' rules (`testdata/review/{dir}/`), the
/// fewest logs each holds, and what each left on purpose.
const REVIEWS: &[(&str, usize, Left)] = &[
    ("s48", 80, REVIEW_LEFT),
    ("s49", 70, REVIEW49_LEFT),
    ("s50", 69, REVIEW50_LEFT),
    ("s50b", 52, REVIEW50B_LEFT),
    ("s51", 58, REVIEW51_LEFT),
    ("s51b", 53, REVIEW51B_LEFT),
    ("s52", 55, REVIEW52_LEFT),
    ("s52b", 49, REVIEW52B_LEFT),
    ("s53", 43, REVIEW53_LEFT),
    ("s53b", 43, REVIEW53B_LEFT),
    ("s54", 44, REVIEW54_LEFT),
    ("s54b", 38, REVIEW54B_LEFT),
    ("s55", 38, REVIEW55_LEFT),
    ("s55b", 33, REVIEW55B_LEFT),
    ("s56", 36, REVIEW56_LEFT),
    ("s56b", 30, REVIEW56B_LEFT),
    ("s57", 36, REVIEW57_LEFT),
    ("s57b", 31, REVIEW57B_LEFT),
    ("s58", 30, REVIEW58_LEFT),
    ("s58b", 30, REVIEW58B_LEFT),
];

/// Every review's healthy jobs are charged and its outages caught (with the
/// kind its manifest names, where it names one), but those its `left` list
/// names, which must still read otherwise.
#[test]
fn every_reviews_logs_read_as_judged() {
    let problems: Vec<String> =
        REVIEWS.iter().flat_map(|&(dir, at_least, left)| review_reads_as_judged(dir, at_least, left)).collect();
    assert!(problems.is_empty(), "review logs read otherwise than judged:\n{}", problems.join("\n"));
}

/// What of `testdata/review/{dir}/` reads otherwise than its manifest
/// judges it (`charge`, `fault`, or `fault:KIND`), and what `left_on_purpose`
/// lists that reads as judged now.
fn review_reads_as_judged(dir: &str, at_least: usize, left_on_purpose: &[(&str, &str)]) -> Vec<String> {
    let text = std::fs::read_to_string(testdata(&format!("review/{dir}/manifest.tsv"))).unwrap();
    let pipeline = builtin_pipeline("ci", Some("failed"));
    let (mut wrong, mut left) = (Vec::new(), Vec::new());
    let rows: Vec<&str> = text.lines().skip(1).collect();
    assert!(rows.len() >= at_least, "review logs: {}", rows.len());
    for row in rows {
        let mut cols = row.split('\t');
        let (file, expect) = (cols.next().unwrap(), cols.next().unwrap());
        let bytes = std::fs::read(testdata(&format!("review/{dir}/{file}"))).unwrap();
        let v = pipeline.classify_window(file, window::from_bytes(&bytes, WindowSpec::default())).verdict;
        // (`fault:KIND` holds an outage to that kind too; `fault:any` and
        // the earlier reviews' plain `fault` to any environment fault)
        let kind = expect.strip_prefix("fault:").filter(|k| *k != "any");
        let fault = expect == "fault" || expect.starts_with("fault:");
        if v.env_fault == fault && kind.is_none_or(|k| v.kind.as_deref() == Some(k)) {
            continue;
        }
        if left_on_purpose.iter().any(|(f, _)| *f == file) {
            left.push(file);
        } else {
            wrong.push(format!("{dir}/{file} ({expect}): {:?} {:?} {:?}", v.action, v.rule, v.evidence));
        }
    }
    let stale =
        stale(left_on_purpose, &left).into_iter().map(|f| format!("{dir}/{f}: listed as left but read as judged now"));
    wrong.extend(stale);
    wrong
}
