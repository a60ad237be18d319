public import Foundation
public import GeoCore
public import TrackFiltering

/// What happens to each fix of a live run, shared by `LocationUpdate.liveUpdates` and
/// `PositioningManager` so both behave alike (issue 33, item 1).
///
/// The stationary detector sees every fix the source delivered (a still device's jitter is
/// what shows it is still, and the track filter holds that jitter back); the track filter then
/// decides which fixes are delivered, and sees every fix too, paused or not, so its estimate is
/// current when delivery resumes.
public struct LiveUpdateGate: Sendable {
    /// The outcome of one fix.
    public struct Outcome: Sendable, Hashable {
        /// The pause or resume this fix caused; nil when nothing changed (or pausing is off).
        public var transition: StationaryDetector.Transition?
        /// What the track filter made of the fix: the fix itself without a filter.
        public var decision: FilterDecision
        /// Whether delivery is paused after this fix.
        public var isPaused: Bool
        /// The fix as the source delivered it.
        public var raw: Location
        /// The location to deliver now, if any: nil while paused (the fix that pauses is
        /// `pauseLocation`) and when the filter dropped the fix, except on the fix that resumes:
        /// seed 001 sends an update with `isStationary == false` as updates resume, so that fix
        /// is delivered, as the filter made it or else as it came.
        public var delivered: Location? {
            if transition == .resumedMoving { return decision.location ?? raw }
            return isPaused ? nil : decision.location
        }
    }

    /// The configuration the gate was made from.
    public let configuration: LiveConfiguration
    /// Whether a stationary device pauses delivery (Core Location's
    /// `pausesLocationUpdatesAutomatically`).
    public let pausesAutomatically: Bool
    private var detector: StationaryDetector
    /// The track filter, if the configuration has one.
    public private(set) var cleaner: TrackCleaner<StandardRules>?
    /// The last location the filter accepted (the raw fix without a filter).
    public private(set) var lastAccepted: Location?
    /// The latest fix time seen: the arrival clock of a source that has none (`process`).
    private var latestFixTime: Date?

    public init(_ configuration: LiveConfiguration, pausesAutomatically: Bool = true) {
        self.configuration = configuration
        self.pausesAutomatically = pausesAutomatically
        detector = StationaryDetector(configuration.stationary)
        cleaner = configuration.trackFilter.map { TrackCleaner(configuration: $0) }
    }

    /// Whether delivery is paused because the device is stationary.
    public var isPaused: Bool { pausesAutomatically && detector.isStationary }

    /// Feeds one fix as the source delivered it, received at `receivedAt` (the stale-fix rule's
    /// clock). Nil for a source replayed as fast as possible (`arrivalTime(from:now:)`), whose
    /// arrival times say nothing of a fix's age: the latest fix time of the stream stands in,
    /// so a fix older than those before it (a cached fix) is still stale, and a stall of the
    /// machine is not.
    /// - Complexity: O(1) amortised (one detector step, one filter step).
    public mutating func process(_ raw: Location, receivedAt: Date?) -> Outcome {
        let streamTime = max(latestFixTime ?? raw.timestamp, raw.timestamp)
        latestFixTime = streamTime
        let transition = pausesAutomatically ? detector.update(with: raw) : nil
        let decision = cleaner?.process(raw, receivedAt: receivedAt ?? streamTime) ?? .accepted(raw)
        if let location = decision.location { lastAccepted = location }
        return Outcome(transition: transition, decision: decision, isPaused: isPaused, raw: raw)
    }

    /// The location the one stationary update carries: the filter's estimate for this fix when
    /// it accepted it, else the fix itself (a still device's fix, non-nil as seed 001 says).
    public static func pauseLocation(_ outcome: Outcome, raw: Location) -> Location {
        outcome.decision.location ?? raw
    }

    /// When a fix of `source` counts as received, read from `now` (the wall clock): nil for a
    /// source replayed as fast as possible (`PositionSource.isReplayedAsFastAsPossible`), timed
    /// by its own fix times instead (`process`), so a stall of the machine is not taken for stale
    /// fixes, as the lost-position watchdog does not take it for a lost position. Under a loaded
    /// CI run a stall of ~18 s made the stale rule drop 12 of the demo drive's 98 fixes.
    public static func arrivalTime(from source: any PositionSource, now: @escaping @Sendable () -> Date) -> @Sendable () -> Date? {
        if source.isReplayedAsFastAsPossible { return { nil } }
        return { now() }
    }
}
