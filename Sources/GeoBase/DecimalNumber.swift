/// Reading decimal numbers from bytes, without allocation in the common case: the one parser
/// behind GPX values (`xsd:decimal`), NMEA fields and `geo distance --batch`.
///
/// The syntax is `[+|-] digits [. [digits]] [(e|E) [+|-] digits]` or with the digits only
/// after the point (`.5`); at least one mantissa digit, nothing before or after (callers trim
/// white space themselves). No `nan`, `inf`, hexadecimal or digit separators.
///
/// Public, not `package`, so that the readers in other modules inline `parse`: Swift 6.3 does
/// not inline an `@inlinable package` function across modules (GPXBench stream: a call per
/// number, 6.8 % of its samples).
public enum DecimalNumber {
    /// Parses all `count` bytes at `p` as one decimal number, correctly rounded (to nearest,
    /// ties to even), as `Double(String)` reads it.
    ///
    /// Fast path (Clinger 1990, "How to read floating point numbers accurately", §3): when the
    /// digits form an integer up to 2^53 and the power of ten is within ±22, both are exact
    /// doubles, so one multiplication or division rounds correctly. Other inputs (more than 19
    /// digits, leading zeros counted; larger exponents) go to the standard library's correctly
    /// rounding reader after the syntax is checked here.
    /// - Parameters:
    ///   - allowingExponent: whether an `e` / `E` exponent is part of the syntax (NMEA fields
    ///     have none).
    /// - Returns: nil when the bytes are not exactly one number. A number beyond the `Double`
    ///   range is ±infinity and one below it ±0, as `Double(String)` gives them: callers that
    ///   need a finite value check `isFinite`. `-0` is negative zero.
    /// - Complexity: O(count).
    @inlinable @inline(__always)
    public static func parse(_ p: UnsafePointer<UInt8>, count n: Int, allowingExponent: Bool = true) -> Double? {
        var i = 0
        var negative = false
        if n > 0, p[0] == 0x2D || p[0] == 0x2B { negative = p[0] == 0x2D; i = 1 }
        // All the digits as one integer (exact up to 19 digits: 10^19 < 2^64; beyond, it wraps
        // and the fallback reads the text), and the power of ten that scales it.
        var mantissa: UInt64 = 0
        let integerStart = i
        while i < n, case let d = p[i] &- 0x30, d < 10 {
            mantissa = mantissa &* 10 &+ UInt64(d)
            i += 1
        }
        var digits = i - integerStart
        var exponent = 0
        if i < n, p[i] == 0x2E {
            i += 1
            let fractionStart = i
            while i < n, case let d = p[i] &- 0x30, d < 10 {
                mantissa = mantissa &* 10 &+ UInt64(d)
                i += 1
            }
            digits += i - fractionStart
            exponent = fractionStart - i
        }
        guard digits > 0 else { return nil }
        if allowingExponent, i < n, p[i] | 0x20 == 0x65 {
            i += 1
            var negativeExponent = false
            if i < n, p[i] == 0x2D || p[i] == 0x2B { negativeExponent = p[i] == 0x2D; i += 1 }
            var e = 0, exponentDigits = 0
            while i < n, case let d = p[i] &- 0x30, d < 10 {
                // Beyond 10^100000 every result is 0 or infinity; stop growing (no overflow).
                if e < 100_000 { e = e * 10 + Int(d) }
                exponentDigits += 1
                i += 1
            }
            guard exponentDigits > 0 else { return nil }
            exponent += negativeExponent ? -e : e
        }
        guard i == n else { return nil }
        if digits <= 19, mantissa <= 1 << 53, exponent >= -ExactPowerOfTen.maximumExponent, exponent <= ExactPowerOfTen.maximumExponent {
            let m = Double(mantissa)
            let v = exponent < 0 ? m / ExactPowerOfTen.value(-exponent) : m * ExactPowerOfTen.value(exponent)
            return negative ? -v : v
        }
        return correctlyRounded(p, count: n)
    }

    /// The standard library's correctly rounding reader, for text whose syntax `parse` checked.
    @usableFromInline @inline(never)
    static func correctlyRounded(_ p: UnsafePointer<UInt8>, count: Int) -> Double? {
        Double(String(decoding: UnsafeBufferPointer(start: p, count: count), as: UTF8.self))
    }
}
