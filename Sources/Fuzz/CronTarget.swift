import Core
import Monitoring

/// Target `cron`: the cron dialect of heartbeat monitors (text from the API).
/// An expression that parses names its next minute after a fixed instant, in
/// UTC and across a zone with daylight saving, and that minute matches it
/// (or ends a spring-forward gap the matching time fell into).
enum CronTarget {
    private static let berlin = try? TimeZoneInfo.named("Europe/Berlin")
    /// 2026-03-28T12:00:00Z, a day before Europe/Berlin springs forward.
    private static let from: Int64 = 1_774_699_200

    static func run(_ input: UnsafeBufferPointer<UInt8>) {
        guard input.count <= 256 else { return }
        guard let cron = try? CronExpression(String(decoding: input, as: UTF8.self)) else { return }
        for zone in [TimeZoneInfo.utc] + (berlin.map { [$0] } ?? []) {
            guard let next = cron.next(after: from, in: zone) else { continue }
            precondition(next > from, "next is not after the instant")
            precondition(next % 60 == 0, "next is not on a minute")
            let p = zone.localParts(next)
            // Or a gap's end: a matching local time that a spring-forward
            // skips fires at the first instant after the gap (documented).
            let gapEnd = zone.offset(at: next - 1) != zone.offset(at: next)
            precondition(cron.matches(year: p.year, month: p.month, day: p.day, hour: p.hour, minute: p.minute) || gapEnd,
                         "next minute does not match the expression")
        }
    }
}
