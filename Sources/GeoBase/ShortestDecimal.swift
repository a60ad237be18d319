/// A double as the shortest decimal text that reads back as it (Swift's `description`), a
/// whole number without ".0": the numbers of LocationKit's GeoJSON output and GPX extensions
/// (`GPXWriter`, whose whole numbers keep ".0", takes `appendFewDecimals` alone).
///
/// Positions, accuracies and speeds mostly come with at most 7 decimals (a protocol's or a
/// file's text, 1 cm in latitude): such a value is written from the integer round(|x|·10⁷),
/// which IEEE division checks reads back as x — the nearest double to n/10⁷ is what a reader
/// makes of the text. Below 2²⁶ two 7-decimal numbers are over one ulp apart, so no other
/// text of 7 decimals or fewer reads as x, and the text found is the shortest, which is the
/// one `description` writes (Steele & White's criterion; the tests compare the two). Other
/// values go to `description`. In a device-day read (86,400 fixes as GeoJSON), `description`
/// and the `String` it makes for each number were 13 % of the server's samples (perf).
package enum ShortestDecimal {
    /// 10⁷: the fast path's scale.
    private static let scale = 1e7

    /// Appends `value`'s text to `out`; one that is not finite as `description` writes it
    /// ("nan", "inf", "-inf").
    package static func append(_ value: Double, to out: inout [UInt8]) {
        if value.rounded() == value, abs(value) < 1e15 {
            write(whole: UInt64(abs(value)), fraction: 0, fractionDigits: 0, negative: value < 0, to: &out)
        } else if !appendFewDecimals(value, to: &out) {
            out.append(contentsOf: value.description.utf8)
        }
    }

    /// Appends the text of `value`, not a whole number, when it has at most 7 decimals and
    /// 10⁻⁴ ≤ |value| < 2²⁶ (the text `description` writes then, never with an exponent);
    /// returns false, having appended nothing, otherwise.
    package static func appendFewDecimals(_ value: Double, to out: inout [UInt8]) -> Bool {
        let magnitude = abs(value)
        let scaled = (magnitude * scale).rounded()
        guard magnitude >= 1e-4, magnitude < 0x1p26, scaled / scale == magnitude, value.rounded() != value else { return false }
        // The 7 decimals without their trailing zeros; not all zero (value is not whole).
        let n = UInt64(scaled)
        var fraction = n % 10_000_000, digits = 7
        while fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        write(whole: n / 10_000_000, fraction: fraction, fractionDigits: digits, negative: value < 0, to: &out)
        return true
    }

    /// Appends "-" when `negative`, `whole`'s digits and, when `fractionDigits` > 0, a point and
    /// `fraction` in that many digits. Written backwards into room on the stack, then appended at
    /// once: a sign, 15 digits below 10¹⁵, the point and 7 decimals at most.
    private static func write(whole: UInt64, fraction: UInt64, fractionDigits: Int, negative: Bool, to out: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { text in
            var i = text.count
            if fractionDigits > 0 {
                var f = fraction
                for _ in 0..<fractionDigits {
                    i -= 1
                    text[i] = UInt8(ascii: "0") + UInt8(f % 10)
                    f /= 10
                }
                i -= 1
                text[i] = UInt8(ascii: ".")
            }
            var w = whole
            repeat {
                i -= 1
                text[i] = UInt8(ascii: "0") + UInt8(w % 10)
                w /= 10
            } while w > 0
            if negative {
                i -= 1
                text[i] = UInt8(ascii: "-")
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: text[i...]))
        }
    }

    /// `value`'s text as a `String`.
    package static func string(_ value: Double) -> String {
        var out: [UInt8] = []
        append(value, to: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
