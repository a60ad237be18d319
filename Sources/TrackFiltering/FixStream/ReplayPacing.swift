import GeoCore
public import Platform

/// How a replay or simulation is paced against the wall clock: at the recorded pace scaled by
/// a factor, or as fast as the consumer takes fixes.
///
/// This is the pure half of pacing: how long to wait between two fixes. Waiting on a clock is
/// the source's business (Positioning's `SourceClock`).
public enum ReplayPacing: Sendable, Hashable {
    /// Track time divided by the factor: 1 is real time, 10 is ten times faster.
    case speedFactor(Double)
    /// No waiting: every fix as soon as the consumer takes it.
    case asFastAsPossible

    /// The recorded pace.
    public static let realTime = ReplayPacing.speedFactor(1)

    /// The longest wait between two fixes: 60 s of wall-clock time. A longer gap in the track
    /// (a logger left off overnight, a timestamp in year 9999) is replayed as this wait, so a
    /// replay always moves on; the fixes keep their recorded timestamps.
    public static let maximumDelay = Duration.seconds(60)

    /// Whether the pacing can be followed: a speed factor must be positive and finite.
    public var isValid: Bool {
        if case .speedFactor(let factor) = self { return factor > 0 && factor.isFinite }
        return true
    }

    /// How long to wait between a fix recorded at `previous` and the next one, recorded at
    /// `next`: the track time between them scaled by the speed factor, at most `maximumDelay`;
    /// zero as fast as possible, for a time step backwards, or for an invalid factor.
    public func delay(from previous: Date, to next: Date) -> Duration {
        delay(seconds: next.timeIntervalSince(previous))
    }

    /// How long to wait for `trackTime` of the replayed track to pass (see `delay(from:to:)`).
    public func delay(after trackTime: Duration) -> Duration {
        delay(seconds: trackTime.seconds)
    }

    private func delay(seconds: Double) -> Duration {
        guard case .speedFactor(let factor) = self, isValid, seconds > 0, seconds.isFinite else { return .zero }
        // Compared in seconds before any `Duration` is made: a gap of 8,000 years divided by a
        // small factor would overflow `Duration`.
        let scaled = seconds / factor
        return scaled < Self.maximumDelay.seconds ? .seconds(scaled) : Self.maximumDelay
    }
}
