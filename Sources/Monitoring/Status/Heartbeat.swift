import Core

/// When a heartbeat monitor expects its pings (SPEC §5 Heartbeats).
public enum HeartbeatSchedule: Sendable {
    /// A success ping every `seconds`, tolerating `grace` seconds of lateness.
    case period(seconds: Int, grace: Int)
    /// A success ping at every cron fire time; `next(t)` is the first fire time
    /// strictly after `t` (nil when there is none). The cron parser and time
    /// zones live elsewhere.
    case cron(next: @Sendable (Int64) -> Int64?, grace: Int)

    public var grace: Int {
        switch self {
        case .period(_, let grace), .cron(_, let grace): return grace
        }
    }
}

/// What a heartbeat's pings say at one instant.
public struct HeartbeatVerdict: Sendable, Equatable {
    /// nil = still pending (no success ping yet, and not late yet).
    public var outcome: CheckOutcome?
    /// Why it is down ("failure ping", "exit code 3", "no ping for 6m (period 5m + grace 1m)",
    /// "started 3m ago, no success ping"); nil otherwise.
    public var cause: String?
    /// When the verdict would change without a new ping — evaluate again then.
    /// nil when only a ping can change it (down, or a cron without further fire times).
    public var nextDeadline: Int64?

    public init(outcome: CheckOutcome?, cause: String? = nil, nextDeadline: Int64? = nil) {
        self.outcome = outcome
        self.cause = cause
        self.nextDeadline = nextDeadline
    }

    /// The verdict as a result for `StateMachine` (heartbeats use `retries: 0`,
    /// SPEC §5); nil while pending.
    public func checkResult(at now: Int64, location: String = "hub") -> CheckResult? {
        outcome.map { CheckResult(at: now, location: location, outcome: $0, error: cause) }
    }
}

/// The kind of one ping request, from the path after `/ping/{key}`.
public enum HeartbeatPing: Sendable, Equatable {
    /// `exit`: `/ping/{key}/{n}`, a success for 0 and a failure otherwise,
    /// kept apart so the ping log can show the exit code (0 included).
    case success, start, failure(exitCode: Int?), exit(Int)

    /// nil or "" → success; "start"; "fail"; "0"…"255" → an exit ping
    /// (success for 0, else failure with that exit code); anything else →
    /// nil (answer 404).
    public init?(suffix: String?) {
        guard let suffix, !suffix.isEmpty else { self = .success; return }
        switch suffix {
        case "start": self = .start
        case "fail": self = .failure(exitCode: nil)
        default:
            guard suffix.utf8.count <= 3, suffix.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
                  let code = Int(suffix), code <= 255 else { return nil }
            self = .exit(code)
        }
    }
}

/// Healthchecks-style heartbeat evaluation: the status is a pure function of
/// the schedule, the latest ping times and `now`.
///
/// Rules, in order:
/// 1. A failure ping strictly newer than the last success → `down` at once
///    ("failure ping", or "exit code 3"); `retries` do not apply. (A "failure"
///    carrying exit code 0 is treated as a success at that time.) A success at
///    the same second wins.
/// 2. The expected time: period → `(lastSuccess ?? createdAt) + period`; cron →
///    the first fire time after `lastSuccess ?? createdAt`. Its deadline is the
///    expected time + grace.
/// 3. A start ping strictly newer than the last success means a run is in
///    progress; it must succeed within grace ("running too long" =
///    grace, as in Healthchecks): its deadline is start + grace.
/// 4. The deadline is the earlier of (2) and (3). At or after it → `down`
///    with the cause of the earlier one ("no ping for 6m (period 5m + grace
///    1m)" / "no ping for 1h 5m (expected 2026-11-29T11:00:00Z + grace 5m)" /
///    "started 3m ago, no success ping"), `nextDeadline` nil. Before it → `up`
///    (or nil = pending when there was never a success) with `nextDeadline` =
///    that deadline, so a scheduler can wake exactly then.
public enum HeartbeatEvaluator {
    public static func evaluate(schedule: HeartbeatSchedule, createdAt: Int64, lastSuccess: Int64?,
                                lastStart: Int64?, lastFailure: (at: Int64, exitCode: Int?)?,
                                now: Int64) -> HeartbeatVerdict {
        var success = lastSuccess
        var failure = lastFailure
        if let f = failure, f.exitCode == 0 {
            success = max(success ?? f.at, f.at)
            failure = nil
        }
        // Rule 1.
        if let f = failure, success.map({ f.at > $0 }) ?? true {
            return HeartbeatVerdict(outcome: .down, cause: f.exitCode.map { "exit code \($0)" } ?? "failure ping")
        }

        let grace = Int64(max(0, schedule.grace))
        let base = success ?? createdAt
        // Rule 2.
        var deadline: (at: Int64, cause: String)?
        switch schedule {
        case .period(let seconds, _):
            let due = base + Int64(max(0, seconds))
            deadline = (due + grace, "no ping for \(StatusText.duration(now - base)) "
                + "(period \(StatusText.duration(Int64(seconds))) + grace \(StatusText.duration(grace)))")
        case .cron(let next, _):
            if let due = next(base) {
                deadline = (due + grace, "no ping for \(StatusText.duration(now - base)) "
                    + "(expected \(Time.rfc3339(due)) + grace \(StatusText.duration(grace)))")
            }
        }
        // Rule 3.
        if let start = lastStart, success.map({ start > $0 }) ?? true, start + grace <= deadline?.at ?? .max {
            deadline = (start + grace, "started \(StatusText.duration(now - start)) ago, no success ping")
        }
        // Rule 4.
        if let deadline, now >= deadline.at {
            return HeartbeatVerdict(outcome: .down, cause: deadline.cause)
        }
        return HeartbeatVerdict(outcome: success == nil ? nil : .up, nextDeadline: deadline?.at)
    }
}
