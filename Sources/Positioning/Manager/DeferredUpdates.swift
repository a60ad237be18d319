public import GeoBase
import GeoCore
import Foundation

extension ErrorCode where Domain == PositioningError {
    /// Deferred updates ended before their distance or time: disallowed, or positioning
    /// stopped (Core Location's `kCLErrorDeferredCanceled`).
    public static var deferredCanceled: Self { Self("deferred updates canceled") }
}

/// Deferred delivery to the delegate (Core Location's
/// `allowDeferredLocationUpdates(untilTraveled:timeout:)`): fixes are held until the device has
/// travelled `distance` along them or `timeout` has passed between the first held fix and the
/// latest, by the fixes' own times; then the delegate gets them in one batch. A device that wakes
/// its consumer less often saves power, on embedded Linux as on a phone.
struct DeferredUpdates: Sendable {
    let distance: Distance
    let timeout: Duration
    /// The fixes held so far, oldest first.
    private(set) var held: [Location] = []
    /// Metres travelled along the held fixes.
    private var traveled = 0.0

    /// - Throws: `PositioningError` `.invalidConfiguration` for a distance that is not positive
    ///   (infinity: no distance limit) or a timeout that is not positive.
    init(untilTraveled distance: Distance, timeout: Duration) throws(PositioningError) {
        guard distance.meters > 0, !distance.meters.isNaN else {
            throw PositioningError(.invalidConfiguration, "deferred distance must be positive (or infinite), got \(distance.meters) m")
        }
        guard timeout > .zero else {
            throw PositioningError(.invalidConfiguration, "deferred timeout must be positive, got \(timeout)")
        }
        self.distance = distance
        self.timeout = timeout
    }

    /// Holds a fix; true when the distance or the time is reached (deliver `held` now).
    /// - Complexity: O(1); memory for the held fixes.
    mutating func hold(_ location: Location) -> Bool {
        if let last = held.last { traveled += LocalFrame.distance(last.coordinate, location.coordinate) }
        held.append(location)
        guard let first = held.first else { return false }
        return traveled >= distance.meters || location.timestamp.timeIntervalSince(first.timestamp) >= timeout.seconds
    }
}
