import Testing
import Core
import Store
import TestSupport

/// The JSON-in-TEXT columns are decoded when a record is read: typed values
/// go in, the same values come back, and a value written behind the Store's
/// back (raw SQL here) makes the read throw an error that names table,
/// column and row, instead of reading as an empty list.
@Suite struct JSONColumnTests {
    private func fresh(_ engine: TestEngine) throws -> (TempDir, Database) {
        let dir = TempDir()
        return (dir, try engine.open(in: dir.path))
    }

    /// Overwrites one column with raw SQL, then expects `read` to throw a
    /// StoreError whose message names `table.column` and the row id.
    private func expectCorrupt<T>(_ db: Database, _ table: String, _ column: String, id: Int64, value: String,
                                  saying detail: String, _ read: (Connection) throws -> T) throws {
        try db.write { c in try c.execute("UPDATE \(table) SET \(column) = ? WHERE id = ?", [.text(value), .integer(id)]) }
        let error = try #require(throws: StoreError.self) { try db.read { c in try read(c) } }
        #expect(error.message.contains("\(table).\(column) of row id \(id)"), "\(error.message)")
        #expect(error.message.contains(detail), "\(error.message)")
    }

    private func monitor(_ db: Database) throws -> MonitorRecord {
        var m = MonitorRecord(name: "api", type: "http", target: "https://example.com/", interval: 60, timeout: 10, retries: 0)
        m.locations = ["hub", "eu-west"]
        m.settings = JSONObject([("http", ["method": "GET"])])
        return try db.write { c in try Monitors.insert(c, m, now: 1) }
    }

    @Test(arguments: TestEngine.all) func typedValuesRoundTripAsCompactJSON(engine: TestEngine) throws {
        let (dir, db) = try fresh(engine)
        _ = dir
        let m = try monitor(db)
        #expect(m.locations == ["hub", "eu-west"] && m.settings["http"]?["method"] == "GET")
        let ch = try db.write { c in
            try Channels.insert(c, ChannelRecord(name: "Ops", type: "webhook", enabled: true, events: [.monitorDown, .expiry],
                                                 monitorIDs: [m.id, 7], reminderMinutes: 0,
                                                 config: JSONObject([("url", "http://x/"), ("headers", ["A": "b"])])), now: 2)
        }
        try db.read { c throws in
            let back = try #require(try Channels.find(c, id: ch.id))
            #expect(back == ch && back.events == [.monitorDown, .expiry] && back.monitorIDs == [m.id, 7])
            #expect(back.config.keys == ["url", "headers"], "key order is kept")
            #expect(try c.scalar("SELECT events FROM channels WHERE id = ?", [.integer(ch.id)]) == .text(#"["monitor_down","expiry"]"#))
            #expect(try c.scalar("SELECT monitor_ids FROM channels WHERE id = ?", [.integer(ch.id)]) == .text("[\(m.id),7]"))
            #expect(try c.scalar("SELECT locations FROM monitors WHERE id = ?", [.integer(m.id)]) == .text(#"["hub","eu-west"]"#))
        }
    }

    @Test(arguments: TestEngine.all) func corruptChannelColumnsAreReported(engine: TestEngine) throws {
        let (dir, db) = try fresh(engine)
        _ = dir
        let ch = try db.write { c in
            try Channels.insert(c, ChannelRecord(name: "Ops", type: "webhook", enabled: true, events: [.monitorDown], monitorIDs: [],
                                                 reminderMinutes: 0, config: JSONObject([("url", "http://x/")])), now: 1)
        }
        try expectCorrupt(db, "channels", "config", id: ch.id, value: #"{"url":"#, saying: "does not parse") { c in
            try Channels.find(c, id: ch.id)
        }
        try expectCorrupt(db, "channels", "config", id: ch.id, value: "[]", saying: "is an array, expected an object") { c in
            try Channels.all(c)
        }
        try db.write { c in try c.execute("UPDATE channels SET config = '{}' WHERE id = ?", [.integer(ch.id)]) }
        try expectCorrupt(db, "channels", "events", id: ch.id, value: #"["monitor_down","monitor_sideways"]"#,
                          saying: #"is not an array of event kinds (item 1 is "monitor_sideways")"#) { c in
            try Channels.find(c, id: ch.id)
        }
        try db.write { c in try c.execute(#"UPDATE channels SET events = '["monitor_up"]' WHERE id = ?"#, [.integer(ch.id)]) }
        // The case an empty-list fallback got wrong: this is not "every monitor".
        try expectCorrupt(db, "channels", "monitor_ids", id: ch.id, value: "", saying: "does not parse") { c in
            try Channels.all(c)
        }
    }

    @Test(arguments: TestEngine.all) func corruptMonitorIDListsAreReported(engine: TestEngine) throws {
        let (dir, db) = try fresh(engine)
        _ = dir
        let w = try db.write { c in
            try MaintenanceWindows.insert(c, MaintenanceRecord(title: "deploy", monitorIDs: [1], startsAt: 10, endsAt: 20, createdBy: nil),
                                          now: 1)
        }
        #expect(w.monitorIDs == [1])
        try expectCorrupt(db, "maintenance_windows", "monitor_ids", id: w.id, value: #"{"ids":[1]}"#,
                          saying: "is an object, expected an array of integers") { c in
            try MaintenanceWindows.overlapping(c, from: 0, to: 100)
        }
        let p = try db.write { c in
            try StatusPages.insert(c, StatusPageRecord(slug: "acme", title: "Acme", description: "", monitorIDs: [3, 1]), now: 1)
        }
        try expectCorrupt(db, "status_pages", "monitor_ids", id: p.id, value: #"[3,"1"]"#,
                          saying: #"is not an array of integers (item 1 is "1")"#) { c in
            try StatusPages.find(c, slug: "acme")
        }
    }

    @Test(arguments: TestEngine.all) func corruptLocationsAndSettingsAreReported(engine: TestEngine) throws {
        let (dir, db) = try fresh(engine)
        _ = dir
        let m = try monitor(db)
        let incident = try db.write { c in
            try Incidents.open(c, monitorID: m.id, kind: "down", cause: "HTTP 503", locations: ["hub"], at: 5)
        }
        #expect(incident.locations == ["hub"])
        try expectCorrupt(db, "incidents", "locations", id: incident.id, value: "[hub]", saying: "does not parse") { c in
            try Incidents.openFor(c, monitorID: m.id)
        }
        let eventID = try db.write { c in
            try Events.insert(c, EventRecord(kind: "monitor_down", monitorID: m.id, incidentID: nil, at: 5, cause: "HTTP 503",
                                             locations: ["hub"], suppressed: false))
        }
        try expectCorrupt(db, "events", "locations", id: eventID, value: "[1]", saying: "is not an array of strings (item 0 is 1)") { c in
            try Events.list(c, monitorID: m.id, afterID: 0, limit: 10)
        }
        try expectCorrupt(db, "monitors", "settings", id: m.id, value: "null", saying: "is null, expected an object") { c in
            try Monitors.find(c, id: m.id)
        }
    }
}
