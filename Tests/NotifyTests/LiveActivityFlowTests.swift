import Testing
import Core
import Monitoring
import Notify
import Store
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The Live Activity follows real incidents (recorder → notifier → push
/// service → outbox → fake relay): start to the push-to-start token, update
/// to the activity's token once the phone reports it, end when all is up.
@Suite(.serialized) struct LiveActivityFlowTests {
    @Test(arguments: TestEngine.all) func startUpdateEnd(engine: TestEngine) throws {
        let f = try PushDeliveryTests.Fixture(engine)
        try f.enablePush()
        _ = try f.channel()
        let phone = try f.enroll("tok-alerts", startToken: "tok-start")
        let recorder = ResultRecorder(hubLocation: "hub", calendar: MaintenanceCalendar(database: f.db), sink: f.notify.notifier)
        func monitor(_ name: String) throws -> Int64 {
            var config = MonitorConfig(name: name, type: .tcp, target: "127.0.0.1:9")
            config.retries = 0
            var record = MonitorRecord(name: name, type: "tcp", target: "127.0.0.1:9", interval: 60, timeout: 10, retries: 0)
            config.write(into: &record)
            return try f.db.write { try Monitors.insert($0, record, now: 1_000) }.id
        }
        func result(_ id: Int64, _ outcome: CheckOutcome, at: Int64) throws {
            try f.db.write { c in
                _ = try recorder.apply(.result(CheckResult(at: at, outcome: outcome, latencyMs: 20, error: outcome == .down ? "timeout" : nil)),
                                       monitorID: id, on: c)
            }
        }
        func liveActivity() -> [FakePushRelay.Message] { f.relay.delivered.filter { $0.kind == "liveactivity" } }
        let now = Time.now()
        let api = try monitor("API"), db = try monitor("DB")
        try result(api, .up, at: now - 50)
        try result(db, .up, at: now - 50)
        #expect(liveActivity().isEmpty)

        try result(api, .down, at: now - 40)
        #expect(f.eventually { liveActivity().count == 1 })
        let start = liveActivity()[0]
        #expect(start.token == "tok-start" && start.aps["event"]?.stringValue == "start")
        #expect(start.aps["content-state"]?["down"]?.arrayValue?.first?["name"]?.stringValue == "API")
        #expect(start.aps["content-state"]?["down_count"]?.intValue == 1)
        #expect(start.payload["hub_id"]?.stringValue == f.notify.push.settings.hubID)

        // The phone reports the activity it started: it gets the current state.
        try f.db.write { c in try MobileDevices.setActivity(c, id: phone.id, activityID: "act-1", token: "tok-activity", now: now) }
        try f.notify.push.liveActivityReported(deviceID: phone.id)
        #expect(f.eventually { liveActivity().count == 2 })

        try result(db, .down, at: now - 30)
        #expect(f.eventually { liveActivity().count == 3 })
        let grew = liveActivity()[2]
        #expect(grew.token == "tok-activity" && grew.aps["event"]?.stringValue == "update")
        #expect(grew.aps["content-state"]?["down_count"]?.intValue == 2)
        #expect(grew.aps["content-state"]?["down"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["API", "DB"])
        #expect(grew.aps["alert"] != nil)

        try result(api, .up, at: now - 20)
        #expect(f.eventually { liveActivity().count == 4 })
        #expect(liveActivity()[3].aps["content-state"]?["down_count"]?.intValue == 1)
        try result(db, .up, at: now - 10)
        #expect(f.eventually { liveActivity().count == 5 })
        let end = liveActivity()[4]
        #expect(end.token == "tok-activity" && end.aps["event"]?.stringValue == "end")
        #expect(end.aps["content-state"]?["down_count"]?.intValue == 0)
        #expect(end.aps["dismissal-date"]?.intValue != nil)

        let stamps = liveActivity().compactMap { $0.aps["timestamp"]?.intValue }
        #expect(stamps.count == 5 && zip(stamps, stamps.dropFirst()).allSatisfy { $0 < $1 })
        #expect(Set(liveActivity().map(\.id)).count == 5)
        // Nothing more once it ended; the phone's activity is forgotten.
        #expect(try f.db.read { c in try MobileDevices.find(c, id: phone.id)?.liveActivityToken } == nil)
    }
}
