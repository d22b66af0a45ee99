import Core
import Monitoring
import Store
import Testing

/// `MaintenanceSchedule` (SPEC §12 recurring maintenance), pure: occurrences
/// in Europe/Berlin across both daylight-saving changes of 2026 (spring
/// forward 2026-03-29 01:00Z: 02:00 CET → 03:00 CEST; fall back 2026-10-25
/// 01:00Z: 03:00 CEST → 02:00 CET), the series' bounds and one-off windows.
@Suite struct MaintenanceScheduleTests {
    func t(_ s: String) -> Int64 { Time.parseRFC3339(s)! }

    func weekly(_ cron: String = "0 2 * * 0", minutes: Int64 = 120, from: String = "2026-01-01T00:00:00Z",
                until: String? = nil) -> MaintenanceSchedule {
        MaintenanceSchedule(MaintenanceRecord(
            title: "w", monitorIDs: [], startsAt: t(from), endsAt: until.map(t), createdBy: nil,
            recurrence: .init(cron: cron, timezone: "Europe/Berlin", durationMinutes: minutes)))
    }

    func interval(_ a: String, _ b: String) -> MaintenanceSchedule.Interval {
        .init(start: t(a), end: t(b))
    }

    @Test func weeklyOccurrenceInWinterAndSummer() {
        let s = weekly()
        // Sunday 2026-03-22 02:00 CET = 01:00Z, two hours.
        #expect(s.occurrence(at: t("2026-03-22T01:00:00Z")) == interval("2026-03-22T01:00:00Z", "2026-03-22T03:00:00Z"))
        #expect(s.isActive(at: t("2026-03-22T02:59:59Z")))
        #expect(!s.isActive(at: t("2026-03-22T03:00:00Z")))
        #expect(!s.isActive(at: t("2026-03-22T00:59:59Z")))
        #expect(!s.isActive(at: t("2026-03-23T01:30:00Z")), "a Monday")
        // Summer: 02:00 CEST = 00:00Z.
        #expect(s.occurrence(at: t("2026-06-07T01:00:00Z")) == interval("2026-06-07T00:00:00Z", "2026-06-07T02:00:00Z"))
        #expect(s.nextStart(after: t("2026-06-07T00:00:00Z")) == t("2026-06-14T00:00:00Z"), "the running one has begun")
        #expect(s.nextStart(after: t("2026-06-06T23:59:59Z")) == t("2026-06-07T00:00:00Z"))
    }

    @Test func springForwardStartInTheGapBeginsWhenTheGapEnds() {
        // 02:00 does not exist on 2026-03-29: it begins at 03:00 CEST = 01:00Z.
        let s = weekly()
        #expect(s.nextStart(after: t("2026-03-22T03:00:00Z")) == t("2026-03-29T01:00:00Z"))
        #expect(s.occurrence(at: t("2026-03-29T02:30:00Z")) == interval("2026-03-29T01:00:00Z", "2026-03-29T03:00:00Z"))
        #expect(!s.isActive(at: t("2026-03-29T00:30:00Z")), "01:30 CET, before the gap")
        // 02:30 daily for an hour: also at the gap's end, for one real hour.
        let daily = weekly("30 2 * * *", minutes: 60)
        #expect(daily.occurrence(at: t("2026-03-29T01:10:00Z")) == interval("2026-03-29T01:00:00Z", "2026-03-29T02:00:00Z"))
        #expect(daily.occurrence(at: t("2026-03-28T01:40:00Z")) == interval("2026-03-28T01:30:00Z", "2026-03-28T02:30:00Z"),
                "the day before: 02:30 CET")
        #expect(daily.nextStart(after: t("2026-03-29T01:00:00Z")) == t("2026-03-30T00:30:00Z"), "next day: 02:30 CEST")
    }

    @Test func fallBackRepeatedHourStartsOnceAndLastsRealTime() {
        // 02:00 CEST = 00:00Z; two real hours end at 03:00 CET = 02:00Z
        // (the wall clock shows 02:00 → 03:00, 02:00 → 03:00).
        let s = weekly()
        #expect(s.occurrence(at: t("2026-10-25T01:30:00Z")) == interval("2026-10-25T00:00:00Z", "2026-10-25T02:00:00Z"))
        #expect(!s.isActive(at: t("2026-10-25T02:00:00Z")))
        #expect(s.nextStart(after: t("2026-10-25T00:00:00Z")) == t("2026-11-01T01:00:00Z"), "then 02:00 CET")
        // 02:30 daily: only the first 02:30 (CEST, 00:30Z) starts one.
        let daily = weekly("30 2 * * *", minutes: 60)
        #expect(daily.occurrence(at: t("2026-10-25T01:15:00Z")) == interval("2026-10-25T00:30:00Z", "2026-10-25T01:30:00Z"))
        #expect(!daily.isActive(at: t("2026-10-25T01:45:00Z")), "02:45 CET, the second pass, is not a new start")
        #expect(daily.nextStart(after: t("2026-10-25T00:30:00Z")) == t("2026-10-26T01:30:00Z"))
    }

    @Test func seriesBoundsStartsAtAndEndsAt() {
        // Starts mid-occurrence: that occurrence is not part of the series.
        let late = weekly(from: "2026-06-07T00:30:00Z")
        #expect(!late.isActive(at: t("2026-06-07T01:00:00Z")))
        #expect(late.nextStart(after: t("2026-06-07T01:00:00Z")) == t("2026-06-14T00:00:00Z"))
        // A start exactly on a fire time includes it; nothing before starts_at.
        let exact = weekly(from: "2026-06-07T00:00:00Z")
        #expect(exact.isActive(at: t("2026-06-07T00:00:00Z")))
        #expect(!exact.isActive(at: t("2026-05-31T00:30:00Z")))
        #expect(exact.nextStart(after: t("2026-05-01T00:00:00Z")) == t("2026-06-07T00:00:00Z"))
        // ends_at cuts the occurrence it falls in; a fire at ends_at is out.
        let cut = weekly(until: "2026-06-14T01:00:00Z")
        #expect(cut.occurrence(at: t("2026-06-14T00:30:00Z")) == interval("2026-06-14T00:00:00Z", "2026-06-14T01:00:00Z"))
        #expect(!cut.isActive(at: t("2026-06-14T01:00:00Z")))
        #expect(cut.nextStart(after: t("2026-06-14T00:00:00Z")) == nil)
        let atEnd = weekly(until: "2026-06-14T00:00:00Z")
        #expect(atEnd.nextStart(after: t("2026-06-08T00:00:00Z")) == nil)
        #expect(!atEnd.isActive(at: t("2026-06-14T00:00:00Z")))
    }

    @Test func oneOffWindows() {
        let w = MaintenanceSchedule(MaintenanceRecord(title: "once", monitorIDs: [], startsAt: 1_000, endsAt: 2_000, createdBy: nil))
        #expect(!w.isRecurring)
        #expect(w.nextStart(after: 999) == 1_000)
        #expect(w.nextStart(after: 1_000) == nil, "started: no next start")
        #expect(w.occurrence(at: 1_000) == .init(start: 1_000, end: 2_000))
        #expect(!w.isActive(at: 2_000))
        #expect(!w.isActive(at: 999))
        #expect(w.intervals(from: 1_500, to: 5_000) == [.init(start: 1_500, end: 2_000)])
        #expect(w.currentOrNext(at: 500) == .init(start: 1_000, end: 2_000))
        #expect(w.currentOrNext(at: 2_000) == nil)
    }

    @Test func intervalsExpandClipAndMerge() {
        let s = weekly()
        // 2026-03-15 … 2026-04-06: 03-15 and 03-22 (CET), 03-29 (gap), 04-05 (CEST).
        #expect(s.intervals(from: t("2026-03-15T02:00:00Z"), to: t("2026-04-05T01:00:00Z")) == [
            interval("2026-03-15T02:00:00Z", "2026-03-15T03:00:00Z"),
            interval("2026-03-22T01:00:00Z", "2026-03-22T03:00:00Z"),
            interval("2026-03-29T01:00:00Z", "2026-03-29T03:00:00Z"),
            interval("2026-04-05T00:00:00Z", "2026-04-05T01:00:00Z"),
        ])
        // Hourly, 90 minutes each: they overlap into one run, cut at the series' end.
        let dense = weekly("0 * * * *", minutes: 90, from: "2026-05-01T00:00:00Z", until: "2026-05-01T05:00:00Z")
        #expect(dense.intervals(from: t("2026-04-30T00:00:00Z"), to: t("2026-05-02T00:00:00Z"))
                == [interval("2026-05-01T00:00:00Z", "2026-05-01T05:00:00Z")])
        #expect(dense.occurrence(at: t("2026-05-01T01:10:00Z")) == interval("2026-05-01T00:00:00Z", "2026-05-01T01:30:00Z"),
                "the earliest-started occurrence in force")
        // Every minute over a week (across nothing special) stays one merged interval.
        let everyMinute = weekly("* * * * *", minutes: 1)
        let from = t("2026-02-01T00:00:00Z"), to = from + 7 * 86_400
        #expect(everyMinute.intervals(from: from, to: to) == [.init(start: from, end: to)])
        #expect(s.intervals(from: 10, to: 10).isEmpty)
    }

    @Test func aSeriesWithoutEndRunsOnAndAStoredExpressionThatNoLongerParsesHasNone() {
        let s = weekly()
        #expect(s.nextStart(after: t("2040-01-01T00:00:00Z")) != nil)
        let broken = MaintenanceSchedule(MaintenanceRecord(title: "x", monitorIDs: [], startsAt: 0, endsAt: nil, createdBy: nil,
                                                           recurrence: .init(cron: "61 * * * *", timezone: "UTC", durationMinutes: 5)))
        #expect(broken.nextStart(after: 0) == nil)
        #expect(!broken.isActive(at: 3600))
    }

    /// What the calendar caches: within a decision's stretch the answer never
    /// differs from `isActive`, swept across both DST nights and the bounds.
    @Test func decisionsHoldOverTheirWholeStretch() {
        let schedules = [weekly(), weekly("30 2 * * *", minutes: 60, until: "2026-10-26T12:00:00Z"),
                         weekly("*/20 1-3 * * *", minutes: 30, from: "2026-03-28T12:00:00Z"),
                         MaintenanceSchedule(MaintenanceRecord(title: "once", monitorIDs: [], startsAt: t("2026-03-29T00:40:00Z"),
                                                               endsAt: t("2026-03-29T01:20:00Z"), createdBy: nil))]
        for s in schedules {
            for night in ["2026-03-28T22:00:00Z", "2026-10-24T22:00:00Z"] {
                var at = t(night)
                while at < t(night) + 6 * 3600 {
                    let d = s.decide(at: at)
                    #expect(d.active == s.isActive(at: at) && d.covers(at))
                    let last = min(d.until, at + 7 * 86_400) - 1
                    for probe in [d.from, (d.from + last) / 2, last] where probe >= at || d.active {
                        #expect(s.isActive(at: probe) == d.active, "\(Time.rfc3339(at)) → \(Time.rfc3339(probe))")
                    }
                    at += 7 * 60 + 13
                }
            }
        }
    }
}
