import Foundation
import SystemIO

/// Line-buffered JSON-lines output on standard output.
struct JSONLines {
    private var out = BufferedWriter(.standardOutput)

    mutating func write(_ line: String) {
        out.write(line)
        out.append(byte: UInt8(ascii: "\n"))
    }

    mutating func flush() { out.flush() }

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
