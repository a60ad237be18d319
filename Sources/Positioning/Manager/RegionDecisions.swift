public import Foundation
public import GeoCore
public import Monitoring

/// The monitored regions and what fixes and beacons decided for them (the seed's
/// `startMonitoringForRegion:`): circles, polygons and beacon regions decided by Monitoring's
/// `FenceEngine` with each fix's accuracy, told as `PositioningEvent.region` events. Pure: the
/// manager feeds it fixes and sightings and fans the events out.
public struct RegionDecisions: Sendable {
    /// The monitored regions, by identifier.
    public private(set) var regions: [String: MonitoredRegion] = [:]
    private var fences = FenceEngine()
    /// Each region's decided state, to tell a transition from a first decision.
    private var states = DecidedStates()

    public init() {}

    /// Monitors `region` (replacing one with its identifier) from `date` on; its state is
    /// unknown until a fix or sighting decides it.
    /// - Throws: `MonitoringError.invalidIdentifier` for an empty identifier.
    public mutating func add(_ region: MonitoredRegion, at date: Date) throws(MonitoringError) {
        try fences.add(region.condition, identifier: region.identifier, at: date)
        regions[region.identifier] = region
        states.forget(region.identifier)
    }

    /// Stops monitoring the region named `identifier`.
    public mutating func remove(_ identifier: String, at date: Date) {
        _ = fences.remove(identifier, at: date)
        regions[identifier] = nil
        states.forget(identifier)
    }

    /// The region's decided state: unknown until decided, or when it is not monitored.
    public func state(of identifier: String) -> RegionState {
        fences.record(for: identifier).map { RegionState($0.state) } ?? .unknown
    }

    /// Whether a beacon region is monitored (the beacon scan runs for it).
    public var monitorsBeacons: Bool {
        regions.values.contains { if case .beacon = $0.condition { true } else { false } }
    }

    /// Decides the regions with a fix as the source delivered it, appending what changed.
    public mutating func decide(_ location: Location, into events: inout [PositioningEvent]) {
        guard !regions.isEmpty else { return }
        publish(fences.process(location), into: &events)
    }

    /// Decides the beacon regions with the beacons heard at `date`, appending what changed.
    public mutating func decide(hearing beacons: [(uuid: UUID, major: UInt16, minor: UInt16)], at date: Date,
                                into events: inout [PositioningEvent]) {
        publish(fences.observe(beacons: beacons, at: date), into: &events)
    }

    /// Tells the engine's decisions as region states, entries and exits.
    private mutating func publish(_ decisions: [MonitorEvent], into events: inout [PositioningEvent]) {
        for decision in decisions {
            guard let region = regions[decision.identifier], decision.refinement != .dwell else { continue }
            // An inferred crossing is an enter and an exit from outside; otherwise the state
            // before is the opposite one, or unknown for the first decision.
            let before = states.record(decision)
            let previous: ConditionState = decision.refinement == .inferredCrossing
                ? (decision.state == .satisfied ? .unsatisfied : .satisfied) : before
            events.append(.region(.determined(RegionState(decision.state), region)))
            if decision.state == .satisfied, previous == .unsatisfied, region.notifyOnEntry { events.append(.region(.entered(region))) }
            if decision.state == .unsatisfied, previous == .satisfied, region.notifyOnExit { events.append(.region(.exited(region))) }
        }
    }
}
