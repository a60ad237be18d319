import Foundation
public import GeoCore
public import TrackFiltering

/// A documented parameter set for live updates: how fixes are cleaned (the TrackFiltering
/// preset of the same name), when the device counts as stationary (so delivery pauses), and how
/// long silence may last before the position counts as lost.
///
/// The presets follow Core Location's `CLLocationUpdate.LiveConfiguration` members; the numbers
/// are LocationKit's own, chosen from what each activity does while it is really moving.
public struct LiveConfiguration: Sendable, Hashable {
    /// The preset's name, e.g. `fitness`.
    public var name: String
    /// How long fixes must stay still before delivery pauses; nil never pauses.
    public var stationaryDelay: Duration?
    /// The radius around where the device stopped that still counts as "not moving".
    /// Each fix may be off by its own 68 % accuracy on top, capped at `maximumJitter`.
    public var stationaryRadius: Distance
    /// The largest accuracy allowance added to `stationaryRadius`, so one wild fix
    /// with a huge error radius does not hide real movement.
    public var maximumJitter: Distance
    /// A reported ground speed above this means moving, whatever the positions say.
    public var movingSpeed: Speed
    /// Silence longer than this from a running source is reported as `lost`.
    public var lostTimeout: Duration
    /// The clean-track rules and Kalman filter applied before delivery (the TrackFiltering
    /// preset of the same name in every preset); nil delivers the source's fixes unchanged.
    public var trackFilter: TrackFilterConfiguration?

    public init(name: String, stationaryDelay: Duration?, stationaryRadius: Distance, maximumJitter: Distance,
                movingSpeed: Speed, lostTimeout: Duration, trackFilter: TrackFilterConfiguration? = nil) {
        self.name = name
        self.trackFilter = trackFilter
        self.stationaryDelay = stationaryDelay
        self.stationaryRadius = stationaryRadius
        self.maximumJitter = maximumJitter
        self.movingSpeed = movingSpeed
        self.lostTimeout = lostTimeout
    }

    /// General use: still for 60 s within 15 m (+ accuracy up to 25 m), moving above 1 m/s;
    /// lost after 10 s of silence.
    public static let `default` = LiveConfiguration(name: "default", stationaryDelay: .seconds(60), stationaryRadius: .meters(15),
                                                    maximumJitter: .meters(25), movingSpeed: .metersPerSecond(1), lostTimeout: .seconds(10), trackFilter: .default)
    /// Driving: traffic lights and queues last minutes, so pause only after 180 s within 20 m;
    /// moving above 1.5 m/s (5.4 km/h); lost after 5 s (a tunnel).
    public static let automotiveNavigation = LiveConfiguration(name: "automotiveNavigation", stationaryDelay: .seconds(180),
                                                               stationaryRadius: .meters(20), maximumJitter: .meters(30),
                                                               movingSpeed: .metersPerSecond(1.5), lostTimeout: .seconds(5), trackFilter: .automotiveNavigation)
    /// Boats, trains and other non-road travel: 120 s within 25 m; moving above 1 m/s; lost after 10 s.
    public static let otherNavigation = LiveConfiguration(name: "otherNavigation", stationaryDelay: .seconds(120),
                                                          stationaryRadius: .meters(25), maximumJitter: .meters(30),
                                                          movingSpeed: .metersPerSecond(1), lostTimeout: .seconds(10), trackFilter: .otherNavigation)
    /// Walking and running: a stop is short and small, so 30 s within 8 m (+ accuracy up to 15 m);
    /// moving above 0.6 m/s (a slow walk is about 1 m/s); lost after 15 s.
    public static let fitness = LiveConfiguration(name: "fitness", stationaryDelay: .seconds(30), stationaryRadius: .meters(8),
                                                  maximumJitter: .meters(15), movingSpeed: .metersPerSecond(0.6), lostTimeout: .seconds(15), trackFilter: .fitness)
    /// Aircraft: never pause (a holding pattern is not a stop); lost after 10 s.
    public static let airborne = LiveConfiguration(name: "airborne", stationaryDelay: nil, stationaryRadius: .meters(50),
                                                   maximumJitter: .meters(50), movingSpeed: .metersPerSecond(5), lostTimeout: .seconds(10), trackFilter: .airborne)

    /// Every preset, for CLIs and documentation.
    public static let presets: [LiveConfiguration] = [.default, .automotiveNavigation, .otherNavigation, .fitness, .airborne]

    /// The preset with this name, or nil.
    public static func preset(named name: String) -> LiveConfiguration? { presets.first { $0.name == name } }

    /// The same parameters without track filtering: the source's fixes, unchanged.
    public var unfiltered: LiveConfiguration {
        var c = self
        c.trackFilter = nil
        return c
    }
}

/// Decides from a stream of fixes when the device has stopped and when it moves again.
///
/// The rule: the device is stationary once every fix for `stationaryDelay` has stayed within
/// `stationaryRadius` plus its own accuracy (capped at `maximumJitter`) of the fix where the
/// stop began, with no reported speed above `movingSpeed`. It resumes on the first fix outside
/// that circle or faster than `movingSpeed`. Time comes from the fixes' timestamps only.
public struct StationaryDetector: Sendable {
    public let configuration: LiveConfiguration
    /// Whether the device currently counts as stationary.
    public private(set) var isStationary = false
    private var anchor: Location?

    public init(configuration: LiveConfiguration) { self.configuration = configuration }

    /// A change of state caused by a fix.
    public enum Transition: Sendable, Hashable { case becameStationary, resumedMoving }

    /// Feeds one fix; returns the state change it causes, if any.
    /// - Complexity: O(1).
    public mutating func update(with location: Location) -> Transition? {
        guard let delay = configuration.stationaryDelay else { return nil }
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
        if let speed = location.speed, speed > configuration.movingSpeed { return true }
        let jitter = min(max(location.horizontalAccuracy?.meters ?? 0, 0), configuration.maximumJitter.meters)
        return location.coordinate.distance(to: start.coordinate).meters > configuration.stationaryRadius.meters + jitter
    }
}
