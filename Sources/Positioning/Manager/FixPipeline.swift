public import Foundation
public import GeoCore
public import MapMatching
public import Monitoring
public import TrackFiltering

/// What happens to each fix between the source and the subscribers (issue 30), with no source,
/// clock or fan-out: `PositioningManager` owns one, and tests drive it with fixes alone.
///
/// A fix goes through two halves, because map matching between them is asynchronous:
/// 1. `admit`: the monitored regions (`RegionDecisions`, on the fix as delivered), the raw
///    position and average speed, stationary pause and resume and the track filter
///    (`LiveUpdateGate`), and visits (`VisitDetector`, on the raw fix, paused or not).
/// 2. `deliver`, with the matcher's answer for the filtered fix: the match's confidence rule,
///    the pause, the significant-change gate (`PositioningMethod.significantChanges`), then
///    `.mapMatched` (while matching is on) and `.updated`.
///
/// Events are appended to a caller's buffer in the order they happen.
public struct FixPipeline: Sendable {
    /// Stationary detection and the track filter of the current run.
    public private(set) var gate: LiveUpdateGate
    private var significant = SignificantChangeGate()
    /// Every raw fix's speed over the window, across restarts.
    public var speeds = AverageSpeedWindow(duration: .seconds(60))
    /// Finds visits in every raw fix while visit monitoring is on.
    public var visits: VisitDetector?
    /// The monitored regions and their decided states.
    public var regions = RegionDecisions()
    /// Whether live positions are map-matched.
    public var mapMatchingEnabled = false {
        didSet { if !mapMatchingEnabled { matched = nil } }
    }
    /// The matcher confidence at or above which the match is the current position.
    public var minimumMatchConfidence = 0.5
    /// The latest fix exactly as the source delivered it.
    public private(set) var rawPosition: Location?
    /// The latest fix the track filter delivered (the raw fix without a filter); nil from a
    /// restart until the filter accepts one.
    public private(set) var filteredPosition: Location?
    /// The matcher's latest answer; nil while matching is off or nothing matched.
    public private(set) var matched: MatchedPosition?
    /// Whether delivery is paused because the device is stationary.
    public private(set) var isPaused = false

    public init(_ configuration: LiveConfiguration = .default, pausesAutomatically: Bool = true) {
        gate = LiveUpdateGate(configuration, pausesAutomatically: pausesAutomatically)
    }

    /// A new run: a fresh gate for `configuration`, no filtered position, no pause, and a new
    /// significant-change origin. Regions, visits, speeds and the last raw fix carry over.
    public mutating func restart(_ configuration: LiveConfiguration, pausesAutomatically: Bool) {
        gate = LiveUpdateGate(configuration, pausesAutomatically: pausesAutomatically)
        filteredPosition = nil
        significant = SignificantChangeGate()
        isPaused = false
    }

    /// The run ended: delivery is no longer paused.
    public mutating func stop() { isPaused = false }

    /// The map-matched position when matching is on and the matcher is at least
    /// `minimumMatchConfidence` sure, else nil.
    public var confidentMatch: Location? {
        guard mapMatchingEnabled, let matched, matched.confidence >= minimumMatchConfidence else { return nil }
        return matched.location
    }

    /// The first half (see the type): returns the filtered fix to match and deliver, or nil
    /// when the filter dropped it (appended as `.rejected`).
    /// - Parameter receivedAt: when the fix arrived (the stale-fix rule's clock); nil for a
    ///   source replayed as fast as possible, timed by its own fix times instead
    ///   (`LiveUpdateGate.process(_:receivedAt:)`).
    public mutating func admit(_ location: Location, receivedAt: Date?, into events: inout [PositioningEvent]) -> Location? {
        regions.decide(location, into: &events)
        rawPosition = location
        speeds.add(location)
        let outcome = gate.process(location, receivedAt: receivedAt)
        switch outcome.transition {
        case .becameStationary?:
            isPaused = true
            events.append(.paused(LiveUpdateGate.pauseLocation(outcome, raw: location)))
        case .resumedMoving?:
            isPaused = false
            events.append(.resumed)
        case nil: break
        }
        if let found = visits?.update(with: location) {
            for visit in found { events.append(.visit(visit)) }
        }
        switch outcome.decision {
        case .accepted(let filtered): filteredPosition = filtered
        case .rejected(let reason): events.append(.rejected(location, reason))
        }
        return outcome.delivered
    }

    /// The second half (see the type), for the fix `admit` returned and the matcher's answer
    /// for it (nil when matching is off or no road fits).
    public mutating func deliver(_ location: Location, raw: Location, matched answer: MatchedPosition?,
                                 method: PositioningMethod, into events: inout [PositioningEvent]) {
        if mapMatchingEnabled { matched = answer }
        guard !isPaused else { return }
        if method == .significantChanges, !significant.admits(location) { return }
        // The update carries the confident match, else the filtered fix.
        let current = confidentMatch ?? location
        if mapMatchingEnabled {
            events.append(.mapMatched(MapMatchedUpdate(rawPosition: raw, filteredPosition: location, mapMatchedPosition: matched?.location,
                                                       confidence: matched?.confidence ?? 0, currentPosition: current)))
        }
        events.append(.updated(current))
    }
}
