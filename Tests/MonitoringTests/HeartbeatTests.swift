import Store
import Testing
@testable import Monitoring

/// 2027-01-15T08:00:00Z, on the hour.
private let c: Int64 = 1_800_000_000
private let everyFiveMinutes = HeartbeatSchedule.period(seconds: 300, grace: 60)
/// Every hour on the hour.
private let hourly = HeartbeatSchedule.cron(next: { ($0 / 3600 + 1) * 3600 }, grace: 300)

/// One row of the period table: the pings (offsets from creation) and `now`.
struct PeriodCase: Sendable, CustomTestStringConvertible {
    var name: String
    var success: Int64? = nil
    var start: Int64? = nil
    var failure: (at: Int64, exitCode: Int?)? = nil
    var now: Int64
    var expected: HeartbeatVerdict
    var testDescription: String { name }
}

private func verdict(_ outcome: CheckOutcome?, _ cause: String? = nil, deadline: Int64? = nil) -> HeartbeatVerdict {
    HeartbeatVerdict(outcome: outcome, cause: cause, nextDeadline: deadline.map { c + $0 })
}

private let late6m = "no ping for 6m (period 5m + grace 1m)"

private let periodCases: [PeriodCase] = [
    PeriodCase(name: "never pinged, early", now: 100, expected: verdict(nil, deadline: 360)),
    PeriodCase(name: "never pinged, last second", now: 359, expected: verdict(nil, deadline: 360)),
    PeriodCase(name: "never pinged, late", now: 360, expected: verdict(.down, late6m)),
    PeriodCase(name: "never pinged, much later", now: 3600 + 120,
               expected: verdict(.down, "no ping for 1h 2m (period 5m + grace 1m)")),
    PeriodCase(name: "on time", success: 200, now: 500, expected: verdict(.up, deadline: 560)),
    PeriodCase(name: "in grace", success: 200, now: 530, expected: verdict(.up, deadline: 560)),
    PeriodCase(name: "late", success: 200, now: 560, expected: verdict(.down, late6m)),
    PeriodCase(name: "failure ping", success: 200, failure: (300, nil), now: 301, expected: verdict(.down, "failure ping")),
    PeriodCase(name: "exit code 3", success: 200, failure: (300, 3), now: 301, expected: verdict(.down, "exit code 3")),
    PeriodCase(name: "failure ping, never a success", failure: (10, nil), now: 11, expected: verdict(.down, "failure ping")),
    PeriodCase(name: "old failure", success: 200, failure: (100, 1), now: 250, expected: verdict(.up, deadline: 560)),
    PeriodCase(name: "failure and success in the same second", success: 200, failure: (200, 1), now: 250,
               expected: verdict(.up, deadline: 560)),
    PeriodCase(name: "exit code 0 is a success", success: 200, failure: (250, 0), now: 300,
               expected: verdict(.up, deadline: 610)),
    PeriodCase(name: "running", success: 200, start: 250, now: 300, expected: verdict(.up, deadline: 310)),
    PeriodCase(name: "running too long", success: 200, start: 250, now: 430,
               expected: verdict(.down, "started 3m ago, no success ping")),
    PeriodCase(name: "start before the last success", success: 200, start: 100, now: 300,
               expected: verdict(.up, deadline: 560)),
    PeriodCase(name: "first run in progress", start: 50, now: 100, expected: verdict(nil, deadline: 110)),
    PeriodCase(name: "first run too long", start: 50, now: 110,
               expected: verdict(.down, "started 1m ago, no success ping")),
    PeriodCase(name: "started after the deadline of the period", success: 0, start: 350, now: 360,
               expected: verdict(.down, late6m)),
    PeriodCase(name: "started just before due", success: 0, start: 290, now: 340, expected: verdict(.up, deadline: 350)),
]

@Suite("Heartbeat")
struct HeartbeatTests {
    @Test("period schedule", arguments: periodCases)
    func period(_ row: PeriodCase) {
        let v = HeartbeatEvaluator.evaluate(
            schedule: everyFiveMinutes, createdAt: c, lastSuccess: row.success.map { c + $0 },
            lastStart: row.start.map { c + $0 }, lastFailure: row.failure.map { (c + $0.at, $0.exitCode) },
            now: c + row.now)
        #expect(v == row.expected)
    }

    @Test("nextDeadline is exact: one second before it the verdict holds, at it the monitor is down")
    func deadlineExact() {
        for success in [nil, c + 17, c + 299, c + 1000] as [Int64?] {
            for start in [nil, c + 20, c + 1010] as [Int64?] {
                let now = max(success ?? c, start ?? c)
                let first = HeartbeatEvaluator.evaluate(schedule: everyFiveMinutes, createdAt: c, lastSuccess: success,
                                                        lastStart: start, lastFailure: nil, now: now)
                guard let deadline = first.nextDeadline else {
                    #expect(first.outcome == .down)  // already late at the last ping
                    continue
                }
                let before = HeartbeatEvaluator.evaluate(schedule: everyFiveMinutes, createdAt: c, lastSuccess: success,
                                                         lastStart: start, lastFailure: nil, now: deadline - 1)
                let at = HeartbeatEvaluator.evaluate(schedule: everyFiveMinutes, createdAt: c, lastSuccess: success,
                                                     lastStart: start, lastFailure: nil, now: deadline)
                #expect(before == first)
                #expect(at.outcome == .down)
                #expect(at.nextDeadline == nil)
            }
        }
    }

    @Test("cron schedule: expected at the first fire after the last success, plus grace")
    func cron() {
        let created = c + 1200  // 08:20
        func eval(_ success: Int64?, now: Int64) -> HeartbeatVerdict {
            HeartbeatEvaluator.evaluate(schedule: hourly, createdAt: created, lastSuccess: success, lastStart: nil,
                                        lastFailure: nil, now: now)
        }
        #expect(eval(nil, now: c + 3000) == HeartbeatVerdict(outcome: nil, nextDeadline: c + 3600 + 300))
        #expect(eval(nil, now: c + 3899) == HeartbeatVerdict(outcome: nil, nextDeadline: c + 3900))
        #expect(eval(nil, now: c + 3900) == HeartbeatVerdict(
            outcome: .down, cause: "no ping for 45m (expected 2027-01-15T09:00:00Z + grace 5m)"))
        // The 09:00 run pinged at 09:00:05: next expected 10:00, deadline 10:05.
        #expect(eval(c + 3605, now: c + 4000) == HeartbeatVerdict(outcome: .up, nextDeadline: c + 7500))
        #expect(eval(c + 3605, now: c + 7499) == HeartbeatVerdict(outcome: .up, nextDeadline: c + 7500))
        #expect(eval(c + 3605, now: c + 7500).outcome == .down)
        // A run pinging a little early (08:59:58) still counts for 09:00.
        #expect(eval(c + 3598, now: c + 3700) == HeartbeatVerdict(outcome: .up, nextDeadline: c + 3900))
    }

    @Test("cron with a start ping, and a cron without further fire times")
    func cronStartAndEnd() {
        let v = HeartbeatEvaluator.evaluate(schedule: hourly, createdAt: c, lastSuccess: c + 5, lastStart: c + 3600,
                                            lastFailure: nil, now: c + 3700)
        #expect(v == HeartbeatVerdict(outcome: .up, nextDeadline: c + 3900))
        let never = HeartbeatSchedule.cron(next: { _ in nil }, grace: 60)
        #expect(HeartbeatEvaluator.evaluate(schedule: never, createdAt: c, lastSuccess: c, lastStart: nil,
                                            lastFailure: nil, now: c + 999_999)
            == HeartbeatVerdict(outcome: .up, nextDeadline: nil))
        #expect(HeartbeatEvaluator.evaluate(schedule: never, createdAt: c, lastSuccess: c, lastStart: c + 10,
                                            lastFailure: nil, now: c + 70)
            == HeartbeatVerdict(outcome: .down, cause: "started 1m ago, no success ping"))
    }

    @Test("on-time pings keep it up through many periods")
    func onTime() {
        var last: Int64? = nil
        for minute in stride(from: Int64(0), through: 300, by: 5) {
            let now = c + minute * 60 + 30
            let v = HeartbeatEvaluator.evaluate(schedule: everyFiveMinutes, createdAt: c, lastSuccess: last,
                                                lastStart: nil, lastFailure: nil, now: now)
            #expect(v.outcome == (last == nil ? nil : .up))
            #expect(v.nextDeadline == (last ?? c) + 360)
            last = now  // ping
        }
    }

    @Test("ping path suffixes", arguments: [
        (nil, HeartbeatPing.success), ("", .success), ("start", .start), ("fail", .failure(exitCode: nil)),
        ("0", .exit(0)), ("3", .exit(3)), ("255", .exit(255)),
    ] as [(String?, HeartbeatPing)])
    func pingSuffix(suffix: String?, ping: HeartbeatPing) {
        #expect(HeartbeatPing(suffix: suffix) == ping)
    }

    @Test("invalid ping suffixes answer 404", arguments: ["256", "-1", "abc", "0003", "+1", "3.0", "Start", " 1"])
    func invalidPingSuffix(suffix: String) {
        #expect(HeartbeatPing(suffix: suffix) == nil)
    }

    @Test("a verdict feeds the state machine as a result; pending feeds nothing")
    func verdictAsResult() {
        let down = HeartbeatVerdict(outcome: .down, cause: "exit code 3")
        #expect(down.checkResult(at: c) == CheckResult(at: c, location: "hub", outcome: .down, error: "exit code 3"))
        #expect(HeartbeatVerdict(outcome: nil, nextDeadline: c).checkResult(at: c) == nil)
        var state = MonitorState.new(at: c)
        (state, _) = StateMachine.apply(.result(CheckResult(at: c, outcome: .up)), to: state,
                                        policy: MonitorPolicy(), inMaintenance: false)
        let (next, effects) = StateMachine.apply(.result(down.checkResult(at: c + 1)!), to: state,
                                                 policy: MonitorPolicy(), inMaintenance: false)
        #expect(next.status == .down)
        #expect(effects.last == .event(kind: .monitorDown, cause: "exit code 3", locations: ["hub"], suppressed: false))
    }
}
