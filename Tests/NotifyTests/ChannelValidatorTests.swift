import Testing
import Core
import Notify
import Store

/// `ChannelValidator`: the API's channel bodies (SPEC §6), with the exact
/// field and message each invalid one is answered with.
@Suite struct ChannelValidatorTests {
    static let hook: JSON = ["url": "https://hooks.example/in", "secret": "s3cret"]

    static func create(_ body: JSON) throws -> ChannelRecord { try ChannelValidator.create(try JSONFields(body)) }

    /// The error a body is refused with, as (field, message).
    static func refusal(_ body: JSON, patching existing: ChannelRecord? = nil) throws -> (String, String) {
        let error = try #require(throws: JSONFieldError.self) {
            if let existing { _ = try ChannelValidator.patch(existing, with: try JSONFields(body)) } else { _ = try create(body) }
        }
        return (error.field, error.message)
    }

    @Test func aMinimalBodyGetsTheDefaults() throws {
        let r = try Self.create(["name": "Ops", "type": "webhook", "config": Self.hook])
        #expect(r.name == "Ops" && r.type == "webhook" && r.enabled)
        #expect(r.events == [.monitorDown, .monitorUp] && r.monitorIDs == [] && r.reminderMinutes == 0)
        #expect(r.config == Self.hook.objectValue)
    }

    @Test func everyFieldIsTakenAsGivenWithDuplicateEventsDropped() throws {
        let r = try Self.create(["name": "Pager", "type": "slack", "enabled": false,
                                 "events": ["expiry", "monitor_down", "expiry"], "monitor_ids": [3, 1],
                                 "reminder_minutes": 10_080, "config": ["webhook_url": "https://hooks.slack.com/services/x"]])
        #expect(!r.enabled && r.events == [.expiry, .monitorDown] && r.monitorIDs == [3, 1] && r.reminderMinutes == 10_080)
    }

    /// (body, field, message) of bodies the validator refuses.
    static let invalid: [(JSON, String, String)] = [
        (["type": "webhook", "config": hook], "name", "name must be 1 to 100 characters (400 bytes)."),
        (["name": "", "type": "webhook", "config": hook], "name", "name must be 1 to 100 characters (400 bytes)."),
        (["name": .string(String(repeating: "é", count: 101)), "type": "webhook", "config": hook], "name",
         "name must be 1 to 100 characters (400 bytes)."),
        (["name": 7, "type": "webhook", "config": hook], "name", "name must be a string, not a number."),
        (["name": "Ops", "type": "fax", "config": hook], "type",
         "type must be one of webhook, slack, discord, teams, mattermost, telegram, ntfy, email, mobile, pagerduty, opsgenie, "
         + "pushover, gotify, matrix, googlechat."),
        (["name": "Ops", "type": "webhook", "events": ["monitor_down", "monitor_sideways"], "config": hook], "events[1]",
         "events[1] must be one of monitor_down, monitor_up, monitor_degraded, expiry, agent_offline, agent_online, message."),
        (["name": "Ops", "type": "webhook", "events": "monitor_down", "config": hook], "events",
         "events must be an array, not a string."),
        (["name": "Ops", "type": "webhook", "monitor_ids": [4, 0], "config": hook], "monitor_ids[1]",
         "monitor_ids[1] must be a monitor id."),
        (["name": "Ops", "type": "webhook", "monitor_ids": 4, "config": hook], "monitor_ids",
         "monitor_ids must be an array of monitor ids."),
        (["name": "Ops", "type": "webhook", "reminder_minutes": 10_081, "config": hook], "reminder_minutes",
         "reminder_minutes must be between 0 and 10080."),
        (["name": "Ops", "type": "webhook"], "config", "config is required."),
        (["name": "Ops", "type": "webhook", "config": "https://hooks.example/in"], "config", "config must be an object."),
        (["name": "Ops", "type": "webhook", "config": ["secret": "s"]], "config.url", "config.url is required."),
        (["name": "Ops", "type": "webhook", "config": ["url": "ftp://hooks.example/in"]], "config.url",
         "config.url must be an http:// or https:// URL."),
    ]

    @Test(arguments: invalid)
    func invalidBodiesNameTheirField(body: JSON, field: String, message: String) throws {
        let (f, m) = try Self.refusal(body)
        #expect(f == field)
        #expect(m == message)
    }

    @Test func aPatchKeepsWhatItLeavesOutAndTheSecretsItSendsBackMasked() throws {
        var stored = try Self.create(["name": "Ops", "type": "webhook", "events": ["monitor_down"], "monitor_ids": [5],
                                      "reminder_minutes": 30, "config": Self.hook])
        stored.id = 42
        let renamed = try ChannelValidator.patch(stored, with: try JSONFields(["name": "Ops 2"]))
        #expect(renamed.id == 42 && renamed.name == "Ops 2" && renamed.events == [.monitorDown] && renamed.monitorIDs == [5])
        #expect(renamed.reminderMinutes == 30 && renamed.config == stored.config)

        let masked = try ChannelValidator.patch(stored, with: try JSONFields([
            "config": ["url": "https://hooks.example/other", "secret": .string(SecretMask.mask)], "monitor_ids": .null,
        ]))
        #expect(masked.config["url"] == "https://hooks.example/other" && masked.config["secret"] == "s3cret")
        #expect(masked.monitorIDs == [5], "null keeps the stored monitors")
    }

    @Test func aPatchToAnotherTypeNeedsThatTypesConfig() throws {
        let stored = try Self.create(["name": "Ops", "type": "webhook", "config": Self.hook])
        let (field, message) = try Self.refusal(["type": "slack"], patching: stored)
        #expect(field == "config" && message == "config is required.")
        let (urlField, urlMessage) = try Self.refusal(["type": "slack", "config": ["secret": .string(SecretMask.mask)]], patching: stored)
        #expect(urlField == "config.webhook_url" && urlMessage == "config.webhook_url is required.", "no stored secret crosses types")
    }
}
