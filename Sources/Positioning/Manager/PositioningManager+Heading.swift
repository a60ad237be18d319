public import GeoCore
public import Compass

/// Heading updates, as Core Location has them on `CLLocationManager` (seed 003); the rules are
/// `HeadingUpdates`'. Headings come from the source (NMEA `HDT`/`THS` through `NMEASource`,
/// gpsd's `ATT` through `GPSDSource`) or from the app (`updateHeading(_:)`).
extension PositioningManager {
    /// Whether heading updates run (`startUpdatingHeading()`).
    public var isUpdatingHeading: Bool { headingUpdates.isUpdating }

    /// Core Location's `headingFilter`: the smallest turn, degrees, delivered as a new heading;
    /// 1° by default (as Core Location's), negative (`kCLHeadingFilterNone`, −1) for every one.
    public var headingFilter: Angle { headingUpdates.filter }

    /// Starts delivering headings (`.heading` events, the delegate's `didUpdateHeading`):
    /// the first one whatever it is, then as `headingFilter` says. Before this call, and after
    /// `stopUpdatingHeading()`, headings from the source are not delivered and `heading` keeps
    /// the last one delivered.
    public func startUpdatingHeading() { headingUpdates.start() }

    /// Stops delivering headings.
    public func stopUpdatingHeading() { headingUpdates.stop() }

    /// Sets `headingFilter`, degrees; takes effect with the next heading. Negative values
    /// (`kCLHeadingFilterNone`, −1) deliver every heading.
    /// - Throws: `PositioningError` `.invalidConfiguration` for NaN or infinity.
    public func setHeadingFilter(_ filter: Angle) throws(PositioningError) {
        guard filter.degrees.isFinite else {
            throw PositioningError(.invalidConfiguration, "headingFilter must be finite degrees or kCLHeadingFilterNone (-1), got \(filter.degrees)")
        }
        headingUpdates.filter = filter
    }

    /// Core Location's `dismissHeadingCalibrationDisplay()`: the app has taken its calibration
    /// guidance down (LocationKit shows none itself); `isDisplayingHeadingCalibration` becomes
    /// false. It also becomes false by itself once a heading arrives that needs no calibration.
    public func dismissHeadingCalibrationDisplay() { endCalibrationDisplay() }

    /// The calibration display is down; a delegate's answer still on its way is then stale.
    private func endCalibrationDisplay() {
        isDisplayingHeadingCalibration = false
        calibrationDisplayEndings += 1
    }

    /// Delivers a heading from a heading sensor the app reads itself (a source's `.heading`
    /// events come here by themselves). The missing true or magnetic heading comes from the
    /// World Magnetic Model at the current position (left out without a position or outside
    /// the model's years); then, while heading updates run, `HeadingUpdates` decides: a
    /// `.heading` event and `didUpdateHeading` (after `shouldDisplayHeadingCalibration` when
    /// a calibration alarm starts), nothing (filtered), or `.failed(.headingFailure)`.
    /// A bearing of 720° was already wrapped to 0° by `Bearing`.
    /// - Throws: `PositioningError` `.invalidArgument` for a NaN or infinite heading, and for
    ///   a NaN, infinite or negative `headingAccuracy`.
    public func updateHeading(_ heading: Heading) throws(PositioningError) {
        try HeadingUpdates.validate(heading)
        var resolved = heading
        if let position = currentPosition ?? rawPosition,
           let withModel = try? heading.resolved(at: position.coordinate, altitude: position.ellipsoidalAltitude ?? .zero) {
            resolved = withModel
        }
        switch headingUpdates.decide(resolved) {
        case .hold: return
        case .fail(let error): emit(.failed(error))
        case .deliver(let askCalibration):
            self.heading = resolved
            if !resolved.needsCalibration { endCalibrationDisplay() }
            if askCalibration { askHeadingCalibration() }
            emit(.heading(resolved))
        }
    }

    /// A source's heading: as `updateHeading(_:)`, a heading it refuses reported as `.failed`.
    func receiveHeading(_ heading: Heading) {
        do { try updateHeading(heading) } catch { emit(.failed(error)) }
    }
}
