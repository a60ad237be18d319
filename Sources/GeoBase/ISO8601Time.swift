public import Platform

/// The one ISO 8601 / XML Schema `dateTime` reader and writer of the project: GPX and OSM XML
/// times, gpsd's JSON, the CSV and GeoJSON track readers, the beacon replay.
///
/// Reads `YYYY-MM-DDThh:mm:ss[.f…][Z|±hh:mm|±hhmm|±hh]` (XML Schema Part 2 §3.2.7) with any
/// number of fraction digits (up to nanoseconds are kept), a space instead of `T`, and no
/// zone at all, which GPX files in the wild write and which is taken as UTC (the GPX schema
/// says times are UTC; gpsd and the OSM API write `Z`). Also reads a bare date (`YYYY-MM-DD`) as midnight UTC.
/// Writes UTC with `Z` and the fewest fraction digits that read back to the same `Date`.
public enum ISO8601Time {
    private static let integerPowersOf10: [Int64] = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000]

    /// Parses a time; nil when the text is not an ISO 8601 date-time.
    public static func date(from text: String) -> Date? {
        var text = text
        return text.withUTF8 { date(from: $0) }
    }

    /// Parses a time from UTF-8 bytes (leading and trailing XML white space allowed).
    /// - Complexity: O(n) in the length of the text.
    public static func date(from bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        parse(bytes).map { makeDate(epochSeconds: $0.seconds, fraction: $0.fraction, digits: $0.digits) }
    }

    /// Seconds since 1970-01-01T00:00:00Z of exactly `YYYY-MM-DDThh:mm:ssZ`, the OSM API's form
    /// (OSM XML's element timestamps), without making a `Date`; nil for any other shape (a space
    /// for `T`, `24:00:00`, a fraction, an offset) and for a date or time that does not exist.
    package static func epochSeconds(canonical bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard bytes.count == 20, let base = bytes.baseAddress, base[19] == 0x5A else { return nil }
        return commonShape(base)
    }

    /// The time as whole seconds since 1970 and a fraction of `digits` decimal digits (0–9).
    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> (seconds: Int64, fraction: Int64, digits: Int)? {
        var lo = 0, hi = bytes.count
        while lo < hi, isSpace(bytes[lo]) { lo += 1 }
        while hi > lo, isSpace(bytes[hi - 1]) { hi -= 1 }
        if let base = bytes.baseAddress {
            // The two shapes nearly every writer uses, read at fixed positions: whole seconds
            // (`…:ssZ`) and milliseconds (`…:ss.sssZ`, JavaScript's toISOString, gpsd).
            let p = base + lo
            if hi - lo == 20, p[19] == 0x5A, let seconds = commonShape(p) { return (seconds, 0, 0) }
            if hi - lo == 24, p[19] == 0x2E, p[23] == 0x5A {
                let a = p[20] &- 0x30, b = p[21] &- 0x30, c = p[22] &- 0x30
                if a < 10, b < 10, c < 10, let seconds = commonShape(p) { return (seconds, Int64(a) * 100 + Int64(b) * 10 + Int64(c), 3) }
            }
        }
        var i = lo
        func number(_ n: Int) -> Int? {
            guard i + n <= hi else { return nil }
            var v = 0
            for k in i..<(i + n) {
                let d = bytes[k] &- 0x30
                guard d < 10 else { return nil }
                v = v * 10 + Int(d)
            }
            i += n
            return v
        }
        func expect(_ c: UInt8) -> Bool {
            guard i < hi, bytes[i] == c else { return false }
            i += 1
            return true
        }
        var negativeYear = false
        if i < hi, bytes[i] == 0x2D { negativeYear = true; i += 1 }
        guard var year = number(4) else { return nil }
        // Years beyond 9999 (XML Schema allows more digits).
        // Up to 9 digits: the seconds of any such year fit Int64 (beyond, the date is rejected).
        while i < hi, bytes[i] &- 0x30 < 10 {
            guard year < 100_000_000 else { return nil }
            year = year * 10 + Int(bytes[i] - 0x30); i += 1
        }
        if negativeYear { year = -year }
        guard expect(0x2D), let month = number(2), expect(0x2D), let day = number(2),
              (1...12).contains(month), day >= 1, day <= CivilCalendar.daysIn(month: month, year: year)
        else { return nil }
        if i == hi { return (CivilCalendar.seconds(year: year, month: month, day: day), 0, 0) }
        guard i < hi, bytes[i] == 0x54 || bytes[i] == 0x74 || bytes[i] == 0x20 else { return nil }
        i += 1
        guard let hour = number(2), expect(0x3A), let minute = number(2), expect(0x3A), let second = number(2),
              hour < 24 || (hour == 24 && minute == 0 && second == 0), minute < 60, second <= 60
        else { return nil }
        var seconds = CivilCalendar.seconds(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        var fraction: Int64 = 0, digits = 0
        if i < hi, bytes[i] == 0x2E || bytes[i] == 0x2C {
            i += 1
            let start = i
            while i < hi, bytes[i] &- 0x30 < 10 {
                if digits < 9 { fraction = fraction * 10 + Int64(bytes[i] - 0x30); digits += 1 }
                i += 1
            }
            guard i > start else { return nil }
        }
        if i < hi {
            let c = bytes[i]
            if c == 0x5A || c == 0x7A { // Z
                i += 1
            } else if c == 0x2B || c == 0x2D { // ±hh[:mm] or ±hhmm
                i += 1
                guard let zh = number(2), zh <= 14 else { return nil }
                var zm = 0
                if i < hi {
                    _ = expect(0x3A)
                    guard let m = number(2), m < 60 else { return nil }
                    zm = m
                }
                let offset = Int64(zh * 3600 + zm * 60)
                seconds += c == 0x2B ? -offset : offset
            } else {
                return nil
            }
        }
        guard i == hi else { return nil }
        return (seconds, fraction, digits)
    }

    /// The seconds of `YYYY-MM-DDThh:mm:ss` (the 19 bytes at `p`) read at fixed positions, the
    /// start of the shapes nearly every GPX writer uses (the caller checks what follows); nil for
    /// anything else in those bytes (a lower-case `t`, `24:00:00`, an invalid date…), which the
    /// general reader then decides. It accepts only text the general reader accepts, with the
    /// same result.
    @inline(__always)
    private static func commonShape(_ p: UnsafePointer<UInt8>) -> Int64? {
        guard p[4] == 0x2D, p[7] == 0x2D, p[10] == 0x54, p[13] == 0x3A, p[16] == 0x3A else { return nil }
        // The fourteen digits, each checked.
        @inline(__always) func two(_ k: Int) -> Int? {
            let a = p[k] &- 0x30, b = p[k + 1] &- 0x30
            return a < 10 && b < 10 ? Int(a) * 10 + Int(b) : nil
        }
        guard let century = two(0), let yy = two(2), let month = two(5), let day = two(8),
              let hour = two(11), let minute = two(14), let second = two(17),
              month >= 1, month <= 12, hour < 24, minute < 60, second <= 60
        else { return nil }
        let year = century * 100 + yy
        guard day >= 1, day <= CivilCalendar.daysIn(month: month, year: year) else { return nil }
        return CivilCalendar.seconds(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }

    /// The one formula both the reader and the writer use, so writing is exactly reversible.
    private static func makeDate(epochSeconds: Int64, fraction: Int64, digits: Int) -> Date {
        Date(timeIntervalSince1970: Double(epochSeconds) + Double(fraction) / ExactPowerOfTen.value(digits))
    }

    /// Formats a time as `YYYY-MM-DDThh:mm:ss[.f…]Z` in UTC with the fewest fraction digits
    /// (0–9) that parse back to exactly `date`.
    public static func string(from date: Date) -> String { text(shortest(date)) }

    /// Formats a time as `YYYY-MM-DDThh:mm:ss[.f…]Z` in UTC with exactly `fractionDigits`
    /// (0–9) fraction digits, rounded to the nearest: gpsd prints 3 (`2019-04-12T00:39:56.000Z`).
    public static func string(from date: Date, fractionDigits: Int) -> String {
        var out = [UInt8]()
        append(date, fractionDigits: fractionDigits, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the text `string(from:fractionDigits:)` gives to `bytes`, allocating nothing
    /// of its own (a device-day of fixes written as GeoJSON formats 86,400 times).
    public static func append(_ date: Date, fractionDigits: Int, to bytes: inout [UInt8]) {
        write(fixed(date, digits: min(max(fractionDigits, 0), 9)), to: &bytes)
    }

    /// Times in milliseconds since 1970 as `append(_:fractionDigits: 3, to:)` writes them
    /// (`2026-01-01T00:00:00.123Z`), one after another: the text up to the minute is kept while
    /// the times stay in that minute (a track's fixes are seconds apart), so most times cost
    /// only their last seven characters. Writing each time whole was a tenth of a device-day
    /// read's CPU samples (86,400 fixes as GeoJSON, perf).
    public struct MillisecondWriter {
        private var minute: Int64?
        /// `YYYY-MM-DDThh:mm:` of `minute`.
        private var prefix: [UInt8] = []

        public init() {}

        /// Appends the text of `milliseconds` to `out`.
        public mutating func append(_ milliseconds: Int64, to out: inout [UInt8]) {
            var (minute, rest) = milliseconds.quotientAndRemainder(dividingBy: 60_000)
            if rest < 0 { rest += 60_000; minute -= 1 }
            if minute != self.minute {
                prefix.removeAll(keepingCapacity: true)
                write((minute * 60, 0, 0), to: &prefix) // …:mm:00Z
                prefix.removeLast(3)
                self.minute = minute
            }
            out.append(contentsOf: prefix)
            // Digits by constant divisors rather than through `append(_:width:to:)`: 86,400 times
            // took 1.6–2.3 ms written so and 4.4–4.7 ms through it (swiftc -O -wmo, best of 15).
            let second = Int(rest / 1000), fraction = Int(rest % 1000)
            out.append(UInt8(0x30 + second / 10)); out.append(UInt8(0x30 + second % 10))
            out.append(0x2E)
            out.append(UInt8(0x30 + fraction / 100)); out.append(UInt8(0x30 + fraction / 10 % 10)); out.append(UInt8(0x30 + fraction % 10))
            out.append(0x5A)
        }
    }

    /// `write`'s text as a string.
    private static func text(_ chosen: (seconds: Int64, fraction: Int64, digits: Int)) -> String {
        var out = [UInt8]()
        write(chosen, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the text of whole seconds since 1970 and a fraction of `digits` digits.
    private static func write(_ chosen: (seconds: Int64, fraction: Int64, digits: Int), to out: inout [UInt8]) {
        var days = chosen.seconds / 86_400
        var secondOfDay = chosen.seconds % 86_400
        if secondOfDay < 0 { secondOfDay += 86_400; days -= 1 }
        let (y, m, d) = CivilCalendar.date(fromDays: Int(days))
        out.reserveCapacity(out.count + 32)
        if y < 0 { out.append(0x2D) }
        append(abs(y), width: 4, to: &out)
        out.append(0x2D); append(m, width: 2, to: &out)
        out.append(0x2D); append(d, width: 2, to: &out)
        out.append(0x54)
        append(Int(secondOfDay / 3600), width: 2, to: &out)
        out.append(0x3A); append(Int(secondOfDay / 60 % 60), width: 2, to: &out)
        out.append(0x3A); append(Int(secondOfDay % 60), width: 2, to: &out)
        if chosen.digits > 0 {
            out.append(0x2E)
            append(Int(chosen.fraction), width: chosen.digits, to: &out)
        }
        out.append(0x5A)
    }

    /// Whole seconds and a fraction of the fewest digits that read back to exactly `date`.
    private static func shortest(_ date: Date) -> (seconds: Int64, fraction: Int64, digits: Int) {
        let t = date.timeIntervalSince1970
        let whole = t.rounded(.down)
        let secondsBase = Int64(whole)
        let frac = t - whole
        var chosen: (seconds: Int64, fraction: Int64, digits: Int) = (secondsBase, 0, 0)
        for digits in 0...9 {
            var s = secondsBase
            var f = Int64((frac * ExactPowerOfTen.value(digits)).rounded())
            if f == integerPowersOf10[digits] { s += 1; f = 0 }
            chosen = (s, f, digits)
            if makeDate(epochSeconds: s, fraction: f, digits: digits) == date { break }
        }
        // Drop trailing zeros of the fraction (a carry can leave some).
        while chosen.digits > 0, chosen.fraction % 10 == 0 { chosen.fraction /= 10; chosen.digits -= 1 }
        return chosen
    }

    /// Whole seconds and a fraction of `digits` digits, the time rounded to the nearest unit.
    private static func fixed(_ date: Date, digits: Int) -> (seconds: Int64, fraction: Int64, digits: Int) {
        let units = Int64((date.timeIntervalSince1970 * ExactPowerOfTen.value(digits)).rounded())
        let perSecond = integerPowersOf10[digits]
        var (seconds, fraction) = units.quotientAndRemainder(dividingBy: perSecond)
        if fraction < 0 { fraction += perSecond; seconds -= 1 }
        return (seconds, fraction, digits)
    }

    /// Appends `value` (≥ 0) in decimal, zero-padded to `width` digits (all of them when it has more).
    private static func append(_ value: Int, width: Int, to out: inout [UInt8]) {
        var needed = 1, v = value
        while v >= 10 { v /= 10; needed += 1 }
        let start = out.count, count = max(width, needed)
        out.append(contentsOf: repeatElement(0x30, count: count))
        v = value
        var k = start + count - 1
        while v > 0 { out[k] = UInt8(0x30 + v % 10); v /= 10; k -= 1 }
    }

    @inline(__always)
    private static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0A || c == 0x09 || c == 0x0D }

}
