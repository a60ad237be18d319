import Foundation
import Monitoring
import Testing

// DecidedStates: the state each region's next event is told against.

@Test func decidedStates_firstDecisionFromUnknown_inferredCrossingsLeaveTheState() {
    let t = Date(timeIntervalSince1970: 1_790_000_000)
    var decided = DecidedStates(["rejoined": .satisfied])
    // A region a rejoined store knew: its next decision is told against that.
    #expect(decided.record(MonitorEvent(identifier: "rejoined", date: t, state: .unsatisfied)) == .satisfied)
    // A new region's first decision comes from unknown ("determined").
    #expect(decided.record(MonitorEvent(identifier: "park", date: t, state: .unsatisfied)) == .unknown)
    // An enter and an exit inferred between two sparse fixes: told against outside, and the
    // park stays outside after them.
    #expect(decided.record(MonitorEvent(identifier: "park", date: t + 1, state: .satisfied, refinement: .inferredCrossing)) == .unsatisfied)
    #expect(decided.record(MonitorEvent(identifier: "park", date: t + 2, state: .unsatisfied, refinement: .inferredCrossing)) == .unsatisfied)
    #expect(decided.record(MonitorEvent(identifier: "park", date: t + 3, state: .satisfied)) == .unsatisfied)
    #expect(decided.record(MonitorEvent(identifier: "park", date: t + 4, state: .satisfied, refinement: .dwell)) == .satisfied)
    // Forgotten (no longer monitored): unknown again.
    decided.forget("park")
    #expect(decided.record(MonitorEvent(identifier: "park", date: t + 5, state: .satisfied)) == .unknown)
}
