public import GeoCore
public import RoadNetwork

/// Which roads a live position is matched to; the raw value is its name (`geo match --mode`).
public enum MapMatchMode: String, Sendable, Hashable, CaseIterable {
    /// Roads a car may drive on.
    case car
    /// Roads, paths and footways a pedestrian may walk on.
    case pedestrian

    /// The profile a graph serving the mode is extracted with (`geo extract --profile`).
    public var profileName: String {
        switch self {
        case .car: "car"
        case .pedestrian: "foot"
        }
    }

    /// The mode a graph serves by its profile — a `car` graph cars, a `foot` graph
    /// pedestrians — or nil for another profile.
    public init?(servedBy graph: RoadGraph) {
        switch graph.profileName {
        case MapMatchMode.car.profileName: self = .car
        case MapMatchMode.pedestrian.profileName: self = .pedestrian
        default: return nil
        }
    }
}

/// A map-matched position with the matcher's confidence.
public struct MatchedPosition: Sendable, Hashable {
    /// The position on the road, with the raw fix's time and accuracies.
    public var location: Location
    /// How sure the matcher is, in [0, 1] (an online HMM matcher's filter probability).
    public var confidence: Double

    public init(location: Location, confidence: Double) {
        self.location = location
        self.confidence = confidence
    }
}

/// Snaps live positions onto roads, one fix at a time, for Positioning's `PositioningManager`
/// (its `setMapMatcher(_:)`). A matcher keeps its own state between calls (the online filter
/// of Newson & Krumm 2009, as Barefoot's does); it is called with fixes in arrival order.
public protocol LivePositionMatcher: Sendable {
    /// The matched position for the newest raw fix, or nil when no road fits.
    func match(_ location: Location, mode: MapMatchMode) async -> MatchedPosition?
}
