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
