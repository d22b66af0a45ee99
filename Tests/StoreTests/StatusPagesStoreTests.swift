import Testing
import Store
import TestSupport

/// `status_pages` (migration 0010_status_pages).
@Suite struct StatusPagesStoreTests {
    private func fresh(_ engine: TestEngine) throws -> (TempDir, Database) {
        let dir = TempDir()
        return (dir, try engine.open(in: dir.path))
    }

    @Test(arguments: TestEngine.all) func insertFindListUpdateDelete(engine: TestEngine) throws {
        let (dir, db) = try fresh(engine)
        _ = dir
        let a = try db.write { c in
            try StatusPages.insert(c, StatusPageRecord(slug: "acme", title: "Acme", description: "", monitorIDs: [3, 1]), now: 100)
        }
        #expect(a.id > 0 && a.createdAt == 100 && a.updatedAt == 100)
        #expect(a.slug == "acme" && a.title == "Acme" && a.monitorIDs == [3, 1])
        let b = try db.write { c in
            try StatusPages.insert(c, StatusPageRecord(slug: "internal", title: "Internal", description: "d", monitorIDs: []), now: 101)
        }
        try db.read { c throws in
            #expect(try StatusPages.find(c, id: a.id) == a)
            #expect(try StatusPages.find(c, slug: "internal") == b)
            #expect(try StatusPages.find(c, slug: "nope") == nil)
            #expect(try StatusPages.list(c, afterID: nil, limit: 10).map(\.id) == [a.id, b.id])
            #expect(try StatusPages.list(c, afterID: a.id, limit: 10).map(\.id) == [b.id])
            #expect(try StatusPages.list(c, afterID: nil, limit: 1).map(\.id) == [a.id])
        }

        var changed = a
        changed.title = "Acme Inc."
        changed.monitorIDs = [1]
        let updated = try #require(try db.write { c in try StatusPages.update(c, changed, now: 200) })
        #expect(updated.title == "Acme Inc." && updated.monitorIDs == [1])
        #expect(updated.createdAt == 100 && updated.updatedAt == 200, "created_at is kept")

        var gone = a
        gone.id = 999
        #expect(try db.write { c in try StatusPages.update(c, gone, now: 200) } == nil)
        #expect(try db.write { c in try StatusPages.delete(c, id: b.id) })
        #expect(try db.write { c in try StatusPages.delete(c, id: b.id) } == false)
        #expect(try db.read { c in try StatusPages.find(c, id: b.id) } == nil)
    }

    @Test(arguments: TestEngine.all) func slugsAreUnique(engine: TestEngine) throws {
        let (dir, db) = try fresh(engine)
        _ = dir
        let page = StatusPageRecord(slug: "acme", title: "Acme", description: "", monitorIDs: [])
        let first = try db.write { c in try StatusPages.insert(c, page, now: 1) }
        do {
            _ = try db.write { c in try StatusPages.insert(c, page, now: 2) }
            Issue.record("a taken slug must be refused")
        } catch let e as StoreError {
            #expect(e.isUniqueViolation)
        }
        // Renaming another page onto a taken slug is refused the same way.
        var other = try db.write { c in
            try StatusPages.insert(c, StatusPageRecord(slug: "other", title: "O", description: "", monitorIDs: []), now: 3)
        }
        other.slug = first.slug
        do {
            _ = try db.write { c in try StatusPages.update(c, other, now: 4) }
            Issue.record("a taken slug must be refused on update")
        } catch let e as StoreError {
            #expect(e.isUniqueViolation)
        }
    }

    /// The narrow read behind public pages gives the same values as the
    /// full record, and skips ids that do not exist.
    @Test(arguments: TestEngine.all) func publicMonitorRowsMatchTheFullRecords(engine: TestEngine) throws {
        let (dir, db) = try fresh(engine)
        _ = dir
        let ids = try db.write { c in
            var paused = MonitorRecord(name: "Paused API", type: "http", target: "https://api.example.com/", interval: 60,
                                       timeout: 10, retries: 0)
            paused.paused = true
            let beat = MonitorRecord(name: "Nightly job", type: "heartbeat", target: nil, interval: 3600, timeout: 10, retries: 0)
            return [try Monitors.insert(c, paused, now: 5).id, try Monitors.insert(c, beat, now: 6).id]
        }
        try db.read { c throws in
            let rows = try BatchReads.publicMonitors(c, ids: ids + [999_999])
            #expect(rows.count == 2)
            for id in ids {
                let full = try #require(try Monitors.find(c, id: id))
                let row = try #require(rows[id])
                #expect(row.id == full.id && row.name == full.name && row.target == full.target)
                #expect(row.status == full.status && row.statusSince == full.statusSince && row.paused == full.paused)
            }
            #expect(rows[ids[0]]?.paused == true && rows[ids[1]]?.target == nil)
        }
    }
}
