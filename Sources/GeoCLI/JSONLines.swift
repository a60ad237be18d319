import Foundation
import SystemIO

/// JSON-lines output on standard output (``StandardOutput``, which handles a failed write).
struct JSONLines {
    private let out = StandardOutput()

    func write(_ line: String) { out.line(line) }

    /// Hands the lines so far to the operating system (live streams, per update).
    func flush() { out.flush() }

    /// A JSON string literal (RFC 8259 §7).
    static func string(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 { out += String(format: "\\u%04x", scalar.value) } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out + "\""
    }
}

/// How every command prints a measured quantity in JSON: a fixed number of decimals per kind of
/// quantity, the ones gpsd uses in its TPV reports (gpsd's `json_tpv_dump`), so a field reads the
/// same whether it comes from a raw fix or a filtered one (`45.772089791`, never
/// `45.772003559283235`). Commands that promise round-trip precision (`distance`) do not use it.
enum JSONNumber {
    /// A kind of quantity and its decimals.
    struct Quantity {
        let decimals: Int32
        /// Latitude and longitude in degrees: 9 decimals (0.1 mm).
        static let coordinate = Quantity(decimals: 9)
        /// Altitudes in metres: 4 decimals.
        static let altitude = Quantity(decimals: 4)
        /// Courses and tracks in degrees: 4 decimals.
        static let course = Quantity(decimals: 4)
        /// Error estimates (accuracy, eph, epv) in metres: 3 decimals.
        static let error = Quantity(decimals: 3)
        /// Speeds and climbs in m/s: 3 decimals.
        static let speed = Quantity(decimals: 3)
        /// Probabilities: 4 decimals.
        static let probability = Quantity(decimals: 4)
        /// Dilutions of precision: 2 decimals.
        static let dop = Quantity(decimals: 2)
    }

    /// The number with its quantity's decimals (C's `%.*f`, correctly rounded), or `null` when it
    /// is absent or not finite.
    static func string(_ value: Double?, _ quantity: Quantity) -> String {
        withText(of: value, quantity) { String(decoding: $0, as: UTF8.self) }
    }

    /// Appends ``string(_:_:)``'s text to `out` without building a `String` (hot paths).
    static func write(_ value: Double?, _ quantity: Quantity, to out: inout BufferedWriter) {
        withText(of: value, quantity) { out._writeASCII($0) }
    }

    /// Calls `body` with the UTF-8 of ``string(_:_:)`` in a stack buffer.
    private static func withText<Result>(of value: Double?, _ quantity: Quantity,
                                         _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        guard let value, value.isFinite else { return body(UnsafeBufferPointer(start: null.utf8Start, count: null.utf8CodeUnitCount)) }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: FixedDecimal.capacity) { buffer in
            if let count = FixedDecimal.format(value, decimals: Int(quantity.decimals), into: buffer) {
                return body(UnsafeBufferPointer(rebasing: buffer[..<count]))
            }
            // An absurd magnitude (beyond 2⁵² units of the last decimal): C prints it.
            var text = String(format: "%.*f", quantity.decimals, value)
            return text.withUTF8(body)
        }
    }

    private static let null: StaticString = "null"
}

/// C's `printf("%.*f", decimals, value)` for doubles, without `printf`: the exact binary value
/// rounded to `decimals` places, ties to even (glibc in the default rounding mode), by integer
/// arithmetic. About ten times faster than `vsnprintf`, which `geo nmea decode` spent most of
/// its output time in.
///
/// The scaled value x·10ᵈ is rounded once in floating point; its exact distance from the
/// candidate's two rounding boundaries n ± ½ is then decided by fused multiply-adds, whose
/// single rounding keeps the sign of x·10ᵈ − (n ± ½) exact (n ± ½ is exact below 2⁵²). So
/// the digits are exactly `printf`'s, which the tests check against `String(format:)`.
enum FixedDecimal {
    /// Bytes ``format(_:decimals:into:)`` may write: a sign, up to 16 integer digits, the
    /// point and up to ``maximumDecimals`` decimals.
    static let capacity = 40
    /// The most decimals formatted here (10ᵈ exact as a double up to 22; 15 keeps `capacity`).
    static let maximumDecimals = 15

    /// 10⁰ … 10¹⁵, each exact.
    private static let powersOfTen: [Double] = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15]

    /// `printf("%.*f", decimals, value)` as a `String`; C prints what ``format(_:decimals:into:)``
    /// leaves to it (non-finite values, more decimals or a larger magnitude than it handles).
    static func string(_ value: Double, decimals: Int) -> String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
            guard let count = format(value, decimals: decimals, into: buffer) else {
                return String(format: "%.*f", Int32(clamping: decimals), value)
            }
            return String(decoding: UnsafeBufferPointer(rebasing: buffer[..<count]), as: UTF8.self)
        }
    }

    /// Writes `value` with `decimals` places into `buffer` (at least ``capacity`` bytes).
    /// - Returns: the bytes written, or nil when `value` is not finite, `decimals` is outside
    ///   0…``maximumDecimals``, or |value|·10ᵈ ≥ 2⁵² (the caller falls back to `printf`).
    static func format(_ value: Double, decimals: Int, into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int? {
        guard value.isFinite, (0...maximumDecimals).contains(decimals) else { return nil }
        let scale = powersOfTen[decimals]
        let magnitude = abs(value)
        let scaled = magnitude * scale
        guard scaled < 0x1p52 else { return nil }
        var n = scaled.rounded(.toNearestOrEven)
        // Exact signs of x·10ᵈ − (n + ½) and x·10ᵈ − (n − ½): move n onto the right side of each.
        let above = (-(n + 0.5)).addingProduct(magnitude, scale)
        if above > 0 || (above == 0 && n.truncatingRemainder(dividingBy: 2) != 0) { n += 1 }
        let below = (-(n - 0.5)).addingProduct(magnitude, scale)
        if below < 0 || (below == 0 && n.truncatingRemainder(dividingBy: 2) != 0) { n -= 1 }

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

extension BufferedWriter {
    /// Appends a constant ASCII text (JSON keys and punctuation).
    mutating func append(_ text: StaticString) {
        _writeASCII(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends `value` in decimal.
    mutating func append(integer value: Int) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { buffer in
            var magnitude = value.magnitude
            var i = buffer.count
            repeat {
                i -= 1
                buffer[i] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if value < 0 { i -= 1; buffer[i] = UInt8(ascii: "-") }
            _writeASCII(UnsafeBufferPointer(rebasing: buffer[i...]))
        }
    }
}
