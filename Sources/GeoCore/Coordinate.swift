public import GeoBase
/// A WGS84 position in degrees: latitude in [-90, 90], longitude in [-180, 180).
///
/// Construct with labels only (STYLE.md §3.2); the throwing initialiser validates,
/// `init(uncheckedLatitude:longitude:)` is for codecs and hot loops that already did.
@frozen
public struct Coordinate: Hashable, Sendable, CustomStringConvertible {
    /// Degrees north of the equator, in [-90, 90].
    public let latitude: Double
    /// Degrees east of Greenwich, in [-180, 180).
    public let longitude: Double

    /// Creates a validated coordinate.
    /// - Parameters:
    ///   - latitude: degrees, in [-90, 90].
    ///   - longitude: degrees, any finite value; normalised into [-180, 180).
    /// - Throws: `GeoCoreError` with `.notANumber`, `.invalidLatitude` or `.invalidLongitude`.
    @inlinable
    public init(latitude: Double, longitude: Double) throws(GeoCoreError) {
        guard !latitude.isNaN, !longitude.isNaN else {
            throw GeoCoreError(.notANumber, "coordinate has NaN (latitude \(latitude), longitude \(longitude))")
        }
        guard latitude >= -90, latitude <= 90 else {
            throw GeoCoreError(.invalidLatitude, "latitude \(latitude) is outside [-90, 90]")
        }
        guard longitude.isFinite else {
            throw GeoCoreError(.invalidLongitude, "longitude \(longitude) is not finite")
        }
        self.latitude = latitude
        self.longitude = Coordinate.normalizedLongitude(longitude)
    }

    /// Creates a coordinate without validation; the caller guarantees a latitude in
    /// [-90, 90] and a longitude in [-180, 180).
    @inlinable
    public init(uncheckedLatitude latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Wraps any finite longitude into [-180, 180) degrees, exactly however large it is: the
    /// IEEE remainder modulo 360 has no rounding error (GeographicLib's `AngNormalize`, with
    /// +180 mapped to -180): 1e17 is 277 777 777 777 778 turns less 80°, so it reduces to −80.
    @inlinable
    public static func normalizedLongitude(_ longitude: Double) -> Double {
        if longitude >= -180, longitude < 180 { return longitude }
        let wrapped = longitude.remainder(dividingBy: 360)
        return wrapped >= 180 ? -180 : wrapped
    }

    public var description: String { "\(latitude),\(longitude)" }
}

extension Coordinate: Codable {
    private enum CodingKeys: String, CodingKey { case latitude, longitude }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(latitude: c.decode(Double.self, forKey: .latitude),
                      longitude: c.decode(Double.self, forKey: .longitude))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(latitude, forKey: .latitude)
        try c.encode(longitude, forKey: .longitude)
    }
}

extension Coordinate {
    /// Parses `"LAT,LON"` in decimal degrees (the CLI form, e.g. `"52.52,13.40"`).
    /// - Throws: `GeoCoreError` naming what is wrong with the text.
    public init(parsing text: some StringProtocol) throws(GeoCoreError) {
        let parts = String(text).split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2,
              let lat = Double(parts[0].trimmingSpaces), let lon = Double(parts[1].trimmingSpaces)
        else {
            throw GeoCoreError(.invalidArgument, "expected LAT,LON in decimal degrees, got '\(text)'")
        }
        try self.init(latitude: lat, longitude: lon)
    }
}

extension Substring {
    /// The text without leading and trailing spaces (U+0020 only), for parsing fields; shared
    /// by the package's parsers, not public API.
    package var trimmingSpaces: Substring {
        var s = self
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return s
    }
}
