import Core
import Testing
import TestSupport

/// The notify page's form for SPEC §15: a `mobile` channel's Alarm
/// checkbox and the `message` event.
@Suite struct WebMessageChannelsTests {
    func channels(_ hub: HubProcess) throws -> [JSON] {
        try #require(try expectJSON(try hub.call("GET", "/api/channels", token: try hub.token()))["items"]?.arrayValue)
    }

    @Test func alarmCheckboxAndMessageEvent() throws {
        let hub = try HubProcess()
        let b = try Pages.signedIn(hub)
        let page = try b.get("/notify")
        #expect(page.text.contains("name=\"config.alarm\" type=\"checkbox\""))
        #expect(page.text.contains("value=\"message\""))
        let alarm = try Pages.submit(b, "/notify/channels", [("name", "Alarm"), ("type", "mobile"), ("events", "message"),
                                                             ("config.users", ""), ("config.alarm", "on")])
        #expect(alarm.status == 303)
        let plain = try Pages.submit(b, "/notify/channels", [("name", "Phones"), ("type", "mobile"), ("events", "monitor_down")])
        #expect(plain.status == 303)
        let all = try channels(hub)
        let a = try #require(all.first { $0["name"] == "Alarm" })
        #expect(a["config"]?["alarm"] == true && a["events"] == ["message"])
        #expect(all.first { $0["name"] == "Phones" }?["config"]?["alarm"] == false)
    }
}
