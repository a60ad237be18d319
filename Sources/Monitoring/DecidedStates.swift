/// The state last decided for each region, against which its next event is told (`geo
/// monitor`'s "determined" / "enter" / "exit", `MonitorEvent.jsonLine(previous:)`; the
/// positioning manager's entered and exited): `.unknown` before a region's first decision. An
/// inferred crossing (an enter and an exit between two sparse fixes) does not change it: the
/// region is where the later fix found it.
public struct DecidedStates: Sendable {
    private var states: [String: ConditionState]

    /// Starting from `states` by region identifier (a rejoined store's).
    public init(_ states: [String: ConditionState] = [:]) { self.states = states }

    /// The state `event`'s region had before it; then `event`'s state is the region's, unless
    /// `event` is an inferred crossing.
    public mutating func record(_ event: MonitorEvent) -> ConditionState {
        let before = states[event.identifier] ?? .unknown
        if event.refinement != .inferredCrossing { states[event.identifier] = event.state }
        return before
    }

    /// Forgets `identifier`'s state: a region no longer monitored, or monitored afresh.
    public mutating func forget(_ identifier: String) { states[identifier] = nil }
}
