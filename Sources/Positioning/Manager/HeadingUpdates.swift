import GeoCore
import Compass

/// Which headings reach the app, by Core Location's rules for heading updates (seed 003,
/// `startUpdatingHeading`, `headingFilter`, `locationManagerShouldDisplayHeadingCalibration`,
/// `kCLErrorHeadingFailure`). A pure value: the manager feeds it every heading while heading
/// updates run and acts on its decision.
///
/// - Nothing is delivered unless heading updates run (`start()`).
/// - The first heading after a start is delivered; after that one only when it turned at
///   least `filter` degrees from the last delivered one (true headings compared when both
///   have one, else magnetic), or when its sensor status or reliability changed. A negative
///   filter (Core Location's `kCLHeadingFilterNone`, −1) delivers every heading.
/// - A heading that cannot be used (`Heading.isReliable` false for any reason other than a
///   calibration alarm: a THS with mode V, a magnetometer alarm, a magnetic heading in the
///   WMM blackout zone) is not delivered; the first of a run of them is a `.headingFailure`.
/// - A heading whose sensor asks for calibration is delivered (uncalibrated, not reliable),
///   and the calibration question is asked when the alarm starts: with the first heading
///   ever seen, or when the sensor's status turns to the calibration alarm from another
///   status — the sensor's sign that the field it sees changed (Core Location asks "the first
///   time heading updates are ever requested" and "when it observes a significant change in
///   the magnitude or inclination of the observed magnetic field"). Not again while the alarm
///   lasts, across stops and starts included.
struct HeadingUpdates: Sendable {
    /// What to do with one heading.
    enum Decision: Sendable {
        /// Deliver it; ask the calibration question first when `askCalibration`.
        case deliver(askCalibration: Bool)
        /// Report `.headingFailure` and deliver nothing.
        case fail(PositioningError)
        /// Deliver nothing: filtered, a failure already reported, or updates off.
        case hold
    }

    /// Whether heading updates run (`startUpdatingHeading`).
    private(set) var isUpdating = false
    /// Core Location's `headingFilter`: the smallest turn, degrees, that is delivered; 1° by
    /// default as in Core Location, negative for every heading.
    var filter = Angle(degrees: 1)
    /// The last heading delivered since heading updates started.
    private var lastDelivered: Heading?
    /// Whether any heading was seen while updating (since the manager was made).
    private var seenAny = false
    /// The sensor status of the last heading seen while updating, across stops.
    private var lastStatus: HeadingSensorStatus?
    /// Whether the last heading seen could not be used (a run of failures is reported once).
    private var failing = false

    /// Starts heading updates: the next usable heading is delivered whatever its change.
    mutating func start() {
        isUpdating = true
        lastDelivered = nil
        failing = false
    }

    /// Stops heading updates.
    mutating func stop() { isUpdating = false }

    /// Refuses a heading the manager cannot take: a bearing or accuracy that is not finite, or
    /// a negative accuracy (Core Location's "invalid" marker; say `isReliable: false` instead).
    static func validate(_ heading: Heading) throws(PositioningError) {
        for (name, bearing) in [("true", heading.trueHeading), ("magnetic", heading.magneticHeading)] {
            if let degrees = bearing?.degrees, !degrees.isFinite {
                throw PositioningError(.invalidArgument, "\(name) heading \(degrees)° is not a finite angle")
            }
        }
        if let accuracy = heading.headingAccuracy?.degrees, !(accuracy.isFinite && accuracy >= 0) {
            throw PositioningError(.invalidArgument, "heading accuracy \(accuracy)° must be a finite angle of 0° or more (for a heading that could not be determined, set isReliable to false)")
        }
    }

    /// Decides a (validated) heading and remembers what it needs for the next one.
    mutating func decide(_ heading: Heading) -> Decision {
        guard isUpdating else { return .hold }
        let calibrationStarts = heading.needsCalibration && (!seenAny || lastStatus != .calibrationAlarm)
        seenAny = true
        lastStatus = heading.sensorStatus
        if !heading.isReliable, !heading.needsCalibration {
            defer { failing = true }
            return failing ? .hold : .fail(PositioningError(.headingFailure, Self.failureReason(heading)))
        }
        let recovered = failing
        failing = false
        if let last = lastDelivered, !recovered, last.sensorStatus == heading.sensorStatus, last.isReliable == heading.isReliable,
           let turn = Self.turn(from: last, to: heading), abs(turn) < filter.degrees {
            return .hold
        }
        lastDelivered = heading
        return .deliver(askCalibration: calibrationStarts)
    }

    /// The turn, degrees in (−180, 180], between two headings: true to true when both have
    /// one, else magnetic to magnetic; nil when they share neither.
    static func turn(from a: Heading, to b: Heading) -> Double? {
        if let x = a.trueHeading, let y = b.trueHeading { return x.turn(to: y) }
        if let x = a.magneticHeading, let y = b.magneticHeading { return x.turn(to: y) }
        return nil
    }

    private static func failureReason(_ heading: Heading) -> String {
        if let status = heading.sensorStatus, !status.isUsable {
            return "the magnetometer reports \(status) (strong magnetic interference or a sensor fault)"
        }
        return "the heading sensor marked its heading not valid (NMEA THS mode V), or the horizontal magnetic field is too weak for a compass here (WMM blackout zone)"
    }
}
