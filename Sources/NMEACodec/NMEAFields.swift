import GeoBase
import GeoCore

/// A cursor over the comma-separated fields of a sentence body, parsing in place.
///
/// Field 0 is the address (`GPGGA`); `next()` returns the following fields one by one. A
/// field is an `UnsafeRawBufferPointer` slice of the body, valid as long as the body is.
/// Nothing is allocated.
struct NMEAFieldCursor {
    let body: UnsafeRawBufferPointer
    private var position = 0
    private(set) var exhausted = false

    init(_ body: UnsafeRawBufferPointer) { self.body = body }

    /// The next field, or an empty slice once the fields are exhausted.
    @inline(__always)
    mutating func next() -> UnsafeRawBufferPointer {
        if exhausted { return UnsafeRawBufferPointer(rebasing: body[body.count...]) }
        let start = position
        var i = start
        let n = body.count
        while i < n, body[i] != 0x2C { i += 1 }
        if i >= n { exhausted = true }
        position = i + 1
        return UnsafeRawBufferPointer(rebasing: body[start..<i])
    }

    /// Skips `k` fields.
    @inline(__always)
    mutating func skip(_ k: Int) { for _ in 0..<k { _ = next() } }

    /// The number of fields, address included.
    static func count(_ body: UnsafeRawBufferPointer) -> Int {
        var c = 1
        for b in body where b == 0x2C { c += 1 }
        return c
    }

    /// The number of fields, counting only until `limit` is reached (enough to check a minimum).
    @inline(__always)
    static func count(_ body: UnsafeRawBufferPointer, atLeast limit: Int) -> Int {
        var c = 1
        var i = 0
        let n = body.count
        while i < n, c < limit {
            if body[i] == 0x2C { c += 1 }
            i += 1
        }
        return c
    }
}

/// Decimal parsing over bytes without allocation.
enum NMEANumber {
    /// Parses `[+-]digits[.digits]` (at least one digit; no exponent), correctly rounded by
    /// `GeoBase.DecimalNumber`. Nil for empty or anything else.
    @inline(__always)
    static func double(_ f: UnsafeRawBufferPointer) -> Double? {
        guard let p = f.baseAddress else { return nil }
        return DecimalNumber.parse(p.assumingMemoryBound(to: UInt8.self), count: f.count, allowingExponent: false)
    }

    /// Parses an unsigned or signed decimal integer. Nil for empty, non-digits or overflow.
    @inline(__always)
    static func int(_ f: UnsafeRawBufferPointer) -> Int? {
        let n = f.count
        guard n > 0, n <= 18 else { return nil }
        var i = 0
        var negative = false
        if f[0] == 0x2D { negative = true; i = 1 } else if f[0] == 0x2B { i = 1 }
        guard i < n else { return nil }
        var v = 0
        while i < n {
            let b = f[i]
            guard b >= 0x30 && b <= 0x39 else { return nil }
            v = v * 10 + Int(b - 0x30)
            i += 1
        }
        return negative ? -v : v
    }

    /// Two ASCII digits at `i`, or nil.
    @inline(__always)
    static func twoDigits(_ f: UnsafeRawBufferPointer, _ i: Int) -> Int? {
        guard i + 1 < f.count else { return nil }
        let a = f[i], b = f[i + 1]
        guard a >= 0x30, a <= 0x39, b >= 0x30, b <= 0x39 else { return nil }
        return Int(a - 0x30) * 10 + Int(b - 0x30)
    }

    /// A latitude `ddmm.mmmm` with `N`/`S`, in signed degrees; nil when malformed or beyond 90°.
    @inline(__always)
    static func latitude(_ f: UnsafeRawBufferPointer, _ hemisphere: UnsafeRawBufferPointer) -> Double? {
        angle(f, hemisphere, positive: 0x4E, negative: 0x53, limit: 90)
    }

    /// A longitude `dddmm.mmmm` with `E`/`W`, in signed degrees; nil when malformed or beyond
    /// 180° (not wrapped: a receiver that sends 181° is broken, and gpsd would pass it on).
    @inline(__always)
    static func longitude(_ f: UnsafeRawBufferPointer, _ hemisphere: UnsafeRawBufferPointer) -> Double? {
        angle(f, hemisphere, positive: 0x45, negative: 0x57, limit: 180)
    }

    /// An NMEA `(d)ddmm.mmmm` angle with its hemisphere letter, in signed degrees.
    /// Nil when either field is empty or malformed, the hemisphere is not `pos`/`neg`, or the
    /// angle exceeds `limit` degrees.
    @inline(__always)
    static func angle(_ f: UnsafeRawBufferPointer, _ hemisphere: UnsafeRawBufferPointer, positive: UInt8, negative: UInt8,
                      limit: Double) -> Double? {
        guard hemisphere.count == 1, hemisphere[0] == positive || hemisphere[0] == negative else { return nil }
        let n = f.count
        guard n > 0 else { return nil }
        // Split at the point: integer part ddmm, then fractional minutes.
        var i = 0
        var whole = 0
        while i < n, f[i] >= 0x30, f[i] <= 0x39 {
            whole = whole * 10 + Int(f[i] - 0x30)
            i += 1
            if i > 9 { return nil }
        }
        guard i > 0 else { return nil }
        var fraction = 0.0
        if i < n {
            guard f[i] == 0x2E else { return nil }
            if i + 1 < n {
                guard let fr = double(UnsafeRawBufferPointer(rebasing: f[i...])) else { return nil }
                fraction = fr
            }
        }
        let degrees = whole / 100
        let minutes = Double(whole % 100) + fraction
        guard minutes < 60 else { return nil }
        let value = Double(degrees) + minutes / 60
        guard value <= limit else { return nil }
        return hemisphere[0] == negative ? -value : value
    }

    /// Whether the field is empty.
    @inline(__always)
    static func isEmpty(_ f: UnsafeRawBufferPointer) -> Bool { f.count == 0 }

    /// The single character of a one-byte field, or nil.
    @inline(__always)
    static func char(_ f: UnsafeRawBufferPointer) -> UInt8? { f.count >= 1 ? f[0] : nil }
}

/// A UTC time of day from an NMEA `hhmmss[.sss]` field.
public struct NMEATimeOfDay: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// Hours, 0–23.
    public var hour: Int
    /// Minutes, 0–59.
    public var minute: Int
    /// Whole seconds, 0–60 (60 for a leap second).
    public var second: Int
    /// Fraction of the second in nanoseconds.
    public var nanoseconds: Int

    public init(hour: Int, minute: Int, second: Int, nanoseconds: Int = 0) {
        self.hour = hour
        self.minute = minute
        self.second = second
        self.nanoseconds = nanoseconds
    }

    /// Nanoseconds since midnight.
    public var nanosecondsOfDay: Int64 {
        Int64((hour * 60 + minute) * 60 + second) * 1_000_000_000 + Int64(nanoseconds)
    }

    public static func < (a: NMEATimeOfDay, b: NMEATimeOfDay) -> Bool { a.nanosecondsOfDay < b.nanosecondsOfDay }

    public var description: String {
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(two(hour)):\(two(minute)):\(two(second))" + (nanoseconds > 0 ? ".\(nanoseconds)" : "")
    }

    /// Parses `hhmmss` with an optional fraction of up to 9 digits.
    @inline(__always)
    static func parse(_ f: UnsafeRawBufferPointer) -> NMEATimeOfDay? {
        guard f.count >= 6,
              let h = NMEANumber.twoDigits(f, 0), let m = NMEANumber.twoDigits(f, 2), let s = NMEANumber.twoDigits(f, 4),
              h < 24, m < 60, s <= 60
        else { return nil }
        var nanos = 0
        if f.count > 6 {
            guard f[6] == 0x2E, f.count <= 16 else { return nil }
            var scale = 100_000_000
            for i in 7..<f.count {
                let b = f[i]
                guard b >= 0x30, b <= 0x39 else { return nil }
                nanos += Int(b - 0x30) * scale
                scale /= 10
            }
        }
        return NMEATimeOfDay(hour: h, minute: m, second: s, nanoseconds: nanos)
    }
}

/// A calendar date (UTC) as NMEA carries it.
public struct NMEADate: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// Full year (RMC's two-digit years are placed in 1980–2079).
    public var year: Int
    /// Month, 1–12.
    public var month: Int
    /// Day of month, 1–31.
    public var day: Int

    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// Days since 1970-01-01 (proleptic Gregorian).
    public var daysSinceEpoch: Int { CivilCalendar.days(year: year, month: month, day: day) }

    /// The date `days` after 1970-01-01.
    public init(daysSinceEpoch days: Int) {
        let (y, m, d) = CivilCalendar.date(fromDays: days)
        self.init(year: y, month: m, day: d)
    }

    public static func < (a: NMEADate, b: NMEADate) -> Bool { a.daysSinceEpoch < b.daysSinceEpoch }

    public var description: String {
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(year)-\(two(month))-\(two(day))"
    }

    /// Parses RMC's `ddmmyy`; two-digit years map to 1980–2079 (GPS began in 1980). Nil for a
    /// day the month does not have (31 February, 29 February 2023).
    @inline(__always)
    static func parseDDMMYY(_ f: UnsafeRawBufferPointer) -> NMEADate? {
        guard f.count == 6, let d = NMEANumber.twoDigits(f, 0), let m = NMEANumber.twoDigits(f, 2),
              let y = NMEANumber.twoDigits(f, 4)
        else { return nil }
        return NMEADate(validYear: y < 80 ? 2000 + y : 1900 + y, month: m, day: d)
    }

    /// The date, or nil when it names no real day (`CivilCalendar.isValid`).
    @inline(__always)
    init?(validYear year: Int, month: Int, day: Int) {
        guard CivilCalendar.isValid(year: year, month: month, day: day) else { return nil }
        self.init(year: year, month: month, day: day)
    }
}
