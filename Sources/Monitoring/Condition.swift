public import Platform
public import GeoCore
import GeoBase

/// A circle on the ground (Core Location's `CLCircularGeographicCondition`).
public struct CircularGeographicCondition: Hashable, Sendable {
    public let center: Coordinate
    /// The radius, more than zero and finite.
    public let radius: Distance

    /// - Throws: `MonitoringError.invalidCircle` for a zero, negative, NaN or infinite radius.
    public init(center: Coordinate, radius: Distance) throws(MonitoringError) {
        guard radius.meters.isFinite, radius.meters > 0 else {
            throw MonitoringError(.invalidCircle, "the radius must be more than 0 m and finite, got \(radius.meters) m")
        }
        self.center = center
        self.radius = radius
    }
}

/// Beacons by identity (Core Location's `CLBeaconIdentityCondition`): a proximity UUID, and
/// optionally a major and then a minor; an absent one matches any value. Matching only: the
/// advertisements are parsed elsewhere.
public struct BeaconIdentityCondition: Hashable, Sendable, Codable {
    public let uuid: UUID
    public let major: UInt16?
    public let minor: UInt16?

    /// - Throws: `MonitoringError.invalidBeaconIdentity` for a minor without a major (Core
    ///   Location refuses it too: minors are numbered within a major).
    public init(uuid: UUID, major: UInt16? = nil, minor: UInt16? = nil) throws(MonitoringError) {
        guard minor == nil || major != nil else {
            throw MonitoringError(.invalidBeaconIdentity, "a minor (\(minor!)) needs a major")
        }
        self.uuid = uuid
        self.major = major
        self.minor = minor
    }

    /// Whether a beacon with this identity satisfies the condition.
    public func matches(uuid: UUID, major: UInt16, minor: UInt16) -> Bool {
        uuid == self.uuid && (self.major ?? major) == major && (self.minor ?? minor) == minor
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        do {
            try self.init(uuid: c.decode(UUID.self, forKey: .uuid), major: c.decodeIfPresent(UInt16.self, forKey: .major),
                          minor: c.decodeIfPresent(UInt16.self, forKey: .minor))
        } catch let error as MonitoringError {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }
}

/// What a monitor watches for (Core Location's `CLMonitor.Condition`).
public enum MonitorCondition: Hashable, Sendable {
    case circle(CircularGeographicCondition)
    case polygon(PolygonRegion)
    case beacon(BeaconIdentityCondition)
}

extension MonitorCondition: Codable {
    private enum Keys: String, CodingKey { case type, latitude, longitude, radius, coordinates, beacon }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        do {
            switch try c.decode(String.self, forKey: .type) {
            case "circle":
                let center = try Coordinate(latitude: c.decode(Double.self, forKey: .latitude), longitude: c.decode(Double.self, forKey: .longitude))
                self = .circle(try CircularGeographicCondition(center: center, radius: .meters(c.decode(Double.self, forKey: .radius))))
            case "polygon":
                let rings = try c.decode([[[GeoJSONPosition]]].self, forKey: .coordinates)
                self = .polygon(try PolygonRegion(polygons: rings.map { $0.map { $0.map(\.coordinate) } }))
            case "beacon":
                self = .beacon(try c.decode(BeaconIdentityCondition.self, forKey: .beacon))
            case let other:
                throw DecodingError.dataCorrupted(.init(codingPath: c.codingPath + [Keys.type], debugDescription: "unknown condition type '\(other)'"))
            }
        } catch let error as MonitoringError {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        } catch let error as GeoCoreError {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        switch self {
        case .circle(let circle):
            try c.encode("circle", forKey: .type)
            try c.encode(circle.center.latitude, forKey: .latitude)
            try c.encode(circle.center.longitude, forKey: .longitude)
            try c.encode(circle.radius.meters, forKey: .radius)
        case .polygon(let region):
            try c.encode("polygon", forKey: .type)
            try c.encode(region.polygons.map { $0.map { $0.map { GeoJSONPosition($0) } } }, forKey: .coordinates)
        case .beacon(let beacon):
            try c.encode("beacon", forKey: .type)
            try c.encode(beacon, forKey: .beacon)
        }
    }
}
