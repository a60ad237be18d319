import GeoBase
import SystemIO

/// Standard output for every command's results (SystemIO's ``StandardOutput``: a failed write
/// ends `geo` as a Unix filter ends).
let standardOutput = StandardOutput(program: "geo")

extension StandardOutput {
    /// Appends one line: `text` and a newline.
    func line(_ text: String) { write(text + "\n") }
}

/// A number with `places` decimals, for human-readable output (C's `%.*f`, ``FixedDecimal``).
func format(_ value: Double, _ places: Int) -> String { FixedDecimal.string(value, decimals: places) }
