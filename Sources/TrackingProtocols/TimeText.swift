#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
import GeoCore

/// The time formats tracking clients send.
public enum TimeText {
    /// An ISO 8601 / RFC 3339 date-time: `2015-10-01T08:00:00-0700` (Overland, without the
    /// colon), `2024-05-01T10:00:00.123Z`, `+02:00`; also `2024-05-01 10:00:00` (a space for
    /// the `T`, UTC when no offset, as Traccar's OsmAnd decoder reads it). Nil when it is not one.
    public static func date(iso8601 text: String) -> Date? {
        let b = Array(text.utf8)
        func digits(_ from: Int, _ count: Int) -> Int? {
            guard from + count <= b.count else { return nil }
            var v = 0
            for i in from..<(from + count) {
                guard b[i] >= 48, b[i] <= 57 else { return nil }
                v = v * 10 + Int(b[i] - 48)
            }
            return v
        }
        guard b.count >= 19, let year = digits(0, 4), b[4] == 45, let month = digits(5, 2), b[7] == 45, let day = digits(8, 2),
              b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: "t") || b[10] == 32,
              let hour = digits(11, 2), b[13] == 58, let minute = digits(14, 2), b[16] == 58, let second = digits(17, 2),
              CivilCalendar.isValid(year: year, month: month, day: day), hour < 24, minute < 60, second < 61 else { return nil }
        var i = 19
        var fraction = 0.0
        if i < b.count, b[i] == 46 || b[i] == 44 {
            i += 1
            var scale = 0.1, any = false
            while i < b.count, b[i] >= 48, b[i] <= 57 { fraction += Double(b[i] - 48) * scale; scale /= 10; i += 1; any = true }
            guard any else { return nil }
        }
        var offset = 0
        if i < b.count {
            if b[i] == UInt8(ascii: "Z") || b[i] == UInt8(ascii: "z") {
                i += 1
            } else if b[i] == 43 || b[i] == 45 {
                let sign = b[i] == 45 ? -1 : 1
                guard let oh = digits(i + 1, 2) else { return nil }
                var j = i + 3
                if j < b.count, b[j] == 58 { j += 1 }
                guard let om = digits(j, 2), oh < 24, om < 60 else { return nil }
                offset = sign * (oh * 3600 + om * 60)
                i = j + 2
            }
        }
        guard i == b.count else { return nil }
        let seconds = CivilCalendar.seconds(year: year, month: month, day: day, hour: hour, minute: minute, second: second) - Int64(offset)
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    /// A Unix time as trackers send it: seconds, or milliseconds when above 10¹¹ (year 5138 in
    /// seconds; OsmAnd's `{2}` is milliseconds), as Traccar tells them apart.
    public static func date(unix value: Double) -> Date {
        Date(timeIntervalSince1970: value > 1e11 ? value / 1000 : value)
    }
}
