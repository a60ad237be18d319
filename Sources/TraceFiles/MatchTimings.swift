import Foundation
import GeoCore

/// `geo match --timing`'s stopwatch: a run's phases (graph load, index, track read, matching,
/// output), each timed on the continuous (monotonic) clock, and the one-line report of them.
public struct MatchTimings: Sendable {
    private let clock = ContinuousClock()
    private var mark: ContinuousClock.Instant
    /// The phases ended so far, in order.
    public private(set) var phases: [(name: String, duration: Duration)] = []

    /// Starts the first phase now.
    public init() { mark = clock.now }

    /// Ends the phase in progress now, as `name`, and starts the next.
    public mutating func lap(_ name: String) {
        let now = clock.now
        phases.append((name, now - mark))
        mark = now
    }

    /// ``report(fixes:phases:)`` of the phases ended so far.
    public func report(fixes: Int) -> String { Self.report(fixes: fixes, phases: phases) }

    /// `matched N fixes in S s (R fixes/s); graph load S s, …`: the time of the phase named
    /// `matching` (seconds, 6 decimals; zero when there is none) and the fixes per second it
    /// makes (no decimals), then every phase in order (seconds, 3 decimals).
    public static func report(fixes: Int, phases: [(name: String, duration: Duration)]) -> String {
        let matching = (phases.first { $0.name == "matching" }?.duration ?? .zero).seconds
        let others = phases.map { String(format: "%@ %.3f s", $0.name, $0.duration.seconds) }.joined(separator: ", ")
        return String(format: "matched %d fixes in %.6f s (%.0f fixes/s); %@", fixes, matching, Double(fixes) / max(matching, 1e-9), others)
    }
}
