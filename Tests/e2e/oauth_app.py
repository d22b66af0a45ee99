#!/usr/bin/env python3
"""End-to-end test of the hub's OAuth 2.1 server, driven as the mobile app would.

The app side uses a real OAuth client library (authlib's requests client, PKCE
S256); the user's browser is a `requests.Session` that reads the hub's HTML
forms with the stdlib parser. Every step is asserted; the first failure prints
what went wrong and exits non-zero.

    python3 Tests/e2e/oauth_app.py --hub http://127.0.0.1:8080 \
        --email admin@example.com --password '…' [--expect-readonly]

Needs: pip install authlib requests
"""

import argparse
import socket
import sys
from html.parser import HTMLParser
from urllib.parse import parse_qs, urljoin, urlsplit

import requests
from authlib.common.security import generate_token
from authlib.integrations.requests_client import OAuth2Session

CLIENT_ID = "pingtxt-app"
TIMEOUT = 30


class CheckFailed(Exception):
    pass


class Checks:
    def __init__(self):
        self.passed = 0

    def __call__(self, condition, message):
        if not condition:
            raise CheckFailed(message)
        self.passed += 1


check = Checks()


# ---------------------------------------------------------------- HTML forms

class FormParser(HTMLParser):
    """Collects every <form>: action, method, inputs and submit buttons."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.forms = []
        self._form = None

    def handle_starttag(self, tag, attrs):
        a = {k: (v if v is not None else "") for k, v in attrs}
        if tag == "form":
            self._form = {"action": a.get("action", ""), "method": a.get("method", "get").lower(),
                          "inputs": [], "buttons": []}
            self.forms.append(self._form)
        elif self._form is not None and tag == "input":
            self._form["inputs"].append(a)
        elif self._form is not None and tag == "button":
            self._form["buttons"].append(a)

    def handle_endtag(self, tag):
        if tag == "form":
            self._form = None


def forms_of(html):
    p = FormParser()
    p.feed(html)
    p.close()
    return p.forms


def only_form(response, what):
    forms = [f for f in forms_of(response.text) if f["method"] == "post"]
    check(len(forms) == 1, f"{what}: expected one POST form, found {len(forms)}:\n{response.text[:2000]}")
    return forms[0]


def hidden_fields(form):
    return {i["name"]: i.get("value", "") for i in form["inputs"]
            if i.get("type", "text") == "hidden" and "name" in i}


# ---------------------------------------------------------------- helpers

def loopback_redirect_uri():
    """Binds a loopback port so nobody else owns it while the test runs; the
    hub's redirects to it are checked, never followed."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    s.listen(1)
    return s, f"http://127.0.0.1:{s.getsockname()[1]}/callback"


def query_of(url):
    return {k: v[0] for k, v in parse_qs(urlsplit(url).query, keep_blank_values=True).items()}


def error_code(response):
    try:
        body = response.json()
    except ValueError:
        return None
    if isinstance(body.get("error"), dict):
        return body["error"].get("code")
    return body.get("error") if isinstance(body.get("error"), str) else body.get("code")


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


class App:
    """The app's side: authlib with PKCE, a fresh verifier and state per sign-in.
    Every raw response of the OAuth session is kept in `responses`."""

    def __init__(self, meta, redirect_uri):
        self.meta = meta
        self.redirect_uri = redirect_uri
        self.responses = []
        self.session = OAuth2Session(client_id=CLIENT_ID, redirect_uri=redirect_uri, scope="read write",
                                     code_challenge_method="S256", token_endpoint_auth_method="none")
        self.session.hooks["response"].append(lambda r, *a, **k: self.responses.append(r))
        self.verifier = generate_token(64)
        self.state = generate_token(24)

    def authorization_url(self):
        url, state = self.session.create_authorization_url(
            self.meta["authorization_endpoint"], state=self.state, code_verifier=self.verifier)
        check(state == self.state, "authlib kept another state than the one given")
        q = query_of(url)
        check(q.get("code_challenge_method") == "S256" and len(q.get("code_challenge", "")) == 43,
              f"authlib's authorization URL has no S256 challenge: {url}")
        check(q.get("client_id") == CLIENT_ID and q.get("redirect_uri") == self.redirect_uri
              and q.get("scope") == "read write" and q.get("response_type") == "code",
              f"authorization URL parameters: {q}")
        return url

    def fetch_token(self, code):
        token = self.session.fetch_token(self.meta["token_endpoint"], code=code, code_verifier=self.verifier,
                                         timeout=TIMEOUT)
        # The user may have granted less than asked (read only). authlib sends
        # the session's scope again on refresh, and asking for more than the
        # grant is invalid_scope (RFC 6749 §6): keep the granted scope, as the
        # app must (docs/oauth.md: read the granted scope from the answer).
        self.session.scope = token.get("scope")
        return token, self.responses[-1]

    def refresh(self, refresh_token):
        token = self.session.refresh_token(self.meta["token_endpoint"], refresh_token=refresh_token,
                                           timeout=TIMEOUT)
        return token, self.responses[-1]


class Browser:
    """The user's browser: cookies kept, redirects followed by hand so each hop
    can be checked (and the one to the app's loopback port is not followed)."""

    def __init__(self, hub):
        self.hub = hub
        self.s = requests.Session()

    def get(self, url):
        return self.s.get(urljoin(self.hub, url), allow_redirects=False, timeout=TIMEOUT)

    def post(self, url, data):
        return self.s.post(urljoin(self.hub, url), data=data, allow_redirects=False, timeout=TIMEOUT)

    def location(self, response):
        return urljoin(response.url, response.headers.get("Location", ""))


def check_page_headers(r, what):
    check(r.headers.get("X-Frame-Options") == "DENY", f"{what}: X-Frame-Options is {r.headers.get('X-Frame-Options')!r}")
    check("frame-ancestors 'none'" in r.headers.get("Content-Security-Policy", ""),
          f"{what}: CSP is {r.headers.get('Content-Security-Policy')!r}")
    check(r.headers.get("Referrer-Policy") == "no-referrer", f"{what}: Referrer-Policy is {r.headers.get('Referrer-Policy')!r}")


def sign_in_to_consent(browser, auth_url, email, password, signed_in):
    """From the authorization URL to the consent page (through the login form
    when the browser has no session yet). Returns the consent page response."""
    r = browser.get(auth_url)
    if not signed_in:
        check(r.status_code == 303, f"authorize while signed out: expected 303 to the login page, got {r.status_code}")
        login_url = browser.location(r)
        check(urlsplit(login_url).path == "/login" and "next" in query_of(login_url),
              f"authorize while signed out redirected to {login_url}, expected /login?next=…")
        r = browser.get(login_url)
        check(r.status_code == 200, f"GET {login_url}: {r.status_code}")
        check_page_headers(r, "login page")
        form = only_form(r, "login page")
        fields = hidden_fields(form)
        check(fields.get("csrf_token"), f"login form has no csrf_token: {form}")
        check(fields.get("next"), f"login form has no next: {form}")
        fields.update(email=email, password=password)
        r = browser.post(form["action"] or "/login", fields)
        check(r.status_code == 303, f"login POST: expected 303, got {r.status_code}:\n{r.text[:1000]}")
        back = browser.location(r)
        check(urlsplit(back).path == "/oauth/authorize",
              f"after login the browser goes to {back}, expected back to /oauth/authorize")
        r = browser.get(back)
    check(r.status_code == 200, f"consent page: expected 200, got {r.status_code} "
                                f"(Location {r.headers.get('Location')!r}):\n{r.text[:1000]}")
    check_page_headers(r, "consent page")
    return r


def consent(browser, page, decision, scope_choice, expect_readonly):
    form = only_form(page, "consent page")
    check(form["action"].endswith("/oauth/authorize"), f"consent form posts to {form['action']!r}")
    fields = hidden_fields(form)
    check(fields.get("csrf_token"), f"consent form has no csrf_token: {form}")
    offered = sorted(i.get("value") for i in form["inputs"]
                     if i.get("type") == "radio" and i.get("name") == "scope_choice")
    if expect_readonly:
        check(offered == [] and fields.get("scope_choice") == "read",
              f"readonly user: the consent page must offer read only, offers radios {offered}, "
              f"hidden scope_choice {fields.get('scope_choice')!r}")
    else:
        check(offered == ["read", "write"], f"admin: consent page offers {offered}, expected read and write")
    decisions = sorted(b.get("value") for b in form["buttons"] if b.get("name") == "decision")
    check(decisions == ["approve", "deny"], f"consent buttons: {decisions}")
    if scope_choice is not None:
        fields["scope_choice"] = scope_choice
    fields["decision"] = decision
    r = browser.post(form["action"], fields)
    check(r.status_code == 303, f"consent POST ({decision}): expected 303, got {r.status_code}:\n{r.text[:1000]}")
    return r.headers.get("Location", "")


def back_at_app(location, app, issuer):
    """Checks the redirect to the app (without following it) and returns its query."""
    check(location.startswith(app.redirect_uri + "?"),
          f"redirect goes to {location!r}, expected {app.redirect_uri}?…")
    q = query_of(location)
    check(q.get("state") == app.state, f"state in the redirect is {q.get('state')!r}, expected {app.state!r}")
    check(q.get("iss") == issuer, f"iss in the redirect is {q.get('iss')!r}, expected the issuer {issuer!r}")
    return q


def full_sign_in(hub, meta, browser, email, password, signed_in, readonly, choice="write"):
    """One approval. `choice`: what an admin picks on the consent page
    (a readonly user has no choice: read)."""
    _sock, redirect_uri = loopback_redirect_uri()
    app = App(meta, redirect_uri)
    app._sock = _sock
    page = sign_in_to_consent(browser, app.authorization_url(), email, password, signed_in)
    location = consent(browser, page, "approve", None if readonly else choice, readonly)
    q = back_at_app(location, app, meta["issuer"])
    check(q.get("code") and "error" not in q, f"approve: redirect has no code: {location}")
    token, raw = app.fetch_token(q["code"])
    want_scope = "read" if readonly or choice == "read" else "read write"
    check(raw.status_code == 200, f"token endpoint: {raw.status_code} {raw.text}")
    check("no-store" in raw.headers.get("Cache-Control", ""),
          f"token answer Cache-Control is {raw.headers.get('Cache-Control')!r}, expected no-store")
    check(str(token.get("access_token", "")).startswith("pma_"), f"access token {token.get('access_token')!r} is not pma_")
    check(str(token.get("refresh_token", "")).startswith("pmr_"), f"refresh token {token.get('refresh_token')!r} is not pmr_")
    check(token.get("token_type") == "Bearer", f"token_type is {token.get('token_type')!r}")
    check(token.get("expires_in") == 3600, f"expires_in is {token.get('expires_in')!r}")
    check(token.get("scope") == want_scope, f"scope is {token.get('scope')!r}, expected {want_scope!r}")
    return app, token


def monitor_body(name):
    return {"name": name, "type": "tcp", "target": "127.0.0.1:9", "interval": 3600, "timeout": 5, "retries": 0}


# ---------------------------------------------------------------- the flow

def run(hub, email, password, readonly):
    hub = hub.rstrip("/")
    api = lambda path: hub + path  # noqa: E731

    # 1. Metadata (RFC 8414) with the fields SPEC §4 fixes.
    r = requests.get(api("/.well-known/oauth-authorization-server"), timeout=TIMEOUT)
    check(r.status_code == 200, f"metadata: {r.status_code}")
    meta = r.json()
    expected = {
        "issuer": hub,
        "authorization_endpoint": hub + "/oauth/authorize",
        "token_endpoint": hub + "/oauth/token",
        "revocation_endpoint": hub + "/oauth/revoke",
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["none"],
        "authorization_response_iss_parameter_supported": True,
    }
    for key, value in expected.items():
        check(meta.get(key) == value, f"metadata {key} is {meta.get(key)!r}, expected {value!r}")
    check(sorted(meta.get("scopes_supported") or []) == ["read", "write"],
          f"metadata scopes_supported is {meta.get('scopes_supported')!r}")
    issuer = meta["issuer"]

    # 2. First sign-in: login form, consent, code exchange.
    browser = Browser(hub)
    app, token = full_sign_in(hub, meta, browser, email, password, signed_in=False, readonly=readonly)
    scope = "read" if readonly else "write"

    # 3. The API with the access token, through authlib's session.
    r = app.session.get(api("/api/me"), timeout=TIMEOUT)
    check(r.status_code == 200, f"GET /api/me with the access token: {r.status_code} {r.text}")
    me = r.json()
    check(me.get("email") == email and me.get("scope") == scope,
          f"/api/me is {me}, expected email {email} and scope {scope}")
    r = app.session.post(api("/api/monitors"), json=monitor_body("oauth-e2e"), timeout=TIMEOUT)
    if readonly:
        check(r.status_code == 403 and error_code(r) == "insufficient_scope",
              f"POST /api/monitors with a read access token: expected 403 insufficient_scope, got {r.status_code} {r.text}")
    else:
        check(r.status_code == 201, f"POST /api/monitors with a write access token: expected 201, got {r.status_code} {r.text}")
    r = app.session.get(api("/api/monitors"), timeout=TIMEOUT)
    check(r.status_code == 200, f"GET /api/monitors with the access token: {r.status_code}")
    r = app.session.get(api("/api/tokens"), timeout=TIMEOUT)
    check(r.status_code == 403 and error_code(r) == "account_endpoint",
          f"GET /api/tokens with an access token: expected 403 account_endpoint, got {r.status_code} {r.text}")

    # 4. Refresh with rotation; reusing the old refresh token ends the sign-in.
    old_refresh = token["refresh_token"]
    new, raw = app.refresh(old_refresh)
    want_scope = "read" if readonly else "read write"
    check(raw.status_code == 200 and "no-store" in raw.headers.get("Cache-Control", ""),
          f"refresh answer: {raw.status_code}, Cache-Control {raw.headers.get('Cache-Control')!r}")
    check(new["access_token"].startswith("pma_") and new["access_token"] != token["access_token"],
          "refresh did not return a new pma_ access token")
    check(new["refresh_token"].startswith("pmr_") and new["refresh_token"] != old_refresh,
          "refresh did not return a new pmr_ refresh token")
    check(new.get("scope") == want_scope and new.get("expires_in") == 3600,
          f"refreshed token scope {new.get('scope')!r}, expires_in {new.get('expires_in')!r}")
    r = requests.get(api("/api/me"), headers=bearer(new["access_token"]), timeout=TIMEOUT)
    check(r.status_code == 200, f"the refreshed access token does not work: {r.status_code}")
    try:
        app.refresh(old_refresh)
        reuse_error = None
    except Exception as e:  # authlib raises OAuthError carrying the RFC 6749 code
        reuse_error = getattr(e, "error", None)
    raw = app.responses[-1]
    check(reuse_error == "invalid_grant" and raw.status_code == 400,
          f"reusing a rotated refresh token: expected 400 invalid_grant, got {raw.status_code} {raw.text}")
    r = requests.get(api("/api/me"), headers=bearer(new["access_token"]), timeout=TIMEOUT)
    check(r.status_code == 401,
          f"after a rotated refresh token was reused the newest access token must stop working: got {r.status_code}")
    r = requests.post(meta["token_endpoint"], data={"grant_type": "refresh_token", "client_id": CLIENT_ID,
                                                    "refresh_token": new["refresh_token"]}, timeout=TIMEOUT)
    check(r.status_code == 400 and error_code(r) == "invalid_grant",
          f"after the reuse the newest refresh token must be revoked too: got {r.status_code} {r.text}")

    # 5. A second sign-in (the browser is still signed in: straight to consent),
    #    listed among the connected apps, then revoked by the app.
    before = browser.get("/api/connected-apps")
    check(before.status_code == 200, f"GET /api/connected-apps with the browser session: {before.status_code} {before.text}")
    app2, token2 = full_sign_in(hub, meta, browser, email, password, signed_in=True, readonly=readonly)
    r = browser.get("/api/connected-apps")
    check(r.status_code == 200, f"GET /api/connected-apps: {r.status_code} {r.text}")
    apps = r.json()
    apps = apps.get("items", apps.get("data", apps)) if isinstance(apps, dict) else apps
    ids_before = {a["id"] for a in (before.json() if isinstance(before.json(), list) else
                                    before.json().get("items", before.json().get("data", [])))}
    added = [a for a in apps if a["id"] not in ids_before]
    check(len(added) == 1, f"connected apps after the second sign-in: expected one new entry, got {added} (all: {apps})")
    entry = added[0]
    check(entry.get("client_id") == CLIENT_ID and entry.get("scope") == want_scope
          and (entry.get("user") or {}).get("email") == email and "client_name" in entry and "devices" in entry,
          f"connected app entry: {entry}")
    r = requests.get(api("/api/me"), headers=bearer(token2["access_token"]), timeout=TIMEOUT)
    check(r.status_code == 200, f"second sign-in's access token: {r.status_code}")
    r = app2.session.revoke_token(meta["revocation_endpoint"], token2["refresh_token"],
                                  token_type_hint="refresh_token", timeout=TIMEOUT)
    check(r.status_code == 200, f"POST /oauth/revoke: expected 200, got {r.status_code} {r.text}")
    r = requests.get(api("/api/me"), headers=bearer(token2["access_token"]), timeout=TIMEOUT)
    check(r.status_code == 401, f"after revoking the refresh token the access token must stop working: got {r.status_code}")
    r = browser.get("/api/connected-apps")
    check(r.status_code == 200 and entry["id"] not in {a["id"] for a in (r.json() if isinstance(r.json(), list) else
                                                                         r.json().get("items", r.json().get("data", [])))},
          f"the revoked sign-in is still listed in connected apps: {r.text}")

    # 6. An admin who picks "read only" gets a read token, also after a
    #    refresh; revoking the access token ends the sign-in too.
    if not readonly:
        app4, token4 = full_sign_in(hub, meta, browser, email, password, signed_in=True, readonly=False, choice="read")
        r = app4.session.post(api("/api/monitors"), json=monitor_body("oauth-e2e-read"), timeout=TIMEOUT)
        check(r.status_code == 403 and error_code(r) == "insufficient_scope",
              f"POST /api/monitors with a read access token: expected 403 insufficient_scope, got {r.status_code} {r.text}")
        token4b, _ = app4.refresh(token4["refresh_token"])
        check(token4b.get("scope") == "read", f"refresh of a read-only grant gave scope {token4b.get('scope')!r}")
        r = app4.session.revoke_token(meta["revocation_endpoint"], token4b["access_token"],
                                      token_type_hint="access_token", timeout=TIMEOUT)
        check(r.status_code == 200, f"POST /oauth/revoke (access token): {r.status_code} {r.text}")
        r = requests.post(meta["token_endpoint"], data={"grant_type": "refresh_token", "client_id": CLIENT_ID,
                                                        "refresh_token": token4b["refresh_token"]}, timeout=TIMEOUT)
        check(r.status_code == 400 and error_code(r) == "invalid_grant",
              f"after revoking the access token its refresh token must fail: {r.status_code} {r.text}")

    # 7. Deny on the consent page.
    _sock, redirect_uri = loopback_redirect_uri()
    app3 = App(meta, redirect_uri)
    page = sign_in_to_consent(browser, app3.authorization_url(), email, password, signed_in=True)
    location = consent(browser, page, "deny", None, readonly)
    q = back_at_app(location, app3, issuer)
    check(q.get("error") == "access_denied" and "code" not in q,
          f"deny: expected error=access_denied and no code, got {location}")
    _sock.close()

    print(f"oauth e2e{' (readonly user)' if readonly else ''}: {check.passed} checks passed")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--hub", required=True, help="the hub's public URL, e.g. http://127.0.0.1:8080")
    p.add_argument("--email", required=True)
    p.add_argument("--password", required=True)
    p.add_argument("--expect-readonly", action="store_true", help="the user is readonly: read only is offered and granted")
    args = p.parse_args()
    try:
        run(args.hub, args.email, args.password, args.expect_readonly)
    except CheckFailed as e:
        print(f"oauth e2e FAILED after {check.passed} checks: {e}", file=sys.stderr)
        return 1
    except Exception as e:  # an unexpected error is a failure too, with its type
        print(f"oauth e2e FAILED after {check.passed} checks: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
