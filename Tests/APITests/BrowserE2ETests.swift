import Core
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The web admin in a real browser: `Tests/e2e/browser.py` (selenium with
/// Debian's headless chromium and chromium-driver) drives the real binary
/// through the pages of docs/web.md. This test owns everything the journey
/// needs around the hub: a monitored target it can switch to failing, a
/// webhook receiver, a signed-in app to disconnect, a status page.
///
/// Only the steps whose pages exist run (`BrowserHarness.steps`); set
/// `PINGTXT_BROWSER_STEPS=all` (or a comma list) to run others, and
/// `PINGTXT_SCREENSHOTS=DIR` to save each page at desktop and phone width.
@Suite(.enabled(if: BrowserHarness.missing == nil, "\(BrowserHarness.missing ?? "")"))
struct BrowserE2ETests {
    @Test func journeyThroughThePagesThatExist() throws {
        let steps = BrowserHarness.steps
        let hub = try HubProcess()
        let target = try SwitchableHTTPTarget()
        let receiver = try RecordingHTTPReceiver()
        var args = ["--target", target.healthURL, "--webhook-url", receiver.baseURL + "/hook",
                    "--flip-file", hub.sandbox.path("flip")]

        var refreshToken: String?
        if steps.contains("disconnect_app") {
            // A signed-in app for the Settings page to list and disconnect.
            let endpoints = OAuthEndpointTests()
            let r = try endpoints.exchange(hub, try endpoints.mintCode(hub))
            try #require(r.status == 200, "code exchange failed: \(r.text)")
            refreshToken = try r.json()["refresh_token"]?.stringValue
        }
        if steps.contains("status_page") {
            // Made through the API with a monitor of its own: the journey's
            // monitor does not exist yet when the script starts.
            let token = try hub.token()
            let monitor = try hub.call("POST", "/api/monitors", token: token,
                                       json: ["name": "Public API", "type": "http", "target": .string(target.baseURL + "/status/200")])
            try #require(monitor.status == 201, "monitor create failed: \(monitor.status) \(monitor.text)")
            let monitorID = try #require(try monitor.json()["id"]?.intValue)
            let page: JSON = ["title": "Browser status", "slug": "browser", "description": "made by BrowserE2ETests",
                              "monitor_ids": [.int(monitorID)]]
            let r = try hub.call("POST", "/api/status-pages", token: token, json: page)
            try #require(r.status == 201, "status page create failed: \(r.status) \(r.text)")
            args += ["--status-slug", "browser", "--status-title", "Browser status", "--status-monitor", "Public API"]
        }

        let run = try BrowserHarness.run(hub: hub, steps: steps, extra: args) { flip in
            // The script asks for the target to fail ("503") at the step
            // that watches the monitor go down.
            target.setStatus(Int(flip) ?? 503)
        }
        try BrowserHarness.expectPassed(run, steps: steps, hub: hub)

        if steps.contains("notify_webhook") {
            // Deliveries go out from the hub's worker: wait (bounded) for it.
            let deadline = Time.monotonicNanos() + 15_000_000_000
            while receiver.received.isEmpty && Time.monotonicNanos() < deadline { usleep(50_000) }
            #expect(receiver.received.contains { $0.method == "POST" && $0.path == "/hook" },
                    "Send test reached no webhook; received: \(receiver.received.map { "\($0.method) \($0.path)" })")
        }
        if let refreshToken {
            let r = try OAuthEndpointTests().post(hub, "/oauth/token", [("grant_type", "refresh_token"),
                                                                          ("refresh_token", refreshToken), ("client_id", "pingtxt-app")])
            #expect(r.status == 400, "the disconnected app's refresh token still works: \(r.text)")
        }
    }

    /// The harness itself: a failing step must fail the test with the step's
    /// name and what the page said.
    @Test func failingStepIsReportedWithItsNameAndThePageText() throws {
        let hub = try HubProcess()
        let run = try BrowserHarness.run(hub: hub, steps: ["login", "selftest_failure"], extra: [], onFlip: { _ in })
        #expect(run.status == .exited(1), "\(run.output)")
        #expect(run.output.contains("STEP OK: login"), "\(run.output)")
        #expect(run.output.contains("STEP FAILED: selftest_failure: the page has no h1.never-there"), "\(run.output)")
        #expect(run.output.contains("URL: http://127.0.0.1:\(hub.port)/no-such-page-for-the-harness"), "\(run.output)")
        #expect(run.output.contains("PAGE TEXT:"), "\(run.output)")
    }
}
