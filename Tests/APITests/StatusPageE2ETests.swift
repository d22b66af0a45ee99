import Core
import Testing
import TestSupport

/// Status pages end to end through the running binary: the API, the
/// public HTML, JSON and badges, and the admin page's form.
@Suite struct StatusPageE2ETests {
    @Test func aPublicPageShowsOnlyItsMonitorsWithStatusUptimeAndIncidents() throws {
        let target = try SwitchableHTTPTarget()
        // Every request built afresh: this test follows states as they change.
        let hub = try MonitoringHub(environment: ["PINGTXT_STATUS_PAGES_CACHE_SECONDS": "0"])
        let api = try hub.createChecked(httpMonitor("Public API", target.healthURL))
        let web = try hub.createChecked(httpMonitor("Website", target.healthURL))
        let secret = try hub.createChecked(httpMonitor("Secret billing DB", target.healthURL))

        let page = try expectJSON(try hub.call("POST", "/api/status-pages", json: [
            "slug": "acme", "title": "Acme status", "description": "Our public services",
            "monitor_ids": [.int(web.id), .int(api.id)],
        ]), 201)
        #expect(page["slug"]?.stringValue == "acme")
        #expect(page["monitor_ids"] == [.int(web.id), .int(api.id)], "in the order given")
        #expect(page["created_at"]?.stringValue != nil && page["updated_at"]?.stringValue != nil)
        let pageID = try #require(page["id"]?.intValue)
        #expect(try expectJSON(try hub.call("GET", "/api/status-pages/\(pageID)")) == page)
        let listed = try expectJSON(try hub.call("GET", "/api/status-pages"))
        #expect(listed["items"]?.arrayValue?.map { $0["id"] } == [.int(pageID)])

        // Everything up: the JSON document.
        let doc = try publicJSON(hub, "acme")
        #expect(doc["title"]?.stringValue == "Acme status")
        #expect(doc["status"]?.stringValue == "operational")
        #expect(doc["status_text"]?.stringValue == "All systems operational")
        let monitors = doc["monitors"]?.arrayValue ?? []
        #expect(monitors.map { $0["name"]?.stringValue } == ["Website", "Public API"])
        #expect(monitors.map { $0["status"]?.stringValue } == ["up", "up"])
        let days = monitors.first?["days"]?.arrayValue ?? []
        #expect(days.count == 90)
        #expect(days.last?["date"]?.stringValue == String(Time.rfc3339(Time.now()).prefix(10)))
        #expect(days.last?["status"]?.stringValue == "operational" && days.last?["uptime"]?.numberValue == 100)
        #expect(days.first?["status"]?.stringValue == "no_data" && days.first?["uptime"] == .null)
        #expect(monitors.first?["uptime_90d"]?.numberValue == 100)
        #expect(doc["incidents"] == [])
        let json = try hub.hub.call("GET", "/status/acme.json")
        #expect(json.header("Cache-Control") == "public, max-age=30")
        #expect(!json.text.contains("Secret billing DB") && !json.text.contains(target.baseURL))
        #expect(!json.text.contains("127.0.0.1"), "no target, host or URL of any monitor")

        // The HTML page: listed monitors, never the third one, no targets.
        let html = try hub.hub.call("GET", "/status/acme")
        #expect(html.status == 200)
        #expect(html.header("Content-Type") == "text/html; charset=utf-8")
        #expect(html.header("Cache-Control") == "public, max-age=30")
        #expect(html.header("Set-Cookie") == nil)
        #expect(html.text.contains("Public API") && html.text.contains("Website") && html.text.contains("Acme status"))
        #expect(html.text.contains("All systems operational"))
        #expect(!html.text.contains("Secret billing DB"))
        #expect(!html.text.contains("127.0.0.1") && !html.text.contains("/health"))
        #expect(html.text.contains("<svg class=\"bars\"") && html.text.contains("aria-label=\"Uptime over the last 90 days: 100%"))
        #expect(!html.text.contains("<nav"), "no admin navigation on the public page")
        #expect(!html.text.contains("<script"), "works without JavaScript")

        // Maintenance (mute) shows as such; a down monitor opens an incident.
        _ = try expectJSON(try hub.call("POST", "/api/monitors/\(api.id)/mute", json: ["minutes": 30]), 201)
        target.setStatus(503)
        #expect(try hub.check(web.id)["monitor"]?["status"]?.stringValue == "down")
        try hub.check(secret.id)
        let during = try publicJSON(hub, "acme")
        #expect(during["monitors"]?.arrayValue?.map { $0["status"]?.stringValue } == ["down", "maintenance"])
        #expect(during["status"]?.stringValue == "partial_outage" && during["status_text"]?.stringValue == "Partial outage")
        let incidents = during["incidents"]?.arrayValue ?? []
        #expect(incidents.count == 1, "only the listed monitor's incident: \(incidents)")
        #expect(incidents.first?["monitor_name"]?.stringValue == "Website")
        #expect(incidents.first?["kind"]?.stringValue == "down")
        #expect(incidents.first?["since"]?.stringValue != nil)
        #expect(incidents.first?["cause"]?.stringValue?.contains("503") == true)
        let duringHTML = try hub.hub.call("GET", "/status/acme").text
        #expect(duringHTML.contains("Partial outage") && duringHTML.contains("Maintenance") && duringHTML.contains("Open incidents"))
        #expect(!duringHTML.contains("Secret billing DB") && !duringHTML.contains("127.0.0.1"))

        // Badges: listed monitors only.
        let badge = try hub.hub.call("GET", "/status/acme/badge/\(web.id).svg")
        #expect(badge.status == 200)
        #expect(badge.header("Content-Type")?.hasPrefix("image/svg+xml") == true)
        #expect(badge.header("Cache-Control") == "public, max-age=60")
        #expect(badge.text.hasPrefix("<svg") && badge.text.contains(">Website</text>") && badge.text.contains(">down</text>"))
        #expect(try hub.hub.call("GET", "/status/acme/badge/\(api.id).svg").text.contains(">maintenance</text>"))
        #expect(try hub.hub.call("GET", "/status/acme/badge/\(secret.id).svg").status == 404)
        #expect(try hub.hub.call("GET", "/status/acme/badge/999999.svg").status == 404)
        #expect(try hub.hub.call("GET", "/status/nope/badge/\(web.id).svg").status == 404)

        // Unknown slug: a 404 page (and a 404 JSON error for .json).
        let missing = try hub.hub.call("GET", "/status/nope")
        #expect(missing.status == 404 && missing.header("Content-Type") == "text/html; charset=utf-8")
        #expect(missing.text.contains("Status page not found"))
        expectError(try hub.hub.call("GET", "/status/nope.json"), 404, "not_found")

        // Paused shows as paused; pausing closed the incident.
        _ = try expectJSON(try hub.call("POST", "/api/monitors/\(web.id)/pause"))
        let paused = try publicJSON(hub, "acme")
        #expect(paused["monitors"]?.arrayValue?.map { $0["status"]?.stringValue } == ["paused", "maintenance"])
        #expect(paused["incidents"] == [] && paused["status_text"]?.stringValue == "Maintenance")
        #expect(try hub.hub.call("GET", "/status/acme/badge/\(web.id).svg").text.contains(">paused</text>"))

        // Update and delete.
        let patched = try expectJSON(try hub.call("PATCH", "/api/status-pages/\(pageID)", json: ["monitor_ids": [.int(api.id)]]))
        #expect(patched["monitor_ids"] == [.int(api.id)] && patched["title"]?.stringValue == "Acme status")
        #expect(try hub.hub.call("GET", "/status/acme/badge/\(web.id).svg").status == 404, "no longer listed")
        #expect(try hub.call("DELETE", "/api/status-pages/\(pageID)").status == 204)
        #expect(try hub.hub.call("GET", "/status/acme").status == 404)
        expectError(try hub.call("GET", "/api/status-pages/\(pageID)"), 404, "not_found")
    }

    /// A built page is served again (with `Age`) until it is out of date;
    /// editing the page is seen at once, and an unknown slug is still 404.
    @Test func aBuiltPageIsKeptUntilThePageChanges() throws {
        let target = try SwitchableHTTPTarget()
        let hub = try MonitoringHub(environment: ["PINGTXT_STATUS_PAGES_CACHE_SECONDS": "300"])
        let web = try hub.createChecked(httpMonitor("Website", target.healthURL))
        let page = try expectJSON(try hub.call("POST", "/api/status-pages", json: [
            "slug": "kept", "title": "Kept", "monitor_ids": [.int(web.id)],
        ]), 201)
        let first = try hub.hub.call("GET", "/status/kept.json")
        let firstDoc = try first.json()
        #expect(first.header("Age") == nil && firstDoc["monitors"]?.arrayValue?.first?["status"]?.stringValue == "up")
        let html = try hub.hub.call("GET", "/status/kept")
        #expect(html.header("Age") == nil, "the HTML page is its own entry")

        target.setStatus(503)
        #expect(try hub.check(web.id)["monitor"]?["status"]?.stringValue == "down")
        let kept = try hub.hub.call("GET", "/status/kept.json")
        #expect(kept.header("Age") != nil && kept.body == first.body, "the copy built before the check")
        #expect(kept.header("Cache-Control") == "public, max-age=30")
        #expect(try hub.hub.call("GET", "/status/kept").header("Age") != nil)

        _ = try expectJSON(try hub.call("PATCH", "/api/status-pages/\(page["id"]?.intValue ?? 0)", json: ["title": "Renamed"]))
        let edited = try hub.hub.call("GET", "/status/kept.json")
        let doc = try edited.json()
        #expect(edited.header("Age") == nil && doc["title"]?.stringValue == "Renamed")
        #expect(doc["monitors"]?.arrayValue?.first?["status"]?.stringValue == "down", "rebuilt, so current")
        #expect(try hub.hub.call("GET", "/status/kept").text.contains("Renamed"))
        #expect(try hub.hub.call("GET", "/status/gone.json").status == 404)
    }

    @Test func validationConflictsAndScopes() throws {
        let target = try SwitchableHTTPTarget()
        let hub = try MonitoringHub()
        let m = try hub.create(httpMonitor("one", target.healthURL))
        let id = try #require(m["id"]?.intValue)
        func create(_ body: JSON) throws -> WireResponse { try hub.call("POST", "/api/status-pages", json: body) }

        expectError(try create(["slug": "Bad Slug", "title": "T"]), 400, "validation_failed", field: "slug")
        expectError(try create(["slug": "-x", "title": "T"]), 400, "validation_failed", field: "slug")
        expectError(try create(["slug": .string(String(repeating: "a", count: 65)), "title": "T"]), 400, "validation_failed", field: "slug")
        expectError(try create(["slug": "ok"]), 400, "validation_failed", field: "title")
        expectError(try create(["slug": "ok", "title": "T", "monitor_ids": [.int(id), 999_999]]), 400, "validation_failed",
                    field: "monitor_ids[1]")
        expectError(try create(["slug": "ok", "title": "T", "monitor_ids": "all"]), 400, "validation_failed", field: "monitor_ids")
        _ = try expectJSON(try create(["slug": "ok", "title": "T", "monitor_ids": [.int(id)]]), 201)
        expectError(try create(["slug": "ok", "title": "Other"]), 409, "slug_taken", field: "slug")
        let other = try expectJSON(try create(["slug": "other", "title": "Other"]), 201)
        expectError(try hub.call("PATCH", "/api/status-pages/\(other["id"]?.intValue ?? 0)", json: ["slug": "ok"]), 409,
                    "slug_taken", field: "slug")

        let read = try hub.hub.token(scope: "read", name: "reader")
        expectError(try hub.hub.call("POST", "/api/status-pages", token: read, json: ["slug": "r", "title": "T"]), 403,
                    "insufficient_scope")
        #expect(try hub.hub.call("GET", "/api/status-pages", token: read).status == 200)
        expectError(try hub.hub.call("GET", "/api/status-pages"), 401)
        // The public page needs nothing.
        #expect(try hub.hub.call("GET", "/status/ok").status == 200)

        // Documented in the OpenAPI document.
        let paths = try expectJSON(try hub.hub.call("GET", "/api/openapi.json"))["paths"]
        for (path, methods) in [("/api/status-pages", ["get", "post"]), ("/api/status-pages/{id}", ["get", "patch", "delete"]),
                                ("/status/{slug}", ["get"]), ("/status/{slug}.json", ["get"]),
                                ("/status/{slug}/badge/{monitor_id}.svg", ["get"])] {
            for method in methods {
                #expect(paths?[path]?[method]?["responses"] != nil, "\(method) \(path) missing")
            }
        }
    }

    @Test func theAdminPageCreatesAndDeletesAPage() throws {
        let target = try SwitchableHTTPTarget()
        let hub = try MonitoringHub()
        let a = try #require(try hub.create(httpMonitor("Checkout", target.healthURL))["id"]?.intValue)
        let b = try #require(try hub.create(httpMonitor("Search", target.healthURL))["id"]?.intValue)
        let browser = Browser(hub.hub)
        #expect(try browser.get("/status-pages").header("Location") == "/login?next=%2Fstatus-pages")
        try browser.login(next: "/status-pages")
        let page = try browser.get("/status-pages")
        #expect(page.status == 200)
        #expect(page.text.contains("action=\"/status-pages\"") && page.text.contains("Create status page"))
        #expect(page.text.contains(">Checkout</option>") && page.text.contains(">Search</option>"))
        let csrf = try #require(Browser.csrfField(page.text))

        // A validation error re-renders the form with the values kept.
        let bad = try browser.post("/status-pages", form: [("csrf_token", csrf), ("title", "Shop"), ("slug", "Shop!"),
                                                            ("monitor_ids", "\(a)")])
        #expect(bad.status == 400)
        #expect(bad.text.contains("slug must be 1 to 64 characters"))
        #expect(bad.text.contains("value=\"Shop\"") && bad.text.contains("value=\"\(a)\" selected"))

        // No CSRF token: refused.
        #expect(try browser.post("/status-pages", form: [("title", "Shop"), ("slug", "shop")]).status == 403)

        let created = try browser.post("/status-pages", form: [("csrf_token", csrf), ("title", "Shop"), ("slug", "shop"),
                                                                ("monitor_ids", "\(b)"), ("monitor_ids", "\(a)")])
        #expect(created.status == 303 && created.header("Location") == "/status-pages?flash=created")
        let after = try browser.get("/status-pages?flash=created")
        #expect(after.text.contains("Status page created.") && after.text.contains("href=\"/status/shop\""))
        let stored = try expectJSON(try hub.call("GET", "/api/status-pages"))["items"]?.arrayValue?.first
        #expect(stored?["slug"]?.stringValue == "shop" && stored?["monitor_ids"] == [.int(b), .int(a)])
        let pageID = try #require(stored?["id"]?.intValue)
        #expect(try hub.hub.call("GET", "/status/shop").text.contains("Checkout"))

        let deleted = try browser.post("/status-pages/\(pageID)/delete", form: [("csrf_token", csrf)])
        #expect(deleted.status == 303 && deleted.header("Location") == "/status-pages?flash=deleted")
        #expect(try hub.hub.call("GET", "/status/shop").status == 404)
    }

    @Test func readonlyUsersSeeTheListWithoutForms() throws {
        let hub = try MonitoringHub()
        _ = try expectJSON(try hub.call("POST", "/api/status-pages", json: ["slug": "team", "title": "Team"]), 201)
        _ = try expectJSON(try hub.call("POST", "/api/users", json: ["email": "ro@example.com", "role": "readonly",
                                                                     "password": "readonly pass"]), 201)
        let browser = Browser(hub.hub)
        #expect(try browser.login(email: "ro@example.com", password: "readonly pass", next: "/status-pages").status == 303)
        let page = try browser.get("/status-pages")
        #expect(page.status == 200 && page.text.contains("href=\"/status/team\""))
        #expect(!page.text.contains("Create status page") && !page.text.contains("action=\"/status-pages"))
        // The session's CSRF token (from the sign-out form) does not make a readonly POST work.
        let csrf = try #require(Browser.csrfField(page.text))
        #expect(try browser.post("/status-pages", form: [("csrf_token", csrf), ("title", "X"), ("slug", "x")]).status == 403)
        #expect(try browser.post("/status-pages/1/delete", form: [("csrf_token", csrf)]).status == 403)
        #expect(try hub.hub.call("GET", "/status/team").status == 200)
    }

    private func publicJSON(_ hub: MonitoringHub, _ slug: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSON {
        let r = try hub.hub.call("GET", "/status/\(slug).json")
        try #require(r.status == 200, "status \(r.status): \(r.text)", sourceLocation: sourceLocation)
        return try r.json()
    }
}
