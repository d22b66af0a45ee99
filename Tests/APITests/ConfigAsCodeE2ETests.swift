import Core
import Testing
import TestSupport

/// Configuration as code through the real binary (SPEC §13): `pingtxt
/// export` from one hub, `pingtxt apply` to an empty one, export again: the
/// two files are byte-equal, a second apply changes nothing, and a bad
/// file's error names file, line and key. On SQLite and PostgreSQL.
@Suite struct ConfigAsCodeE2ETests {
    struct Hub {
        let process: HubProcess
        let token: String
        var url: String { "http://127.0.0.1:\(process.port)" }

        init(engine: TestEngine) throws {
            process = try HubProcess(engine: engine)
            token = try process.token()
        }

        func cli(_ args: [String], env: [String: String] = [:]) throws -> Subprocess.Output {
            var e = env
            e["PINGTXT_TOKEN"] = token
            return try process.sandbox.cli(args + ["--url", url], environment: e)
        }

        @discardableResult
        func post(_ path: String, _ body: JSON, status: Int = 201) throws -> JSON {
            try expectJSON(try process.call("POST", path, token: token, json: body), status)
        }

        func get(_ path: String) throws -> JSON { try expectJSON(try process.call("GET", path, token: token)) }
    }

    /// A hub with one of everything, made through the API, most without keys.
    func seed(_ hub: Hub) throws {
        let hook = try hub.post("/api/channels", ["name": "Ops Hook", "type": "webhook",
                                                 "config": ["url": "http://127.0.0.1:9/hook", "secret": "s3cret \"quoted\""]])
        try hub.post("/api/channels", ["name": "Phones", "type": "mobile", "config": ["users": []]])
        let policy = try hub.post("/api/escalation-policies", ["name": "Ops on call", "repeat": 1,
                                                              "steps": [["channel_ids": [hook["id"]!], "delay_minutes": 10]]])
        let db = try hub.post("/api/monitors", ["key": "db", "name": "Database", "type": "tcp", "target": "127.0.0.1:9", "paused": true])
        let api = try hub.post("/api/monitors", [
            "name": "API health", "type": "http", "target": "http://127.0.0.1:9/health", "paused": true, "interval": 120,
            "tags": ["prod", "eu"], "depends_on": [db["id"]!], "escalation_policy_id": policy["id"]!,
            "http": ["headers": ["Authorization": "Bearer tok\\en", "Accept": "application/json"],
                     "json": [["path": "$.status", "op": "==", "value": "ok"]]],
        ])
        try hub.post("/api/monitors", ["name": "Nightly backup", "type": "heartbeat", "heartbeat": ["period": 86400, "grace": 3600]])
        // A channel naming a monitor: a reference in the other direction.
        _ = try expectJSON(try hub.process.call("PATCH", "/api/channels/\(hook["id"]!.intValue!)", token: hub.token,
                                                json: ["monitor_ids": [api["id"]!]]))
        try hub.post("/api/maintenance", ["title": "DB upgrade", "monitor_ids": [db["id"]!],
                                          "starts_at": "2030-01-01T02:00:00Z", "ends_at": "2030-01-01T03:00:00Z"])
        try hub.post("/api/status-pages", ["slug": "acme", "title": "Acme status", "description": "Public",
                                           "monitor_ids": [api["id"]!, db["id"]!]])
    }

    static let objects = 8

    @Test(arguments: TestEngine.all) func exportApplyExportIsByteEqualAndASecondApplyChangesNothing(engine: TestEngine) throws {
        let a = try Hub(engine: engine)
        try seed(a)
        let exported = try a.cli(["export", "--out", a.process.sandbox.path("a.toml")])
        try #require(exported.status == .exited(0), "\(exported.stderr)")
        let first = Sandbox.readFile(a.process.sandbox.path("a.toml"))
        // Export gave every object a key made from its name; the hub shows them.
        let monitors = try a.get("/api/monitors")["items"]?.arrayValue ?? []
        #expect(Set(monitors.compactMap { $0["key"]?.stringValue }) == ["db", "api-health", "nightly-backup"])
        #expect(first.contains("[[channels]]\nkey = \"ops-hook\""), "\(first)")
        #expect(first.contains("secret = \"s3cret \\\"quoted\\\"\""), "secrets are written without --redact:\n\(first)")
        #expect(first.contains("escalation_policy = \"ops-on-call\""), "\(first)")
        #expect(first.contains("depends_on = [\"db\"]"), "\(first)")
        #expect(first.contains("[[escalation_policies.steps]]\nchannels = [\"ops-hook\"]"), "\(first)")

        let b = try Hub(engine: engine)
        let file = b.process.sandbox.path("a.toml")
        _ = try b.process.sandbox.writeFile("a.toml", "\(first)")
        let applied = try b.cli(["apply", file])
        try #require(applied.status == .exited(0), "\(applied.stderr)")
        let lines = applied.stdout.split(separator: "\n").map(String.init)
        #expect(lines.last == "create \(Self.objects), update 0, delete 0, unchanged 0", "\(applied.stdout)")
        #expect(lines.contains("create monitor \"api-health\"") && lines.contains("create channel \"ops-hook\""), "\(applied.stdout)")

        let again = try b.cli(["export", "--out", b.process.sandbox.path("b.toml")])
        try #require(again.status == .exited(0), "\(again.stderr)")
        let second = Sandbox.readFile(b.process.sandbox.path("b.toml"))
        #expect(second == first, "export → apply → export gives the same bytes")

        let twice = try b.cli(["apply", file])
        #expect(twice.status == .exited(0), "\(twice.stderr)")
        #expect(twice.stdout == "create 0, update 0, delete 0, unchanged \(Self.objects)\n")

        // The secret arrived: the revealed config of b's channel has it.
        let config = try b.get("/api/config?secrets=reveal")
        let hook = try #require(config["channels"]?.arrayValue?.first { $0["key"]?.stringValue == "ops-hook" })
        #expect(hook["config"]?["secret"]?.stringValue == "s3cret \"quoted\"")
        #expect(hook["secret_fields"] == .array([.string("config.secret")]))
        let api = try #require(config["monitors"]?.arrayValue?.first { $0["key"]?.stringValue == "api-health" })
        #expect(api["http"]?["headers"]?["Authorization"]?.stringValue == "Bearer tok\\en")
        #expect(api["depends_on"]?.arrayValue?.count == 1 && api["escalation_policy_id"]?.intValue != nil)
    }

    @Test func dryRunPruneAndRedact() throws {
        let a = try Hub(engine: .sqlite)
        try seed(a)
        let redacted = try a.cli(["export", "--redact"])
        try #require(redacted.status == .exited(0), "\(redacted.stderr)")
        #expect(redacted.stdout.contains("secret = \"env:CHANNEL_OPS_HOOK_SECRET\""), "\(redacted.stdout)")
        #expect(redacted.stdout.contains("Authorization = \"env:MONITOR_API_HEALTH_AUTHORIZATION\""), "\(redacted.stdout)")
        #expect(!redacted.stdout.contains("s3cret"))

        // Without the variables, apply refuses before changing anything.
        let path = try a.process.sandbox.writeFile("r.toml", "\(redacted.stdout)")
        let missing = try a.cli(["apply", path])
        #expect(missing.status == .exited(1))
        #expect(missing.stderr.contains("pingtxt: r.toml:") && missing.stderr.contains("_AUTHORIZATION is not set"), "\(missing.stderr)")
        let env = ["CHANNEL_OPS_HOOK_SECRET": "s3cret \"quoted\"", "MONITOR_API_HEALTH_AUTHORIZATION": "Bearer tok\\en"]
        let same = try a.cli(["apply", path], env: env)
        #expect(same.stdout == "create 0, update 0, delete 0, unchanged \(Self.objects)\n", "\(same.stdout)\(same.stderr)")

        // A change under --dry-run is planned, not made.
        let edited = redacted.stdout.replacingFirst("interval = 120", with: "interval = 300")
        let editedPath = try a.process.sandbox.writeFile("e.toml", edited)
        let dry = try a.cli(["apply", editedPath, "--dry-run"], env: env)
        #expect(dry.stdout == "update monitor \"api-health\"\ncreate 0, update 1, delete 0, unchanged \(Self.objects - 1)\n",
                "\(dry.stdout)\(dry.stderr)")
        let api = try #require(try a.get("/api/monitors")["items"]?.arrayValue?.first { $0["key"]?.stringValue == "api-health" })
        #expect(api["interval"]?.intValue == 120, "--dry-run changed nothing")
        let real = try a.cli(["apply", editedPath], env: env)
        #expect(real.stdout.hasSuffix("create 0, update 1, delete 0, unchanged \(Self.objects - 1)\n"), "\(real.stdout)")
        #expect(try a.get("/api/monitors/\(api["id"]!.intValue!)")["interval"]?.intValue == 300)

        // --prune deletes keyed objects the file does not name; objects without a key stay.
        try a.post("/api/monitors", ["name": "Hand made", "type": "tcp", "target": "127.0.0.1:9", "paused": true])
        let only = "[[monitors]]\nkey = \"db\"\nname = \"Database\"\ntype = \"tcp\"\ntarget = \"127.0.0.1:9\"\npaused = true\n"
        let onlyPath = try a.process.sandbox.writeFile("only.toml", only)
        let pruned = try a.cli(["apply", onlyPath, "--prune"])
        #expect(pruned.status == .exited(0), "\(pruned.stderr)")
        #expect(pruned.stdout.contains("delete monitor \"api-health\"\n") && pruned.stdout.contains("delete channel \"ops-hook\"\n"),
                "\(pruned.stdout)")
        let left = try a.get("/api/monitors")["items"]?.arrayValue ?? []
        #expect(Set(left.compactMap { $0["name"]?.stringValue }) == ["Database", "Hand made"])
        #expect(try a.get("/api/channels")["items"]?.arrayValue?.isEmpty == true)
    }

    @Test func aBadFileNamesFileLineAndKeyAndChangesNothing() throws {
        let hub = try Hub(engine: .sqlite)
        let text = """
            [[monitors]]
            key = "web"
            name = "Web"
            type = "http"
            target = "http://127.0.0.1:9/"

            [[monitors]]
            key = "api"
            name = "API"
            type = "tcp"
            target = "127.0.0.1:9"
            interval = 5

            """
        let path = try hub.process.sandbox.writeFile("monitors.toml", text)
        let out = try hub.cli(["apply", path])
        #expect(out.status == .exited(1))
        #expect(out.stderr == "pingtxt: monitors.toml:12: monitor \"api\": interval: must be between 10 and 86400.\n", "\(out.stderr)")
        #expect(out.stdout.isEmpty)
        #expect(try hub.get("/api/monitors")["items"]?.arrayValue?.isEmpty == true, "nothing was created")

        let unknown = try hub.process.sandbox.writeFile("refs.toml", "[[status_pages]]\nkey = \"p\"\nslug = \"p\"\ntitle = \"P\"\nmonitors = [\"ghost\"]\n")
        let ref = try hub.cli(["apply", unknown])
        #expect(ref.stderr.contains("refs.toml:5: status_page \"p\": monitors: no monitor has the key \"ghost\""), "\(ref.stderr)")
    }
}

extension String {
    func replacingFirst(_ a: String, with b: String) -> String {
        guard let r = firstRange(of: a) else { return self }
        var s = self
        s.replaceSubrange(r, with: b)
        return s
    }
}
