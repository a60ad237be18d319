import GeoBase
public import Platform

/// A condition's state (Core Location's `CLMonitor.Event.State`).
public enum ConditionState: String, Sendable, Hashable, Codable {
    /// Not decided yet: no fix (or beacon report) has been decisive long enough.
    case unknown
    /// Inside the region, or the beacon is in range.
    case satisfied
    /// Outside the region, or the beacon is not in range.
    case unsatisfied
    /// The condition was removed from the monitor.
    case unmonitored
}

/// Why an event happened beyond its state change.
public enum EventRefinement: Sendable, Hashable, Codable {
    /// The region has been satisfied for its dwell delay (``MonitorRecord/dwell``).
    case dwell
    /// Two fixes, both decisively outside, lie on either side of a small region: the straight
    /// path between them crossed it. An enter and an exit at the interpolated times; the state
    /// stays unsatisfied.
    case inferredCrossing
    /// The beacon that satisfied a beacon condition (its major and minor).
    case beacon(major: UInt16, minor: UInt16)
}

/// One event of a monitor (Core Location's `CLMonitor.Event`).
public struct MonitorEvent: Sendable, Hashable, Codable {
    /// The condition's identifier.
    public var identifier: String
    /// When it happened: the time of the fix that decided it (the interpolated time of an
    /// inferred crossing), never the wall clock.
    public var date: Date
    /// The condition's new state.
    public var state: ConditionState
    /// What more there is to say, if anything.
    public var refinement: EventRefinement?
    /// The probability that the position is inside, from the deciding fix; nil for beacon and
    /// bookkeeping events.
    public var probability: Double?

    public init(identifier: String, date: Date, state: ConditionState, refinement: EventRefinement? = nil, probability: Double? = nil) {
        self.identifier = identifier
        self.date = date
        self.state = state
        self.refinement = refinement
        self.probability = probability
    }
}

extension MonitorEvent {
    /// The event's line as `geo monitor` prints it (the CLI contract): `{"time", "region",
    /// "event", "state"}` with the time in ISO 8601 UTC to the millisecond, "event" "determined"
    /// for a region's first decision (`previous` `.unknown`), else "enter", "exit" or "dwell",
    /// "state" "inside" or "outside", then "probability" of inside when known and
    /// `"inferred": true` for a crossing inferred between sparse fixes; nil for the states the
    /// contract does not print (unknown, unmonitored).
    public func jsonLine(previous: ConditionState) -> String? {
        let stateWord: String
        switch state {
        case .satisfied: stateWord = "inside"
        case .unsatisfied: stateWord = "outside"
        case .unknown, .unmonitored: return nil
        }
        var object = JSONObjectText()
        object.add("time", string: ISO8601Time.string(from: date, fractionDigits: 3))
        object.add("region", string: identifier)
        switch refinement {
        case .dwell?: object.add("event", string: "dwell")
        case .inferredCrossing?: object.add("event", string: state == .satisfied ? "enter" : "exit")
        default: object.add("event", string: previous == .unknown ? "determined" : (state == .satisfied ? "enter" : "exit"))
        }
        object.add("state", string: stateWord)
        if let probability { object.add("probability", probability, .probability) }
        if refinement == .inferredCrossing { object.add("inferred", json: "true") }
        return object.text
    }
}
