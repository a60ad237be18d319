public import GeoCore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Decides from a stream of fixes when the device has stopped and when it moves again, so live
/// delivery can pause (Core Location's `pausesLocationUpdatesAutomatically`).
///
/// The rule: the device is stationary once every fix for `delay` has stayed within `radius`
/// plus its own 68 % accuracy (capped at `maximumJitter`) of the fix where the stop began,
/// with no reported speed above `movingSpeed`. It resumes on the first fix outside that circle
/// or faster than `movingSpeed`. Time comes from the fixes' timestamps only.
///
/// Unlike ``StationaryRule``, which holds fixes back while the device is still (so a track
/// does not wander), the detector drops nothing: it only reports the two transitions.
public struct StationaryDetector: Sendable {
    /// When a device counts as stopped.
    public struct Parameters: Sendable, Hashable {
        /// How long fixes must stay still before the device counts as stationary; nil never pauses.
        public var delay: Duration?
        /// The radius around where the device stopped that still counts as "not moving".
        public var radius: Distance
        /// The largest accuracy allowance added to `radius`, so one wild fix with a huge error
        /// radius does not hide real movement.
        public var maximumJitter: Distance
        /// A reported ground speed above this means moving, whatever the positions say.
        public var movingSpeed: Speed

        public init(delay: Duration?, radius: Distance, maximumJitter: Distance, movingSpeed: Speed) {
            self.delay = delay
            self.radius = radius
            self.maximumJitter = maximumJitter
            self.movingSpeed = movingSpeed
        }

        // The presets carry the names of Core Location's `CLLocationUpdate.LiveConfiguration`
        // members (and of the ``TrackFilterConfiguration`` presets); the numbers are LocationKit's
        // own, chosen from what each activity does while it is really moving.

        /// General use: still for 60 s within 15 m (+ accuracy up to 25 m), moving above 1 m/s.
        public static let `default` = Parameters(delay: .seconds(60), radius: .meters(15), maximumJitter: .meters(25),
                                                 movingSpeed: .metersPerSecond(1))
        /// Driving: traffic lights and queues last minutes, so pause only after 180 s within 20 m
        /// (+ accuracy up to 30 m); moving above 1.5 m/s (5.4 km/h).
        public static let automotiveNavigation = Parameters(delay: .seconds(180), radius: .meters(20), maximumJitter: .meters(30),
                                                            movingSpeed: .metersPerSecond(1.5))
        /// Boats, trains and other non-road travel: 120 s within 25 m (+ accuracy up to 30 m);
        /// moving above 1 m/s.
        public static let otherNavigation = Parameters(delay: .seconds(120), radius: .meters(25), maximumJitter: .meters(30),
                                                       movingSpeed: .metersPerSecond(1))
        /// Walking and running: a stop is short and small, so 30 s within 8 m (+ accuracy up to
        /// 15 m); moving above 0.6 m/s (a slow walk is about 1 m/s).
        public static let fitness = Parameters(delay: .seconds(30), radius: .meters(8), maximumJitter: .meters(15),
                                               movingSpeed: .metersPerSecond(0.6))
        /// Aircraft: never stationary (a holding pattern is not a stop).
        public static let airborne = Parameters(delay: nil, radius: .meters(50), maximumJitter: .meters(50),
                                                movingSpeed: .metersPerSecond(5))
    }

    /// A change of state caused by a fix.
    public enum Transition: Sendable, Hashable { case becameStationary, resumedMoving }

    public let parameters: Parameters
    /// Whether the device currently counts as stationary.
    public private(set) var isStationary = false
    private var anchor: Location?

    public init(_ parameters: Parameters) { self.parameters = parameters }

    /// Feeds one fix; returns the state change it causes, if any.
    /// - Complexity: O(1).
    public mutating func update(with location: Location) -> Transition? {
        guard let delay = parameters.delay else { return nil }
        guard let start = anchor else {
            anchor = location
            return nil
        }
        if isMoving(location, from: start) {
            anchor = location
            if isStationary {
                isStationary = false
                return .resumedMoving
            }
            return nil
        }
        if !isStationary, location.timestamp.timeIntervalSince(start.timestamp) >= delay.seconds {
            isStationary = true
            return .becameStationary
        }
        return nil
    }

    /// Forgets the stop in progress (after a gap or a source switch).
    public mutating func reset() {
        anchor = nil
        isStationary = false
    }

    private func isMoving(_ location: Location, from start: Location) -> Bool {
        if let speed = location.speed, speed > parameters.movingSpeed { return true }
        let jitter = min(max(location.horizontalAccuracy?.meters ?? 0, 0), parameters.maximumJitter.meters)
        return location.coordinate.distance(to: start.coordinate).meters > parameters.radius.meters + jitter
    }
}
