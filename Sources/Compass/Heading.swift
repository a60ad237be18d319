public import GeoCore
public import NMEACodec
public import Platform
public import GeoBase

/// Which way the device points, Core Location's `CLHeading`: true and magnetic heading,
/// degrees clockwise from north, at an instant.
///
/// A heading sensor gives one of the two (a GNSS dual-antenna receiver or gyro compass the true
/// heading in NMEA `HDT`/`THS`, a magnetometer the magnetic heading in gpsd's `ATT`
/// `mheading`); ``resolved(at:altitude:model:)`` derives the other from the World Magnetic
/// Model's declination there: magnetic = true − declination.
public struct Heading: Hashable, Sendable {
    /// When the heading was measured (from the sentence's epoch or the report's time).
    public var timestamp: Date
    /// Degrees clockwise from true (geographic) north.
    public var trueHeading: Bearing?
    /// Degrees clockwise from magnetic north.
    public var magneticHeading: Bearing?
    /// The declination used to relate the two, east positive (nil until resolved).
    public var declination: Angle?
    /// Core Location's `headingAccuracy`: the largest deviation, degrees, between the reported
    /// heading and the real one; nil when the sensor reports none (HDT, THS and gpsd's ATT
    /// carry none). Core Location's negative "invalid" value is `isReliable == false` here:
    /// `PositioningManager.updateHeading(_:)` refuses a negative, NaN or infinite accuracy.
    public var headingAccuracy: Angle?
    /// The magnetometer's status, when the source reports one (gpsd `mag_st`).
    public var sensorStatus: HeadingSensorStatus?
    /// False when the heading must not be used: a THS marked not valid, a magnetometer in
    /// alarm, or a magnetic heading where the horizontal field is too weak for a compass (the
    /// WMM blackout zone, H < 2000 nT).
    public var isReliable: Bool

    /// A heading as a sensor gave it. `Bearing` wraps any finite angle into [0, 360) (720° is
    /// 0°); a NaN bearing stays NaN, and `PositioningManager.updateHeading(_:)` refuses it.
    public init(timestamp: Date, trueHeading: Bearing? = nil, magneticHeading: Bearing? = nil, headingAccuracy: Angle? = nil,
                sensorStatus: HeadingSensorStatus? = nil, isReliable: Bool = true) {
        self.timestamp = timestamp
        self.trueHeading = trueHeading
        self.magneticHeading = magneticHeading
        self.headingAccuracy = headingAccuracy
        self.sensorStatus = sensorStatus
        self.isReliable = isReliable && (sensorStatus?.isUsable ?? true)
    }

    /// Whether the compass asks to be calibrated (gpsd's `mag_st` C, a calibration alarm):
    /// what `shouldDisplayHeadingCalibration` is asked about.
    public var needsCalibration: Bool { sensorStatus == .calibrationAlarm }

    /// The heading of an NMEA `HDT` or `THS` sentence (true heading); a THS with mode V is
    /// kept but not reliable.
    public init(_ nmea: NMEAHeading, timestamp: Date) {
        self.init(timestamp: timestamp, trueHeading: Bearing(degrees: nmea.degrees), isReliable: nmea.isValid)
    }

    /// The heading of a gpsd `ATT` report: `heading` (true) and `mheading` (magnetic), with the
    /// magnetometer status `mag_st`; nil when the report has neither heading.
    /// - Throws: `GeoCoreError` `.invalidArgument` for a heading that is not finite.
    public init?(_ att: GPSDMessage.ATT, timestamp: Date) throws(GeoCoreError) {
        guard att.heading != nil || att.mheading != nil else { return nil }
        for value in [att.heading, att.mheading].compactMap({ $0 }) where !value.isFinite {
            throw GeoCoreError(.invalidArgument, "gpsd ATT heading \(value) is not a finite number")
        }
        self.init(timestamp: timestamp, trueHeading: att.heading.map(Bearing.init(degrees:)),
                  magneticHeading: att.mheading.map(Bearing.init(degrees:)),
                  sensorStatus: att.magStatus.flatMap(HeadingSensorStatus.init(gpsdCode:)))
    }

    /// The heading with both true and magnetic filled in from the World Magnetic Model at the
    /// device's position (the one the source gave is kept); a magnetic heading in the WMM's
    /// blackout zone becomes unreliable.
    /// - Throws: ``CompassError`` when the date or altitude is outside the model.
    public func resolved(at coordinate: Coordinate, altitude: Distance = .zero, model: MagneticModel = .wmm2025) throws(CompassError) -> Heading {
        let field = try model.field(at: coordinate, altitude: altitude, date: timestamp)
        let d = field.declination.degrees
        var out = self
        out.declination = field.declination
        if let t = trueHeading, magneticHeading == nil { out.magneticHeading = Bearing(degrees: t.degrees - d) }
        if let m = magneticHeading {
            if trueHeading == nil { out.trueHeading = Bearing(degrees: m.degrees + d) }
            if field.compassReliability == .unreliable { out.isReliable = false }
        }
        return out
    }
}

/// A magnetometer's status as gpsd reports it in `ATT` `mag_st` (gpsd_json(5); the codes of
/// True North Technologies' Revolution compasses, `$PTNTHTM`).
public enum HeadingSensorStatus: String, Hashable, Sendable {
    /// N: normal.
    case normal = "N"
    /// M: low warning.
    case lowWarning = "M"
    /// O: high warning.
    case highWarning = "O"
    /// L: low alarm.
    case lowAlarm = "L"
    /// P: high alarm.
    case highAlarm = "P"
    /// C: magnetometer calibration alarm — the compass must be calibrated.
    case calibrationAlarm = "C"
    /// V: magnetometer voltage level alarm.
    case voltageAlarm = "V"

    /// The status of a gpsd code, nil for a code gpsd does not define.
    public init?(gpsdCode: String) { self.init(rawValue: gpsdCode) }

    /// Whether headings may be used: normal or a warning, not an alarm.
    public var isUsable: Bool { self == .normal || self == .lowWarning || self == .highWarning }
}
