import Testing
import Store
import TestSupport

/// Migration 0022_recurrence: a window's recurrence round-trips, `ends_at`
/// may be NULL (a series without end) and such a window is found by
/// `overlapping`, on both engines.
@Suite struct MaintenanceRecurrenceStoreTests {
    @Test(arguments: TestEngine.all) func recurrenceAndOpenEndRoundTrip(engine: TestEngine) throws {
        let dir = TempDir()
        let db = try engine.open(in: dir.path)
        let weekly = MaintenanceRecord.Recurrence(cron: "0 2 * * 0", timezone: "Europe/Berlin", durationMinutes: 120)
        let (series, once) = try db.write { c in
            (try MaintenanceWindows.insert(c, MaintenanceRecord(title: "patch night", monitorIDs: [], startsAt: 1_000, endsAt: nil,
                                                                createdBy: "a@example.com", recurrence: weekly), now: 5),
             try MaintenanceWindows.insert(c, MaintenanceRecord(title: "once", monitorIDs: [], startsAt: 1_000, endsAt: 2_000,
                                                                createdBy: nil), now: 5))
        }
        #expect(series.recurrence == weekly)
        #expect(series.endsAt == nil)
        #expect(once.recurrence == nil)
        #expect(once.endsAt == 2_000)
        let found = try db.read { c in try MaintenanceWindows.find(c, id: series.id) }
        #expect(found == series)
        // The open-ended series overlaps any later range; the one-off does not.
        let later = try db.read { c in try MaintenanceWindows.overlapping(c, from: 1_000_000_000, to: 1_000_000_100) }
        #expect(later.map(\.id) == [series.id])
        let early = try db.read { c in try MaintenanceWindows.overlapping(c, from: 0, to: 1_500) }
        #expect(Set(early.map(\.id)) == [series.id, once.id])

        // Update: the series gets an end and another rhythm; then becomes a one-off.
        var changed = series
        changed.endsAt = 9_000
        changed.recurrence = .init(cron: "30 1 * * *", timezone: "UTC", durationMinutes: 10_080)
        let updated = try db.write { c in try MaintenanceWindows.update(c, changed) }
        #expect(updated?.endsAt == 9_000)
        #expect(updated?.recurrence == changed.recurrence)
        changed.recurrence = nil
        let plain = try db.write { c in try MaintenanceWindows.update(c, changed) }
        #expect(plain?.recurrence == nil)
        #expect(try db.read { c in try MaintenanceWindows.overlapping(c, from: 1_000_000_000, to: 1_000_000_100) }.isEmpty)
        // The 0002 CHECK still holds for windows that have an end.
        #expect(throws: StoreError.self) {
            try db.write { c in
                try MaintenanceWindows.insert(c, MaintenanceRecord(title: "backwards", monitorIDs: [], startsAt: 10, endsAt: 5,
                                                                   createdBy: nil), now: 5)
            }
        }
        // SQLite: a second open of the file (new connections) reads the
        // edited table definition and still accepts a NULL end.
        if case .sqlite = engine {
            let again = try engine.open(in: dir.path)
            let more = try again.write { c in
                try MaintenanceWindows.insert(c, MaintenanceRecord(title: "again", monitorIDs: [1], startsAt: 1, endsAt: nil,
                                                                   createdBy: nil, recurrence: weekly), now: 5)
            }
            #expect(try again.read { c in try MaintenanceWindows.find(c, id: more.id) }?.endsAt == nil)
        }
    }
}
