import Testing
import GeoBase
import GeoCore

/// UTC date-times and their POSIX seconds from GNU coreutils 9.1,
/// `date -u -d 'YYYY-MM-DDThh:mm:ssZ' +%s`: the epoch and the second before it, leap days,
/// century years that are not leap years (1900, 2100) and one that is (1600), year 1 and 9999.
private let posixSeconds: [(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, seconds: Int64)] = [
    (1970, 1, 1, 0, 0, 0, 0),
    (1969, 12, 31, 23, 59, 59, -1),
    (2000, 2, 29, 12, 34, 56, 951_827_696),
    (1900, 3, 1, 0, 0, 0, -2_203_891_200),
    (2100, 2, 28, 23, 59, 59, 4_107_542_399),
    (2016, 12, 31, 23, 59, 59, 1_483_228_799),
    (9999, 12, 31, 23, 59, 59, 253_402_300_799),
    (1600, 1, 1, 0, 0, 0, -11_676_096_000),
    (1, 1, 1, 0, 0, 0, -62_135_596_800),
]

@Test func civilCalendarSeconds_matchGNUDate() {
    for t in posixSeconds {
        let seconds = CivilCalendar.seconds(year: t.year, month: t.month, day: t.day, hour: t.hour, minute: t.minute, second: t.second)
        #expect(seconds == t.seconds, "\(t)")
    }
}

@Test func civilCalendarSeconds_dateAloneIsMidnight_andLeapSecondIsTheNextMinute() {
    #expect(CivilCalendar.seconds(year: 2000, month: 2, day: 29) == 951_782_400) // `date -u -d 2000-02-29Z +%s`
    // POSIX time has no leap seconds: 2016-12-31T23:59:60Z is 2017-01-01T00:00:00Z.
    #expect(CivilCalendar.seconds(year: 2016, month: 12, day: 31, hour: 23, minute: 59, second: 60)
            == CivilCalendar.seconds(year: 2017, month: 1, day: 1))
}

/// Every day from 1 January 1600 to 31 December 2400 goes to seconds and back to the same date.
@Test func civilCalendarSeconds_roundTripThroughDateFromDays() {
    var day = Int(CivilCalendar.seconds(year: 1600, month: 1, day: 1) / 86_400)
    for year in 1600...2400 {
        for month in 1...12 {
            for dayOfMonth in 1...CivilCalendar.daysIn(month: month, year: year) {
                let seconds = CivilCalendar.seconds(year: year, month: month, day: dayOfMonth)
                let back = CivilCalendar.date(fromDays: day)
                if seconds != Int64(day) * 86_400 || back != (year, month, dayOfMonth) {
                    Issue.record("\(year)-\(month)-\(dayOfMonth): \(seconds) s, back \(back); expected day \(day)")
                    return
                }
                day += 1
            }
        }
    }
}
