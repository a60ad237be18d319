/// Proleptic Gregorian dates as day counts since 1970-01-01, and UTC date-times as seconds
/// since 1970-01-01T00:00:00Z, without Foundation's calendar: the codecs' timestamp parsers and
/// formatters need it per fix (H. Hinnant, "chrono-Compatible Low-Level Date Algorithms",
/// `days_from_civil` / `civil_from_days`).
package enum CivilCalendar {
    /// The instants with a four-digit year, 0001-01-01T00:00:00Z up to (not including)
    /// 10000-01-01T00:00:00Z, in seconds since 1970-01-01T00:00:00Z: the years ISO 8601's
    /// basic format writes without an agreed expansion (ISO 8601-1:2019 §5.2.2.1) and so the
    /// times the project's readers accept where a time outside them can only be damage.
    package static let fourDigitYears: Range<Double> = -62_135_596_800 ..< 253_402_300_800

    /// Seconds since 1970-01-01T00:00:00Z of a UTC date and time of day, in POSIX time (every
    /// day has 86 400 seconds, so a leap second, `second` 60, is the next minute's second 0).
    /// The one date-to-seconds conversion of the GPX, gpsd and NMEA readers.
    /// - Complexity: O(1).
    @inlinable
    package static func seconds(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) -> Int64 {
        Int64(days(year: year, month: month, day: day)) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    }

    /// Days since 1970-01-01 of a date (negative before).
    /// - Complexity: O(1).
    @inlinable
    package static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The date `days` after 1970-01-01, the inverse of `days(year:month:day:)`.
    /// - Complexity: O(1).
    @inlinable
    package static func date(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    /// The number of days in `month` (1–12) of `year` (proleptic Gregorian: 29 in February of
    /// a year divisible by 4 but not by 100, or by 400); 0 for a month outside 1–12.
    @inlinable
    package static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 1, 3, 5, 7, 8, 10, 12: return 31
        case 4, 6, 9, 11: return 30
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        default: return 0
        }
    }

    /// Whether `year`-`month`-`day` names a real day: 31 February and 31 April do not.
    @inlinable
    package static func isValid(year: Int, month: Int, day: Int) -> Bool {
        day >= 1 && day <= daysIn(month: month, year: year)
    }
}
