import Core
import Testing
import TestSupport

/// The escalation page, the monitor form's policy select and the incident
/// page's escalation state, through the running binary with a browser that
/// keeps its cookie and posts the forms (CSRF included).
@Suite struct WebEscalationPagesTests {
    @Test func policiesThroughTheFormsAndTheirStateOnTheIncidentPage() throws {
        let hub = try HubProcess()
        let token = try hub.token()
        let target = try SwitchableHTTPTarget()
        var channels: [Int64] = []
        for name in ["Telegram", "Email"] {
            let ch = try expectJSON(try hub.call("POST", "/api/channels", token: token, json: [
                "name": .string(name), "type": "webhook", "events": [], "config": ["url": "http://127.0.0.1:9/hook"],
            ]), 201)
            channels.append(try #require(ch["id"]?.intValue))
        }
        let b = try Pages.signedIn(hub)
        let empty = try b.get("/escalation")
        #expect(empty.status == 200 && empty.text.contains("No escalation policies yet."))
        #expect(empty.text.contains("<a href=\"/escalation\" aria-current=\"page\">Escalation</a>"))
        #expect(empty.text.contains("name=\"step1.channel_ids\"") && empty.text.contains("name=\"step3.delay_minutes\""))

        // Refused: the API's message, the field named, what was typed kept.
        let bad = try Pages.submit(b, "/escalation", [("name", "Ops"), ("repeat", "12"), ("step1.channel_ids", "\(channels[0])"),
                                                       ("step1.delay_minutes", "10")])
        #expect(bad.status == 400 && bad.text.contains("repeat: repeat must be between 0 and 9."))
        #expect(bad.text.contains("value=\"Ops\"") && bad.text.contains("<option value=\"\(channels[0])\" selected>Telegram</option>"))
        let noStep = try Pages.submit(b, "/escalation", [("name", "Ops"), ("repeat", "0")])
        #expect(noStep.status == 400 && noStep.text.contains("steps: steps must hold 1 to 10 steps."))
        // Without the CSRF token nothing is written.
        #expect(try b.post("/escalation", form: [("name", "x"), ("step1.channel_ids", "\(channels[0])")]).status == 403)

        let created = try Pages.submit(b, "/escalation", [
            ("name", "Ops"), ("repeat", "1"), ("step1.channel_ids", "\(channels[0])"), ("step1.delay_minutes", "10"),
            ("step2.channel_ids", "\(channels[0])"), ("step2.channel_ids", "\(channels[1])"), ("step2.delay_minutes", "15"),
            ("step3.delay_minutes", "10"),
        ])
        #expect(created.status == 303 && created.header("Location") == "/escalation?flash=created")
        let policies = try expectJSON(try hub.call("GET", "/api/escalation-policies", token: token))["items"]?.arrayValue ?? []
        let policy = try #require(policies.first)
        let pid = try #require(policy["id"]?.intValue)
        #expect(policy["steps"] == [["channel_ids": [.int(channels[0])], "delay_minutes": 10],
                                    ["channel_ids": [.int(channels[0]), .int(channels[1])], "delay_minutes": 15]],
                "the empty third row is left out")
        let listed = try b.get("/escalation?flash=created")
        #expect(listed.text.contains("Escalation policy created.") && listed.text.contains("<strong>Ops</strong>"))
        #expect(listed.text.contains("<li>Telegram, Email <span class=\"muted\">then wait 15 min</span></li>"))

        // A channel a step names is not deleted from the notify page either.
        let kept = try Pages.submit(b, "/notify/channels/\(channels[0])/delete", [])
        #expect(kept.status == 409 && kept.text.contains("is a step of escalation policy &quot;Ops&quot;"))

        // Edit: the stored steps in the rows; saving replaces them.
        let edit = try b.get("/escalation/\(pid)")
        #expect(edit.status == 200 && edit.text.contains("action=\"/escalation/\(pid)\"") && edit.text.contains(">Save policy</button>"))
        let saved = try Pages.submit(b, "/escalation/\(pid)", [("name", "Ops night"), ("repeat", "0"),
                                                               ("step1.channel_ids", "\(channels[1])"), ("step1.delay_minutes", "1"),
                                                               ("step2.channel_ids", "\(channels[0])"), ("step2.delay_minutes", "5")])
        #expect(saved.status == 303 && saved.header("Location") == "/escalation?flash=saved")
        let after = try expectJSON(try hub.call("GET", "/api/escalation-policies/\(pid)", token: token))
        #expect(after["name"] == "Ops night" && after["steps"] == [["channel_ids": [.int(channels[1])], "delay_minutes": 1],
                                                                 ["channel_ids": [.int(channels[0])], "delay_minutes": 5]])

        // The new-monitor form offers it; the monitor page shows and changes it.
        let form = try b.get("/monitors/new")
        #expect(form.text.contains("<label for=\"escalation_policy_id\">Escalation policy</label>"))
        #expect(form.text.contains("<option value=\"\(pid)\">Ops night</option>"))
        let made = try Pages.submit(b, "/monitors", [("name", "API"), ("type", "http"), ("target", target.healthURL),
                                                     ("interval", "3600"), ("timeout", "5"), ("retries", "0"),
                                                     ("escalation_policy_id", "\(pid)")])
        #expect(made.status == 303)
        let location = try #require(made.header("Location"))
        let mid = try #require(Int64(location.dropFirst("/monitors/".count).prefix { $0 != "?" }))
        #expect(try expectJSON(try hub.call("GET", "/api/monitors/\(mid)", token: token))["escalation_policy_id"]?.intValue == pid)
        let page = try b.get("/monitors/\(mid)")
        #expect(page.text.contains("<dt>Escalation</dt><dd><a href=\"/escalation\">Ops night</a></dd>"))
        #expect(page.text.contains("<option value=\"\(pid)\" selected>Ops night</option>"))

        // In use: deleting is refused on the page with the API's reason.
        let refused = try Pages.submit(b, "/escalation/\(pid)/delete", [])
        #expect(refused.status == 409 && refused.text.contains("is used by monitor \(mid)"))

        // Down: the incident page shows where the chain stands.
        target.setStatus(503)
        _ = try expectJSON(try hub.call("POST", "/api/monitors/\(mid)/check", token: token))
        // Step 1 is written by the escalation worker after the check returns,
        // so the page is read until it shows (under a loaded suite it can lag).
        var incidents = try b.get("/incidents")
        try Pages.waitUntil("step 1 on the incidents page") {
            incidents = try b.get("/incidents")
            return incidents.text.contains("step 1 sent, next step due ")
        }
        #expect(incidents.text.contains("<th scope=\"col\">Escalation</th>"))
        #expect(incidents.text.contains("step 1 sent, next step due "), "\(Pages.between(incidents.text, "<tbody>", "</tbody>") ?? "")")

        // Cleared on the monitor page, then the policy can go.
        #expect(try Pages.submit(b, "/monitors/\(mid)/escalation-policy", [("escalation_policy_id", "")]).status == 303)
        #expect(try expectJSON(try hub.call("GET", "/api/monitors/\(mid)", token: token))["escalation_policy_id"] == .null)
        let deleted = try Pages.submit(b, "/escalation/\(pid)/delete", [])
        #expect(deleted.status == 303 && deleted.header("Location") == "/escalation?flash=deleted")
        #expect(try b.get("/escalation").text.contains("No escalation policies yet."))
    }

    @Test func aReadonlyUserSeesThePoliciesButNoForms() throws {
        let hub = try HubProcess()
        let token = try hub.token()
        let ch = try expectJSON(try hub.call("POST", "/api/channels", token: token, json: [
            "name": "hook", "type": "webhook", "events": [], "config": ["url": "http://127.0.0.1:9/hook"],
        ]), 201)
        _ = try expectJSON(try hub.call("POST", "/api/escalation-policies", token: token, json: [
            "name": "Ops", "steps": [["channel_ids": [ch["id"] ?? .null], "delay_minutes": 5]],
        ]), 201)
        try Pages.addViewer(hub)
        let b = try Pages.signedIn(hub, email: "viewer@example.com", password: "viewer-password")
        let page = try b.get("/escalation")
        #expect(page.status == 200 && page.text.contains("<strong>Ops</strong>"))
        #expect(!page.text.contains("<form method=\"post\" action=\"/escalation\"") && !page.text.contains(">Delete</button>"))
        #expect(try Pages.submit(b, "/escalation", [("name", "x"), ("step1.channel_ids", "1")]).status == 403)
    }
}
