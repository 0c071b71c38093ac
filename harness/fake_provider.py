#!/usr/bin/env python3
"""A fake LLM provider for the faultsift real-client harness.

Speaks just enough of four wire protocols to make a coding-agent CLI fail (or
succeed) on purpose:

* Anthropic Messages      POST .../v1/messages            (SSE and plain JSON)
* OpenAI Chat Completions POST .../chat/completions       (SSE and plain JSON)
* OpenAI Responses        POST .../responses              (SSE and plain JSON)
* Gemini                  POST .../models/M:generateContent
                          POST .../models/M:streamGenerateContent?alt=sse

plus the probes the CLIs send at start (model lists, token counting), and
Anthropic's Messages API as two clouds carry it, for the provider
routes:

* Bedrock                 POST .../model/M/invoke                 (plain JSON)
                          POST .../model/M/invoke-with-response-stream
                          (AWS event-stream frames around the Messages events;
                          errors in AWS's JSON form with `x-amzn-ErrorType`)
                          POST .../model/M/converse, .../converse-stream
                          (Bedrock's own Converse API, the SDKs of opencode,
                          litellm and goose use: its events in the same frames)
* Vertex AI               POST .../publishers/anthropic/models/M:rawPredict
                          POST .../publishers/anthropic/models/M:streamRawPredict
                          (the Messages SSE; Google's error objects for what
                          Vertex itself refuses, Anthropic's for the model's)

The scenario decides what the generation endpoints answer:

  healthy       a short valid answer whose text quotes error strings
  overloaded    529 (Anthropic) / 503 with the family's "overloaded" body
  rate-limit    429 with a retry-after header
  rate-limit-long  the same 429, but the wait it names is ten minutes
                (`retry-after: 600`, OpenAI's `try again in 10m0s`, Gemini's
                RetryInfo `600s`): a limit the client may not wait out
  quota         429 (OpenAI, Gemini) / 400 (Anthropic) "quota / credit" body
  auth          401 (every endpoint, probes included)
  server-error  500
  unavailable   503
  hang          the request is read, then nothing is ever sent back
  reset         the request is read, then the socket is closed with a TCP RST
  closed        the request is read, then the connection is closed cleanly (a
                FIN) with no answer at all: the empty reply of a proxy or load
                balancer that dropped the request
  midstream     200 and the first events of a stream (or part of a JSON body),
                then the connection closes: no final event, no last chunk
  stream-overloaded  200 and the first events of a stream, then the family's
                in-stream error (Anthropic `event: error` overloaded_error,
                an OpenAI-compatible `data: {"error": …}` chunk, Responses
                `response.failed`, a Gemini 503 object), and the stream ends
                cleanly; a request that does not stream gets `overloaded`
  stream-server-error  the same, but the in-stream error is the API's own
                internal error (Anthropic `api_error`, an OpenAI chunk or a
                Responses `response.failed` with `server_error`, a Gemini 500
                `INTERNAL` object, Bedrock's internalServerException); a
                request that does not stream gets `server-error`
  stream-rate-limit  the same, but the in-stream error is a rate limit
                (Anthropic `rate_limit_error`, an OpenAI chunk or a
                Responses `response.failed` with `rate_limit_exceeded`, a
                Gemini 429 `RESOURCE_EXHAUSTED` object, Bedrock's
                throttlingException); a request that does not stream gets
                `rate-limit`
  bad-gateway   502 with the HTML page an nginx proxy sends
  forbidden     403 with the family's permission body (Anthropic
                `permission_error`, OpenAI's unsupported region, Gemini
                `PERMISSION_DENIED`)
  gateway-timeout  504 with the HTML page an nginx proxy sends
  cdn-timeout   524 (Cloudflare's "A timeout occurred") with a CDN's HTML
                error page: a status outside the HTTP standard's list
  empty-503     503 with no body at all (content-length 0), as a load
                balancer with no backend answers
  blocked       403 with a CDN firewall's HTML block page ("Attention
                Required!"): the network the session runs from is refused
  maintenance   503 with an HTML maintenance page, as a provider's front
                end shows during an outage
  cdn-rate-limit  429 with Cloudflare's plain-text `error code: 1015` (its own
                rate limit in front of the API), no retry-after
  stall         200 and the first events of a stream (or the first half of a
                JSON body), then nothing more: the connection stays open and
                silent, as a provider or proxy that stopped mid-answer
  no-upstream   503 with envoy's plain-text `no healthy upstream`: a service
                mesh or gateway in front of the provider has no backend left
  upstream-reset  503 with envoy's plain-text `upstream connect error or
                disconnect/reset before headers. reset reason: connection
                termination`: the gateway's connection to the provider broke
  request-timeout  408 with HAProxy's own page ("Your browser didn't send a
                complete request in time."): a balancer in front of the
                provider timed the request out (a status the SDKs retry)
  proxy-auth    407 with Squid's access-denied page and a `Proxy-Authenticate`
                challenge: a corporate proxy in the path wants credentials the
                session does not have (a person must act)
  proxy-tunnel  this server is not the provider but the forward proxy the
                session is told to use (HTTPS_PROXY and its siblings): it
                answers every request, a CONNECT tunnel or an absolute-form
                one, with 503 and Squid's connect-failure page
                (ERR_CONNECT_FAIL): the proxy cannot reach the provider
  proxy-tunnel-auth  the same proxy, but it wants credentials the session does
                not send: 407 with Squid's access-denied page and its
                `Proxy-Authenticate` challenge, to a CONNECT tunnel too
  flaky         the first FLAKY_FAILURES generation requests get the
                `overloaded` answer, every later one a healthy answer: an
                outage the session gets past (to be charged, as recovered)
  late-overloaded  the agent works first: the first two generation requests
                that offer a shell tool get a call of it running harmless
                commands (a listing, an echo), and from the third on such a
                request gets the `overloaded` answer; a request without a
                shell tool (a title) gets the healthy answer: an outage that
                ends a session after it had done some work
  side-down     the conversation's own requests (those that offer the agent
                its tools) get the healthy answer; every side request gets
                the `overloaded` answer: a generation request with no tools
                or one that wants a JSON-schema answer (a title, a summary, a
                next-speaker check), a model list, a token count. The
                session's work is untouched: what a CLI prints about its
                side calls failing must be charged
  too-long      400: the request is over the model's context window (Anthropic
                `prompt is too long`, OpenAI `context_length_exceeded`, Gemini
                `INVALID_ARGUMENT`): the work's own fault, to be charged
  account       400: the provider refuses the account or organization, not
                the request (Anthropic `This organization has been
                disabled.`, OpenAI's organization that must be verified to
                stream the model, Gemini's `User location is not supported`
                FAILED_PRECONDITION): a person must act; the status says only
                "bad request", so a client or rule that reads 4xx as the
                work's own fault gets it wrong
  payment       the account cannot pay: Anthropic 402 `billing_error`, an
                OpenAI-compatible gateway's 402 (OpenRouter's documented
                `Insufficient credits` body), Gemini 403 `BILLING_DISABLED`
                (generation requests only; the probes answer)
  not-found     404: the model does not exist (Anthropic `not_found_error`,
                OpenAI `model_not_found`, Gemini `NOT_FOUND`): the session's
                configuration, to be charged
  plan-session, plan-weekly, plan-model, plan-credits, plan-spend-cap,
  plan-disabled  a subscription plan's usage is spent: Anthropic 429 with the
                `anthropic-ratelimit-unified-*` headers Claude Code builds its
                limit message from (the five-hour window, the weekly one, a
                model's weekly one; then the five-hour window with paid extra
                usage refused because the credits are gone, the org's spend cap
                is reached, or an admin turned the member's usage off); the
                Responses family 429 `usage_limit_reached` with a `plan_type`
                and `resets_at` (Plus, Pro, Team, `usage_not_included`,
                Enterprise, Free: each a message of Codex's own); the Gemini
                family Google's 429 with the details Gemini CLI classifies by
                (a Code Assist window, the free tier's daily requests, a model
                outside the free tier; then the `quota` answer); every other
                family the `quota` answer
  tool          no fault: the first generation request of a conversation that
                offers a shell tool gets a call of it whose command prints
                twelve lines of error-looking text, the second a call that
                prints three such lines (stdout and stderr) and exits 1, the
                third the healthy answer (the step is the number of tool
                results in the request): how each CLI draws a tool's output
  write         no fault: the first generation request gets a call of the
                request's file-writing tool (Claude `Write`, Gemini/Qwen
                `write_file`, opencode `write`, Copilot `create`, OpenHands
                `file_editor` create, Codex an `apply_patch` `*** Add File:`
                patch) creating
                fixtures/provider-errors.txt with eight error-looking lines, the
                second a call of its edit tool (`Edit`, `replace`, `edit`, an
                `*** Update File:` patch) that rewrites one of them and adds a
                ninth (OpenHands: `file_editor` str_replace), the third the
                healthy answer (the step is the number of tool results, as in
                `tool`): how each CLI draws a file tool
  tls           every answer is healthy, but over HTTPS with a self-signed
                certificate (`--tls-cert`/`--tls-key`): the client refuses it
                (a depth-zero self-signed certificate; a proxy that re-signs
                traffic with a CA the machine lacks gives `unable to get local
                issuer certificate` instead, the same family)

Every request is appended to the log file as one JSON object per line.

Standard library only (Python 3.11). Binds 127.0.0.1 only.
"""

from __future__ import annotations

import argparse
import base64
import json
import re
import socket
import ssl
import struct
import sys
import threading
import time
import uuid
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

# the `plan-*` scenarios: (the window Anthropic's headers name, the overage
# refusal's reason or None, days until the reset or None for PLAN_RESET_S; the
# Codex plan_type, or the error type `usage_not_included`)
PLAN_LIMITS = {
    "plan-session": ("five_hour", None, None, "plus"),
    "plan-weekly": ("seven_day", None, 3, "pro"),
    "plan-model": ("seven_day_opus", None, 3, "team"),
    "plan-credits": ("five_hour", "out_of_credits", None, "usage_not_included"),
    "plan-spend-cap": ("five_hour", "org_spend_cap_reached", None, "enterprise"),
    "plan-disabled": ("five_hour", "member_level_disabled", None, "free"),
}

# the `plan-*` scenarios' five-hour window resets this long from the answer
PLAN_RESET_S = 3 * 3600 + 17 * 60

SCENARIOS = (
    "healthy",
    "overloaded",
    "rate-limit",
    "rate-limit-long",
    "quota",
    "auth",
    "server-error",
    "unavailable",
    "hang",
    "reset",
    "closed",
    "midstream",
    "stream-overloaded",
    "stream-server-error",
    "stream-rate-limit",
    "bad-gateway",
    "forbidden",
    "gateway-timeout",
    "cdn-timeout",
    "empty-503",
    "blocked",
    "maintenance",
    "no-upstream",
    "upstream-reset",
    "stall",
    "cdn-rate-limit",
    "request-timeout",
    "proxy-auth",
    "proxy-tunnel",
    "proxy-tunnel-auth",
    "tls",
    "too-long",
    "not-found",
    "payment",
    "account",
    "flaky",
    "side-down",
    "late-overloaded",
    *PLAN_LIMITS,
    "tool",
    "write",
    "disk-full",
)

MODEL = "fake-model-1"

# The healthy answer quotes fault strings on purpose: a classifier must not
# take the model's own words for the program's error output.
HEALTHY_TEXT = (
    'Done. I added a test asserting the CLI prints "API Error: 529 Overloaded" '
    'when the provider is down, and one for "429 Too Many Requests" and '
    '"connect ECONNREFUSED 127.0.0.1:443". All 3 tests pass.'
)

RETRY_AFTER_S = 2
# `rate-limit-long`: a wait longer than any client's own retry budget
RETRY_AFTER_LONG_S = 600

# How many generation requests `flaky` fails before it answers.
FLAKY_FAILURES = 2

# What `midstream` gets out before the connection drops: no fault words in it.
PARTIAL_TEXT = "Sure. Adding two and two gives"

GATEWAY_TIMEOUT_HTML = (
    "<html><head><title>504 Gateway Time-out</title></head><body><center><h1>504 Gateway Time-out</h1>"
    "</center><hr><center>nginx</center></body></html>"
)

# The shape of a CDN's own error page for an origin that took too long: the
# status in the title, no JSON anywhere.
CDN_TIMEOUT_HTML = (
    "<!DOCTYPE html><html><head><title>fake-provider.example | 524: A timeout occurred</title></head>"
    "<body><h1>A timeout occurred</h1><p>Error code 524</p><p>The origin web server timed out "
    "responding to this request.</p></body></html>"
)

BAD_GATEWAY_HTML = (
    "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1>"
    "</center><hr><center>nginx</center></body></html>"
)

# ---------------------------------------------------------------------------
# error bodies, per API family: (status, body, extra headers)


def anthropic_error(scenario: str):
    table = {
        "overloaded": (529, "overloaded_error", "Overloaded"),
        "rate-limit": (
            429,
            "rate_limit_error",
            "This request would exceed the rate limit for your organization of "
            "50 input tokens per minute. Please reduce the prompt length or the "
            "maximum tokens requested, or try again later.",
        ),
        "quota": (
            400,
            "invalid_request_error",
            "Your credit balance is too low to access the Anthropic API. Please go "
            "to Plans & Billing to upgrade or purchase credits.",
        ),
        "auth": (401, "authentication_error", "invalid x-api-key"),
        "forbidden": (403, "permission_error", "Your API key does not have permission to use the specified resource."),
        "too-long": (400, "invalid_request_error", "prompt is too long: 250112 tokens > 200000 maximum"),
        "not-found": (404, "not_found_error", "model: " + MODEL),
        "payment": (
            402,
            "billing_error",
            "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or "
            "purchase credits.",
        ),
        # the sentence Claude Code itself tests a 400 for (`organization has been disabled`)
        "account": (400, "invalid_request_error", "This organization has been disabled."),
        "server-error": (500, "api_error", "Internal server error"),
        "unavailable": (503, "api_error", "Service Unavailable"),
    }
    status, etype, msg = table[scenario]
    body = {
        "type": "error",
        "error": {"type": etype, "message": msg},
        "request_id": "req_fake" + uuid.uuid4().hex[:20],
    }
    return status, body


def openai_error(scenario: str):
    table = {
        # OpenAI has no 529; an overloaded OpenAI-style server answers 503.
        "overloaded": (
            503,
            "server_error",
            "server_is_overloaded",
            "The server is overloaded. Please try again later.",
        ),
        "rate-limit": (
            429,
            "requests",
            "rate_limit_exceeded",
            "Rate limit reached for fake-model-1 in organization org-fake on "
            "requests per min (RPM): Limit 3, Used 3, Requested 1. Please try "
            "again in 2s.",
        ),
        "quota": (
            429,
            "insufficient_quota",
            "insufficient_quota",
            "You exceeded your current quota, please check your plan and billing "
            "details.",
        ),
        "auth": (
            401,
            "invalid_request_error",
            "invalid_api_key",
            "Incorrect API key provided: sk-fake***********0000. You can find your "
            "API key in your account settings.",
        ),
        "forbidden": (
            403,
            "invalid_request_error",
            "unsupported_country_region_territory",
            "Country, region, or territory not supported",
        ),
        "too-long": (
            400,
            "invalid_request_error",
            "context_length_exceeded",
            "This model's maximum context length is 128000 tokens. However, your messages resulted in "
            "250112 tokens. Please reduce the length of the messages.",
        ),
        "not-found": (
            404,
            "invalid_request_error",
            "model_not_found",
            "The model `" + MODEL + "` does not exist or you do not have access to it.",
        ),
        "payment": (
            402,
            None,
            402,
            "Insufficient credits. This account never purchased credits. Make sure your key is on the correct "
            "account or org, and if so, purchase more at https://openrouter.ai/settings/credits",
        ),
        # a streamed request from an organization OpenAI has not verified for the model
        "account": (
            400,
            "invalid_request_error",
            "unsupported_value",
            "Your organization must be verified to stream this model. Please go to: "
            "https://platform.openai.com/settings/organization/general and click on Verify Organization. If you "
            "just verified, it can take up to 15 minutes for access to propagate.",
        ),
        "server-error": (
            500,
            "server_error",
            None,
            "The server had an error while processing your request. Sorry about that!",
        ),
        "unavailable": (
            503,
            "server_error",
            None,
            "Service Unavailable",
        ),
    }
    status, etype, code, msg = table[scenario]
    param = "stream" if scenario == "account" else None
    return status, {"error": {"message": msg, "type": etype, "param": param, "code": code}}


def gemini_error(scenario: str):
    table = {
        "overloaded": (503, "UNAVAILABLE", "The model is overloaded. Please try again later."),
        "rate-limit": (
            429,
            "RESOURCE_EXHAUSTED",
            "Resource has been exhausted (e.g. check quota).",
        ),
        "quota": (
            429,
            "RESOURCE_EXHAUSTED",
            "You exceeded your current quota, please check your plan and billing "
            "details.",
        ),
        "auth": (
            401,
            "UNAUTHENTICATED",
            "API key not valid. Please pass a valid API key.",
        ),
        "forbidden": (403, "PERMISSION_DENIED", "Permission denied on resource project fake-project."),
        "too-long": (
            400,
            "INVALID_ARGUMENT",
            "The input token count (1250112) exceeds the maximum number of tokens allowed (1048576).",
        ),
        "not-found": (
            404,
            "NOT_FOUND",
            "models/" + MODEL + " is not found for API version v1beta, or is not supported for generateContent. "
            "Call ListModels to see the list of available models and their supported methods.",
        ),
        "payment": (
            403,
            "PERMISSION_DENIED",
            "This API method requires billing to be enabled. Please enable billing on project #fake-project by "
            "visiting https://console.developers.google.com/billing/enable?project=fake-project then retry. If you "
            "enabled billing for this project recently, wait a few minutes for the action to propagate to our "
            "systems and retry.",
        ),
        # the Gemini API refuses the country the request comes from
        "account": (400, "FAILED_PRECONDITION", "User location is not supported for the API use."),
        "server-error": (500, "INTERNAL", "An internal error has occurred."),
        "unavailable": (503, "UNAVAILABLE", "The service is currently unavailable."),
    }
    status, gstatus, msg = table[scenario]
    return status, {"error": {"code": status, "message": msg, "status": gstatus}}


# the API families whose plans the `plan-*` scenarios speak for (the others get `quota`)
PLAN_FAMILIES = ("anthropic", "openai-responses", "gemini")


def gemini_plan_error(scenario: str):
    """A Google quota refusal with the details Gemini CLI classifies by.

    `plan-session`: a Google sign-in's Code Assist window (`ErrorInfo`
    `QUOTA_EXHAUSTED` in the `cloudcode-pa.googleapis.com` domain, the reset in
    `RetryInfo` and in its sentence); `plan-weekly`: the Gemini API free
    tier's daily requests (`QuotaFailure` whose `quotaId` names `PerDay`, and a
    `RetryInfo`); `plan-model`: a model the free tier does not include
    (`limit: 0` in the sentence); the others: the plain `quota` answer. The
    fields are the ones packages/core's googleQuotaErrors reads
    (@google/gemini-cli 0.61.0's bundle: `classifyGoogleError`).
    """
    wait = PLAN_RESET_S
    if scenario == "plan-session":
        body = {"error": {"code": 429, "status": "RESOURCE_EXHAUSTED",
                          "message": "You have exhausted your capacity on this model. Your quota will reset after "
                                     "3h17m0s.",
                          "details": [
                              {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "QUOTA_EXHAUSTED",
                               "domain": "cloudcode-pa.googleapis.com", "metadata": {"model": MODEL}},
                              {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "%ds" % wait}]}}
        return 429, body, {}
    if scenario in ("plan-weekly", "plan-model"):
        limit = "0" if scenario == "plan-model" else "250"
        body = {"error": {"code": 429, "status": "RESOURCE_EXHAUSTED",
                          "message": "You exceeded your current quota, please check your plan and billing details. "
                                     "For more information on this error, head to: "
                                     "https://ai.google.dev/gemini-api/docs/rate-limits.\n* Quota exceeded for metric: "
                                     "generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: "
                                     "%s, model: %s\nPlease retry in 37.5s." % (limit, MODEL),
                          "details": [
                              {"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": [
                                  {"quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests",
                                   "quotaId": "GenerateRequestsPerDayPerProjectPerModel-FreeTier",
                                   "quotaDimensions": {"location": "global", "model": MODEL}, "quotaValue": limit}]},
                              {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "37s"}]}}
        return 429, body, {}
    status, body = gemini_error("quota")
    return status, body, {}


def plan_limit_error(scenario: str, family: str):
    """(status, body, headers) of a subscription plan whose usage is spent.

    Anthropic: the header names and values Claude Code reads
    (`anthropic-ratelimit-unified-status` `rejected`, `-representative-claim`
    naming the window, `-reset` in epoch seconds, `-overage-status` and
    `-overage-disabled-reason` for paid extra usage; @anthropic-ai/claude-code
    2.1.332's bundle). OpenAI Responses: the body Codex maps to its usage
    limit (`type` `usage_limit_reached` with `plan_type` and `resets_at`, or
    `usage_not_included`; openai/codex codex-rs/core/src/api_bridge.rs
    UsageErrorResponse).
    """
    claim, refused, days, plan = PLAN_LIMITS[scenario]
    reset = int(time.time()) + (days * 86400 if days else PLAN_RESET_S)
    if family == "anthropic":
        status, body = anthropic_error("rate-limit")
        body["error"]["message"] = "This request would exceed your account's rate limit. Please try again later."
        headers = {
            "anthropic-ratelimit-unified-status": "rejected",
            "anthropic-ratelimit-unified-representative-claim": claim,
            "anthropic-ratelimit-unified-reset": str(reset),
        }
        if refused:
            headers["anthropic-ratelimit-unified-overage-status"] = "rejected"
            headers["anthropic-ratelimit-unified-overage-disabled-reason"] = refused
        return status, body, headers
    if family == "gemini":
        return gemini_plan_error(scenario)
    assert family == "openai-responses", family
    if plan == "usage_not_included":
        return 429, {"error": {"type": "usage_not_included", "message": "Usage is not included in this plan"}}, {}
    error = {"type": "usage_limit_reached", "message": "The usage limit has been reached", "plan_type": plan}
    if plan != "free":
        error["resets_at"] = reset
    return 429, {"error": error}, {}


# Bedrock's errors as the InvokeModel API reference lists them (the exception
# name in `x-amzn-ErrorType`, the text in the body's `message`); a scenario
# with no Bedrock counterpart of its own borrows the nearest one.
BEDROCK_ERRORS = {
    "overloaded": (503, "ServiceUnavailableException", "Bedrock is unable to process your request."),
    "rate-limit": (429, "ThrottlingException", "Too many requests, please wait before trying again."),
    "quota": (
        400,
        "ServiceQuotaExceededException",
        "Your request exceeds the service quota for your account. You can view your quotas at "
        "https://docs.aws.amazon.com/servicequotas/latest/userguide/gs-request-quota.html. You can resubmit "
        "your request later.",
    ),
    "auth": (403, "UnrecognizedClientException", "The security token included in the request is invalid."),
    "forbidden": (403, "AccessDeniedException", "You don't have access to the model with the specified model ID."),
    "too-long": (400, "ValidationException", "Input is too long for requested model."),
    "not-found": (400, "ValidationException", "The provided model identifier is invalid."),
    "payment": (
        403,
        "AccessDeniedException",
        "Model access is denied due to INVALID_PAYMENT_INSTRUMENT:A valid payment instrument must be provided.",
    ),
    "server-error": (
        500,
        "InternalServerException",
        "The system encountered an unexpected error during processing. Try your request again.",
    ),
}

BEDROCK_ERRORS["unavailable"] = BEDROCK_ERRORS["overloaded"]
# Bedrock refuses an account with a 403, not a 400: its `forbidden`
BEDROCK_ERRORS["account"] = BEDROCK_ERRORS["forbidden"]

def bedrock_error(scenario: str):
    """(status, body, headers) of Bedrock's answer for `scenario`."""
    status, name, msg = BEDROCK_ERRORS[scenario]
    headers = {"x-amzn-ErrorType": name + ":http://internal.amazon.com/coral/com.amazon.bedrock/",
               "x-amzn-RequestId": str(uuid.uuid4())}
    return status, {"message": msg}, headers


def vertex_error(scenario: str):
    """(status, body) of Vertex AI's answer for `scenario` on an Anthropic
    model: what Vertex refuses itself (quota, credentials, permission, a model
    it does not serve) in Google's error object, what the model answers
    (overloaded, a prompt too long) in Anthropic's."""
    if scenario in ("overloaded", "too-long"):
        return anthropic_error(scenario)
    if scenario == "account":  # Vertex refuses a project's access as its `forbidden`
        scenario = "forbidden"
    resource = "projects/fake-project/locations/us-east5/publishers/anthropic/models/" + MODEL
    table = {
        "rate-limit": (
            429,
            "RESOURCE_EXHAUSTED",
            "Quota exceeded for aiplatform.googleapis.com/online_prediction_requests_per_base_model with base "
            "model: anthropic-fake-model-1. Please submit a quota increase request. "
            "https://cloud.google.com/vertex-ai/docs/generative-ai/quotas-genai.",
        ),
        "auth": (
            401,
            "UNAUTHENTICATED",
            "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other "
            "valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.",
        ),
        "forbidden": (
            403,
            "PERMISSION_DENIED",
            "Permission 'aiplatform.endpoints.predict' denied on resource '//aiplatform.googleapis.com/"
            + resource + "' (or it may not exist).",
        ),
        "not-found": (404, "NOT_FOUND", "Publisher Model `" + resource + "` not found."),
        "server-error": (500, "INTERNAL", "Internal error encountered."),
        "unavailable": (503, "UNAVAILABLE", "The service is currently unavailable."),
    }
    if scenario not in table:  # quota, payment: the project's billing, as Gemini's
        return gemini_error("payment")
    status, gstatus, msg = table[scenario]
    return status, {"error": {"code": status, "message": msg, "status": gstatus}}


# Vertex AI's own answer for a Gemini model's rate limit (what it says in
# place of the Gemini API's `Resource has been exhausted`); its per-minute
# `Quota exceeded for aiplatform.googleapis.com/…` is a rate limit too, so the
# `quota` scenario keeps the Gemini API's spent-quota body
VERTEX_GEMINI_ERRORS = {
    "rate-limit": (
        429,
        "RESOURCE_EXHAUSTED",
        "Resource exhausted. Please try again later. Please refer to "
        "https://cloud.google.com/vertex-ai/generative-ai/docs/error-code-429 for more details.",
    ),
}


# ---------------------------------------------------------------------------
# provider dialects: the same OpenAI-compatible API as a third-party provider
# or gateway speaks it. A CLI pointed at one of them reads its error bodies,
# not OpenAI's: other statuses (402 for a spent balance), other shapes (a
# string `error`, a numeric or string `code`, OpenRouter's `metadata.raw`),
# other words. `--dialect NAME` answers the OpenAI families (Chat Completions,
# Responses, the model list) so; a scenario the dialect does not define keeps
# OpenAI's answer. Each entry's source is the provider's own documentation
# or server code, cited beside it.

def _or(status: int, message: str, **extra):
    """OpenRouter's error object: the HTTP status again as an integer `code`."""
    return {"error": {"code": status, "message": message, **extra}}


def _litellm(status: int, message: str, etype=None, param=None):
    """LiteLLM proxy's ProxyException: the status as a string `code`."""
    return {"error": {"message": message, "type": etype, "param": param, "code": str(status)}}


def _litellm_wrap(classes: str, scenario: str) -> str:
    """The message of a provider's error the LiteLLM proxy passes on:
    `litellm.{Class}: {Class}: OpenAIException - ` (litellm/exceptions.py)
    before the upstream's own message, here OpenAI's answer for `scenario`."""
    return f"litellm.{classes}: OpenAIException - " + openai_error(scenario)[1]["error"]["message"]


def _oai(message: str, etype, code):
    return {"error": {"message": message, "type": etype, "param": None, "code": code}}


def _ollama(message: str, etype: str = "api_error"):
    """Ollama's /v1 error object: its type from the status, `code` always null."""
    return {"error": {"message": message, "type": etype, "param": None, "code": None}}


def _zai(code: str, message: str):
    """Z.ai's (Zhipu's) error object: the business code as a string, no type."""
    return {"error": {"code": code, "message": message}}


ZAI_OVERLOADED = "该模型当前访问量过大，请您稍后再试"

DIALECTS = {
    # OpenRouter: OpenRouterTeam/docs api_reference/errors-and-debugging.mdx and
    # openapi/openapi.yaml @c26125a (the examples' messages); the invalid key's
    # `User not found.` as a `train` corpus row shows it (anomalyco/opencode#2245)
    "openrouter": {
        "rate-limit": (429, _or(429, "Rate limit exceeded",
                                metadata={"error_type": "rate_limit_exceeded", "provider_code": "rate_limited"})),
        "payment": (402, _or(402, "Insufficient credits. Add more using https://openrouter.ai/credits")),
        "auth": (401, _or(401, "User not found.")),
        # the 529 ProviderOverloadedResponse; its older `metadata` names the provider and its raw body
        "overloaded": (529, _or(529, "Provider returned error", metadata={
            "provider_name": "Fake", "raw": json.dumps({"type": "error", "error": {"type": "overloaded_error",
                                                                                 "message": "Overloaded"}})})),
        "bad-gateway": (502, _or(502, "Provider returned error",
                                 metadata={"error_type": "provider_unavailable"})),
        # a model that is not one: the documented example has no `code`
        "not-found": (400, {"error": {"message": "fake-model-1 is not a valid model ID", "error_type":
                                      "invalid_request", "http_status": 400, "availability": {
                                          "code": "model_not_found", "retryable": False,
                                          "requested_models": ["fake-model-1"]}}}),
    },
    # LiteLLM proxy: BerriAI/litellm litellm/proxy/proxy_server.py
    # openai_exception_handler, litellm/proxy/_types.py ProxyException,
    # litellm/exceptions.py (each message prefixed `litellm.<Class>: `),
    # litellm/proxy/auth/auth_checks.py get_key_object; the upstream's own
    # message (here OpenAI's) after `OpenAIException - `
    "litellm": {
        "rate-limit": (429, _litellm(429, _litellm_wrap("RateLimitError: RateLimitError", "rate-limit"),
                                     "throttling_error"), {"retry-after": "2"}),
        # BudgetExceededError; 400 before the status became configurable (422 by default now)
        "quota": (400, _litellm(400, "Budget has been exceeded! Current cost: 10.0152, Max budget: 10.0",
                                "budget_exceeded")),
        "auth": (401, _litellm(401, "Authentication Error, Invalid proxy server token passed. key=88dc28d0f030c55ed4ab"
                                    "77ed8faf098196cb1c05df778539800c9f1243fe6b4b, not found in db. Create key via "
                                    "`/key/generate` call.", "token_not_found_in_db", "key")),
        "overloaded": (503, _litellm(503, _litellm_wrap("ServiceUnavailableError: ServiceUnavailableError",
                                                        "overloaded"))),
        "server-error": (500, _litellm(500, _litellm_wrap("InternalServerError: InternalServerError", "server-error"))),
        # the double prefix of ContextWindowExceededError: a subclass of BadRequestError
        "too-long": (400, _litellm(400, _litellm_wrap("ContextWindowExceededError: litellm.BadRequestError: "
                                                      "ContextWindowExceededError", "too-long"))),
        "not-found": (404, _litellm(404, _litellm_wrap("NotFoundError: NotFoundError", "not-found"))),
        # the upstream's 400 refusing the organization, passed on as the SDK raised it
        "account": (400, _litellm(400, _litellm_wrap("BadRequestError", "account"))),
    },
    # DeepSeek: api-docs.deepseek.com/quick_start/error_codes (each status's
    # title); the body is OpenAI's shape with the title as its message (the
    # docs show no body: its type and code are the harness's)
    "deepseek": {
        "rate-limit": (429, _oai("Rate Limit Reached", "rate_limit_error", "rate_limit_reached")),
        "payment": (402, _oai("Insufficient Balance", "unknown_error", "invalid_request_error")),
        "auth": (401, _oai("Authentication Fails, Your api key: ****0000 is invalid", "authentication_error",
                           "invalid_request_error")),
        "overloaded": (503, _oai("Server Overloaded", "server_error", "server_overloaded")),
    },
    # Z.ai / Zhipu GLM: docs.z.ai/api-reference/api-code and
    # docs.bigmodel.cn/cn/api/api-code (business codes and messages; a spent
    # balance and an overloaded model are 429s too), zai-org/z-ai-sdk-python
    # @d8d898b (the code a string); the 1113 body as a user quoted it in
    # zai-org/GLM-5#49
    "zai": {
        "rate-limit": (429, _zai("1302", "您的账户已达到速率限制，请您控制请求频率")),
        "quota": (429, _zai("1113", "Insufficient balance or no resource package. Please recharge.")),
        "overloaded": (429, _zai("1305", ZAI_OVERLOADED)),
        "auth": (401, _zai("1002", "Invalid Authentication Token, please confirm the correct transmission of the "
                                   "Authentication Token")),
        "not-found": (400, _zai("1211", "Model does not exist, please check the model code")),
    },
    # Ollama's OpenAI-compatible endpoint: ollama/ollama @fb30760
    # openai/openai.go (the error object), server/sched.go ErrMaxQueue (two
    # blanks in it), server/routes.go (a model not pulled),
    # llm/llama_server.go (a runner that died; its context-length refusal)
    "ollama": {
        "overloaded": (503, _ollama("server busy, please try again.  maximum pending requests exceeded")),
        "server-error": (500, _ollama("llama-server process has terminated: exit status 2")),
        "not-found": (404, _ollama('model "fake-model-1" not found, try pulling it first', "not_found_error")),
        "too-long": (400, _ollama("the prompt is longer than the context length currently available to the model; "
                                  "shorten the prompt, adjust the context length in settings, or use a model with a "
                                  "longer context length", "invalid_request_error")),
    },
}

# What a dialect sends inside a begun Chat Completions stream in place of
# OpenAI's `data: {"error": …}`: OpenRouter a chunk with a top-level `error`
# and `finish_reason: "error"` (errors-and-debugging.mdx, streaming.mdx);
# LiteLLM the ProxyException's object (common_request_processing.py
# async_data_generator); Z.ai an `error` object (the SDK's _streaming.py
# reads it; the server's form is not documented); Ollama's /v1 writer drops
# the runner's error and leaves an empty chunk with no finish (openai.go's
# ChatWriter, read from source)
DIALECT_STREAM_ERRORS = {
    "openrouter": {"id": "gen-fake", "object": "chat.completion.chunk", "created": 0, "model": MODEL,
                   "provider": "Fake", "error": {"code": "server_error",
                                                 "message": "Provider disconnected unexpectedly"},
                   "choices": [{"index": 0, "delta": {"content": ""}, "finish_reason": "error"}]},
    "litellm": DIALECTS["litellm"]["overloaded"][1],
    "zai": _zai("1305", ZAI_OVERLOADED),
    "ollama": {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 0, "model": MODEL,
               "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}]},
}


def dialect_scenarios(dialect: str) -> list[str]:
    """The scenarios `dialect` answers its own way: its table's, and
    `stream-overloaded` where it ends a begun stream its own way."""
    return list(DIALECTS[dialect]) + (["stream-overloaded"] if dialect in DIALECT_STREAM_ERRORS else [])


def dialect_error(dialect: str | None, scenario: str):
    """(status, body, headers) of `dialect`'s answer for `scenario`, or None
    where the dialect has no answer of its own for it."""
    entry = DIALECTS.get(dialect or "", {}).get(scenario)
    if entry is None:
        return None
    status, body, *headers = entry
    return status, json.loads(json.dumps(body)), dict(headers[0]) if headers else {}


def eventstream_frame(headers: dict, payload: bytes) -> bytes:
    """One AWS event-stream message: the prelude (total and header lengths and
    their CRC-32), string-typed headers, the payload, the message's CRC-32."""
    hdr = b""
    for name, value in headers.items():
        n, v = name.encode(), value.encode()
        hdr += bytes([len(n)]) + n + b"\x07" + struct.pack(">H", len(v)) + v
    prelude = struct.pack(">II", 12 + len(hdr) + len(payload) + 4, len(hdr))
    head = prelude + struct.pack(">I", zlib.crc32(prelude)) + hdr + payload
    return head + struct.pack(">I", zlib.crc32(head))


def bedrock_chunk(obj: dict) -> bytes:
    """A Messages event as InvokeModelWithResponseStream carries it: a `chunk`
    event whose payload holds the event's JSON, base64-encoded."""
    payload = json.dumps({"bytes": base64.b64encode(json.dumps(obj).encode()).decode()}).encode()
    return eventstream_frame({":event-type": "chunk", ":content-type": "application/json",
                              ":message-type": "event"}, payload)


def bedrock_exception(name: str, message: str) -> bytes:
    """An exception inside the stream, as the event-stream framing sends it."""
    return eventstream_frame({":exception-type": name, ":content-type": "application/json",
                              ":message-type": "exception"}, json.dumps({"message": message}).encode())


# ---------------------------------------------------------------------------
# healthy answers


def _words(text: str):
    """Split the answer into a few streaming chunks (keeping the spaces)."""
    parts = text.split(" ")
    step = max(1, len(parts) // 4)
    out = []
    for i in range(0, len(parts), step):
        chunk = " ".join(parts[i : i + step])
        if i + step < len(parts):
            chunk += " "
        out.append(chunk)
    return out


def anthropic_message(text: str = HEALTHY_TEXT):
    return {
        "id": "msg_fake" + uuid.uuid4().hex[:20],
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 12, "output_tokens": 40},
    }


def anthropic_sse(text: str = HEALTHY_TEXT):
    msg = anthropic_message(text)
    start = dict(msg, content=[], stop_reason=None, usage={"input_tokens": 12, "output_tokens": 1})
    yield "message_start", {"type": "message_start", "message": start}
    yield "content_block_start", {
        "type": "content_block_start",
        "index": 0,
        "content_block": {"type": "text", "text": ""},
    }
    yield "ping", {"type": "ping"}
    for chunk in _words(text):
        yield "content_block_delta", {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "text_delta", "text": chunk},
        }
    yield "content_block_stop", {"type": "content_block_stop", "index": 0}
    yield "message_delta", {
        "type": "message_delta",
        "delta": {"stop_reason": "end_turn", "stop_sequence": None},
        "usage": {"output_tokens": 40},
    }
    yield "message_stop", {"type": "message_stop"}


def chat_completion(model: str, text: str = HEALTHY_TEXT):
    return {
        "id": "chatcmpl-fake" + uuid.uuid4().hex[:12],
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 12, "completion_tokens": 40, "total_tokens": 52},
    }


def chat_sse(model: str, text: str = HEALTHY_TEXT):
    cid = "chatcmpl-fake" + uuid.uuid4().hex[:12]
    created = int(time.time())

    def chunk(delta, finish=None, usage=None):
        c = {
            "id": cid,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
        if usage is not None:
            c["usage"] = usage
        return c

    yield None, chunk({"role": "assistant", "content": ""})
    for part in _words(text):
        yield None, chunk({"content": part})
    yield None, chunk({}, "stop")
    yield None, {
        "id": cid,
        "object": "chat.completion.chunk",
        "created": created,
        "model": model,
        "choices": [],
        "usage": {"prompt_tokens": 12, "completion_tokens": 40, "total_tokens": 52},
    }


def converse_json(text: str = HEALTHY_TEXT):
    """Bedrock Converse's whole answer of `text`."""
    return {
        "output": {"message": {"role": "assistant", "content": [{"text": text}]}},
        "stopReason": "end_turn",
        "usage": {"inputTokens": 12, "outputTokens": 40, "totalTokens": 52},
        "metrics": {"latencyMs": 120},
    }


def converse_events(text: str = HEALTHY_TEXT):
    """Bedrock ConverseStream's events of an answer of `text`: (event type,
    payload), each sent as one event-stream frame."""
    yield "messageStart", {"role": "assistant"}
    for chunk in _words(text):
        yield "contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": chunk}}
    yield "contentBlockStop", {"contentBlockIndex": 0}
    yield "messageStop", {"stopReason": "end_turn"}
    yield "metadata", {"usage": {"inputTokens": 12, "outputTokens": 40, "totalTokens": 52},
                       "metrics": {"latencyMs": 120}}


def sse_answer(family: str, body: dict, path: str, query: str, text: str):
    """Whether the request asked for an event stream, and the family's events
    for an answer of `text`."""
    model = body.get("model") or MODEL
    if family == "converse":
        return path.endswith("/converse-stream"), converse_events(text)
    if family == "anthropic":
        return body.get("stream"), anthropic_sse(text)
    if family == "openai-chat":
        return body.get("stream"), chat_sse(model, text)
    if family == "openai-responses":
        return body.get("stream", False), responses_sse(model, text)
    return ":streamGenerateContent" in path and "alt=sse" in query, gemini_sse(text)


def whole_answer(family: str, body: dict, path: str, text: str):
    """The family's whole non-streaming answer of `text` (for Gemini's
    `streamGenerateContent` without SSE, the list of its chunks)."""
    model = body.get("model") or MODEL
    if family == "converse":
        return converse_json(text)
    if family == "anthropic":
        return anthropic_message(text)
    if family == "openai-chat":
        return chat_completion(model, text)
    if family == "openai-responses":
        return responses_json(model, text)
    if ":streamGenerateContent" in path:
        return [obj for _, obj in gemini_sse(text)]
    return gemini_response(text, True)


# A CDN firewall's page for a client it refuses (a flagged network or region).
BLOCKED_HTML = (
    "<!DOCTYPE html><html><head><title>Attention Required! | fake-provider.example</title></head>"
    "<body><h1>Sorry, you have been blocked</h1><p>You are unable to access fake-provider.example</p>"
    "</body></html>"
)
# A front end's page while the service is down for maintenance.
MAINTENANCE_HTML = (
    "<!DOCTYPE html><html><head><title>503 Service Temporarily Unavailable</title></head>"
    "<body><h1>Service Temporarily Unavailable</h1><p>The server is temporarily unable to service your "
    "request due to maintenance downtime. Please try again later.</p></body></html>"
)

# HAProxy's own answer when a client's request is not complete in time
# (haproxy src/http.c, http_err_msgs[HTTP_ERR_408]).
REQUEST_TIMEOUT_HTML = (
    "<html><body><h1>408 Request Time-out</h1>\n"
    "Your browser didn't send a complete request in time.\n</body></html>\n"
)
# Squid's page for a request without the proxy credentials it requires
# (ERR_CACHE_ACCESS_DENIED), shortened; sent with its challenge header.
PROXY_AUTH_HTML = (
    "<!DOCTYPE html><html><head><title>ERROR: Cache Access Denied</title></head>"
    "<body><h1>ERROR</h1><h2>Cache Access Denied.</h2><p>Sorry, you are not currently allowed to "
    "request this URL from this cache until you have authenticated yourself.</p>"
    "<p>Generated by proxy.corp.example (squid/6.6)</p></body></html>"
)
# Squid's page when it cannot open the connection a request asks for
# (ERR_CONNECT_FAIL, errno 111), shortened; the proxy-tunnel answer to every request.
PROXY_CONNECT_FAIL_HTML = (
    "<!DOCTYPE html><html><head><title>ERROR: The requested URL could not be retrieved</title></head>"
    "<body><h1>ERROR</h1><h2>The requested URL could not be retrieved</h2><p>The system returned: "
    "(111) Connection refused</p><p>The remote host or network may be down.</p>"
    "<p>Generated by proxy.corp.example (squid/6.6)</p></body></html>"
)
# The pages sent whole, with the status and any headers that go with them.
HTML_PAGES = {
    "request-timeout": (408, REQUEST_TIMEOUT_HTML, ()),
    "proxy-auth": (407, PROXY_AUTH_HTML, (("proxy-authenticate", 'Basic realm="Squid proxy"'),
                                          ("x-squid-error", "ERR_CACHE_ACCESS_DENIED 0"))),
}


# The proxy scenarios: the fake provider is the forward proxy, and this is its
# answer to every request, a CONNECT tunnel or an absolute-form one.
PROXY_ANSWERS = {
    "proxy-tunnel": (503, PROXY_CONNECT_FAIL_HTML, (("x-squid-error", "ERR_CONNECT_FAIL 111"),)),
    "proxy-tunnel-auth": HTML_PAGES["proxy-auth"],
}


# A gateway's own plain-text answers in place of the provider's (envoy's local
# replies, source/common/router/router.cc): no backend left, or the connection
# to it broken before the answer's headers.
GATEWAY_TEXT = {
    "no-upstream": (503, "no healthy upstream"),
    "upstream-reset": (503, "upstream connect error or disconnect/reset before headers. reset reason: connection termination"),
    # Cloudflare's own rate limit in front of an API (its error 1015), as API clients get it
    "cdn-rate-limit": (429, "error code: 1015"),
}

# stream-overloaded, stream-server-error, stream-rate-limit: the events sent before the in-stream error
STREAM_ERROR_EVENTS = {"converse": 2, "anthropic": 3, "openai-chat": 1, "openai-responses": 2, "gemini": 1}
# What the Responses API says in a `response.failed` whose code is
# `server_error`, as Codex users quote it behind `stream disconnected before
# completion:` (openai/codex#27684, #41895: the request id is a UUID there)
RESPONSES_SERVER_ERROR_TEXT = (
    "An error occurred while processing your request. You can retry your request, or contact us through our "
    "help center at help.openai.com if the error persists. Please include the request ID %s in your message."
)
# the non-streaming scenario each in-stream error stands in for
STREAM_ERROR_FALLBACK = {"stream-overloaded": "overloaded", "stream-server-error": "server-error",
                         "stream-rate-limit": "rate-limit"}
# the code of a Responses `response.failed` per in-stream error; the sentence is
# the status answer's but for `server_error`'s (RESPONSES_SERVER_ERROR_TEXT)
RESPONSES_FAILED_CODE = {"overloaded": "server_is_overloaded", "server-error": "server_error",
                         "rate-limit": "rate_limit_exceeded"}
# Bedrock's stream exception per in-stream error: (exception, BEDROCK_ERRORS entry)
BEDROCK_STREAM_EXCEPTION = {"overloaded": ("serviceUnavailableException", "unavailable"),
                            "server-error": ("internalServerException", "server-error"),
                            "rate-limit": ("throttlingException", "rate-limit")}


def stream_error_event(family: str, model: str, seq: int, scenario: str):
    """The (event name, data) an API sends inside a 200 stream when the
    model is overloaded (`stream-overloaded`), the API fails internally
    (`stream-server-error`) or a rate limit is hit (`stream-rate-limit`)
    after the answer has begun: the error object of
    the status answer the scenario stands in for (STREAM_ERROR_FALLBACK)."""
    status = STREAM_ERROR_FALLBACK[scenario]
    if family == "anthropic":
        return "error", {"type": "error", "error": anthropic_error(status)[1]["error"]}
    if family == "openai-chat":
        return None, openai_error(status)[1]
    if family == "openai-responses":
        resp = _response_obj(model, "resp_fake" + uuid.uuid4().hex[:20], "failed", [])
        if status == "server-error":
            message = RESPONSES_SERVER_ERROR_TEXT % uuid.uuid4()
        else:
            message = openai_error(status)[1]["error"]["message"]
        resp["error"] = {"code": RESPONSES_FAILED_CODE[status], "message": message}
        return "response.failed", {"type": "response.failed", "sequence_number": seq, "response": resp}
    return None, gemini_error(status)[1]


def _response_obj(model: str, rid: str, status: str, output):
    return {
        "id": rid,
        "object": "response",
        "created_at": int(time.time()),
        "status": status,
        "model": model,
        "output": output,
        "usage": {
            "input_tokens": 12,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 40,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 52,
        },
    }


def responses_sse(model: str, text: str = HEALTHY_TEXT):
    rid = "resp_fake" + uuid.uuid4().hex[:20]
    mid = "msg_fake" + uuid.uuid4().hex[:20]
    item_empty = {"id": mid, "type": "message", "status": "in_progress", "role": "assistant", "content": []}
    part_done = {"type": "output_text", "text": text, "annotations": []}
    item_done = dict(item_empty, status="completed", content=[part_done])
    seq = 0

    def ev(kind, **kw):
        nonlocal seq
        seq += 1
        return kind, dict({"type": kind, "sequence_number": seq}, **kw)

    yield ev("response.created", response=_response_obj(model, rid, "in_progress", []))
    yield ev("response.in_progress", response=_response_obj(model, rid, "in_progress", []))
    yield ev("response.output_item.added", output_index=0, item=item_empty)
    yield ev(
        "response.content_part.added",
        item_id=mid,
        output_index=0,
        content_index=0,
        part={"type": "output_text", "text": "", "annotations": []},
    )
    for part in _words(text):
        yield ev("response.output_text.delta", item_id=mid, output_index=0, content_index=0, delta=part)
    yield ev("response.output_text.done", item_id=mid, output_index=0, content_index=0, text=text)
    yield ev("response.content_part.done", item_id=mid, output_index=0, content_index=0, part=part_done)
    yield ev("response.output_item.done", output_index=0, item=item_done)
    yield ev("response.completed", response=_response_obj(model, rid, "completed", [item_done]))


def responses_json(model: str, text: str = HEALTHY_TEXT):
    rid = "resp_fake" + uuid.uuid4().hex[:20]
    item = {
        "id": "msg_fake" + uuid.uuid4().hex[:20],
        "type": "message",
        "status": "completed",
        "role": "assistant",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }
    return _response_obj(model, rid, "completed", [item])


def gemini_response(text: str, final: bool):
    cand = {"content": {"role": "model", "parts": [{"text": text}]}, "index": 0}
    if final:
        cand["finishReason"] = "STOP"
    return {
        "candidates": [cand],
        "usageMetadata": {"promptTokenCount": 12, "candidatesTokenCount": 40, "totalTokenCount": 52},
        "modelVersion": MODEL,
        "responseId": "fake" + uuid.uuid4().hex[:16],
    }


def gemini_sse(text: str = HEALTHY_TEXT):
    parts = _words(text)
    for i, part in enumerate(parts):
        yield None, gemini_response(part, i == len(parts) - 1)


# ---------------------------------------------------------------------------
# `tool`: the model asks the agent to run shell commands whose output looks
# like error text (a project's own output, not the provider's)

# Twelve lines, six of them shaped like the CLIs' own fault lines; more than
# most CLIs show of a result, so that their "… +N lines" marker appears.
TOOL_COMMANDS = (
    "printf '%s\\n' 'API Error: 503 Service Unavailable' "
    "'unexpected status 503 Service Unavailable: upstream down' "
    "'[API Error: 429 Too Many Requests]' "
    "'Error: connect ECONNREFUSED 10.0.0.7:5432' "
    "'stream disconnected before completion: error sending request' "
    "'Rate limit exceeded. Please try again later.' "
    "line7 line8 line9 line10 line11 'last line of the first tool'",
    # the second call fails: stdout and stderr, then exit status 1
    "printf 'API Error: 529 Overloaded\\n'; printf 'Error: 401 Unauthorized\\n' >&2; echo done; exit 1",
)
TOOL_DESCRIPTIONS = ("Print the service check log", "Re-run the failing check")
TOOL_LEADS = ("I'll run the service checks first.", "Now the failing check again.")
# `late-overloaded`: the work before the outage, in words no fault pattern reads
LATE_COMMANDS = ("ls -a", "echo build ok")
LATE_DESCRIPTIONS = ("List the files", "Check the build")
LATE_LEADS = ("I'll look at the files first.", "Now a quick check of the build.")
# the scenarios whose conversation runs shell calls: (commands, descriptions,
# leads) of each step
SHELL_STEPS = {"tool": (TOOL_COMMANDS, TOOL_DESCRIPTIONS, TOOL_LEADS),
               "late-overloaded": (LATE_COMMANDS, LATE_DESCRIPTIONS, LATE_LEADS)}
# the API families whose tools `request_tools` reads
TOOL_FAMILIES = ("anthropic", "openai-chat", "openai-responses", "gemini")
# The shell tool's name in each CLI's request, in order of preference (Codex's
# `local_shell` has no name: it is a tool `type`).
SHELL_TOOLS = ("Bash", "bash", "run_shell_command", "shell", "shell_command", "exec_command",
               "local_shell", "container.exec", "execute_command", "run_terminal_cmd", "terminal",
               "execute_bash", "powershell")
COMMAND_ARGS = ("command", "cmd", "commandLine", "command_line", "script")
# What a model says of its call where the schema asks for it: Claude Code's and
# Gemini CLI's `description`, the OpenHands SDK's `summary` (optional, on every
# tool; without it the CLI titles the call `terminal: {"command": …}`)
DESCRIPTION_ARGS = ("description", "summary")
# The risk a model names where the schema asks for it (the OpenHands SDK's
# required `security_risk`, whose enum begins with UNKNOWN)
RISK_VALUE = "LOW"


# Shell tools that send every command to one persistent shell (the OpenHands
# SDK's `terminal`, in tmux): a top-level `exit` ends that shell, and the call's
# result is then the SDK's own "terminal session was reset" error, not the
# command's output; there the failing command exits from a subshell.
PERSISTENT_SHELL_TOOLS = ("terminal", "execute_bash")


def tool_command(shell: str, command: str) -> str:
    """`command` as the shell tool `shell` is to run it: a persistent shell's
    `exit` in a subshell."""
    if shell in PERSISTENT_SHELL_TOOLS and re.search(r"(^|;)\s*exit\b", command):
        return "(%s)" % command
    return command


def wants_json_schema(body: dict) -> bool:
    """Whether the request asks for an answer in a JSON schema (a side call:
    Codex's thread title), in the Responses or the Chat Completions form."""
    return ((body.get("text") or {}).get("format") or {}).get("type") == "json_schema" or (
        (body.get("response_format") or {}).get("type") == "json_schema")


def request_tools(family: str, body: dict) -> list[tuple[str, dict]]:
    """(name, JSON schema of the arguments) of each tool the request offers."""
    out = []
    if family == "gemini":
        for t in body.get("tools") or []:
            for d in t.get("functionDeclarations") or t.get("function_declarations") or []:
                out.append((d.get("name", ""), d.get("parametersJsonSchema") or d.get("parameters") or {}))
        return out
    for t in body.get("tools") or []:
        if not isinstance(t, dict):
            continue
        if family == "anthropic":
            out.append((t.get("name", ""), t.get("input_schema") or {}))
        elif family == "openai-chat":
            f = t.get("function") or {}
            out.append((f.get("name", ""), f.get("parameters") or {}))
        else:  # Responses: function tools carry a name; local_shell is a type
            if t.get("type") == "local_shell":
                out.append(("local_shell", {}))
            elif t.get("name"):
                out.append((t["name"], t.get("parameters") or {}))
    return out


def tool_results(family: str, body: dict) -> int:
    """How many tool results the conversation in the request holds."""
    n = 0
    if family == "anthropic":
        for m in body.get("messages") or []:
            if isinstance(m.get("content"), list):
                n += sum(1 for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_result")
    elif family == "openai-chat":
        n = sum(1 for m in body.get("messages") or [] if m.get("role") == "tool")
    elif family == "openai-responses":
        items = body.get("input") if isinstance(body.get("input"), list) else []
        n = sum(1 for i in items if isinstance(i, dict) and str(i.get("type", "")).endswith("_call_output"))
    else:
        for c in body.get("contents") or []:
            n += sum(1 for p in c.get("parts") or [] if isinstance(p, dict) and "functionResponse" in p)
    return n


def pick_tool(tools: list[tuple[str, dict]], wanted) -> tuple[str, dict] | None:
    """(name, schema) of the first of the `wanted` names the request offers."""
    names = {name: schema for name, schema in tools}
    return next(((w, names[w]) for w in wanted if w in names), None)


def pick_shell_tool(tools: list[tuple[str, dict]]):
    return pick_tool(tools, SHELL_TOOLS)


def _schema_type(prop: dict) -> str:
    t = prop.get("type")
    if isinstance(t, list):
        t = next((x for x in t if x != "null"), "string")
    if not t and prop.get("anyOf"):
        t = _schema_type(next((p for p in prop["anyOf"] if p.get("type") != "null"), {}))
    return str(t or "string").lower()


def tool_arguments(name: str, schema: dict, command: str, description: str) -> dict:
    """The arguments of a call of the shell tool `name`: the command, a short
    description where the schema has one, and any other required argument
    from its schema (its default, its first enum value, or a plain value)."""
    if name == "local_shell":
        return {"command": ["bash", "-lc", command]}
    props = schema.get("properties") or {}
    wanted = list(schema.get("required") or [])
    for extra in (*COMMAND_ARGS, *DESCRIPTION_ARGS):
        if extra in props and extra not in wanted:
            wanted.append(extra)
    if not any(a in wanted for a in COMMAND_ARGS):
        wanted.insert(0, "command")
    args = {}
    for arg in wanted:
        prop = props.get(arg) or {}
        if arg in COMMAND_ARGS:
            args[arg] = ["bash", "-lc", command] if _schema_type(prop) == "array" else command
        else:
            args[arg] = _fill(arg, prop, description)
    return args


def _fill(arg: str, prop: dict, description: str):
    """A plain value for a required argument: its default, its first enum
    value, the call's description for a description-like string, or a value of
    its type."""
    kind = _schema_type(prop)
    if "default" in prop:
        return prop["default"]
    if prop.get("enum"):
        return RISK_VALUE if arg == "security_risk" and RISK_VALUE in prop["enum"] else prop["enum"][0]
    if kind == "string":
        return description if "desc" in arg.lower() or arg in ("title", "instruction", "summary") else "."
    if kind in ("integer", "number"):
        return 30000 if arg.endswith("_ms") or "ms" in arg.lower() else 30
    if kind == "boolean":
        return False
    if kind == "array":
        return []
    return {}


def _halves(s: str) -> list[str]:
    return [s[: len(s) // 2], s[len(s) // 2 :]]


def tool_call_answer(family: str, body: dict, path: str, query: str, name: str, args, lead: str,
                     custom: bool = False):
    """Whether the request streams, and its answer: a short text, then one call
    of tool `name` with `args` (a list of events, or a whole JSON body). With
    `custom` (Responses only) the tool is a freeform one and `args` its input
    text."""
    model = body.get("model") or MODEL
    stream, _ = sse_answer(family, body, path, query, lead)
    call_id = "call_fake" + uuid.uuid4().hex[:20]
    arg_json = json.dumps(args)
    if family == "anthropic":
        tid = "toolu_fake" + uuid.uuid4().hex[:20]
        use = {"type": "tool_use", "id": tid, "name": name, "input": args}
        msg = dict(anthropic_message(lead), stop_reason="tool_use")
        msg["content"] = msg["content"] + [use]
        if not stream:
            return False, msg
        events = list(anthropic_sse(lead))[:-2]  # up to the text block's stop
        events += [
            ("content_block_start", {"type": "content_block_start", "index": 1,
                                     "content_block": dict(use, input={})}),
            *[("content_block_delta", {"type": "content_block_delta", "index": 1,
                                       "delta": {"type": "input_json_delta", "partial_json": p}})
              for p in _halves(arg_json)],
            ("content_block_stop", {"type": "content_block_stop", "index": 1}),
            ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None},
                               "usage": {"output_tokens": 40}}),
            ("message_stop", {"type": "message_stop"}),
        ]
        return True, events
    if family == "openai-chat":
        call = {"id": call_id, "type": "function", "function": {"name": name, "arguments": arg_json}}
        if not stream:
            whole = chat_completion(model, lead)
            whole["choices"][0]["message"]["tool_calls"] = [call]
            whole["choices"][0]["finish_reason"] = "tool_calls"
            return False, whole
        events = list(chat_sse(model, lead))
        usage = events.pop()  # the usage chunk, after the finish
        events.pop()  # the text's own finish ("stop")
        tmpl = events[0][1]

        def chunk(delta, finish=None):
            return None, dict(tmpl, choices=[{"index": 0, "delta": delta, "finish_reason": finish}])

        events.append(chunk({"tool_calls": [{"index": 0, "id": call_id, "type": "function",
                                             "function": {"name": name, "arguments": ""}}]}))
        for p in _halves(arg_json):
            events.append(chunk({"tool_calls": [{"index": 0, "function": {"arguments": p}}]}))
        events.append(chunk({}, "tool_calls"))
        events.append(usage)
        return True, events
    if family == "openai-responses":
        if custom:
            item = {"type": "custom_tool_call", "id": "ctc_fake" + uuid.uuid4().hex[:20], "call_id": call_id,
                    "name": name, "input": args, "status": "completed"}
        elif name == "local_shell":
            item = {"type": "local_shell_call", "id": "lsh_fake" + uuid.uuid4().hex[:20], "call_id": call_id,
                    "status": "completed",
                    "action": {"type": "exec", "command": args["command"], "env": {}, "timeout_ms": None,
                               "user": None, "working_directory": None}}
        else:
            item = {"type": "function_call", "id": "fc_fake" + uuid.uuid4().hex[:20], "call_id": call_id,
                    "name": name, "arguments": arg_json, "status": "completed"}
        if not stream:
            whole = responses_json(model, lead)
            whole["output"].append(item)
            return False, whole
        events = list(responses_sse(model, lead))
        done = events.pop()[1]  # response.completed, re-sent below with the call in it
        seq = done["sequence_number"]

        def ev(kind, **kw):
            nonlocal seq
            seq += 1
            return kind, dict({"type": kind, "sequence_number": seq}, **kw)

        # a function call streams its JSON arguments, a freeform (custom) one its raw input
        streamed = {"function_call": ("arguments", "response.function_call_arguments", arg_json),
                    "custom_tool_call": ("input", "response.custom_tool_call_input", args)}.get(item["type"])
        if streamed:
            field, kind, payload = streamed
            events.append(ev("response.output_item.added", output_index=1,
                             item=dict(item, **{field: "", "status": "in_progress"})))
            for p in _halves(payload):
                events.append(ev(f"{kind}.delta", item_id=item["id"], output_index=1, delta=p))
            events.append(ev(f"{kind}.done", item_id=item["id"], output_index=1, **{field: payload}))
        else:
            events.append(ev("response.output_item.added", output_index=1, item=dict(item, status="in_progress")))
        events.append(ev("response.output_item.done", output_index=1, item=item))
        resp = done["response"]
        resp["output"] = resp["output"] + [item]
        events.append(ev("response.completed", response=resp))
        return True, events
    # Gemini: the text, then the call in the last chunk
    call_part = {"functionCall": {"name": name, "args": args}}
    if not stream and ":streamGenerateContent" not in path:
        whole = gemini_response(lead, True)
        whole["candidates"][0]["content"]["parts"].append(call_part)
        return False, whole
    chunks = [gemini_response(lead, False), gemini_response("", True)]
    chunks[1]["candidates"][0]["content"]["parts"] = [call_part]
    if not stream:  # streamGenerateContent without alt=sse: one JSON array
        return False, chunks
    return True, [(None, c) for c in chunks]


# ---------------------------------------------------------------------------
# `write`: the model has the agent write a test fixture quoting provider errors
# (a healthy session's file, not the provider's), then edit it

WRITE_FILE = "fixtures/provider-errors.txt"
WRITE_LINES = (
    "API Error: 529 Overloaded",
    "API Error: 503 Service Unavailable",
    "unexpected status 503 Service Unavailable: upstream down",
    "[API Error: 429 Too Many Requests]",
    "Error: connect ECONNREFUSED 10.0.0.7:5432",
    "Rate limit exceeded. Please try again later.",
    "✕ [API Error: 401 Unauthorized]",
    "■ stream disconnected before completion: error sending request",
)
EDIT_OLD = "Rate limit exceeded. Please try again later."
EDIT_NEW = "Rate limit exceeded. Please try again in 20s.\nError: 500 Internal Server Error"
WRITE_DESCRIPTIONS = ("Add the provider error fixture", "Name the wait and add a 500 line")
WRITE_LEADS = ("I'll add a fixture of provider error lines for the tests.",
               "Now the rate-limit line names its wait, and a 500 line follows it.")
# The file tools' names in each CLI's request, in order of preference: Claude
# Code `Write`/`Edit`, Gemini CLI `write_file`/`replace`, Qwen Code
# `write_file`/`edit`, opencode `write`/`edit`, Copilot CLI `create`/`edit`,
# Codex `apply_patch` (a function with an `input` string, or a freeform tool),
# the OpenHands CLI `file_editor` (one tool: `command` create / str_replace).
WRITE_TOOLS = ("Write", "write_file", "write", "create", "create_file", "str_replace_editor",
               "str_replace_based_edit_tool", "file_editor", "apply_patch")
EDIT_TOOLS = ("Edit", "replace", "edit", "str_replace", "edit_file", "str_replace_editor",
              "str_replace_based_edit_tool", "file_editor", "apply_patch")
PATH_ARGS = ("file_path", "filePath", "path", "absolute_path", "filename", "target_file")
CONTENT_ARGS = ("content", "file_text", "contents", "text")
OLD_ARGS = ("old_string", "oldString", "old_str", "old_text")
NEW_ARGS = ("new_string", "newString", "new_str", "new_text")
# Where a request names the session's working directory (Codex's
# `<cwd>…</cwd>`, Claude Code's and opencode's `Working directory: …`, Gemini
# CLI's and Qwen Code's `I'm currently working in the directory: …`).
WORKDIR_RES = (
    r"<cwd>\s*(/[^<\s]+)\s*</cwd>",
    r"(?i)working directory(?: is)?\s*[:=]?\s*`?(/[^\s'\"`<>]+)",
    r"(?i)working in the directory:?\s*`?(/[^\s'\"`<>]+)",
    r"(?i)\bcwd\b\s*[:=]\s*`?(/[^\s'\"`<>]+)",
)


def _strings(o):
    if isinstance(o, str):
        yield o
    elif isinstance(o, dict):
        for v in o.values():
            yield from _strings(v)
    elif isinstance(o, list):
        for v in o:
            yield from _strings(v)


def request_workdir(body: dict) -> str | None:
    """The working directory the request's system prompt or context names."""
    texts = list(_strings(body))
    for rx in WORKDIR_RES:
        for t in texts:
            m = re.search(rx, t)
            if m:
                return m.group(1).rstrip(".,;:)")
    return None


def write_patch(step: int) -> str:
    """Codex's apply_patch text: the new file, then the hunk that edits it."""
    if step == 0:
        body = "".join("+" + line + "\n" for line in WRITE_LINES)
        return "*** Begin Patch\n*** Add File: %s\n%s*** End Patch\n" % (WRITE_FILE, body)
    i = WRITE_LINES.index(EDIT_OLD)
    hunk = (" %s\n-%s\n" % (WRITE_LINES[i - 1], EDIT_OLD) + "".join("+" + x + "\n" for x in EDIT_NEW.split("\n"))
            + " %s\n" % WRITE_LINES[i + 1])
    return "*** Begin Patch\n*** Update File: %s\n@@\n%s*** End Patch\n" % (WRITE_FILE, hunk)


def pick_file_tool(tools: list[tuple[str, dict]], step: int):
    """(name, schema) of the request's file-writing tool (step 0) or edit tool
    (step 1), else None."""
    return pick_tool(tools, WRITE_TOOLS if step == 0 else EDIT_TOOLS)


def _first(props: dict, wanted) -> str | None:
    return next((a for a in wanted if a in props), None)


def file_tool_arguments(name: str, schema: dict, step: int, workdir: str | None):
    """The arguments of the write (step 0) or edit (step 1) call of tool
    `name`: a dict, or for a freeform `apply_patch` the patch text itself. The
    path is absolute (under the request's working directory) where the path
    argument's description asks for an absolute path and the request names the
    directory, else relative."""
    if name == "apply_patch":
        props = schema.get("properties") or {}
        if not props:
            return write_patch(step)
        return {(_first(props, ("input", "patch")) or "input"): write_patch(step)}
    props = schema.get("properties") or {}
    path_arg = _first(props, PATH_ARGS) or "file_path"
    absolute = "absolute" in str((props.get(path_arg) or {}).get("description", "")).lower()
    path = WRITE_FILE
    if absolute and workdir:
        path = workdir.rstrip("/") + "/" + WRITE_FILE
    args = {path_arg: path}
    if step == 0:
        args[_first(props, CONTENT_ARGS) or "content"] = "\n".join(WRITE_LINES) + "\n"
    else:
        args[_first(props, OLD_ARGS) or "old_string"] = EDIT_OLD
        args[_first(props, NEW_ARGS) or "new_string"] = EDIT_NEW
    # one tool for every file action (`str_replace_editor`): say which
    cmd = props.get("command") or {}
    if cmd.get("enum"):
        want = ("create",) if step == 0 else ("str_replace", "replace", "edit")
        args["command"] = next((w for w in want if w in cmd["enum"]), cmd["enum"][0])
    # (of the optional descriptions only the OpenHands SDK's `summary`: a file
    # tool's `description` may be something else than the call's)
    for arg in [*(schema.get("required") or []), *(["summary"] if "summary" in props else [])]:
        if arg not in args:
            args[arg] = _fill(arg, props.get(arg) or {}, WRITE_DESCRIPTIONS[step])
    return args


def file_shell_command(shell: str, step: int) -> str:
    """Without a file tool: the same write or edit through the shell tool
    (Codex takes an `apply_patch` heredoc as a patch)."""
    if shell in ("exec_command", "shell", "shell_command", "local_shell"):
        return "apply_patch <<'EOF'\n%sEOF" % write_patch(step)
    if step == 0:
        return "mkdir -p fixtures && cat > %s <<'EOF'\n%s\nEOF" % (WRITE_FILE, "\n".join(WRITE_LINES))
    return "sed -i 's/^%s$/%s/' %s" % (EDIT_OLD.replace(".", r"\."), EDIT_NEW.replace("\n", r"\n"), WRITE_FILE)


def responses_tool_type(body: dict, name: str) -> str:
    """`function`, or `custom` for a freeform tool, in a Responses request."""
    for t in body.get("tools") or []:
        if isinstance(t, dict) and t.get("name") == name:
            return t.get("type") or "function"
    return "function"


# midstream: events sent before the connection drops (the answer has begun,
# nothing has finished it)
MIDSTREAM_EVENTS = {"converse": 2, "anthropic": 4, "openai-chat": 2, "openai-responses": 5, "gemini": 1}

MODEL_ENTRY = {
    "id": MODEL,
    "object": "model",
    "type": "model",
    "display_name": "Fake Model 1",
    "created": 1700000000,
    "created_at": "2025-01-01T00:00:00Z",
    "owned_by": "faultsift-harness",
}

# ---------------------------------------------------------------------------


def cloud_route(path: str) -> str | None:
    """The cloud whose path carries Anthropic's Messages API: Bedrock's
    `/model/{id}/invoke…` and `count-tokens`, Vertex AI's
    `…/publishers/anthropic/models/{m}:rawPredict`; None for the others."""
    if path.startswith("/model/") and path.rsplit("/", 1)[-1] in (
            "invoke", "invoke-with-response-stream", "count-tokens", "converse", "converse-stream"):
        return "bedrock"
    if "/publishers/anthropic/models/" in path and path.endswith(("Predict", "count-tokens")):
        return "vertex"
    return None


class Handler(BaseHTTPRequestHandler):
    server_version = "faultsift-fake/1"
    sys_version = ""
    protocol_version = "HTTP/1.1"

    # set by main()
    scenario = "healthy"
    log_path = None
    log_lock = threading.Lock()
    stop_event = threading.Event()
    flaky_left = FLAKY_FAILURES
    # the cloud route of the request being answered: None, "bedrock" or "vertex"
    _route = None
    # the provider dialect of the OpenAI families' errors (DIALECTS), or None
    dialect = None

    def log_message(self, fmt, *args):  # silence the default stderr log
        pass

    def _log(self, status, family, note=""):
        if not self.log_path:
            return
        rec = {
            "t": round(time.time(), 3),
            "method": self.command,
            "path": self.path,
            "family": family,
            "scenario": self.scenario,
            "status": status,
        }
        if note:
            rec["note"] = note
        with self.log_lock:
            with open(self.log_path, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(rec) + "\n")

    def _body(self):
        n = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(n) if n else b""
        if not raw and self.headers.get("transfer-encoding", "").lower() == "chunked":
            raw = self._read_chunked()
        try:
            return json.loads(raw or b"{}")
        except ValueError:
            return {}

    def _read_chunked(self):
        out = b""
        while True:
            line = self.rfile.readline()
            if not line:
                break
            size = int(line.strip().split(b";")[0] or b"0", 16)
            if size == 0:
                self.rfile.readline()
                break
            out += self.rfile.read(size)
            self.rfile.readline()
        return out

    def _send_json(self, status, obj, headers=None):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.send_header("request-id", "req_fake" + uuid.uuid4().hex[:20])
        self.send_header("x-request-id", "req_fake" + uuid.uuid4().hex[:20])
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _send_sse(self, events, family):
        try:
            self._send_sse_frames(events, family)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _start_sse(self, framing):
        """200 and an event stream's headers; `framing` is `connection: close`
        (the stream ends with the connection) or chunked encoding."""
        self.send_response(200)
        self.send_header("content-type", "application/vnd.amazon.eventstream" if self._route == "bedrock"
                         else "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header(*framing)
        self.send_header("request-id", "req_fake" + uuid.uuid4().hex[:20])
        self.end_headers()

    def _sse_frame(self, name, obj) -> bytes:
        """One event of a stream: an SSE frame, or on Bedrock an event-stream
        frame (InvokeModel's `chunk` around a Messages event, or Converse's own)."""
        if self._route == "bedrock" and urlsplit(self.path).path.endswith("/converse-stream"):
            return eventstream_frame({":event-type": name, ":content-type": "application/json",
                                      ":message-type": "event"}, json.dumps(obj).encode())
        if self._route == "bedrock":
            return bedrock_chunk(obj)
        return ((f"event: {name}\n" if name else "") + "data: " + json.dumps(obj) + "\n\n").encode()

    def _send_sse_frames(self, events, family):
        self._start_sse(("connection", "close"))
        for name, obj in events:
            self.wfile.write(self._sse_frame(name, obj))
            self.wfile.flush()
            time.sleep(0.05)
        if family == "openai-chat":
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()
        self.close_connection = True

    def _send_html(self, status, html, content_type="text/html", extra=()):
        data = html.encode()
        self.send_response(status)
        self.send_header("content-type", content_type)
        for name, value in extra:
            self.send_header(name, value)
        self.send_header("content-length", str(len(data)))
        self.send_header("connection", "close")
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()
        self.close_connection = True

    def _reset(self, family, note):
        """Close the socket with a TCP RST (SO_LINGER on, timeout 0), no FIN."""
        self._log(None, family, note)
        try:
            self.wfile.flush()
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.rfile.close()  # the file holds a reference: close() alone would wait for it
            self.connection.close()
        except OSError:
            pass
        self.close_connection = True

    def _closed(self, family, note):
        """Close the connection with a FIN after reading the request: no status
        line, no headers (curl's `Empty reply from server`)."""
        self._log(None, family, note)
        try:
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.close_connection = True

    def _first_events(self, events, n, chunked=False):
        """The first `n` events of a stream, a moment apart (each its own
        chunk under chunked encoding)."""
        for _, (name, obj) in zip(range(n), events):
            data = self._sse_frame(name, obj)
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data) if chunked else data)
            self.wfile.flush()
            time.sleep(0.05)

    def _half_body(self, family, what, whole):
        """200 with a content-length for the whole JSON body, and half of it."""
        data = json.dumps(whole).encode()
        self._log(200, family, "%s at %d of %d bytes" % (what, len(data) // 2, len(data)))
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.send_header("request-id", "req_fake" + uuid.uuid4().hex[:20])
        self.end_headers()
        self.wfile.write(data[: len(data) // 2])
        self.wfile.flush()

    def _midstream(self, family, body, path, query):
        """200, the first events of a stream in the family's format, then the
        connection drops: chunked encoding without its last chunk. Non-streaming:
        a content-length for the whole body, half of it, then the drop."""
        stream, events = sse_answer(family, body, path, query, PARTIAL_TEXT)
        try:
            if stream:
                self._log(200, family, "midstream: stream cut after %d event(s)" % MIDSTREAM_EVENTS[family])
                self._start_sse(("transfer-encoding", "chunked"))
                self._first_events(events, MIDSTREAM_EVENTS[family], chunked=True)
            else:
                self._half_body(family, "midstream: body cut", whole_answer(family, body, path, PARTIAL_TEXT))
            time.sleep(0.2)
            # no terminating chunk, no rest of the body: the connection just ends
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.close_connection = True

    def _stream_error(self, family, body, path, query, scenario):
        """200, the first events of the stream, then the in-stream error and
        a clean end (the connection closes after it, as the stream's framing
        says). Non-streaming requests get the status of
        STREAM_ERROR_FALLBACK[scenario] instead."""
        model = body.get("model") or MODEL
        stream, events = sse_answer(family, body, path, query, PARTIAL_TEXT)
        if not stream:
            return False
        n = STREAM_ERROR_EVENTS[family]
        self._log(200, family, "%s: error event after %d event(s)" % (scenario, n))
        try:
            self._start_sse(("connection", "close"))
            self._first_events(events, n)
            if self._route == "bedrock":
                # Bedrock ends a stream with an exception of its own, not the model's error event
                name, entry = BEDROCK_STREAM_EXCEPTION[STREAM_ERROR_FALLBACK[scenario]]
                self.wfile.write(bedrock_exception(name, BEDROCK_ERRORS[entry][2]))
            elif family == "openai-chat" and self.dialect in DIALECT_STREAM_ERRORS and scenario == "stream-overloaded":
                self.wfile.write(self._sse_frame(None, DIALECT_STREAM_ERRORS[self.dialect]))
            else:
                self.wfile.write(self._sse_frame(*stream_error_event(family, model, n + 1, scenario)))
            self.wfile.flush()
        except OSError:
            pass
        self.close_connection = True
        return True

    def _stall(self, family, body, path, query):
        """200 and the first events of a stream (the same events `midstream`
        sends), or half of a JSON body under its whole content-length, then
        silence on an open connection until the client gives up."""
        stream, events = sse_answer(family, body, path, query, PARTIAL_TEXT)
        try:
            if stream:
                self._log(200, family, "stall: stream silent after %d event(s)" % MIDSTREAM_EVENTS[family])
                self._start_sse(("connection", "close"))
                self._first_events(events, MIDSTREAM_EVENTS[family])
            else:
                self._half_body(family, "stall: body silent", whole_answer(family, body, path, PARTIAL_TEXT))
        except OSError:
            pass
        while not self.stop_event.wait(1.0):
            pass
        self.close_connection = True

    def _hang(self, family):
        self._log(None, family, "hang: request read, no answer")
        # Never answer; wait until the client goes away or we are stopped.
        while not self.stop_event.wait(1.0):
            pass
        self.close_connection = True

    def _tool_turn(self, family, body, path, query):
        """`tool`, `late-overloaded`: the first two generation requests of a
        conversation that offer a shell tool get a call of it (counted by the
        tool results the request already holds), with the scenario's commands
        (SHELL_STEPS); True when such a call was sent. The third, and any
        request without a shell tool (titles, summaries), get the healthy
        answer (in `late-overloaded` the third gets its outage first: `_fault`)."""
        commands, descriptions, leads = SHELL_STEPS[self.scenario]
        step = tool_results(family, body)
        tools = request_tools(family, body)
        shell = pick_shell_tool(tools)
        names = ",".join(n for n, _ in tools)
        if step >= len(commands) or shell is None:
            self._note = "tool: %d tool result(s), answer (tools: %s)" % (step, names or "none")
            return False
        name, schema = shell
        args = tool_arguments(name, schema, tool_command(name, commands[step]), descriptions[step])
        self._log(200, family, "tool: call %d: %s(%s) (tools: %s)" % (step + 1, name, ", ".join(args), names))
        return self._send_call(tool_call_answer(family, body, path, query, name, args, leads[step]), family)

    def _late_step(self, family):
        """`late-overloaded`: whether this request is a step of the work after
        its two tool calls (one that offers a shell tool and holds two tool
        results), the one that gets the outage."""
        body = self._request_body or {}
        return (family in TOOL_FAMILIES and pick_shell_tool(request_tools(family, body)) is not None
                and tool_results(family, body) >= len(LATE_COMMANDS))

    def _send_call(self, streamed_answer, family):
        """Sends `tool_call_answer`'s answer, streamed or whole; True."""
        stream, answer = streamed_answer
        if stream:
            self._send_sse(answer, family)
        else:
            self._send_json(200, answer)
        return True

    def _tool_scenario_turn(self, family, body, path, query):
        """`tool` and `write`: a tool call when the step calls for one."""
        if self.scenario in SHELL_STEPS:
            return self._tool_turn(family, body, path, query)
        if self.scenario == "write":
            return self._write_turn(family, body, path, query)
        return False

    def _write_turn(self, family, body, path, query):
        """`write`: the first generation request of a conversation gets a call
        of its file-writing tool, the second a call of its edit tool (counted
        by the tool results the request holds, as in `tool`); True when such a
        call was sent. Without a file tool, the same change goes through the
        shell tool; without either (titles, summaries), and from the third
        request on, the healthy answer."""
        step = tool_results(family, body)
        tools = request_tools(family, body)
        names = ",".join(n for n, _ in tools)
        # a side request that wants a JSON object (Codex's thread title, which
        # offers apply_patch too) is no step of the conversation
        side = wants_json_schema(body)
        picked = pick_file_tool(tools, step) if step < 2 and not side else None
        shell = pick_shell_tool(tools) if step < 2 and not side and picked is None else None
        if picked is None and shell is None:
            self._note = "tool: %d tool result(s), answer (tools: %s)" % (step, names or "none")
            return False
        workdir = request_workdir(body)
        custom = False
        if picked is not None:
            name, schema = picked
            args = file_tool_arguments(name, schema, step, workdir)
            if isinstance(args, str):
                custom = family == "openai-responses" and responses_tool_type(body, name) == "custom"
                if not custom:
                    args = {"input": args}
            shown = "<patch>" if custom else ", ".join(args)
        else:
            name, schema = shell
            args = tool_arguments(name, schema, file_shell_command(name, step), WRITE_DESCRIPTIONS[step])
            shown = "shell fallback: " + ", ".join(args)
        target = next((args[a] for a in PATH_ARGS if isinstance(args, dict) and a in args), WRITE_FILE)
        self._log(200, family, "tool: call %d: %s(%s) on %s (tools: %s)" % (step + 1, name, shown, target, names))
        return self._send_call(
            tool_call_answer(family, body, path, query, name, args, WRITE_LEADS[step], custom), family)

    def _side_request(self, family):
        """`side-down`: whether this request is a side call, not a step of
        the conversation: a token count, or a generation request that offers
        no tool or wants a JSON-schema answer (Codex's thread title offers its
        tools and asks for JSON). Only for the API families whose tools
        `request_tools` reads; another family's request is a step."""
        path = urlsplit(self.path).path
        if path.endswith(("/count_tokens", ":countTokens", "count-tokens")):
            return True
        if family not in TOOL_FAMILIES:
            return False
        body = self._request_body or {}
        return wants_json_schema(body) or not request_tools(family, body)

    def _fault(self, family):
        """Answer the scenario's fault; True when a fault was sent."""
        sc = self.scenario
        if sc in ("healthy", "tls", "tool", "write", "disk-full"):
            return False
        if sc in ("side-down", "late-overloaded"):
            # only some requests get the outage: the side calls, or the work's
            # step after its tool calls
            if not (self._side_request(family) if sc == "side-down" else self._late_step(family)):
                return False
            sc = "overloaded"
        if sc == "flaky":
            with Handler.log_lock:
                if Handler.flaky_left <= 0:
                    return False
                Handler.flaky_left -= 1
            sc = "overloaded"
        if sc == "hang":
            self._hang(family)
            return True
        if sc == "stall":
            parts = urlsplit(self.path)
            self._stall(family, self._request_body, parts.path, parts.query)
            return True
        if sc == "reset":
            self._reset(family, "reset: request read, RST sent")
            return True
        if sc == "closed":
            self._closed(family, "closed: request read, connection closed with no answer")
            return True
        if sc in STREAM_ERROR_FALLBACK:
            parts = urlsplit(self.path)
            if self._stream_error(family, self._request_body, parts.path, parts.query, sc):
                return True
            sc = STREAM_ERROR_FALLBACK[sc]
        if sc == "midstream":
            parts = urlsplit(self.path)
            self._midstream(family, self._request_body, parts.path, parts.query)
            return True
        if sc == "bad-gateway":
            self._log(502, family, "bad-gateway: nginx HTML page")
            self._send_html(502, BAD_GATEWAY_HTML)
            return True
        if sc == "cdn-timeout":
            self._log(524, family, "cdn-timeout: CDN HTML page")
            self._send_html(524, CDN_TIMEOUT_HTML)
            return True
        if sc in HTML_PAGES:
            status, page, extra = HTML_PAGES[sc]
            self._log(status, family, sc + ": HTML page")
            self._send_html(status, page, extra=extra)
            return True
        if sc in ("blocked", "maintenance"):
            status, page = (403, BLOCKED_HTML) if sc == "blocked" else (503, MAINTENANCE_HTML)
            self._log(status, family, sc + ": HTML page")
            self._send_html(status, page)
            return True
        if sc in GATEWAY_TEXT:
            status, text = GATEWAY_TEXT[sc]
            self._log(status, family, sc + ": gateway plain text")
            self._send_html(status, text, content_type="text/plain")
            return True
        if sc == "empty-503":
            self._log(503, family, "empty-503: no body")
            self.send_response(503)
            self.send_header("content-length", "0")
            self.send_header("connection", "close")
            self.end_headers()
            self.wfile.flush()
            self.close_connection = True
            return True
        if sc == "gateway-timeout":
            self._log(504, family, "gateway-timeout: nginx HTML page")
            self._send_html(504, GATEWAY_TIMEOUT_HTML)
            return True
        if sc in PLAN_LIMITS and (self._route or self.dialect or family not in PLAN_FAMILIES):
            # a route, a dialect or another API family: its own quota answer
            sc = "quota"
        if sc in PLAN_LIMITS:
            status, body, headers = plan_limit_error(sc, family)
            self._log(status, family, sc + ": the plan's usage is spent")
            self._send_json(status, body, headers)
            return True
        long_wait = sc == "rate-limit-long"
        if long_wait:
            sc = "rate-limit"
        headers, own_headers = {}, False
        if self._route == "bedrock":
            status, body, headers = bedrock_error(sc)
        elif self._route == "vertex":
            status, body = vertex_error(sc)
        elif family == "anthropic":
            status, body = anthropic_error(sc)
        elif family == "gemini" and "/publishers/google/models/" in self.path and sc in VERTEX_GEMINI_ERRORS:
            status, gstatus, msg = VERTEX_GEMINI_ERRORS[sc]
            body = {"error": {"code": status, "message": msg, "status": gstatus}}
        elif family == "gemini":
            status, body = gemini_error(sc)
            if long_wait:
                body["error"]["details"] = [
                    {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "%ds" % RETRY_AFTER_LONG_S}
                ]
        elif answer := dialect_error(self.dialect, sc):
            # the dialect's own headers: a retry-after only where it sends one
            status, body, headers = answer
            own_headers = True
        else:
            status, body = openai_error(sc)
            if long_wait:
                body["error"]["message"] = body["error"]["message"].replace(
                    "try again in 2s", "try again in %dm0s" % (RETRY_AFTER_LONG_S // 60)
                )
        if sc == "rate-limit" and not own_headers:
            headers["retry-after"] = str(RETRY_AFTER_LONG_S if long_wait else RETRY_AFTER_S)
        if family == "anthropic" and sc == "overloaded" and self._route != "bedrock":
            headers["x-should-retry"] = "true"
        self._log(status, family + ("@" + self._route if self._route else ""))
        self._send_json(status, body, headers)
        return True

    # -- routing -----------------------------------------------------------

    def do_HEAD(self):
        self._log(200, "probe")
        self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()

    def do_GET(self):
        path = urlsplit(self.path).path
        if self.scenario in ("auth", "forbidden", "side-down") and ("/models" in path):
            # `side-down`: a model list is a side call
            sc = "overloaded" if self.scenario == "side-down" else self.scenario
            fam = "gemini" if "v1beta" in path else "openai"
            headers = {}
            if fam == "gemini":
                status, body = gemini_error(sc)
            elif answer := dialect_error(self.dialect, sc):
                status, body, headers = answer
            else:
                status, body = openai_error(sc)
            self._log(status, fam)
            self._send_json(status, body, headers)
            return
        if path.rstrip("/").endswith("/models") and "v1beta" in path:
            self._log(200, "gemini-probe")
            self._send_json(
                200,
                {
                    "models": [
                        {
                            "name": "models/" + MODEL,
                            "displayName": "Fake Model 1",
                            "supportedGenerationMethods": ["generateContent", "countTokens"],
                        }
                    ]
                },
            )
            return
        if path.rstrip("/").endswith("/models"):
            self._log(200, "models-probe")
            self._send_json(
                200,
                {"object": "list", "data": [MODEL_ENTRY], "has_more": False, "first_id": MODEL, "last_id": MODEL},
            )
            return
        if "/models/" in path:
            self._log(200, "models-probe")
            self._send_json(200, MODEL_ENTRY)
            return
        self._log(404, "unknown")
        self._send_json(404, {"error": {"message": "not found: " + path, "type": "not_found"}})

    def do_POST(self):
        parts = urlsplit(self.path)
        path, query = parts.path, parts.query
        body = self._body()
        self._note = ""
        self._route = cloud_route(path)
        if self._route == "bedrock":
            # Bedrock says in the path, not the body, whether to stream
            body = dict(body, stream=path.endswith("/invoke-with-response-stream"))
        self._request_body = body
        model = body.get("model") or MODEL

        if self._route and "count-tokens" in path:
            if self.scenario in ("auth", "forbidden", "side-down"):
                return self._fault("anthropic")
            self._log(200, "count-tokens")
            return self._send_json(200, {"inputTokens": 12} if self._route == "bedrock" else {"input_tokens": 12})

        if self._route and path.endswith(("/converse", "/converse-stream")):
            fam = "converse"
            if self._fault(fam):
                return
            self._log(200, fam + "@" + self._route)
            if path.endswith("/converse-stream"):
                return self._send_sse(converse_events(), fam)
            return self._send_json(200, converse_json())

        if self._route:
            fam = "anthropic"
            if self._fault(fam):
                return
            if self._tool_scenario_turn(fam, body, path, query):
                return
            self._log(200, fam + "@" + self._route, self._note)
            if body.get("stream"):
                return self._send_sse(anthropic_sse(), fam)
            return self._send_json(200, anthropic_message())

        if path.endswith("/count_tokens") or path.endswith(":countTokens"):
            if self.scenario in ("auth", "forbidden", "side-down"):
                return self._fault("gemini" if ":" in path else "anthropic")
            self._log(200, "count-tokens")
            if ":" in path:
                return self._send_json(200, {"totalTokens": 12})
            return self._send_json(200, {"input_tokens": 12})

        if path.endswith("/messages"):
            fam = "anthropic"
            if self._fault(fam):
                return
            if self._tool_scenario_turn(fam, body, path, query):
                return
            self._log(200, fam, self._note)
            if body.get("stream"):
                return self._send_sse(anthropic_sse(), fam)
            return self._send_json(200, anthropic_message())

        if path.endswith("/chat/completions"):
            fam = "openai-chat"
            if self._fault(fam):
                return
            if self._tool_scenario_turn(fam, body, path, query):
                return
            self._log(200, fam, self._note)
            if body.get("stream"):
                return self._send_sse(chat_sse(model), fam)
            return self._send_json(200, chat_completion(model))

        if path.endswith("/responses"):
            fam = "openai-responses"
            if self._fault(fam):
                return
            if self._tool_scenario_turn(fam, body, path, query):
                return
            self._log(200, fam, self._note)
            if body.get("stream", False):
                return self._send_sse(responses_sse(model), fam)
            return self._send_json(200, responses_json(model))

        if ":streamGenerateContent" in path or ":generateContent" in path:
            fam = "gemini"
            if self._fault(fam):
                return
            if self._tool_scenario_turn(fam, body, path, query):
                return
            self._log(200, fam, self._note)
            if ":streamGenerateContent" in path:
                if "alt=sse" in query:
                    return self._send_sse(gemini_sse(), fam)
                # without alt=sse the stream is one JSON array
                return self._send_json(200, [obj for _, obj in gemini_sse()])
            return self._send_json(200, gemini_response(HEALTHY_TEXT, True))

        self._log(404, "unknown")
        self._send_json(404, {"error": {"message": "not found: " + path, "type": "not_found"}})


class ProxyHandler(Handler):
    """The proxy scenarios: this server is the forward proxy, and it refuses
    every request, a CONNECT tunnel or an absolute-form one, with its page."""

    def _refuse(self):
        status, page, extra = PROXY_ANSWERS[self.scenario]
        if self.command != "CONNECT":
            self._body()  # read first: an unread body makes the close a reset
        self._log(status, "proxy", "%s %s: Squid's page" % (self.command, self.path[:120]))
        self._send_html(status, page, extra=extra)

    do_CONNECT = do_HEAD = do_GET = do_POST = _refuse


def handler_for(scenario: str) -> type[Handler]:
    """The request handler class that plays `scenario`: the proxy's or the provider's."""
    return ProxyHandler if scenario in PROXY_ANSWERS else Handler


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--port", type=int, required=True, help="TCP port on 127.0.0.1 (0: any free port)")
    ap.add_argument("--scenario", choices=SCENARIOS, required=True)
    ap.add_argument("--log", help="append one JSON line per request to this file")
    ap.add_argument("--port-file", help="write the bound port here once listening")
    ap.add_argument("--dialect", choices=sorted(DIALECTS),
                    help="answer the OpenAI families' errors as this third-party provider does")
    ap.add_argument("--tls-cert", help="serve HTTPS with this certificate (PEM; the tls scenario)")
    ap.add_argument("--tls-key", help="the certificate's private key (PEM)")
    args = ap.parse_args(argv)

    handler = handler_for(args.scenario)
    handler.scenario = args.scenario
    handler.log_path = args.log
    handler.dialect = args.dialect
    srv = ThreadingHTTPServer(("127.0.0.1", args.port), handler)
    srv.daemon_threads = True
    if args.tls_cert:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(args.tls_cert, args.tls_key)
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    port = srv.server_address[1]
    if args.port_file:
        with open(args.port_file, "w") as fh:
            fh.write(str(port))
    print(f"fake provider: scenario={args.scenario} listening on 127.0.0.1:{port}", flush=True)
    try:
        srv.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        Handler.stop_event.set()
        srv.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
