public import MapMatching
public import RoadNetwork

extension PositioningManager {
    /// Matches fixes live on `graph` in the mode its profile serves — a `car` graph cars, a
    /// `foot` graph pedestrians (`geo extract --profile`) — and turns map matching on.
    /// - Returns: the mode, or nil for a graph of another profile (nothing is changed).
    /// - Throws: `MatchError` when the graph cannot serve a matcher.
    public func setMapMatching(on graph: RoadGraph) throws(MatchError) -> MapMatchMode? {
        guard let mode = MapMatchMode(servedBy: graph) else { return nil }
        let matcher = try MapMatcher(graph: graph, mode: mode)
        setMapMatcher(mode == .car ? LiveMapMatcher(car: matcher) : LiveMapMatcher(car: nil, pedestrian: matcher))
        setMapMatchingEnabled(true, mode: mode)
        return mode
    }
}
