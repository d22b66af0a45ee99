import Testing
@testable import Core

private func zone(_ name: String) -> TimeZoneInfo {
    do { return try TimeZoneInfo.named(name) } catch { fatalError("\(name): \(error)") }
}

private func loadError(_ name: String) -> TimeZoneError? {
    do { _ = try TimeZoneInfo.named(name); return nil } catch { return error }
}

@Suite struct TimeZoneInfoLoadingTests {
    @Test func utcIsBuiltIn() throws {
        for name in ["UTC", "Etc/UTC"] {
            let z = try TimeZoneInfo.named(name)
            #expect(z == TimeZoneInfo.utc)
            #expect(z.offset(at: 0) == 0 && z.offset(at: 4_000_000_000) == 0 && z.offset(at: -4_000_000_000) == 0)
        }
    }

    @Test(arguments: ["", "/etc/passwd", "../etc/passwd", "Europe/../../etc/passwd", "Europe/..", "..",
                      "Europe//Paris", "Europe/Paris/", "./Europe/Paris", ".hidden", "Europe/Pa ris",
                      "Europe/Paris\u{0}", "Europe\\Paris", "Europe/Paris;ls", "Europe/París"])
    func rejectsInvalidNames(_ name: String) {
        #expect(loadError(name) == .invalidName(name))
    }

    @Test(arguments: ["Mars/Olympus_Mons", "Europe", "zone.tab", "tzdata.zi", "Europe/Pariss"])
    func rejectsUnknownZones(_ name: String) {
        #expect(loadError(name) == .unknownZone(name))
    }

    @Test func errorsReadWell() {
        #expect(TimeZoneError.unknownZone("X/Y").description == "unknown time zone 'X/Y'")
        #expect(TimeZoneError.invalidName("../x").description == "invalid time zone name '../x'")
    }

    @Test func loadsAreCachedAndEqual() throws {
        let a = try TimeZoneInfo.named("Europe/Paris")
        let b = try TimeZoneInfo.named("Europe/Paris")
        #expect(a == b)
        #expect(a.name == "Europe/Paris")
        // Cached: a thousand more lookups are cheap.
        let start = Time.monotonicNanos()
        for _ in 0..<1000 { _ = try TimeZoneInfo.named("Europe/Paris") }
        #expect(Time.monotonicNanos() - start < 1_000_000_000)
    }

    @Test func rejectsMalformedData() {
        var v1 = [UInt8](repeating: 0, count: 44)
        v1[0] = 0x54; v1[1] = 0x5A; v1[2] = 0x69; v1[3] = 0x66  // "TZif", version 1
        v1[39] = 1  // typecnt = 1
        v1 += [0, 0, 0, 0, 0, 0, 0]
        #expect(throws: TimeZoneError.self) { try TimeZoneInfo.parse(tzif: v1, name: "v1") }
        var v2 = v1
        v2[4] = 0x32
        #expect(throws: TimeZoneError.self) { try TimeZoneInfo.parse(tzif: v2, name: "truncated") }
        #expect(throws: TimeZoneError.self) { try TimeZoneInfo.parse(tzif: Array("TZif2".utf8), name: "short") }
    }

    @Test func parsesMinimalVersion2File() throws {
        // Header + one 32-bit type, then the 64-bit header, one transition, two types, footer.
        func header(version: UInt8, time: UInt8, type: UInt8, char: UInt8) -> [UInt8] {
            var h: [UInt8] = [0x54, 0x5A, 0x69, 0x66, version] + [UInt8](repeating: 0, count: 15)
            h += [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, time, 0, 0, 0, type, 0, 0, 0, char]
            return h
        }
        var b = header(version: 0x32, time: 0, type: 1, char: 4) + [0, 0, 0, 0, 0, 0] + Array("UTC\0".utf8)
        b += header(version: 0x32, time: 1, type: 2, char: 8)
        b += [0, 0, 0, 0, 0x3B, 0x9A, 0xCA, 0x00]  // 1_000_000_000
        b += [1]
        b += [0, 0, 0, 0, 0, 0] + [0, 0, 0x0E, 0x10, 0, 4]  // +0 and +3600
        b += Array("AAA\0BBB\0".utf8)
        b += Array("\nBBB-1\n".utf8)
        let z = try TimeZoneInfo.parse(tzif: b, name: "Test/Zone")
        #expect(z.offset(at: 999_999_999) == 0)
        #expect(z.offset(at: 1_000_000_000) == 3600)
        #expect(z.offset(at: 5_000_000_000) == 3600)  // footer
    }
}

@Suite struct TimeZoneInfoOffsetTests {
    // (zone, UTC instant, seconds east). From `zdump -v` and `TZ=<zone> date -d @<t> +%::z`.
    static let cases: [(String, Int64, Int)] = [
        // Paris 2026: CET → CEST at 2026-03-29T01:00:00Z, back at 2026-10-25T01:00:00Z
        ("Europe/Paris", 1_774_745_999, 3600), ("Europe/Paris", 1_774_746_000, 7200),
        ("Europe/Paris", 1_792_889_999, 7200), ("Europe/Paris", 1_792_890_000, 3600),
        // Paris 1900: local mean time +0:09:21; 1990 summer: CEST
        ("Europe/Paris", -2_208_988_800, 561), ("Europe/Paris", 646_790_400, 7200),
        // Paris 2040 (after the file's last transition: footer CET-1CEST,M3.5.0,M10.5.0/3)
        ("Europe/Paris", 2_216_249_999, 3600), ("Europe/Paris", 2_216_250_000, 7200),
        ("Europe/Paris", 2_234_998_799, 7200), ("Europe/Paris", 2_234_998_800, 3600),
        ("Europe/Paris", 2_210_241_600, 3600), ("Europe/Paris", 2_224_756_800, 7200),
        // New York 2026: EST → EDT at 2026-03-08T07:00:00Z, back at 2026-11-01T06:00:00Z
        ("America/New_York", 1_772_953_199, -18000), ("America/New_York", 1_772_953_200, -14400),
        ("America/New_York", 1_793_512_799, -14400), ("America/New_York", 1_793_512_800, -18000),
        // New York 2040 (footer EST5EDT,M3.2.0,M11.1.0)
        ("America/New_York", 2_215_061_999, -18000), ("America/New_York", 2_215_062_000, -14400),
        ("America/New_York", 2_235_621_599, -14400), ("America/New_York", 2_235_621_600, -18000),
        ("America/New_York", -2_208_988_800, -18000),
        // Southern hemisphere (DST across the new year): AEST-10AEDT,M10.1.0,M4.1.0/3
        ("Australia/Sydney", 1_775_318_399, 39600), ("Australia/Sydney", 1_775_318_400, 36000),
        ("Australia/Sydney", 2_216_822_399, 39600), ("Australia/Sydney", 2_216_822_400, 36000),
        ("Australia/Sydney", 2_233_151_999, 36000), ("Australia/Sydney", 2_233_152_000, 39600),
        ("Australia/Sydney", 2_210_241_600, 39600), ("Australia/Sydney", 2_224_756_800, 36000),
        // Half-hour DST: <+1030>-10:30<+11>-11,M10.1.0,M4.1.0
        ("Australia/Lord_Howe", 2_216_818_799, 39600), ("Australia/Lord_Howe", 2_216_818_800, 37800),
        ("Australia/Lord_Howe", 2_233_150_199, 37800), ("Australia/Lord_Howe", 2_233_150_200, 39600),
        // Transition at 24:00: <-04>4<-03>,M9.1.6/24,M4.1.6/24
        ("America/Santiago", 2_217_466_799, -10800), ("America/Santiago", 2_217_466_800, -14400),
        ("America/Santiago", 2_230_171_199, -14400), ("America/Santiago", 2_230_171_200, -10800),
        // Negative DST: IST-1GMT0,M10.5.0,M3.5.0/1 (winter is the "daylight" time)
        ("Europe/Dublin", 2_216_249_999, 0), ("Europe/Dublin", 2_216_250_000, 3600),
        ("Europe/Dublin", 2_234_998_799, 3600), ("Europe/Dublin", 2_234_998_800, 0),
        // Negative transition time: <-02>2<-01>,M3.5.0/-1,M10.5.0/0
        ("America/Nuuk", 2_216_249_999, -7200), ("America/Nuuk", 2_216_250_000, -3600),
        ("America/Nuuk", 2_234_998_799, -3600), ("America/Nuuk", 2_234_998_800, -7200),
        // No DST
        ("Asia/Kolkata", 1_774_746_000, 19800), ("Asia/Kolkata", 4_102_444_800, 19800),
    ]

    @Test(arguments: 0..<cases.count) func offsets(_ i: Int) {
        let (name, t, expected) = Self.cases[i]
        #expect(zone(name).offset(at: t) == expected, "\(name) at \(Time.rfc3339(t))")
    }

    @Test func farFutureUsesFooter() {
        let paris = zone("Europe/Paris")
        #expect(paris.footer != nil)
        #expect(paris.transitions.last! < 2_216_250_000)  // 2040 is past the listed transitions
        // 2100: last Sunday of March is 2100-03-28, of October 2100-10-31 (`TZ=Europe/Paris date`)
        #expect(paris.offset(at: Time.parseRFC3339("2100-03-28T00:59:59Z")!) == 3600)
        #expect(paris.offset(at: Time.parseRFC3339("2100-03-28T01:00:00Z")!) == 7200)
        #expect(paris.offset(at: Time.parseRFC3339("2100-10-31T00:59:59Z")!) == 7200)
        #expect(paris.offset(at: Time.parseRFC3339("2100-10-31T01:00:00Z")!) == 3600)
    }

    @Test func localParts() {
        let paris = zone("Europe/Paris")
        let p = paris.localParts(1_774_746_000)  // 2026-03-29T01:00:00Z
        #expect(p.year == 2026 && p.month == 3 && p.day == 29 && p.hour == 3 && p.minute == 0 && p.second == 0)
        #expect(p.weekday == 0)
        let q = paris.localParts(1_792_889_999)  // 2026-10-25T00:59:59Z = 02:59:59 CEST
        #expect(q.hour == 2 && q.minute == 59 && q.second == 59 && q.weekday == 0)
        let ny = zone("America/New_York").localParts(-2_208_988_800)  // 1899-12-31 19:00:00 EST, Sunday
        #expect(ny.year == 1899 && ny.month == 12 && ny.day == 31 && ny.hour == 19 && ny.weekday == 0)
        let u = TimeZoneInfo.utc.localParts(1_767_225_599)  // 2025-12-31T23:59:59Z, Wednesday
        #expect(u.year == 2025 && u.month == 12 && u.day == 31 && u.hour == 23 && u.minute == 59
                && u.second == 59 && u.weekday == 3)
        let old = TimeZoneInfo.utc.localParts(-1)  // 1969-12-31T23:59:59Z, Wednesday
        #expect(old.year == 1969 && old.day == 31 && old.second == 59 && old.weekday == 3)
    }

    @Test func utcFromLocal() {
        let paris = zone("Europe/Paris")
        // ordinary
        #expect(paris.utc(fromLocal: 2026, month: 7, day: 14, hour: 12) == [Time.parseRFC3339("2026-07-14T10:00:00Z")!])
        // gap: 02:30 on 2026-03-29 does not exist
        #expect(paris.utc(fromLocal: 2026, month: 3, day: 29, hour: 2, minute: 30) == [])
        #expect(paris.utc(fromLocal: 2026, month: 3, day: 29, hour: 3) == [1_774_746_000])
        #expect(paris.utc(fromLocal: 2026, month: 3, day: 29, hour: 1, minute: 59, second: 59) == [1_774_745_999])
        // overlap: 02:30 on 2026-10-25 happens twice (CEST, then CET)
        #expect(paris.utc(fromLocal: 2026, month: 10, day: 25, hour: 2, minute: 30)
                == [Time.parseRFC3339("2026-10-25T00:30:00Z")!, Time.parseRFC3339("2026-10-25T01:30:00Z")!])
        #expect(paris.utc(fromLocal: 2026, month: 10, day: 25, hour: 3) == [Time.parseRFC3339("2026-10-25T02:00:00Z")!])
        let ny = zone("America/New_York")
        #expect(ny.utc(fromLocal: 2026, month: 3, day: 8, hour: 2, minute: 30) == [])
        #expect(ny.utc(fromLocal: 2026, month: 11, day: 1, hour: 1, minute: 30)
                == [Time.parseRFC3339("2026-11-01T05:30:00Z")!, Time.parseRFC3339("2026-11-01T06:30:00Z")!])
        // far future (footer): Paris 2040-03-25 02:30 gap, 2040-10-28 02:30 overlap
        #expect(paris.utc(fromLocal: 2040, month: 3, day: 25, hour: 2, minute: 30) == [])
        #expect(paris.utc(fromLocal: 2040, month: 10, day: 28, hour: 2, minute: 30).count == 2)
        #expect(TimeZoneInfo.utc.utc(fromLocal: 1970, month: 1, day: 1) == [0])
    }

    @Test func gapEnd() {
        let paris = zone("Europe/Paris")
        let local = ScheduleCalendar.seconds(year: 2026, month: 3, day: 29, hour: 2, minute: 30, second: 0)
        #expect(paris.firstInstant(atOrAfterLocalSeconds: local) == 1_774_746_000)
        let ny = zone("America/New_York")
        let nyLocal = ScheduleCalendar.seconds(year: 2026, month: 3, day: 8, hour: 2, minute: 0, second: 0)
        #expect(ny.firstInstant(atOrAfterLocalSeconds: nyLocal) == 1_772_953_200)
    }

    @Test func roundTripOverAYear() {
        // Every hour of 2026 in New York: local parts map back to the instant.
        let ny = zone("America/New_York")
        var t = Time.parseRFC3339("2026-01-01T00:00:00Z")!
        while t < Time.parseRFC3339("2027-01-01T00:00:00Z")! {
            let p = ny.localParts(t)
            let back = ny.utc(fromLocal: p.year, month: p.month, day: p.day, hour: p.hour, minute: p.minute,
                              second: p.second)
            #expect(back.contains(t))
            t += 3600
        }
    }
}

@Suite struct PosixTimeZoneRuleTests {
    @Test(arguments: ["CET-1CEST,M3.5.0,M10.5.0/3", "EST5EDT,M3.2.0,M11.1.0", "<+1030>-10:30<+11>-11,M10.1.0,M4.1.0",
                      "<-04>4<-03>,M9.1.6/24,M4.1.6/24", "IST-1GMT0,M10.5.0,M3.5.0/1", "<-02>2<-01>,M3.5.0/-1,M10.5.0/0",
                      "IST-5:30", "UTC0", "<+0545>-5:45", "EST5EDT", "AAA3BBB,J60/2,J300/2", "AAA3BBB,59,300/1:30:15",
                      "<-03>3<-02>,M3.5.0/-2,M10.5.0/-1"])
    func parses(_ text: String) {
        #expect(PosixTimeZoneRule(text) != nil, "\(text)")
    }

    @Test(arguments: ["", "C-1", "CET", "CET-1CEST,M3.5.0", "CET-1CEST,M13.5.0,M10.5.0", "CET-1CEST,M3.6.0,M10.5.0",
                      "CET-1CEST,M3.5.7,M10.5.0", "CET-1CEST,J0,J100", "CET-1CEST,366,1", "CET-168",
                      "CET-1CEST,M3.5.0,M10.5.0/3x", "<+03-3", "CET-1:60",
                      // Offsets outside RFC 8536 §3.2 (-25 h, 26 h); the first from the tzif fuzz target.
                      "ISUInt30", "AAA-26", "AAA25", "AAA3BBB-27"])
    func rejects(_ text: String) {
        #expect(PosixTimeZoneRule(text) == nil, "\(text)")
    }

    @Test func parsedFields() {
        let r = PosixTimeZoneRule("CET-1CEST,M3.5.0,M10.5.0/3")!
        #expect(r.standardOffset == 3600)
        #expect(r.daylight == .init(offset: 7200, start: .monthWeekDay(3, 5, 0), startTime: 7200,
                                    end: .monthWeekDay(10, 5, 0), endTime: 10800))
        let kolkata = PosixTimeZoneRule("IST-5:30")!
        #expect(kolkata.standardOffset == 19800 && kolkata.daylight == nil)
        #expect(PosixTimeZoneRule("<-02>2<-01>,M3.5.0/-1,M10.5.0/0")!.daylight?.startTime == -3600)
    }

    @Test func ruleDates() {
        func ymd(_ d: Int) -> String {
            let c = ScheduleCalendar.civil(days: d)
            return "\(c.year)-\(c.month)-\(c.day)"
        }
        // Last Sunday of March / October 2026
        #expect(ymd(PosixTimeZoneRule.day(.monthWeekDay(3, 5, 0), year: 2026)) == "2026-3-29")
        #expect(ymd(PosixTimeZoneRule.day(.monthWeekDay(10, 5, 0), year: 2026)) == "2026-10-25")
        // Second Sunday of March, first of November 2026
        #expect(ymd(PosixTimeZoneRule.day(.monthWeekDay(3, 2, 0), year: 2026)) == "2026-3-8")
        #expect(ymd(PosixTimeZoneRule.day(.monthWeekDay(11, 1, 0), year: 2026)) == "2026-11-1")
        // Jn never counts February 29; n does
        #expect(ymd(PosixTimeZoneRule.day(.julianNoLeap(60), year: 2028)) == "2028-3-1")
        #expect(ymd(PosixTimeZoneRule.day(.julianNoLeap(60), year: 2026)) == "2026-3-1")
        #expect(ymd(PosixTimeZoneRule.day(.zeroBased(59), year: 2028)) == "2028-2-29")
        #expect(ymd(PosixTimeZoneRule.day(.zeroBased(59), year: 2026)) == "2026-3-1")
        #expect(ymd(PosixTimeZoneRule.day(.julianNoLeap(365), year: 2028)) == "2028-12-31")
    }

    @Test func julianRuleOffsets() {
        // AAA3BBB,J60/2,J300/2: UTC-3, DST UTC-2 from Mar 1 02:00 to Oct 27 02:00 local (J300 = Oct 27).
        let r = PosixTimeZoneRule("AAA3BBB,J60/2,J300/2")!
        #expect(r.offset(at: Time.parseRFC3339("2030-03-01T04:59:59Z")!) == -10800)
        #expect(r.offset(at: Time.parseRFC3339("2030-03-01T05:00:00Z")!) == -7200)
        #expect(r.offset(at: Time.parseRFC3339("2030-10-27T03:59:59Z")!) == -7200)
        #expect(r.offset(at: Time.parseRFC3339("2030-10-27T04:00:00Z")!) == -10800)
    }
}
