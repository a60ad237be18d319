public import GeoCore

/// One delivered fix's positions while map matching is on, under the names the seed gives them
/// (HERE's `rawPosition`, `mapMatchedPosition`, `currentPosition`; DESIGN.md §seed table).
public struct MapMatchedUpdate: Sendable, Hashable {
    /// The fix exactly as the source delivered it.
    public var rawPosition: Location
    /// The fix the track filter delivered, which is what was matched (`rawPosition` without a
    /// filter).
    public var filteredPosition: Location
    /// The position on the road, with the fix's time and accuracies; nil when no road fits, the
    /// mode has no graph or no matcher is set.
    public var mapMatchedPosition: Location?
    /// The matcher's confidence in [0, 1] (the online filter probability); 0 when unmatched.
    public var confidence: Double
    /// What the `.updated` event that follows carries: `mapMatchedPosition` when the confidence
    /// is at least the manager's `minimumMatchConfidence`, else `filteredPosition`.
    public var currentPosition: Location

    /// Whether `currentPosition` is the map-matched position.
    public var isMatched: Bool { mapMatchedPosition != nil && currentPosition == mapMatchedPosition }

    public init(rawPosition: Location, filteredPosition: Location, mapMatchedPosition: Location?, confidence: Double,
                currentPosition: Location) {
        self.rawPosition = rawPosition
        self.filteredPosition = filteredPosition
        self.mapMatchedPosition = mapMatchedPosition
        self.confidence = confidence
        self.currentPosition = currentPosition
    }
}
