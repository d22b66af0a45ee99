import Auth
import Core
import Testing
import TestSupport

/// SPEC §10 through the binary: `/api/me/quiet-hours` (defaults, PUT,
/// validation, who may write), the same object in `/api/mobile/config`,
/// the settings page's form, and `priority` / `min_priority` on monitors
/// and channels.
@Suite struct QuietHoursAPITests {
    let mobile = MobileAPITests()
    static let defaults: JSON = ["enabled": false, "start": "22:00", "end": "07:00", "timezone": "UTC", "min_priority": 8]
    static let berlin: JSON = ["enabled": true, "start": "22:30", "end": "06:45", "timezone": "Europe/Berlin", "min_priority": 7]

    @Test(arguments: TestEngine.all) func defaultsPutAndTheMobileConfig(engine: TestEngine) throws {
        let hub = try HubProcess(engine: engine)
        let access = try mobile.signIn(hub)
        #expect(try expectJSON(try hub.call("GET", "/api/me/quiet-hours", token: access)) == Self.defaults)
        #expect(try expectJSON(try hub.call("GET", "/api/mobile/config", token: access))["quiet_hours"] == Self.defaults)
        #expect(try expectJSON(try hub.call("PUT", "/api/me/quiet-hours", token: access, json: Self.berlin)) == Self.berlin)
        #expect(try expectJSON(try hub.call("GET", "/api/me/quiet-hours", token: try hub.token(scope: "read"))) == Self.berlin)
        #expect(try expectJSON(try hub.call("GET", "/api/mobile/config", token: access))["quiet_hours"] == Self.berlin)
        // PUT replaces the whole object: min_priority left out is 8 again.
        let plain: JSON = ["enabled": false, "start": "23:00", "end": "06:00", "timezone": "America/New_York"]
        let replaced = try expectJSON(try hub.call("PUT", "/api/me/quiet-hours", token: try hub.token(), json: plain))
        #expect(replaced["min_priority"] == 8 && replaced["timezone"] == "America/New_York")
        // Another user has their own.
        try Pages.addViewer(hub)
        #expect(try expectJSON(try hub.call("GET", "/api/me/quiet-hours", token: try hub.token(email: "viewer@example.com",
                                                                                                 scope: "read"))) == Self.defaults)
    }

    @Test func validationNamesTheField() throws {
        let hub = try HubProcess()
        let token = try hub.token()
        func put(_ change: (String, JSON?)) throws -> WireResponse {
            var body = try #require(Self.berlin.objectValue)
            body[change.0] = change.1
            return try hub.call("PUT", "/api/me/quiet-hours", token: token, json: .object(body))
        }
        expectError(try put(("end", "22:30")), 400, "validation_failed", field: "end")
        expectError(try put(("start", "25:00")), 400, "validation_failed", field: "start")
        expectError(try put(("start", "9:00")), 400, "validation_failed", field: "start")
        expectError(try put(("timezone", "Europe/Atlantis")), 400, "validation_failed", field: "timezone")
        expectError(try put(("min_priority", 11)), 400, "validation_failed", field: "min_priority")
        expectError(try put(("enabled", nil)), 400, "validation_failed", field: "enabled")
        expectError(try hub.call("PUT", "/api/me/quiet-hours", token: token), 400, "body_required")
        #expect(try expectJSON(try hub.call("GET", "/api/me/quiet-hours", token: token)) == Self.defaults, "nothing was saved")
    }

    @Test func whoMayWriteThem() throws {
        let hub = try HubProcess()
        // A read sign-in of the app, and a readonly user's API token: read only.
        let readSignIn = try mobile.signIn(hub, scope: .read)
        expectError(try hub.call("PUT", "/api/me/quiet-hours", token: readSignIn, json: Self.berlin), 403, "insufficient_scope")
        try Pages.addViewer(hub)
        let viewerToken = try hub.token(email: "viewer@example.com", scope: "read")
        expectError(try hub.call("PUT", "/api/me/quiet-hours", token: viewerToken, json: Self.berlin), 403, "insufficient_scope")
        // The readonly user's own web session may: the API with the session's CSRF token, and the settings form.
        let v = try Pages.signedIn(hub, email: "viewer@example.com", password: "viewer-password")
        let csrf = try v.sessionCSRF()
        expectError(try v.api("PUT", "/api/me/quiet-hours", json: Self.berlin), 403, "csrf_failed")
        #expect(try expectJSON(try v.api("PUT", "/api/me/quiet-hours", json: Self.berlin, csrf: csrf)) == Self.berlin)
        let page = try v.get("/settings")
        #expect(page.text.contains("action=\"/settings/quiet-hours\"") && page.text.contains("value=\"Europe/Berlin\""))
        let saved = try Pages.submit(v, "/settings/quiet-hours", [("enabled", "true"), ("start", "21:00"), ("end", "08:00"),
                                                                   ("timezone", "Europe/Paris"), ("min_priority", "9")])
        #expect(saved.status == 303 && saved.header("Location") == "/settings?flash=quiet-hours-saved#quiet-hours", "\(saved.text)")
        #expect(try expectJSON(try hub.call("GET", "/api/me/quiet-hours", token: viewerToken))
            == ["enabled": true, "start": "21:00", "end": "08:00", "timezone": "Europe/Paris", "min_priority": 9])
        // A refused form keeps what was typed and says why; without the CSRF token nothing is saved.
        let bad = try Pages.submit(v, "/settings/quiet-hours", [("start", "08:00"), ("end", "08:00"), ("timezone", "UTC"),
                                                                 ("min_priority", "8")])
        #expect(bad.status == 400 && bad.text.contains("end must differ from start"))
        #expect(try v.post("/settings/quiet-hours", form: [("start", "01:00"), ("end", "02:00"), ("timezone", "UTC")]).status == 403)
        #expect(try expectJSON(try hub.call("GET", "/api/me/quiet-hours", token: viewerToken))["timezone"] == "Europe/Paris")
    }

    @Test(arguments: TestEngine.all) func monitorPriorityAndChannelMinPriority(engine: TestEngine) throws {
        let hub = try MonitoringHub(engine: engine)
        let created = try hub.create(httpMonitor("API", "http://127.0.0.1:9/", [("priority", 9)]))
        let id = try #require(created["id"]?.intValue)
        #expect(created["priority"] == 9)
        #expect(try expectJSON(try hub.call("PATCH", "/api/monitors/\(id)", json: ["priority": .null]))["priority"] == .null)
        #expect(try hub.monitor(id)["priority"] == .null, "null = the defaults")
        expectError(try hub.call("PATCH", "/api/monitors/\(id)", json: ["priority": 11]), 400, "validation_failed", field: "priority")
        expectError(try hub.call("POST", "/api/monitors", json: httpMonitor("B", "http://127.0.0.1:9/", [("priority", -1)])), 400,
                    "validation_failed", field: "priority")

        let channel = try expectJSON(try hub.call("POST", "/api/channels", json: [
            "name": "hook", "type": "webhook", "config": ["url": "http://127.0.0.1:9/h"],
        ]), 201)
        let cid = try #require(channel["id"]?.intValue)
        #expect(channel["min_priority"] == 0, "default 0")
        #expect(try expectJSON(try hub.call("PATCH", "/api/channels/\(cid)", json: ["min_priority": 6]))["min_priority"] == 6)
        expectError(try hub.call("PATCH", "/api/channels/\(cid)", json: ["min_priority": 11]), 400, "validation_failed",
                    field: "min_priority")
        expectError(try hub.call("PATCH", "/api/channels/\(cid)", json: ["min_priority": "high"]), 400, "validation_failed",
                    field: "min_priority")
        #expect(try expectJSON(try hub.call("GET", "/api/channels/\(cid)"))["min_priority"] == 6)
    }

    /// The pages write the same fields: the new-monitor form and the
    /// monitor page's priority form, the channel form's minimum priority.
    @Test func webFormsCarryPriorities() throws {
        let hub = try HubProcess()
        let b = try Pages.signedIn(hub)
        let form = try b.get("/monitors/new")
        #expect(form.text.contains("name=\"priority\"") && form.text.contains("<option value=\"\" selected>default"))
        let created = try Pages.submit(b, "/monitors", [("name", "API"), ("type", "tcp"), ("target", "127.0.0.1:9"), ("interval", "3600"),
                                                         ("timeout", "5"), ("retries", "0"), ("priority", "3")])
        #expect(created.status == 303, "\(created.text)")
        let location = try #require(created.header("Location"))
        let id = try #require(Int64(location.dropFirst("/monitors/".count).prefix { $0.isNumber }))
        let token = try hub.token()
        #expect(try expectJSON(try hub.call("GET", "/api/monitors/\(id)", token: token))["priority"] == 3)
        let page = try b.get("/monitors/\(id)")
        #expect(page.text.contains("<dt>Alert priority</dt><dd>3</dd>") && page.text.contains("<option value=\"3\" selected>3</option>"))
        #expect(try Pages.submit(b, "/monitors/\(id)/priority", [("priority", "")]).status == 303)
        #expect(try expectJSON(try hub.call("GET", "/api/monitors/\(id)", token: token))["priority"] == .null)
        #expect(try Pages.submit(b, "/monitors/\(id)/priority", [("priority", "12")]).status == 400)

        let added = try Pages.submit(b, "/notify/channels", [("name", "Loud only"), ("type", "webhook"), ("events", "monitor_down"),
                                                              ("config.url", "http://127.0.0.1:9/h"), ("min_priority", "8")])
        #expect(added.status == 303, "\(added.text)")
        let channels = try #require(try expectJSON(try hub.call("GET", "/api/channels", token: token))["items"]?.arrayValue)
        #expect(channels.first?["min_priority"] == 8)
        #expect(try b.get("/notify").text.contains("min priority 8"))
        let bad = try Pages.submit(b, "/notify/channels", [("name", "x"), ("type", "webhook"), ("config.url", "http://127.0.0.1:9/h"),
                                                            ("min_priority", "11")])
        #expect(bad.status == 400 && bad.text.contains("min_priority must be between 0 and 10"))
    }
}
