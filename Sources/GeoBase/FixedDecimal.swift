import Platform

/// C's `printf("%.*f", decimals, value)` for doubles, without `printf`: the exact binary value
/// rounded to `decimals` places, ties to even (glibc in the default rounding mode), by integer
/// arithmetic. About ten times faster than `vsnprintf`, which `geo nmea decode` spent most of
/// its output time in.
///
/// The scaled value x·10ᵈ is rounded once in floating point; its exact distance from the
/// candidate's two rounding boundaries n ± ½ is then decided by fused multiply-adds, whose
/// single rounding keeps the sign of x·10ᵈ − (n ± ½) exact (n ± ½ is exact below 2⁵²). So
/// the digits are exactly `printf`'s, which the tests check against `String(format:)`.
package enum FixedDecimal {
    /// Bytes ``format(_:decimals:into:)`` may write: a sign, up to 16 integer digits, the
    /// point and up to ``maximumDecimals`` decimals.
    package static let capacity = 40
    /// The most decimals formatted here (10ᵈ exact as a double up to 22; 15 keeps `capacity`).
    package static let maximumDecimals = 15

    /// 10⁰ … 10¹⁵, each exact.
    private static let powersOfTen: [Double] = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15]

    /// `printf("%.*f", decimals, value)` as a `String`; C prints what ``format(_:decimals:into:)``
    /// leaves to it (non-finite values, more decimals or a larger magnitude than it handles).
    package static func string(_ value: Double, decimals: Int) -> String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
            guard let count = format(value, decimals: decimals, into: buffer) else { return printf(value, decimals: decimals) }
            return String(decoding: UnsafeBufferPointer(rebasing: buffer[..<count]), as: UTF8.self)
        }
    }

    /// C's own `%.*f`, for what ``format(_:decimals:into:)`` leaves to it.
    package static func printf(_ value: Double, decimals: Int) -> String {
        let places = Int32(clamping: min(max(decimals, 0), 1_000))
        // 309 integer digits at most (DBL_MAX), a sign, the point and the decimals.
        let size = 312 + Int(places)
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: size) { buffer in
            let written = withVaList([places, value]) { vsnprintf(buffer.baseAddress, size, "%.*f", $0) }
            return String(decoding: UnsafeRawBufferPointer(start: buffer.baseAddress, count: Int(max(0, min(written, Int32(size - 1))))), as: UTF8.self)
        }
    }

    /// Writes `value` with `decimals` places into `buffer` (at least ``capacity`` bytes).
    /// - Returns: the bytes written, or nil when `value` is not finite, `decimals` is outside
    ///   0…``maximumDecimals``, or |value|·10ᵈ ≥ 2⁵² (the caller falls back to `printf`).
    package static func format(_ value: Double, decimals: Int, into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int? {
        guard value.isFinite, (0...maximumDecimals).contains(decimals) else { return nil }
        let scale = powersOfTen[decimals]
        let magnitude = abs(value)
        let scaled = magnitude * scale
        guard scaled < 0x1p52 else { return nil }
        var n = scaled.rounded(.toNearestOrEven)
        // Exact signs of x·10ᵈ − (n + ½) and x·10ᵈ − (n − ½): move n onto the right side of each.
        let above = (-(n + 0.5)).addingProduct(magnitude, scale)
        // n is a whole number in [0, 2⁵²]: its parity is its integer's last bit (no `fmod`).
        if above > 0 || (above == 0 && UInt64(n) & 1 != 0) { n += 1 }
        let below = (-(n - 0.5)).addingProduct(magnitude, scale)
        if below < 0 || (below == 0 && UInt64(n) & 1 != 0) { n -= 1 }

        var count = 0
        if value.sign == .minus { buffer[0] = UInt8(ascii: "-"); count = 1 }
        var digits = UInt64(n)
        // Digits of n, least significant first, at the end of the field; the point after
        // `decimals` of them; at least one integer digit.
        var length = 1
        var rest = digits / 10
        while rest > 0 { length += 1; rest /= 10 }
        let width = max(length, decimals + 1) + (decimals > 0 ? 1 : 0)
        var i = count + width
        var written = 0
        while i > count {
            i -= 1
            if decimals > 0 && written == decimals { buffer[i] = UInt8(ascii: "."); written += 1; continue }
            buffer[i] = UInt8(ascii: "0") + UInt8(digits % 10)
            digits /= 10
            written += 1
        }
        return count + width
    }
}
