import Core
import Testing
import TestSupport

/// The monitors, incidents and maintenance pages (docs/web.md) through the
/// running binary, with a cookie-keeping browser that posts the forms.
@Suite struct WebMonitorPagesTests {
    /// The id in `/monitors/{id}?flash=…`.
    static func monitorID(_ location: String?) -> Int64? {
        guard let location, location.hasPrefix("/monitors/") else { return nil }
        return Int64(location.dropFirst("/monitors/".count).prefix { $0 != "?" })
    }

    static func count(_ needle: String, in text: String) -> Int {
        text.split(separator: needle, omittingEmptySubsequences: false).count - 1
    }

    static func localInput(_ seconds: Int64) -> String { String(Time.rfc3339(seconds).prefix(16)) }

    @Test func monitorIncidentAndMaintenanceThroughTheForms() throws {
        let target = try SwitchableHTTPTarget()
        let hub = try HubProcess()
        let browser = Browser(hub)
        #expect(try browser.login().status == 303)
        let csrf = try browser.sessionCSRF()

        let empty = try browser.get("/")
        #expect(empty.status == 200 && empty.text.contains("<a class=\"button\" href=\"/monitors/new\">New monitor</a>"))
        #expect(empty.header("Content-Type") == "text/html; charset=utf-8")
        let form = try browser.get("/monitors/new")
        #expect(form.status == 200)
        for field in ["name", "type", "target", "interval", "timeout", "retries"] {
            #expect(form.text.contains("<label for=\"\(field)\">") && form.text.contains("name=\"\(field)\""), "\(field)")
        }
        #expect(form.text.contains("<button type=\"submit\">Create monitor</button>"))

        // A validation error comes back with the API's message, the field named and the values kept.
        var fields = [("csrf_token", csrf), ("name", "Shop API"), ("type", "http"), ("target", target.healthURL),
                      ("interval", "5"), ("timeout", "5"), ("retries", "0")]
        let invalid = try browser.post("/monitors", form: fields)
        #expect(invalid.status == 400)
        #expect(invalid.text.contains("interval: interval must be between 10 and 86400."))
        #expect(invalid.text.contains("value=\"Shop API\"") && invalid.text.contains("value=\"\(target.healthURL)\""))
        #expect(invalid.text.contains("name=\"interval\" type=\"number\" min=\"10\" max=\"86400\" value=\"5\" aria-invalid=\"true\""))

        fields[4] = ("interval", "3600")
        let created = try browser.post("/monitors", form: fields)
        #expect(created.status == 303)
        let id = try #require(Self.monitorID(created.header("Location")))
        #expect(created.header("Location") == "/monitors/\(id)?flash=created")
        let page = try browser.get("/monitors/\(id)?flash=created")
        #expect(page.status == 200)
        #expect(page.text.contains("Monitor created.") && page.text.contains("<h1>Shop API</h1>"))
        #expect(page.text.contains("<svg class=\"chart\" role=\"img\" aria-label=\"Latency over the last 24 h"))
        for (action, label) in [("check", "Check now"), ("pause", "Pause"), ("delete", "Delete monitor")] {
            #expect(page.text.contains("action=\"/monitors/\(id)/\(action)\""), "\(action)")
            #expect(page.text.contains(">\(label)</button>"), "\(label)")
        }

        // The check on creation lands; the dashboard links the monitor with its badge and sparkline.
        let checked = try browser.post("/monitors/\(id)/check", form: [("csrf_token", csrf)])
        #expect(checked.status == 303 && checked.header("Location") == "/monitors/\(id)?flash=checked")
        let dashboard = try browser.get("/")
        #expect(dashboard.text.contains("<a href=\"/monitors/\(id)\">Shop API</a>"))
        #expect(dashboard.text.contains("<span class=\"status status-up\">up</span>"))
        #expect(dashboard.text.contains("<svg class=\"spark\" role=\"img\""))

        // Down through Check now: the page shows it, an incident opens.
        target.setStatus(503)
        #expect(try browser.post("/monitors/\(id)/check", form: [("csrf_token", csrf)]).status == 303)
        let down = try browser.get("/monitors/\(id)")
        #expect(down.text.contains("<span class=\"status status-down\">down</span>"))
        #expect(down.text.contains("HTTP 503"))
        let incidents = try expectJSON(try browser.api("GET", "/api/incidents?status=open"))["items"]?.arrayValue ?? []
        let incidentID = try #require(incidents.first?["id"]?.intValue)
        let list = try browser.get("/incidents")
        #expect(list.text.contains("action=\"/incidents/\(incidentID)/acknowledge\""))
        #expect(list.text.contains(">Acknowledge</button>"))
        let ack = try browser.post("/incidents/\(incidentID)/acknowledge", form: [("csrf_token", csrf)])
        #expect(ack.status == 303 && ack.header("Location") == "/incidents?flash=acknowledged")
        let acked = try browser.get("/incidents?flash=acknowledged")
        #expect(acked.text.contains("Incident acknowledged.") && acked.text.contains("by \(HubProcess.adminEmail)"))
        #expect(!acked.text.contains("/acknowledge\""))
        let incident = try expectJSON(try browser.api("GET", "/api/incidents/\(incidentID)"))
        #expect(incident["acknowledged_by"]?.stringValue == HubProcess.adminEmail)

        // A maintenance window for this monitor, from two minutes ago.
        let now = Time.now()
        let maintenance = try browser.get("/maintenance")
        #expect(maintenance.status == 200 && maintenance.text.contains(">Schedule</button>"))
        #expect(maintenance.text.contains("<option value=\"\(id)\">Shop API</option>"))
        let badRange = try browser.post("/maintenance", form: [
            ("csrf_token", csrf), ("title", "db upgrade"), ("starts_at", Self.localInput(now)), ("ends_at", Self.localInput(now - 3600)),
        ])
        #expect(badRange.status == 400 && badRange.text.contains("ends_at: ends_at must be after starts_at."))
        #expect(badRange.text.contains("value=\"db upgrade\""))
        let scheduled = try browser.post("/maintenance", form: [
            ("csrf_token", csrf), ("title", "db upgrade"), ("starts_at", Self.localInput(now - 120)),
            ("ends_at", Self.localInput(now + 3600)), ("monitor_ids", String(id)),
        ])
        #expect(scheduled.status == 303 && scheduled.header("Location") == "/maintenance?flash=scheduled")
        let windows = try expectJSON(try browser.api("GET", "/api/maintenance"))["items"]?.arrayValue ?? []
        let windowID = try #require(windows.first?["id"]?.intValue)
        #expect(windows.first?["monitor_ids"] == [.int(id)])
        #expect(windows.first?["starts_at"]?.stringValue == Self.localInput(now - 120) + ":00Z")
        #expect(try browser.get("/maintenance").text.contains("db upgrade"))
        #expect(try browser.get("/").text.contains("<span class=\"status status-maintenance\">in maintenance</span>"))
        let deleted = try browser.post("/maintenance/\(windowID)/delete", form: [("csrf_token", csrf)])
        #expect(deleted.status == 303 && deleted.header("Location") == "/maintenance?flash=window-deleted")
        #expect(!(try browser.get("/maintenance").text.contains("db upgrade")))

        // Pause, resume, delete.
        #expect(try browser.post("/monitors/\(id)/pause", form: [("csrf_token", csrf)]).status == 303)
        let paused = try browser.get("/monitors/\(id)")
        #expect(paused.text.contains("status status-paused\">paused") && paused.text.contains(">Resume</button>"))
        #expect(try browser.post("/monitors/\(id)/resume", form: [("csrf_token", csrf)]).status == 303)
        #expect(try browser.get("/monitors/\(id)").text.contains(">Pause</button>"))
        // Without the confirmation box nothing is deleted.
        let unconfirmed = try browser.post("/monitors/\(id)/delete", form: [("csrf_token", csrf)])
        #expect(unconfirmed.status == 303 && unconfirmed.header("Location") == "/monitors/\(id)?flash=confirm-delete")
        let kept = try browser.get("/monitors/\(id)?flash=confirm-delete")
        #expect(kept.status == 200 && kept.text.contains("Nothing was deleted") && kept.text.contains("<h1>Shop API</h1>"))
        #expect(kept.text.contains(#"<input type="checkbox" name="confirm" value="yes" required>"#))
        let gone = try browser.post("/monitors/\(id)/delete", form: [("csrf_token", csrf), ("confirm", "yes")])
        #expect(gone.status == 303 && gone.header("Location") == "/?flash=deleted")
        let after = try browser.get("/?flash=deleted")
        #expect(after.text.contains("Monitor deleted.") && !after.text.contains("Shop API"))
        #expect(try browser.get("/monitors/\(id)").status == 404)
    }

    @Test func signInAndCSRFAreRequiredAndNamesAreEscaped() throws {
        let hub = try HubProcess()
        let anonymous = Browser(hub)
        for path in ["/", "/monitors/new", "/monitors/1", "/incidents", "/maintenance"] {
            let r = try anonymous.get(path)
            #expect(r.status == 303 && r.header("Location") == "/login?next=" + FormEncode.encode(path), "\(path)")
        }
        let anonymousPost = try anonymous.post("/monitors", form: [("name", "x"), ("type", "tcp"), ("target", "127.0.0.1:1")])
        #expect(anonymousPost.status == 303 && anonymousPost.header("Location")?.hasPrefix("/login") == true)

        let browser = Browser(hub)
        try browser.login()
        let csrf = try browser.sessionCSRF()
        let hostile = "<script>alert(1)</script>"
        let created = try browser.post("/monitors", form: [("csrf_token", csrf), ("name", hostile), ("type", "tcp"),
                                                            ("target", "127.0.0.1:1"), ("interval", "3600"), ("timeout", "2")])
        let id = try #require(Self.monitorID(created.header("Location")))
        // What was typed comes back escaped when the form has an error.
        let retyped = try browser.post("/monitors", form: [("csrf_token", csrf), ("name", hostile), ("type", "tcp"),
                                                            ("target", "\"><b>"), ("interval", "3600")])
        #expect(retyped.status == 400 && retyped.text.contains("target: "))
        #expect(!retyped.text.contains(hostile) && !retyped.text.contains("\"><b>"))
        #expect(retyped.text.contains("value=\"&lt;script&gt;alert(1)&lt;/script&gt;\"") && retyped.text.contains("value=\"&quot;&gt;&lt;b&gt;\""))
        for path in ["/", "/monitors/\(id)", "/maintenance"] {
            let page = try browser.get(path)
            #expect(page.status == 200)
            #expect(!page.text.contains(hostile), "\(path)")
            #expect(page.text.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "\(path)")
        }
        // Each form POST without the CSRF field, or with a wrong one, is a 403 page and changes nothing.
        let posts = ["/monitors", "/monitors/\(id)/check", "/monitors/\(id)/pause", "/monitors/\(id)/resume",
                     "/monitors/\(id)/delete", "/incidents/1/acknowledge", "/maintenance", "/maintenance/1/delete"]
        for path in posts {
            for form in [[("name", "x")], [("csrf_token", "wrong"), ("name", "x")]] {
                let r = try browser.post(path, form: form)
                #expect(r.status == 403, "\(path)")
                #expect(r.header("Content-Type")?.hasPrefix("text/html") == true, "\(path)")
            }
        }
        #expect(try browser.get("/monitors/\(id)").status == 200, "not deleted")
    }

    @Test func readonlyUsersSeeThePagesWithoutWriteForms() throws {
        let target = try SwitchableHTTPTarget()
        target.setStatus(503)
        let hub = try MonitoringHub()
        let (id, _) = try hub.createChecked(httpMonitor("Checkout", target.healthURL))
        try hub.waitForStatus(id, "down")
        _ = try expectJSON(try hub.call("POST", "/api/users",
                                        json: ["email": "viewer@example.com", "role": "readonly", "password": "viewer-password"]), 201)
        let now = Time.now()
        _ = try expectJSON(try hub.call("POST", "/api/maintenance", json: [
            "title": "later", "starts_at": .string(Time.rfc3339(now + 3600)), "ends_at": .string(Time.rfc3339(now + 7200)),
        ]), 201)

        let viewer = Browser(hub.hub)
        #expect(try viewer.login(email: "viewer@example.com", password: "viewer-password").status == 303)
        let csrf = try viewer.sessionCSRF()
        for path in ["/", "/monitors/new", "/monitors/\(id)", "/incidents", "/maintenance"] {
            let page = try viewer.get(path)
            #expect(page.status == 200, "\(path)")
            // The sign-out form is the only form that writes (the dashboard's
            // search box is a GET form).
            #expect(Self.count("<form method=\"post\"", in: page.text) == 1, "\(path)")
            #expect(Self.count("<form method=\"post\" action=\"/logout\"", in: page.text) == 1, "\(path)")
        }
        #expect(try viewer.get("/").text.contains("Checkout"))
        #expect(!(try viewer.get("/").text.contains("New monitor")))
        #expect(try viewer.get("/incidents").text.contains("HTTP 503"))
        #expect(try viewer.get("/maintenance").text.contains("later"))
        // Posting anyway is refused.
        let refused = try viewer.post("/monitors/\(id)/pause", form: [("csrf_token", csrf)])
        #expect(refused.status == 403 && refused.text.contains("read-only"))
        #expect(try viewer.post("/monitors", form: [("csrf_token", csrf), ("name", "x"), ("type", "tcp"),
                                                     ("target", "127.0.0.1:1")]).status == 403)
        #expect(try hub.monitor(id)["paused"] == .bool(false))
    }
}
