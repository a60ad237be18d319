public import GeoCore
import TrackFiltering

/// Core Location's `CLActivityType`: what the device is used for, which picks the live preset
/// (track filter, stationary pause, lost timeout) of the same name.
public enum ActivityType: String, Sendable, Hashable, CaseIterable {
    /// `CLActivityType.other`: the `default` preset.
    case other
    case automotiveNavigation
    case fitness
    case otherNavigation
    case airborne

    /// The live preset this activity uses.
    public var configuration: LiveConfiguration {
        switch self {
        case .other: .default
        case .automotiveNavigation: .automotiveNavigation
        case .fitness: .fitness
        case .otherNavigation: .otherNavigation
        case .airborne: .airborne
        }
    }
}

extension Distance {
    /// `kCLLocationAccuracyBestForNavigation` (−2): the best the source gives.
    public static let accuracyBestForNavigation = Distance(meters: -2)
    /// `kCLLocationAccuracyBest` (−1): the best the source gives; Core Location's default.
    public static let accuracyBest = Distance(meters: -1)
    /// `kCLLocationAccuracyNearestTenMeters`.
    public static let accuracyNearestTenMeters = Distance(meters: 10)
    /// `kCLLocationAccuracyHundredMeters`.
    public static let accuracyHundredMeters = Distance(meters: 100)
    /// `kCLLocationAccuracyKilometer`.
    public static let accuracyKilometer = Distance(meters: 1000)
    /// `kCLLocationAccuracyThreeKilometers`.
    public static let accuracyThreeKilometers = Distance(meters: 3000)
    /// `kCLDistanceFilterNone` (−1): every fix.
    public static let distanceFilterNone = Distance(meters: -1)
}

/// The settings every app ported from Core Location sets on its `CLLocationManager`, kept on
/// the manager and applied to the track filter when positioning starts (before any fix is
/// filtered). Like `setConfiguration`, a change takes effect at the next `start()`.
extension PositioningManager {
    /// Sets Core Location's `activityType`: the live preset of the same name
    /// (`ActivityType/configuration`); `desiredAccuracy`, `distanceFilter` and the pause
    /// setting stay as set.
    public func setActivityType(_ type: ActivityType) {
        activityType = type
        configuration = type.configuration
    }

    /// Sets Core Location's `desiredAccuracy`, metres (68 % radius). It sets the receiver's
    /// reporting cycle where the source can (`SourceDemand.receiverCycle(forDesiredAccuracy:)`:
    /// 5 s above 10 m, 10 s above 100 m, through gpsd's `?DEVICE`), and it decides which fixes
    /// the track filter lets through: a coarser
    /// value than the preset's accuracy limit raises that limit to it (`.accuracyKilometer`
    /// delivers 500 m fixes that the default preset's 100 m limit drops); a finer one drops
    /// nothing more, as Core Location delivers what it has. `.accuracyBest` and
    /// `.accuracyBestForNavigation` (negative) keep the preset's limit.
    /// - Throws: `PositioningError` `.invalidConfiguration` for NaN or infinity.
    public func setDesiredAccuracy(_ accuracy: Distance) throws(PositioningError) {
        guard accuracy.meters.isFinite else {
            throw PositioningError(.invalidConfiguration, "desiredAccuracy must be finite (a kCLLocationAccuracy… value or metres), got \(accuracy.meters)")
        }
        desiredAccuracy = accuracy
    }

    /// Sets Core Location's `distanceFilter`, metres: an update is delivered only once the
    /// device is at least this far from the last delivered one (the track filter's
    /// `minimumDistance`, on the filtered output). Zero or a negative value (`.distanceFilterNone`,
    /// −1, as Core Location reads it) delivers every fix the filter accepts; nil keeps the
    /// preset's own.
    /// - Throws: `PositioningError` `.invalidConfiguration` for NaN or infinity (an infinite
    ///   filter would never deliver again).
    public func setDistanceFilter(_ distance: Distance?) throws(PositioningError) {
        if let distance, !distance.meters.isFinite {
            throw PositioningError(.invalidConfiguration, "distanceFilter must be finite metres or kCLDistanceFilterNone (-1), got \(distance.meters)")
        }
        distanceFilter = distance
    }

    /// Sets Core Location's `pausesLocationUpdatesAutomatically`.
    public func setPausesLocationUpdatesAutomatically(_ pauses: Bool) { pausesLocationUpdatesAutomatically = pauses }

    /// What a start asks of the source: the receiver cycle for `desiredAccuracy`, and the
    /// check interval of `.significantChanges`.
    var sourceDemand: SourceDemand {
        SourceDemand(receiverCycle: SourceDemand.receiverCycle(forDesiredAccuracy: desiredAccuracy),
                     checkInterval: method == .significantChanges ? SourceDemand.significantChangeInterval : nil)
    }

    /// The configuration a start uses: `configuration` with `desiredAccuracy` and
    /// `distanceFilter` applied to its track filter.
    var effectiveConfiguration: LiveConfiguration {
        var c = configuration
        guard var filter = c.trackFilter else { return c }
        if desiredAccuracy.meters > 0, let limit = filter.maximumHorizontalAccuracy, desiredAccuracy > limit {
            filter.maximumHorizontalAccuracy = desiredAccuracy
        }
        if let distanceFilter {
            filter.minimumDistance = distanceFilter.meters > 0 ? distanceFilter : nil
        }
        c.trackFilter = filter
        return c
    }
}
