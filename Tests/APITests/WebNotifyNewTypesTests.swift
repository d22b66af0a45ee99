import Core
import Testing
import TestSupport

/// The notify page offers the issue-13 types with their fields, and its form
/// adds one (a pagerduty channel that then sends its test to a stand-in).
@Suite struct WebNotifyNewTypesTests {
    @Test func formOffersTheNewTypesAndAddsAPagerDutyChannel() throws {
        let pd = try FakePagerDuty(routingKey: NotifyServicesE2ETests.routingKey)
        let hub = try HubProcess()
        let b = try Pages.signedIn(hub)
        let empty = try b.get("/notify")
        for (value, label) in [("pagerduty", "PagerDuty"), ("opsgenie", "Opsgenie"), ("pushover", "Pushover"), ("gotify", "Gotify"),
                               ("matrix", "Matrix"), ("googlechat", "Google Chat")] {
            #expect(empty.text.contains("<option value=\"\(value)\">\(label)</option>"), "type \(value)")
        }
        for key in ["routing_key", "api_key", "region", "app_token", "user_key", "homeserver", "access_token", "room_id", "api_url"] {
            #expect(empty.text.contains("name=\"config.\(key)\""), "config.\(key)")
            #expect(empty.text.contains("<label for=\"config-\(key)\""), "label of config.\(key)")
        }
        // Each key once, on one field listing every type that uses it.
        #expect(Pages.count("name=\"config.api_url\"", in: empty.text) == 1)
        #expect(empty.text.contains("data-types=\"telegram pagerduty opsgenie pushover\""))
        #expect(empty.text.contains("data-types=\"slack discord teams mattermost googlechat\""))
        #expect(empty.text.contains("name=\"config.routing_key\" type=\"password\""), "secrets are password fields")

        let added = try Pages.submit(b, "/notify/channels", [
            ("name", "on call"), ("type", "pagerduty"), ("events", "monitor_down"), ("events", "monitor_up"),
            ("config.routing_key", NotifyServicesE2ETests.routingKey), ("config.api_url", pd.baseURL),
            ("config.api_key", "ignored, another type's field"),
        ])
        #expect(added.status == 303 && added.header("Location") == "/notify?flash=added", "\(added.status) \(added.text)")
        let page = try b.get("/notify")
        #expect(page.text.contains("on call") && page.text.contains("pagerduty"))
        #expect(!page.text.contains(NotifyServicesE2ETests.routingKey), "the routing key is write-only")
        let list = try #require(try expectJSON(try hub.call("GET", "/api/channels", token: try hub.token()))["items"]?.arrayValue)
        let id = try #require(list.first?["id"]?.intValue)
        #expect(list.first?["config"]?["api_key"] == nil, "only the chosen type's fields are used")
        _ = try Pages.submit(b, "/notify/channels/\(id)/test", [])
        Pages.waitUntil("the test event") { pd.events.count == 1 }
        #expect(pd.events.first?.json["payload"]?["severity"] == "info")

        let bad = try Pages.submit(b, "/notify/channels", [("name", "x"), ("type", "matrix"), ("config.homeserver", "https://m.example.org"),
                                                          ("config.access_token", "t"), ("config.room_id", "#ops:m.example.org")])
        #expect(bad.status == 400 && bad.text.contains("config.room_id must be a room ID"), "\(bad.status)")
    }
}
