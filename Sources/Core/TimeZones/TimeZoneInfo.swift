#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Why a time zone could not be loaded.
public enum TimeZoneError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The name is not a plausible IANA name (empty, absolute, `..`, odd characters).
    case invalidName(String)
    /// No such zone under `/usr/share/zoneinfo`.
    case unknownZone(String)
    /// The file exists but is not a TZif file this parser accepts.
    case malformed(String, reason: String)

    public var description: String {
        switch self {
        case .invalidName(let name): return "invalid time zone name '\(name)'"
        case .unknownZone(let name): return "unknown time zone '\(name)'"
        case .malformed(let name, let reason): return "time zone '\(name)': \(reason)"
        }
    }
}

/// An IANA time zone loaded from a TZif file (RFC 8536, version 2 or later:
/// the 64-bit section is used), plus the POSIX TZ footer rule for instants
/// after the last listed transition (Debian ships "slim" files whose
/// transitions stop at the last rule change, so the footer matters for
/// every date after that).
///
/// All instants are Unix seconds (UTC). Leap-second records (`right/` zones)
/// are ignored: times are POSIX times. In Core because both the scheduler
/// (cron heartbeats, Monitoring) and users' quiet hours (Notify) read wall
/// clocks, and neither module may depend on the other.
public struct TimeZoneInfo: Sendable, Equatable, CustomStringConvertible {
    public let name: String
    /// Transition instants, ascending.
    let transitions: [Int64]
    /// The UTC offset (seconds east) in effect from `transitions[i]` on.
    let offsetsAfter: [Int32]
    /// In effect before the first transition (RFC 8536: time type 0).
    let initialOffset: Int32
    /// In effect after the last transition; nil means the last transition's offset.
    let footer: PosixTimeZoneRule?

    init(name: String, transitions: [Int64], offsetsAfter: [Int32], initialOffset: Int32,
         footer: PosixTimeZoneRule?) {
        self.name = name
        self.transitions = transitions
        self.offsetsAfter = offsetsAfter
        self.initialOffset = initialOffset
        self.footer = footer
    }

    public var description: String { name }

    /// Coordinated Universal Time (built in; no file needed).
    public static let utc = TimeZoneInfo(name: "UTC", transitions: [], offsetsAfter: [], initialOffset: 0, footer: nil)

    // MARK: Loading

    /// The directory zones are read from.
    public static let zoneDirectory = "/usr/share/zoneinfo"

    private static let cache = Mutex<[String: TimeZoneInfo]>([:])

    /// Loads (once per process; later calls hit a cache) the zone
    /// `/usr/share/zoneinfo/<name>`. `UTC` and `Etc/UTC` are built in.
    public static func named(_ name: String) throws(TimeZoneError) -> TimeZoneInfo {
        if name == "UTC" || name == "Etc/UTC" { return utc }
        try validate(name: name)
        if let hit = cache.withLock({ $0[name] }) { return hit }
        let bytes = try readZoneFile(name)
        let zone = try parse(tzif: bytes, name: name)
        cache.withLock { $0[name] = zone }
        return zone
    }

    /// Rejects anything that is not shaped like an IANA name, so a name can
    /// never escape the zone directory: `Area/Location`, letters, digits and
    /// `_ + -`, no empty, `.` or `..` component, no leading `/`.
    static func validate(name: String) throws(TimeZoneError) {
        guard !name.isEmpty, name.utf8.count <= 255 else { throw .invalidName(name) }
        for component in name.split(separator: "/", omittingEmptySubsequences: false) {
            guard !component.isEmpty, component != ".", component != ".." else { throw .invalidName(name) }
            for c in component.utf8 {
                let ok = (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57)
                    || c == 95 || c == 43 || c == 45 || c == 46
                guard ok else { throw .invalidName(name) }
            }
            guard component.utf8.first != 46 else { throw .invalidName(name) }  // no hidden files
        }
    }

    private static func readZoneFile(_ name: String) throws(TimeZoneError) -> [UInt8] {
        let path = zoneDirectory + "/" + name
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .unknownZone(name) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { throw .unknownZone(name) }
        guard st.st_size <= 1 << 20 else { throw .malformed(name, reason: "file too large") }
        var bytes = [UInt8](repeating: 0, count: Int(st.st_size))
        var off = 0
        while off < bytes.count {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + off, $0.count - off) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw .malformed(name, reason: "read failed") }
            off += n
        }
        // Files in the directory that are not zones (zone.tab, tzdata.zi…) are unknown zones.
        guard bytes.count >= 4, bytes[0] == 0x54, bytes[1] == 0x5A, bytes[2] == 0x69, bytes[3] == 0x66 else {
            throw .unknownZone(name)
        }
        return bytes
    }

    /// Parses a TZif file (version 2 or later).
    public static func parse(tzif b: [UInt8], name: String) throws(TimeZoneError) -> TimeZoneInfo {
        func fail(_ reason: String) -> TimeZoneError { .malformed(name, reason: reason) }
        func u32(_ at: Int) -> UInt32 {
            UInt32(b[at]) << 24 | UInt32(b[at + 1]) << 16 | UInt32(b[at + 2]) << 8 | UInt32(b[at + 3])
        }
        func i64(_ at: Int) -> Int64 { Int64(bitPattern: UInt64(u32(at)) << 32 | UInt64(u32(at + 4))) }
        struct Counts { var isut, isstd, leap, time, type, char: Int }
        func header(_ at: Int) throws(TimeZoneError) -> Counts {
            guard at + 44 <= b.count, b[at] == 0x54, b[at + 1] == 0x5A, b[at + 2] == 0x69, b[at + 3] == 0x66 else {
                throw fail("bad TZif header")
            }
            let c = Counts(isut: Int(u32(at + 20)), isstd: Int(u32(at + 24)), leap: Int(u32(at + 28)),
                           time: Int(u32(at + 32)), type: Int(u32(at + 36)), char: Int(u32(at + 40)))
            guard c.type >= 1, c.type <= 256, c.time <= 1 << 16, c.char <= 1 << 16, c.leap <= 1 << 16,
                  c.isut <= 256, c.isstd <= 256 else { throw fail("implausible TZif counts") }
            return c
        }
        let v1 = try header(0)
        guard b[4] >= 0x32 else { throw fail("TZif version 1 is not supported (no 64-bit data)") }
        let v1Size = v1.time * 5 + v1.type * 6 + v1.char + v1.leap * 8 + v1.isstd + v1.isut
        let h2 = 44 + v1Size
        let c = try header(h2)
        var p = h2 + 44
        let size = c.time * 9 + c.type * 6 + c.char + c.leap * 12 + c.isstd + c.isut
        guard p + size <= b.count else { throw fail("truncated TZif data") }
        var transitions: [Int64] = []
        transitions.reserveCapacity(c.time)
        for i in 0..<c.time {
            let t = i64(p + 8 * i)
            guard transitions.last.map({ t > $0 }) ?? true else { throw fail("transitions not ascending") }
            transitions.append(t)
        }
        p += 8 * c.time
        let typeIndex = Array(b[p..<(p + c.time)])
        p += c.time
        var typeOffsets: [Int32] = []
        for i in 0..<c.type {
            let off = Int32(bitPattern: u32(p + 6 * i))
            guard PosixTimeZoneRule.plausibleOffsets.contains(Int(off)) else { throw fail("implausible UTC offset") }
            typeOffsets.append(off)
        }
        var offsetsAfter: [Int32] = []
        offsetsAfter.reserveCapacity(c.time)
        for idx in typeIndex {
            guard Int(idx) < c.type else { throw fail("bad local time type index") }
            offsetsAfter.append(typeOffsets[Int(idx)])
        }
        p += size - c.time * 9
        // Footer: "\n<POSIX TZ string>\n".
        var footer: PosixTimeZoneRule?
        if p < b.count, b[p] == 0x0A, let end = b[(p + 1)...].firstIndex(of: 0x0A) {
            let text = String(decoding: b[(p + 1)..<end], as: UTF8.self)
            if !text.isEmpty {
                guard let rule = PosixTimeZoneRule(text) else { throw fail("unsupported TZ footer '\(text)'") }
                footer = rule
            }
        }
        return TimeZoneInfo(name: name, transitions: transitions, offsetsAfter: offsetsAfter,
                            initialOffset: typeOffsets[0], footer: footer)
    }

    // MARK: Queries

    /// Seconds east of UTC in effect at `utc`.
    public func offset(at utc: Int64) -> Int {
        guard let last = transitions.last, utc >= transitions[0] else {
            // Before the first transition (or a zone with none): type 0, or
            // the footer for a zone described by its footer alone.
            if transitions.isEmpty, let footer { return footer.offset(at: utc) }
            return Int(initialOffset)
        }
        if utc >= last {
            if let footer { return footer.offset(at: utc) }
            return Int(offsetsAfter[offsetsAfter.count - 1])
        }
        // Largest i with transitions[i] <= utc.
        var lo = 0, hi = transitions.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if transitions[mid] <= utc { lo = mid } else { hi = mid - 1 }
        }
        return Int(offsetsAfter[lo])
    }

    /// Local wall-clock fields at `utc`; `weekday` 0 = Sunday … 6 = Saturday.
    public func localParts(_ utc: Int64)
        -> (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, weekday: Int) {
        let local = utc + Int64(offset(at: utc))
        let days = ScheduleCalendar.floorDiv(local, 86400)
        let secs = Int(local - days * 86400)
        let (y, m, d) = ScheduleCalendar.civil(days: Int(days))
        return (y, m, d, secs / 3600, secs / 60 % 60, secs % 60, ScheduleCalendar.weekday(days: Int(days)))
    }

    /// The instants whose local wall-clock reading is the given one, ascending:
    /// one normally, none in a spring-forward gap, two in a fall-back overlap.
    public func utc(fromLocal year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0,
                    second: Int = 0) -> [Int64] {
        utc(fromLocalSeconds: ScheduleCalendar.seconds(year: year, month: month, day: day,
                                                       hour: hour, minute: minute, second: second))
    }

    /// As `utc(fromLocal:…)`, with the wall-clock reading as seconds since
    /// 1970-01-01T00:00 local.
    public func utc(fromLocalSeconds local: Int64) -> [Int64] {
        // Every offset that could apply lies among those in effect within two
        // days either side (real zones move by at most a day at once).
        var offsets: [Int] = []
        for probe in [local - 2 * 86400, local + 2 * 86400, local] {
            let o = offset(at: probe)
            if !offsets.contains(o) { offsets.append(o) }
            let o2 = offset(at: local - Int64(o))
            if !offsets.contains(o2) { offsets.append(o2) }
        }
        var result: [Int64] = []
        for o in offsets {
            let t = local - Int64(o)
            if offset(at: t) == o && !result.contains(t) { result.append(t) }
        }
        return result.sorted()
    }

    /// The first instant whose local reading is at or after `local`, for a
    /// reading inside a spring-forward gap: the instant the gap ends.
    public func firstInstant(atOrAfterLocalSeconds local: Int64) -> Int64 {
        // The answer lies in [local - offsetAfter, local - offsetBefore], where
        // `u + offset(u) >= local` is monotonic (a single transition).
        let a = Int64(offset(at: local - 2 * 86400)), b = Int64(offset(at: local + 2 * 86400))
        var lo = local - max(a, b), hi = local - min(a, b)
        while lo < hi {
            let mid = lo + (hi - lo) / 2
            if mid + Int64(offset(at: mid)) >= local { hi = mid } else { lo = mid + 1 }
        }
        return lo
    }
}
