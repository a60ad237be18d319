public import GeoCore
import Platform

/// Passes only significant movement (HERE's `NMADevicePositioningMethodSignificantChanges`,
/// Core Location's significant-change service): a fix passes when it is at least
/// `minimumDistance` from the last one that passed, or (with a `heartbeat`, none by default)
/// when the heartbeat has gone by since then. The first fix always passes. Time comes from the fixes' timestamps only.
public struct SignificantChangeGate: Sendable, Hashable {
    /// Movement that always counts as significant; 500 m by default, the distance Apple
    /// documents for its significant-change service.
    public var minimumDistance: Distance
    /// The longest silence between passed fixes, if any: a fix passes after it even when it
    /// moved less than `minimumDistance`. None by default, as Core Location's significant-change
    /// service reports only moves of 500 m (issue 33: a device that moves less is not
    /// reported again).
    public var heartbeat: Duration?
    /// The last fix that passed.
    public private(set) var lastPassed: Location?

    public init(minimumDistance: Distance = .meters(500), heartbeat: Duration? = nil) {
        self.minimumDistance = minimumDistance
        self.heartbeat = heartbeat
    }

    /// Whether `location` passes; a fix that passes becomes the reference for the next.
    /// - Complexity: O(1).
    public mutating func admits(_ location: Location) -> Bool {
        if let last = lastPassed,
           last.coordinate.distance(to: location.coordinate) < minimumDistance,
           heartbeat.map({ location.timestamp.timeIntervalSince(last.timestamp) < $0.seconds }) ?? true {
            return false
        }
        lastPassed = location
        return true
    }
}
