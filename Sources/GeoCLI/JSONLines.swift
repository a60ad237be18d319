import Foundation
import SystemIO
import GeoBase

/// JSON-lines output on standard output (``StandardOutput``, which handles a failed write).
struct JSONLines {
    private let out = StandardOutput()

    func write(_ line: String) { out.line(line) }

    /// Hands the lines so far to the operating system (live streams, per update).
    func flush() { out.flush() }
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
            var text = FixedDecimal.printf(value, decimals: Int(quantity.decimals))
            return text.withUTF8(body)
        }
    }

    private static let null: StaticString = "null"
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
