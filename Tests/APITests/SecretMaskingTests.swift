import Core
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Channel secrets and credential headers are write-only (SPEC §6): every
/// read shows the mask, whoever reads; sending the mask back keeps the value.
@Suite struct SecretMaskingTests {
    func waitUntil(_ what: String, _ done: () -> Bool) {
        let deadline = Time.monotonicNanos() + 15_000_000_000
        while !done() {
            if Time.monotonicNanos() > deadline { Issue.record("timed out waiting for \(what)"); return }
            usleep(50_000)
        }
    }

    @Test func chatWebhookURLsAndCredentialHeadersAreMaskedAndKept() throws {
        let receiver = try RecordingHTTPReceiver()
        let hub = try MonitoringHub()
        let reader = try hub.hub.token(scope: "read", name: "reader")
        let slackURL = receiver.baseURL + "/T000-B000-s3cretpart"
        let slack = try expectJSON(try hub.call("POST", "/api/channels", json: [
            "name": "chat", "type": "slack", "config": ["webhook_url": .string(slackURL)],
        ]), 201)
        let hook = try expectJSON(try hub.call("POST", "/api/channels", json: [
            "name": "hook", "type": "webhook",
            "config": ["url": .string(receiver.baseURL + "/hook"),
                       "headers": ["Authorization": "Bearer hook-secret", "X-Api-Key": "k-123", "X-Team": "ops"]],
        ]), 201)
        let slackID = try #require(slack["id"]?.intValue), hookID = try #require(hook["id"]?.intValue)
        let maskedSlack = "http://127.0.0.1:\(receiver.port)/********"
        // The creating answer and every read, with a write or a read token.
        #expect(slack["config"]?["webhook_url"]?.stringValue == maskedSlack)
        for token in [hub.token, reader] {
            let list = try expectJSON(try hub.hub.call("GET", "/api/channels", token: token)).text
            #expect(!list.contains("s3cretpart") && !list.contains("hook-secret") && !list.contains("k-123"), "\(list)")
            let h = try expectJSON(try hub.hub.call("GET", "/api/channels/\(hookID)", token: token))
            #expect(h["config"]?["headers"] == ["Authorization": "********", "X-Api-Key": "********", "X-Team": "ops"])
        }

        // Sending back what reads show keeps the stored values.
        let patched = try expectJSON(try hub.call("PATCH", "/api/channels/\(slackID)", json: [
            "name": "chat 2", "config": ["webhook_url": .string(maskedSlack)],
        ]))
        #expect(patched["name"]?.stringValue == "chat 2")
        _ = try expectJSON(try hub.call("PATCH", "/api/channels/\(hookID)", json: [
            "config": ["url": .string(receiver.baseURL + "/hook"),
                       "headers": ["Authorization": "********", "X-Api-Key": "********", "X-Team": "sre"]],
        ]))
        _ = try expectJSON(try hub.call("POST", "/api/channels/\(slackID)/test"))
        _ = try expectJSON(try hub.call("POST", "/api/channels/\(hookID)/test"))
        waitUntil("both test messages") { receiver.received.count == 2 }
        let toSlack = try #require(receiver.received.first { $0.path.hasPrefix("/T000") })
        #expect(toSlack.path == "/T000-B000-s3cretpart")
        let toHook = try #require(receiver.received.first { $0.path == "/hook" })
        #expect(toHook.header("Authorization") == "Bearer hook-secret")
        #expect(toHook.header("X-Api-Key") == "k-123" && toHook.header("X-Team") == "sre")
    }

    @Test func monitorCredentialHeadersAreWriteOnly() throws {
        let target = try RecordingHTTPReceiver()
        let hub = try MonitoringHub()
        let reader = try hub.hub.token(scope: "read", name: "reader")
        let (id, created) = try hub.createChecked(httpMonitor("API", target.baseURL + "/health", [
            ("http", ["headers": ["Authorization": "Bearer mon-secret", "Cookie": "sid=abc", "X-Trace": "yes"]]),
        ]))
        #expect(created["http"]?["headers"] == ["Authorization": "********", "Cookie": "********", "X-Trace": "yes"])
        for token in [hub.token, reader] {
            let text = try expectJSON(try hub.hub.call("GET", "/api/monitors/\(id)", token: token)).text
            #expect(!text.contains("mon-secret") && !text.contains("sid=abc"), "\(text)")
            let list = try expectJSON(try hub.hub.call("GET", "/api/monitors", token: token)).text
            #expect(!list.contains("mon-secret"))
        }
        #expect(target.received.last?.header("Authorization") == "Bearer mon-secret")

        // A PATCH that sends the mask back (as a form round-trip does) keeps the value.
        let patched = try expectJSON(try hub.call("PATCH", "/api/monitors/\(id)", json: [
            "http": ["headers": ["Authorization": "********", "Cookie": "********", "X-Trace": "no"]],
        ]))
        #expect(patched["http"]?["headers"]?["X-Trace"]?.stringValue == "no")
        let before = target.received.count
        try hub.check(id)
        waitUntil("the check after the PATCH") { target.received.count > before }
        let last = try #require(target.received.last)
        #expect(last.header("Authorization") == "Bearer mon-secret" && last.header("Cookie") == "sid=abc")
        #expect(last.header("X-Trace") == "no")
    }
}
