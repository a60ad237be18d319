import Foundation
public import TrackFiltering

/// A documented parameter set for live updates: how fixes are cleaned and when the device
/// counts as stationary (so delivery pauses) — the TrackFiltering presets of the same name —
/// and how long silence may last before the position counts as lost.
///
/// The presets follow Core Location's `CLLocationUpdate.LiveConfiguration` members; the numbers
/// are LocationKit's own, chosen from what each activity does while it is really moving.
public struct LiveConfiguration: Sendable, Hashable {
    /// The preset's name, e.g. `fitness`.
    public var name: String
    /// When the device counts as stationary, so delivery pauses (the TrackFiltering preset of
    /// the same name in every preset; a nil `delay` never pauses).
    public var stationary: StationaryDetector.Parameters
    /// Silence longer than this from a running source is reported as `lost`.
    public var lostTimeout: Duration
    /// The clean-track rules and Kalman filter applied before delivery (the TrackFiltering
    /// preset of the same name in every preset); nil delivers the source's fixes unchanged.
    public var trackFilter: TrackFilterConfiguration?

    public init(name: String, stationary: StationaryDetector.Parameters, lostTimeout: Duration,
                trackFilter: TrackFilterConfiguration? = nil) {
        self.name = name
        self.stationary = stationary
        self.lostTimeout = lostTimeout
        self.trackFilter = trackFilter
    }

    /// General use (stationary: ``StationaryDetector/Parameters/default``); lost after 10 s of silence.
    public static let `default` = LiveConfiguration(name: "default", stationary: .default, lostTimeout: .seconds(10),
                                                    trackFilter: .default)
    /// Driving (stationary: ``StationaryDetector/Parameters/automotiveNavigation``); lost after
    /// 5 s (a tunnel).
    public static let automotiveNavigation = LiveConfiguration(name: "automotiveNavigation", stationary: .automotiveNavigation,
                                                               lostTimeout: .seconds(5), trackFilter: .automotiveNavigation)
    /// Boats, trains and other non-road travel (stationary:
    /// ``StationaryDetector/Parameters/otherNavigation``); lost after 10 s.
    public static let otherNavigation = LiveConfiguration(name: "otherNavigation", stationary: .otherNavigation,
                                                          lostTimeout: .seconds(10), trackFilter: .otherNavigation)
    /// Walking and running (stationary: ``StationaryDetector/Parameters/fitness``); lost after 15 s.
    public static let fitness = LiveConfiguration(name: "fitness", stationary: .fitness, lostTimeout: .seconds(15),
                                                  trackFilter: .fitness)
    /// Aircraft: never pause (``StationaryDetector/Parameters/airborne``); lost after 10 s.
    public static let airborne = LiveConfiguration(name: "airborne", stationary: .airborne, lostTimeout: .seconds(10),
                                                   trackFilter: .airborne)

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
