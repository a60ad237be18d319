public import MapMatching
public import RoadNetwork

extension PositioningManager {
    /// Matches fixes live on `graph` in the mode its profile serves — a `car` graph cars, a
    /// `foot` graph pedestrians (`geo extract --profile`) — and turns map matching on.
    /// - Returns: the mode, or nil for a graph of another profile (nothing is changed).
    /// - Throws: `MatchError` when the graph cannot serve a matcher.
    public func setMapMatching(on graph: RoadGraph) throws(MatchError) -> MapMatchMode? {
        let mode: MapMatchMode
        switch graph.profileName {
        case "car":
            mode = .car
            setMapMatcher(LiveMapMatcher(car: try MapMatcher(graph: graph, mode: .car)))
        case "foot":
            mode = .pedestrian
            setMapMatcher(LiveMapMatcher(car: nil, pedestrian: try MapMatcher(graph: graph, mode: .pedestrian)))
        default:
            return nil
        }
        setMapMatchingEnabled(true, mode: mode)
        return mode
    }
}
