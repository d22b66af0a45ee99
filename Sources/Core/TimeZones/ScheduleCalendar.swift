/// Proleptic Gregorian calendar arithmetic on plain integers, shared by
/// `TimeZoneInfo`, Monitoring's `CronExpression` and the quiet hours of
/// Notify (no Foundation, no libc `tm`).
public enum ScheduleCalendar {
    /// Days since 1970-01-01 (H. Hinnant's `days_from_civil`, in Core).
    public static func days(year: Int, month: Int, day: Int) -> Int {
        Time.daysFromCivil(year: year, month: month, day: day)
    }

    /// The civil date of a day number (H. Hinnant's `civil_from_days`, in Core).
    public static func civil(days: Int) -> (year: Int, month: Int, day: Int) {
        Time.civil(days: days)
    }

    /// 0 = Sunday … 6 = Saturday (1970-01-01 was a Thursday).
    public static func weekday(days: Int) -> Int {
        let w = (days + 4) % 7
        return w < 0 ? w + 7 : w
    }

    public static func isLeap(_ year: Int) -> Bool {
        (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    }

    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Floor division (rounds towards negative infinity).
    public static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    /// Seconds since the epoch of a wall-clock reading taken as if it were UTC.
    public static func seconds(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) -> Int64 {
        Int64(days(year: year, month: month, day: day)) * 86400 + Int64(hour * 3600 + minute * 60 + second)
    }
}
