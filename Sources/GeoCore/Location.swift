public import Platform

/// How a fix was obtained; NMEA GGA quality indicator semantics (NMEA 0183 v4.11 §GGA).
public enum FixQuality: Int, Hashable, Sendable, Codable {
    case invalid = 0
    case gps = 1
    case differential = 2
    case pps = 3
    case rtkFixed = 4
    case rtkFloat = 5
    case deadReckoning = 6
    case manual = 7
    case simulated = 8
}

/// The dimension of a fix, as gpsd reports it in TPV `mode`.
public enum FixMode: Int, Hashable, Sendable, Codable, Comparable {
    case noFix = 1
    case twoDimensional = 2
    case threeDimensional = 3

    public static func < (a: FixMode, b: FixMode) -> Bool { a.rawValue < b.rawValue }
}

/// A timestamped fix: where, when, and how well known.
///
/// Accuracy semantics are normalised across sources (DESIGN.md §4): `horizontalAccuracy`
/// and `verticalAccuracy` are 68 % (one-sigma) radii in metres. A negative accuracy is kept
/// as delivered and means "invalid" (Core Location's convention); `nil` means "not reported".
///
/// Storage is packed, because fixes are copied at every stage of the live pipeline (source
/// batch, filter, event, each subscriber's buffer): each optional measurement is a plain
/// `Double` that is NaN when absent, and the satellite count a `UInt16`, so a fix takes
/// 100 bytes instead of the 177 of fourteen Swift optionals (an `Optional<Double>` is 9 bytes
/// padded to 16). What that means for users:
/// - A NaN measurement is the same as nil: setting `altitude = .meters(.nan)` reads back nil,
///   equality and hashing treat it as absent, and it is not encoded. (NaN has no meaning as a
///   height, speed or accuracy; ±∞ and −0 are kept as values.)
/// - A `satelliteCount` outside 0…65 534 is the same as nil (fewer than 200 GNSS satellites
///   orbit; a negative count means nothing).
/// - `Codable` uses the keys and values of the public properties, absent ones left out, and
///   `print`/`dump` show the public properties (`CustomReflectable`).
public struct Location: Sendable {
    /// Where the fix is.
    public var coordinate: Coordinate
    /// When the fix was taken, UTC.
    public var timestamp: Date
    // The optional measurements in their base units (metres, m/s, degrees); NaN when absent.
    @usableFromInline var altitudeMeters: Double
    @usableFromInline var ellipsoidalAltitudeMeters: Double
    @usableFromInline var horizontalAccuracyMeters: Double
    @usableFromInline var verticalAccuracyMeters: Double
    @usableFromInline var speedMetersPerSecond: Double
    @usableFromInline var speedAccuracyMetersPerSecond: Double
    @usableFromInline var courseDegrees: Double
    @usableFromInline var courseAccuracyDegrees: Double
    @usableFromInline var climbMetersPerSecond: Double
    /// `satelliteCount`, `Location.absentCount` when absent.
    @usableFromInline var satellites: UInt16
    /// 2D or 3D, where the source says.
    public var fixMode: FixMode?
    /// GPS, differential, RTK, …, where the source says.
    public var fixQuality: FixQuality?

    @inlinable
    public init(
        coordinate: Coordinate,
        timestamp: Date,
        altitude: Distance? = nil,
        ellipsoidalAltitude: Distance? = nil,
        horizontalAccuracy: Distance? = nil,
        verticalAccuracy: Distance? = nil,
        speed: Speed? = nil,
        speedAccuracy: Speed? = nil,
        course: Bearing? = nil,
        courseAccuracy: Angle? = nil,
        climb: Speed? = nil,
        fixMode: FixMode? = nil,
        fixQuality: FixQuality? = nil,
        satelliteCount: Int? = nil
    ) {
        self.coordinate = coordinate
        self.timestamp = timestamp
        altitudeMeters = altitude?.meters ?? .nan
        ellipsoidalAltitudeMeters = ellipsoidalAltitude?.meters ?? .nan
        horizontalAccuracyMeters = horizontalAccuracy?.meters ?? .nan
        verticalAccuracyMeters = verticalAccuracy?.meters ?? .nan
        speedMetersPerSecond = speed?.metersPerSecond ?? .nan
        speedAccuracyMetersPerSecond = speedAccuracy?.metersPerSecond ?? .nan
        courseDegrees = course?.degrees ?? .nan
        courseAccuracyDegrees = courseAccuracy?.degrees ?? .nan
        climbMetersPerSecond = climb?.metersPerSecond ?? .nan
        satellites = Location.storedCount(satelliteCount)
        self.fixMode = fixMode
        self.fixQuality = fixQuality
    }

    /// Height above mean sea level (the geoid).
    @inlinable public var altitude: Distance? {
        get { altitudeMeters.isNaN ? nil : Distance(meters: altitudeMeters) }
        set { altitudeMeters = newValue?.meters ?? .nan }
    }
    /// Height above the WGS84 ellipsoid (HAE).
    @inlinable public var ellipsoidalAltitude: Distance? {
        get { ellipsoidalAltitudeMeters.isNaN ? nil : Distance(meters: ellipsoidalAltitudeMeters) }
        set { ellipsoidalAltitudeMeters = newValue?.meters ?? .nan }
    }
    /// 68 % radius of the horizontal position error; negative means invalid.
    @inlinable public var horizontalAccuracy: Distance? {
        get { horizontalAccuracyMeters.isNaN ? nil : Distance(meters: horizontalAccuracyMeters) }
        set { horizontalAccuracyMeters = newValue?.meters ?? .nan }
    }
    /// 68 % half-width of the vertical error; negative means invalid.
    @inlinable public var verticalAccuracy: Distance? {
        get { verticalAccuracyMeters.isNaN ? nil : Distance(meters: verticalAccuracyMeters) }
        set { verticalAccuracyMeters = newValue?.meters ?? .nan }
    }
    /// Ground speed.
    @inlinable public var speed: Speed? {
        get { speedMetersPerSecond.isNaN ? nil : Speed(metersPerSecond: speedMetersPerSecond) }
        set { speedMetersPerSecond = newValue?.metersPerSecond ?? .nan }
    }
    /// One-sigma error of `speed`.
    @inlinable public var speedAccuracy: Speed? {
        get { speedAccuracyMetersPerSecond.isNaN ? nil : Speed(metersPerSecond: speedAccuracyMetersPerSecond) }
        set { speedAccuracyMetersPerSecond = newValue?.metersPerSecond ?? .nan }
    }
    /// Direction of travel over ground, clockwise from true north.
    @inlinable public var course: Bearing? {
        get { courseDegrees.isNaN ? nil : Bearing(wrappedDegrees: courseDegrees) }
        set { courseDegrees = newValue?.degrees ?? .nan }
    }
    /// One-sigma error of `course`: an ``Angle`` (a spread, not a direction); negative means invalid.
    @inlinable public var courseAccuracy: Angle? {
        get { courseAccuracyDegrees.isNaN ? nil : Angle(degrees: courseAccuracyDegrees) }
        set { courseAccuracyDegrees = newValue?.degrees ?? .nan }
    }
    /// Vertical speed, positive up.
    @inlinable public var climb: Speed? {
        get { climbMetersPerSecond.isNaN ? nil : Speed(metersPerSecond: climbMetersPerSecond) }
        set { climbMetersPerSecond = newValue?.metersPerSecond ?? .nan }
    }
    /// Satellites used in the solution, where known (0…65 534; anything else reads back nil).
    @inlinable public var satelliteCount: Int? {
        get { satellites == Location.absentCount ? nil : Int(satellites) }
        set { satellites = Location.storedCount(newValue) }
    }

    /// The stored `satellites` value that means "not reported".
    @inlinable static var absentCount: UInt16 { .max }

    /// `count` as stored: itself when in 0…65 534, else `absentCount`.
    @inlinable static func storedCount(_ count: Int?) -> UInt16 {
        guard let count, count >= 0, count < Int(absentCount) else { return absentCount }
        return UInt16(truncatingIfNeeded: count)
    }
}

extension Location: Hashable {
    /// Field by field, an absent (NaN) measurement equal only to an absent one; present ones
    /// compare as `Double` does (so 0 == −0, as the optional fields did).
    @inlinable
    public static func == (a: Location, b: Location) -> Bool {
        @inline(__always) func same(_ x: Double, _ y: Double) -> Bool { x == y || (x.isNaN && y.isNaN) }
        return a.coordinate == b.coordinate && a.timestamp == b.timestamp
            && same(a.altitudeMeters, b.altitudeMeters) && same(a.ellipsoidalAltitudeMeters, b.ellipsoidalAltitudeMeters)
            && same(a.horizontalAccuracyMeters, b.horizontalAccuracyMeters) && same(a.verticalAccuracyMeters, b.verticalAccuracyMeters)
            && same(a.speedMetersPerSecond, b.speedMetersPerSecond) && same(a.speedAccuracyMetersPerSecond, b.speedAccuracyMetersPerSecond)
            && same(a.courseDegrees, b.courseDegrees) && same(a.courseAccuracyDegrees, b.courseAccuracyDegrees)
            && same(a.climbMetersPerSecond, b.climbMetersPerSecond)
            && a.satellites == b.satellites && a.fixMode == b.fixMode && a.fixQuality == b.fixQuality
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(coordinate)
        hasher.combine(timestamp)
        // Every NaN payload is the one absent value (`Double.hash` would tell payloads apart).
        func combine(_ value: Double) { hasher.combine(value.isNaN ? nil : value) }
        combine(altitudeMeters)
        combine(ellipsoidalAltitudeMeters)
        combine(horizontalAccuracyMeters)
        combine(verticalAccuracyMeters)
        combine(speedMetersPerSecond)
        combine(speedAccuracyMetersPerSecond)
        combine(courseDegrees)
        combine(courseAccuracyDegrees)
        combine(climbMetersPerSecond)
        hasher.combine(satellites)
        hasher.combine(fixMode)
        hasher.combine(fixQuality)
    }
}

extension Location: Codable {
    /// The public property names: the keys the synthesised conformance of the unpacked layout used.
    private enum CodingKeys: String, CodingKey {
        case coordinate, timestamp, altitude, ellipsoidalAltitude, horizontalAccuracy, verticalAccuracy
        case speed, speedAccuracy, course, courseAccuracy, climb, fixMode, fixQuality, satelliteCount
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(coordinate: c.decode(Coordinate.self, forKey: .coordinate),
                      timestamp: c.decode(Date.self, forKey: .timestamp),
                      altitude: c.decodeIfPresent(Distance.self, forKey: .altitude),
                      ellipsoidalAltitude: c.decodeIfPresent(Distance.self, forKey: .ellipsoidalAltitude),
                      horizontalAccuracy: c.decodeIfPresent(Distance.self, forKey: .horizontalAccuracy),
                      verticalAccuracy: c.decodeIfPresent(Distance.self, forKey: .verticalAccuracy),
                      speed: c.decodeIfPresent(Speed.self, forKey: .speed),
                      speedAccuracy: c.decodeIfPresent(Speed.self, forKey: .speedAccuracy),
                      course: c.decodeIfPresent(Bearing.self, forKey: .course),
                      courseAccuracy: c.decodeIfPresent(Angle.self, forKey: .courseAccuracy),
                      climb: c.decodeIfPresent(Speed.self, forKey: .climb),
                      fixMode: c.decodeIfPresent(FixMode.self, forKey: .fixMode),
                      fixQuality: c.decodeIfPresent(FixQuality.self, forKey: .fixQuality),
                      satelliteCount: c.decodeIfPresent(Int.self, forKey: .satelliteCount))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(coordinate, forKey: .coordinate)
        try c.encode(timestamp, forKey: .timestamp)
        try c.encodeIfPresent(altitude, forKey: .altitude)
        try c.encodeIfPresent(ellipsoidalAltitude, forKey: .ellipsoidalAltitude)
        try c.encodeIfPresent(horizontalAccuracy, forKey: .horizontalAccuracy)
        try c.encodeIfPresent(verticalAccuracy, forKey: .verticalAccuracy)
        try c.encodeIfPresent(speed, forKey: .speed)
        try c.encodeIfPresent(speedAccuracy, forKey: .speedAccuracy)
        try c.encodeIfPresent(course, forKey: .course)
        try c.encodeIfPresent(courseAccuracy, forKey: .courseAccuracy)
        try c.encodeIfPresent(climb, forKey: .climb)
        try c.encodeIfPresent(fixMode, forKey: .fixMode)
        try c.encodeIfPresent(fixQuality, forKey: .fixQuality)
        try c.encodeIfPresent(satelliteCount, forKey: .satelliteCount)
    }
}

extension Location: CustomReflectable {
    /// The public properties, as the unpacked layout showed them (not the packed storage).
    public var customMirror: Mirror {
        Mirror(self, children: [
            "coordinate": coordinate, "timestamp": timestamp, "altitude": altitude as Any,
            "ellipsoidalAltitude": ellipsoidalAltitude as Any, "horizontalAccuracy": horizontalAccuracy as Any,
            "verticalAccuracy": verticalAccuracy as Any, "speed": speed as Any, "speedAccuracy": speedAccuracy as Any,
            "course": course as Any, "courseAccuracy": courseAccuracy as Any, "climb": climb as Any,
            "fixMode": fixMode as Any, "fixQuality": fixQuality as Any, "satelliteCount": satelliteCount as Any,
        ], displayStyle: .struct)
    }
}

extension Bearing {
    /// A bearing from degrees already in [0, 360) (a `Location`'s stored course, which a
    /// `Bearing` wrapped): `Bearing(degrees:)` would give the same value after a remainder.
    @inlinable init(wrappedDegrees degrees: Double) { self.degrees = degrees }
}
