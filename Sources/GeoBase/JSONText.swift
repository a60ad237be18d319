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
