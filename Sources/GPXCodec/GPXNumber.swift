import GeoCore

/// Number reading for GPX decimal fields (XML Schema `xsd:decimal`, plus the exponent form
/// some writers use although the schema forbids it).
enum GPXNumber {
    /// Parses a decimal number; nil when the text is not one or is not finite.
    ///
    /// Fast path (Clinger 1990): up to 15 significant digits and 22 fraction digits are exact
    /// in a `Double`, so one division gives the correctly rounded result. Anything longer or
    /// with an exponent falls back to the standard library's correctly rounding parser.
    /// - Complexity: O(n) in the length of the text.
    @inline(__always)
    static func double(_ p: UnsafePointer<UInt8>, _ count: Int) -> Double? {
        var lo = 0, hi = count
        while lo < hi, isSpace(p[lo]) { lo += 1 }
        while hi > lo, isSpace(p[hi - 1]) { hi -= 1 }
        guard lo < hi else { return nil }
        var i = lo
        var negative = false
        if p[i] == 0x2D { negative = true; i += 1 } else if p[i] == 0x2B { i += 1 }
        var mantissa: UInt64 = 0
        var digits = 0, fractionDigits = 0
        var sawPoint = false
        while i < hi {
            let c = p[i]
            let d = c &- 0x30
            if d < 10 {
                mantissa = mantissa &* 10 &+ UInt64(d)
                digits += 1
                if sawPoint { fractionDigits += 1 }
            } else if c == 0x2E, !sawPoint {
                sawPoint = true
            } else {
                break
            }
            i += 1
        }
        if i == hi, digits > 0, digits <= 15, fractionDigits <= 22 {
            let v = Double(mantissa) / ExactPowerOfTen.value(fractionDigits)
            return negative ? -v : v
        }
        return slow(p + lo, hi - lo)
    }

    @inline(never)
    private static func slow(_ p: UnsafePointer<UInt8>, _ count: Int) -> Double? {
        // Only digits, sign, point and exponent are numbers here (no "nan", "inf", hex).
        for k in 0..<count {
            let c = p[k]
            guard (c &- 0x30) < 10 || c == 0x2E || c == 0x2D || c == 0x2B || c | 0x20 == 0x65 else { return nil }
        }
        let text = String(decoding: UnsafeBufferPointer(start: p, count: count), as: UTF8.self)
        guard let v = Double(text), v.isFinite else { return nil }
        return v
    }

    /// Parses a decimal integer (optional sign, white space around); nil otherwise.
    static func integer(_ p: UnsafePointer<UInt8>, _ count: Int) -> Int? {
        var lo = 0, hi = count
        while lo < hi, isSpace(p[lo]) { lo += 1 }
        while hi > lo, isSpace(p[hi - 1]) { hi -= 1 }
        guard lo < hi else { return nil }
        return Int(String(decoding: UnsafeBufferPointer(start: p + lo, count: hi - lo), as: UTF8.self))
    }

    @inline(__always)
    private static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0A || c == 0x09 || c == 0x0D }
}
