import Config
import Core
import Testing

/// The file side of `pingtxt export` / `apply` (SPEC §13): API JSON to TOML
/// and back, references by key, `env:` placeholders, errors with file, line
/// and key.
@Suite struct ConfigAsCodeTests {
    /// What `GET /api/config` answers for a small hub.
    static let export: JSONObject = {
        let monitor: JSON = .object(JSONObject([
            ("id", .int(12)), ("key", .string("api")), ("name", .string("API \"prod\"")), ("type", .string("http")),
            ("target", .string("https://api.example.com/health")), ("interval", .int(60)), ("paused", .bool(false)),
            ("escalation_policy_id", .int(2)), ("depends_on", .array([.int(14)])), ("priority", .null),
            ("http", .object(JSONObject([("method", .string("GET")),
                                         ("headers", .object(JSONObject([("Authorization", .string("Bearer s3cret"))]))),
                                         ("json", .array([]))]))),
            ("status", .string("up")), ("last_check", .null), ("created_at", .string("2026-11-29T10:00:00Z")),
            ("secret_fields", .array([.string("http.headers.Authorization")])),
        ]))
        let db: JSON = .object(JSONObject([("id", .int(14)), ("key", .string("db")), ("name", .string("DB")), ("type", .string("tcp")),
                                          ("depends_on", .array([])), ("escalation_policy_id", .null)]))
        let channel: JSON = .object(JSONObject([
            ("id", .int(3)), ("key", .string("ops-slack")), ("name", .string("Ops")), ("type", .string("slack")),
            ("monitor_ids", .array([.int(14), .int(12)])),
            ("config", .object(JSONObject([("webhook_url", .string("https://hooks.slack.com/services/T/B/X"))]))),
            ("delivery", .object(JSONObject([("sent", .int(4))]))), ("secret_fields", .array([.string("config.webhook_url")])),
        ]))
        let policy: JSON = .object(JSONObject([
            ("id", .int(2)), ("key", .string("ops")), ("name", .string("Ops")), ("repeat", .int(1)),
            ("steps", .array([.object(JSONObject([("channel_ids", .array([.int(3)])), ("delay_minutes", .int(10))]))])),
        ]))
        return JSONObject([("monitors", .array([monitor, db])), ("channels", .array([channel])),
                           ("escalation_policies", .array([policy])), ("maintenance", .array([])), ("status_pages", .array([]))])
    }()

    @Test func exportWritesKeysForIdsAndLeavesOutTheHubsOwnFields() throws {
        let text = try ConfigExport.document(Self.export, redact: false)
        #expect(text.contains("[[monitors]]\nkey = \"api\"\nname = \"API \\\"prod\\\"\""))
        #expect(text.contains("escalation_policy = \"ops\""))
        #expect(text.contains("depends_on = [\"db\"]"))
        #expect(text.contains("monitors = [\"api\", \"db\"]"), "references sorted by key")
        #expect(text.contains("[[escalation_policies.steps]]\nchannels = [\"ops-slack\"]"))
        #expect(text.contains("Authorization = \"Bearer s3cret\""))
        for hidden in ["status =", "last_check", "created_at", "delivery", "secret_fields", "id =", "priority"] {
            #expect(!text.contains(hidden), "\(hidden) is not written")
        }
        // Sorted by key: "api" before "db" whatever the ids.
        let api = try #require(text.firstRange(of: "key = \"api\""))
        let db = try #require(text.firstRange(of: "key = \"db\""))
        #expect(api.lowerBound < db.lowerBound)
    }

    @Test func redactWritesPlaceholdersThatApplyReadsFromTheEnvironment() throws {
        let text = try ConfigExport.document(Self.export, redact: true)
        #expect(text.contains("webhook_url = \"env:CHANNEL_OPS_SLACK_WEBHOOK_URL\""))
        #expect(text.contains("Authorization = \"env:MONITOR_API_AUTHORIZATION\""))
        #expect(!text.contains("s3cret") && !text.contains("services/T/B/X"))

        let file = try ConfigDocument.parse(text, name: "hub.toml")
        let channel = try #require(file.items(.channels).first)
        let ids: [ConfigSection: [String: Int64]] = [.monitors: ["api": 7, "db": 5]]
        let env = ["CHANNEL_OPS_SLACK_WEBHOOK_URL": "https://hooks.slack.com/services/new", "MONITOR_API_AUTHORIZATION": "Bearer x"]
        let (body, pending) = try file.body(channel, ids: ids, environment: env)
        #expect(!pending)
        #expect(body["config"]?["webhook_url"]?.stringValue == "https://hooks.slack.com/services/new")
        #expect(body["monitor_ids"] == .array([.int(5), .int(7)]), "keys to ids, sorted")
        #expect(body["key"] == nil)

        do {
            _ = try file.body(channel, ids: ids, environment: [:])
            Issue.record("a missing variable was accepted")
        } catch {
            let line = try #require(text.split(separator: "\n", omittingEmptySubsequences: false)
                .firstIndex { $0.contains("env:CHANNEL_OPS_SLACK_WEBHOOK_URL") }) + 1
            #expect(error.description == "hub.toml:\(line): channel \"ops-slack\": config.webhook_url: the environment variable CHANNEL_OPS_SLACK_WEBHOOK_URL is not set")
        }
    }

    @Test func referencesToObjectsStillToBeCreatedArePending() throws {
        let file = try ConfigDocument.parse(try ConfigExport.document(Self.export, redact: false), name: "f.toml")
        let api = try #require(file.items(.monitors).first { $0.key == "api" })
        let (body, pending) = try file.body(api, ids: [:], environment: [:])
        #expect(pending, "db and ops are in the file but not on the hub")
        #expect(body["depends_on"] == .array([]))
        #expect(body["escalation_policy_id"] == .null)
        let (full, none) = try file.body(api, ids: [.monitors: ["db": 9], .escalationPolicies: ["ops": 4]], environment: [:])
        #expect(!none && full["depends_on"] == .array([.int(9)]) && full["escalation_policy_id"] == .int(4))
    }

    @Test func errorsNameFileLineAndKey() throws {
        let text = """
            [[monitors]]
            key = "api"
            name = "API"
            type = "http"

            [monitors.http]
            method = "GET"

            [[monitors]]
            key = "web"
            name = "Web"
            depends_on = ["nope"]
            interval = 5

            [[escalation_policies]]
            key = "ops"
            name = "Ops"

            [[escalation_policies.steps]]
            channels = ["ops-slack"]
            delay_minutes = 1

            """
        let file = try ConfigDocument.parse(text, name: "monitors.toml")
        let web = try #require(file.items(.monitors).last)
        #expect(file.error(web, field: "interval", "interval: must be 10 to 86400").description
                == "monitors.toml:13: monitor \"web\": interval: must be 10 to 86400")
        let api = try #require(file.items(.monitors).first)
        #expect(file.line(api, field: "http.method") == 7)
        #expect(file.line(api, field: "http.body") == 6, "a field not in the file: its table's line")
        let ops = try #require(file.items(.escalationPolicies).first)
        #expect(file.line(ops, field: "steps[0].channel_ids") == 20)
        do {
            _ = try file.body(web, ids: [:], environment: [:])
            Issue.record("an unknown key was accepted")
        } catch {
            #expect(error.description.hasPrefix("monitors.toml:12: monitor \"web\": depends_on: no monitor has the key \"nope\""), "\(error)")
        }

        let cases: [(String, String)] = [
            ("[[monitors]]\nname = \"x\"\n", "monitors.toml:1: every [[monitors]] needs a key"),
            ("[[monitors]]\nkey = \"Bad Key\"\n", "monitors.toml:2: monitor \"Bad Key\": key must be"),
            ("[[monitors]]\nkey = \"a\"\n\n[[monitors]]\nkey = \"a\"\n", "monitors.toml:5: monitor \"a\": the key is used twice (first at line 1)"),
            ("[[widgets]]\nkey = \"a\"\n", "monitors.toml:1: unknown section \"widgets\""),
            ("[[monitors]]\nkey = \"a\"\ninterval = = 3\n", "monitors.toml:3: "),
        ]
        for (bad, expected) in cases {
            do {
                _ = try ConfigDocument.parse(bad, name: "monitors.toml")
                Issue.record("accepted: \(bad)")
            } catch {
                #expect(error.description.hasPrefix(expected), "\(error)")
            }
        }
    }
}
