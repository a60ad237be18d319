/// JSON text the project writes by hand where `Codable` would cost more than it gives (per-fix
/// output lines, TileJSON, the live page's messages, expression values): the one string escaper.
package enum JSONText {
    /// `text` as a JSON string literal (RFC 8259 §7): `"` and `\` escaped, the control
    /// characters U+0000–U+001F as `\n`, `\r`, `\t` or `\u00XX`; everything else as it is.
    package static func quoted(_ text: String) -> String {
        var out = ""
        appendQuoted(text, to: &out)
        return out
    }

    /// Appends ``quoted(_:)``'s literal to `out`.
    package static func appendQuoted(_ text: String, to out: inout String) {
        out.unicodeScalars.append("\"")
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out.unicodeScalars.append("\"")
    }
}

/// How every command prints a measured quantity in JSON: a fixed number of decimals per kind of
/// quantity, the ones gpsd uses in its TPV reports (gpsd's `json_tpv_dump`), so a field reads the
/// same whether it comes from a raw fix or a filtered one (`45.772089791`, never
/// `45.772003559283235`). Outputs that promise round-trip precision (`geo distance`) do not use it.
package enum JSONNumber {
    /// A kind of quantity and its decimals.
    package struct Quantity: Sendable {
        package let decimals: Int32

        package init(decimals: Int32) { self.decimals = decimals }
        /// Latitude and longitude in degrees: 9 decimals (0.1 mm).
        package static let coordinate = Quantity(decimals: 9)
        /// Altitudes in metres: 4 decimals.
        package static let altitude = Quantity(decimals: 4)
        /// Courses and tracks in degrees: 4 decimals.
        package static let course = Quantity(decimals: 4)
        /// Error estimates (accuracy, eph, epv) in metres: 3 decimals.
        package static let error = Quantity(decimals: 3)
        /// Speeds and climbs in m/s: 3 decimals.
        package static let speed = Quantity(decimals: 3)
        /// Probabilities: 4 decimals.
        package static let probability = Quantity(decimals: 4)
        /// Dilutions of precision: 2 decimals.
        package static let dop = Quantity(decimals: 2)
    }

    /// The number with its quantity's decimals (C's `%.*f`, correctly rounded), or `null` when it
    /// is absent or not finite.
    package static func string(_ value: Double?, _ quantity: Quantity) -> String {
        var text = ""
        withText(of: value, quantity) { text = String(decoding: $0, as: UTF8.self) }
        return text
    }

    /// Calls `body` with the UTF-8 of ``string(_:_:)`` in a stack buffer.
    ///
    /// Not generic over a result: the callers are in other modules, where a generic function
    /// of this module runs unspecialised, and its metadata lookups cost every number written
    /// (with `withText(ofInteger:_:)`: `geo match`'s JSON on dev drive 01 took 13.6 M
    /// instructions, now 7.3 M).
    package static func withText(of value: Double?, _ quantity: Quantity, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
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

    /// Calls `body` with the UTF-8 of `value` in decimal, as `String(value)` writes it, in a
    /// stack buffer (20 bytes hold `Int64.min`); not generic, as ``withText(of:_:_:)``.
    package static func withText(ofInteger value: Int64, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { buffer in
            var magnitude = value.magnitude
            var i = buffer.count
            repeat {
                i -= 1
                buffer[i] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if value < 0 { i -= 1; buffer[i] = UInt8(ascii: "-") }
            return body(UnsafeBufferPointer(rebasing: buffer[i...]))
        }
    }

    private static let null: StaticString = "null"
}
