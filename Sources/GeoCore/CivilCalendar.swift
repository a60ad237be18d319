/// Proleptic Gregorian dates as day counts since 1970-01-01, without Foundation's calendar:
/// the codecs' timestamp parsers and formatters need it per fix (H. Hinnant, "chrono-Compatible
/// Low-Level Date Algorithms", `days_from_civil` / `civil_from_days`).
public enum CivilCalendar {
    /// Days since 1970-01-01 of a date (negative before).
    /// - Complexity: O(1).
    @inlinable
    public static func days(year: Int, month: Int, day: Int) -> Int {
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
    public static func date(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
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
}
