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



extension JSONNumber {
    /// Appends ``string(_:_:)``'s text to `out` without building a `String` (hot paths).
    static func write(_ value: Double?, _ quantity: Quantity, to out: inout BufferedWriter) {
        withText(of: value, quantity) { out._writeASCII($0) }
    }
}

extension BufferedWriter {
    /// Appends a constant ASCII text (JSON keys and punctuation).
    mutating func append(_ text: StaticString) {
        _writeASCII(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends `value` in decimal.
    mutating func append(integer value: Int) {
        JSONNumber.withText(ofInteger: Int64(value)) { _writeASCII($0) }
    }
}
