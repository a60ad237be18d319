#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

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
public struct Location: Hashable, Sendable, Codable {
    /// Where the fix is.
    public var coordinate: Coordinate
    /// When the fix was taken, UTC.
    public var timestamp: Date
    /// Height above mean sea level (the geoid).
    public var altitude: Distance?
    /// Height above the WGS84 ellipsoid (HAE).
    public var ellipsoidalAltitude: Distance?
    /// 68 % radius of the horizontal position error; negative means invalid.
    public var horizontalAccuracy: Distance?
    /// 68 % half-width of the vertical error; negative means invalid.
    public var verticalAccuracy: Distance?
    /// Ground speed.
    public var speed: Speed?
    /// One-sigma error of `speed`.
    public var speedAccuracy: Speed?
    /// Direction of travel over ground, clockwise from true north.
    public var course: Bearing?
    /// One-sigma error of `course`: an ``Angle`` (a spread, not a direction); negative means invalid.
    public var courseAccuracy: Angle?
    /// Vertical speed, positive up.
    public var climb: Speed?
    /// 2D or 3D, where the source says.
    public var fixMode: FixMode?
    /// GPS, differential, RTK, …, where the source says.
    public var fixQuality: FixQuality?
    /// Satellites used in the solution, where known.
    public var satelliteCount: Int?

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
        self.altitude = altitude
        self.ellipsoidalAltitude = ellipsoidalAltitude
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
        self.speed = speed
        self.speedAccuracy = speedAccuracy
        self.course = course
        self.courseAccuracy = courseAccuracy
        self.climb = climb
        self.fixMode = fixMode
        self.fixQuality = fixQuality
        self.satelliteCount = satelliteCount
    }
}
