extension NMEALogSurvey {
    /// The survey for people (`geo nmea check`), one item per line, each ending in a newline:
    /// the line and accepted-sentence counts, the counts by address, type and talker (sorted,
    /// indented), then the checksum failures and the malformed lines, each counted and listed.
    public var report: String {
        var out = "lines: \(statistics.lines)\naccepted sentences: \(statistics.accepted)\n"
        for (title, counts) in [("address", byAddress), ("type", byType), ("talker", byTalker)] {
            out += "sentences by \(title):\n"
            for (key, count) in counts.sorted(by: { $0.key < $1.key }) { out += "  \(key) \(count)\n" }
        }
        out += "checksum failures: \(checksumFailures.count)\n"
        for line in checksumFailures { out += "  \(line)\n" }
        out += "malformed lines: \(malformed.count)\n"
        for line in malformed { out += "  \(line)\n" }
        return out
    }
}

extension NMEAScanner.Statistics {
    /// The lines a decode dropped, by kind, as `N line(s) dropped (A bad checksum, B no checksum,
    /// …)`; nil when none was. Lines without a checksum count only when `missingChecksumDropped`
    /// (the scanner was not told to accept them).
    public func droppedLines(missingChecksumDropped: Bool) -> String? {
        let counts = [(badChecksum, "bad checksum"), (missingChecksumDropped ? missingChecksum : 0, "no checksum"),
                      (overlong, "overlong"), (binaryNoise, "binary noise"), (truncated, "cut by the next sentence")]
            .filter { $0.0 > 0 }
        guard !counts.isEmpty else { return nil }
        let total = counts.reduce(0) { $0 + $1.0 }
        return "\(total) line\(total == 1 ? "" : "s") dropped (\(counts.map { "\($0.0) \($0.1)" }.joined(separator: ", ")))"
    }
}
