import Core

/// Turns a heartbeat's settings into the evaluator's schedule, and checks
/// cron expressions and time zones when a monitor is saved.
public enum HeartbeatSchedules {
    static func validate(cron: String, timezone: String) throws(JSONFieldError) {
        do {
            _ = try CronExpression(cron)
        } catch {
            throw JSONFieldError(field: "heartbeat.cron", message: "heartbeat.cron: \(error.description)")
        }
        do {
            _ = try TimeZoneInfo.named(timezone)
        } catch {
            throw JSONFieldError(field: "heartbeat.timezone", message: "heartbeat.timezone must be an IANA time zone such as Europe/Paris.")
        }
    }

    /// The evaluator's view of the settings. An expression or zone that no
    /// longer loads (tzdata changed under us) falls back to UTC.
    public static func schedule(_ settings: HeartbeatSettings) -> HeartbeatSchedule {
        switch settings {
        case .period(let seconds, let grace):
            return .period(seconds: Int(seconds), grace: Int(grace))
        case .cron(let expression, let timezone, let grace):
            let zone = (try? TimeZoneInfo.named(timezone)) ?? .utc
            guard let cron = try? CronExpression(expression) else {
                return .period(seconds: 86_400, grace: Int(grace))
            }
            return .cron(next: { cron.next(after: $0, in: zone) }, grace: Int(grace))
        }
    }
}
