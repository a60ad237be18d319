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
        guard let value, value.isFinite else { return "null" }
        // 32 bytes hold any value a fix carries; `snprintf` returns the length it needed, and a
        // larger one (an absurd magnitude) is printed through a String of its own.
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: 32) { buffer in
            let needed = Int(formatFixed(buffer.baseAddress!, 32, quantity.decimals, value))
            guard needed < 32 else { return String(format: "%.*f", quantity.decimals, value) }
            return String(cString: buffer.baseAddress!)
        }
    }
}

/// `snprintf(buffer, size, "%.*f", decimals, value)`: Swift cannot call C's variadic functions
/// directly, `vsnprintf` with a `CVarArg` list can.
private func formatFixed(_ buffer: UnsafeMutablePointer<CChar>, _ size: Int, _ decimals: Int32, _ value: Double) -> Int32 {
    withVaList([decimals, value]) { vsnprintf(buffer, size, "%.*f", $0) }
}

