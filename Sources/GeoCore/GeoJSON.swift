#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A GeoJSON position (RFC 7946 §3.1.1): longitude, latitude and an optional altitude in metres.
public struct GeoJSONPosition: Hashable, Sendable {
    public var coordinate: Coordinate
    /// Height in metres, as the optional third element.
    public var altitude: Double?
    public init(_ coordinate: Coordinate, altitude: Double? = nil) {
        self.coordinate = coordinate
        self.altitude = altitude
    }
}

/// A GeoJSON geometry (RFC 7946 §3.1).
public indirect enum GeoJSONGeometry: Hashable, Sendable {
    case point(GeoJSONPosition)
    case multiPoint([GeoJSONPosition])
    case lineString([GeoJSONPosition])
    case multiLineString([[GeoJSONPosition]])
    /// Linear rings: the exterior first, then holes; each closed, at least four positions.
    case polygon([[GeoJSONPosition]])
    case multiPolygon([[[GeoJSONPosition]]])
    case geometryCollection([GeoJSONGeometry])

    /// A LineString through the coordinates, without altitudes.
    public static func lineString(_ coordinates: [Coordinate]) -> GeoJSONGeometry {
        .lineString(coordinates.map { GeoJSONPosition($0) })
    }
}

/// Any JSON value, for feature properties and foreign members.
public enum JSONValue: Hashable, Sendable, Codable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let n = try? c.decode(Double.self) { self = .number(n) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([JSONValue].self) { self = .array(a) }
        else { self = .object(try c.decode([String: JSONValue].self)) }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .number(let n): try c.encode(n)
        case .string(let s): try c.encode(s)
        case .array(let a): try c.encode(a)
        case .object(let o): try c.encode(o)
        }
    }
}

/// A GeoJSON Feature (RFC 7946 §3.2).
public struct GeoJSONFeature: Hashable, Sendable {
    /// The feature's `id`: a string or a number.
    public var id: JSONValue?
    public var geometry: GeoJSONGeometry?
    public var properties: [String: JSONValue]?

    public init(id: JSONValue? = nil, geometry: GeoJSONGeometry?, properties: [String: JSONValue]? = nil) {
        self.id = id
        self.geometry = geometry
        self.properties = properties
    }
}

/// A GeoJSON document: a geometry, a feature or a feature collection (RFC 7946 §3).
public enum GeoJSON: Hashable, Sendable {
    case geometry(GeoJSONGeometry)
    case feature(GeoJSONFeature)
    case featureCollection([GeoJSONFeature])

    /// Decodes a GeoJSON text.
    /// - Throws: `GeoCoreError.invalidGeoJSON` naming the JSON path of the first problem.
    public init(data: Data) throws(GeoCoreError) {
        do {
            self = try JSONDecoder().decode(GeoJSON.self, from: data)
        } catch let error as GeoCoreError {
            throw error
        } catch let DecodingError.dataCorrupted(context) {
            throw GeoCoreError(.invalidGeoJSON, "\(Self.path(context.codingPath)): \(context.debugDescription)")
        } catch let DecodingError.keyNotFound(key, context) {
            throw GeoCoreError(.invalidGeoJSON, "\(Self.path(context.codingPath)): missing member '\(key.stringValue)'")
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            throw GeoCoreError(.invalidGeoJSON, "\(Self.path(context.codingPath)): \(context.debugDescription)")
        } catch {
            throw GeoCoreError(.invalidGeoJSON, "\(error)")
        }
    }

    /// The document as compact UTF-8 JSON, keys sorted for stable output.
    public func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Every value here encodes: positions are validated finite numbers.
        return (try? encoder.encode(self)) ?? Data()
    }

    private static func path(_ codingPath: [any CodingKey]) -> String {
        codingPath.isEmpty ? "$" : "$" + codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
    }
}

// MARK: - Codable (RFC 7946 member names)

private enum GeoJSONKeys: String, CodingKey {
    case type, coordinates, geometries, geometry, properties, id, features
}

extension GeoJSONPosition: Codable {
    public init(from decoder: any Decoder) throws {
        var c = try decoder.unkeyedContainer()
        let lon = try c.decode(Double.self)
        let lat = try c.decode(Double.self)
        altitude = c.isAtEnd ? nil : try c.decode(Double.self)
        do {
            coordinate = try Coordinate(latitude: lat, longitude: lon)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.message))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.unkeyedContainer()
        try c.encode(coordinate.longitude)
        try c.encode(coordinate.latitude)
        if let altitude { try c.encode(altitude) }
    }
}

extension GeoJSONGeometry: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: GeoJSONKeys.self)
        let type = try c.decode(String.self, forKey: .type)
        func corrupt(_ why: String) -> DecodingError {
            .dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: why))
        }
        func line(_ p: [GeoJSONPosition]) throws -> [GeoJSONPosition] {
            guard p.count >= 2 else { throw corrupt("a LineString needs two or more positions") }
            return p
        }
        func rings(_ r: [[GeoJSONPosition]]) throws -> [[GeoJSONPosition]] {
            for ring in r where ring.count < 4 || ring.first != ring.last {
                throw corrupt("a linear ring needs four or more positions and must be closed")
            }
            return r
        }
        switch type {
        case "Point": self = .point(try c.decode(GeoJSONPosition.self, forKey: .coordinates))
        case "MultiPoint": self = .multiPoint(try c.decode([GeoJSONPosition].self, forKey: .coordinates))
        case "LineString": self = .lineString(try line(c.decode([GeoJSONPosition].self, forKey: .coordinates)))
        case "MultiLineString": self = .multiLineString(try c.decode([[GeoJSONPosition]].self, forKey: .coordinates).map(line))
        case "Polygon": self = .polygon(try rings(c.decode([[GeoJSONPosition]].self, forKey: .coordinates)))
        case "MultiPolygon": self = .multiPolygon(try c.decode([[[GeoJSONPosition]]].self, forKey: .coordinates).map(rings))
        case "GeometryCollection": self = .geometryCollection(try c.decode([GeoJSONGeometry].self, forKey: .geometries))
        default: throw corrupt("unknown geometry type '\(type)'")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: GeoJSONKeys.self)
        switch self {
        case .point(let p): try c.encode("Point", forKey: .type); try c.encode(p, forKey: .coordinates)
        case .multiPoint(let p): try c.encode("MultiPoint", forKey: .type); try c.encode(p, forKey: .coordinates)
        case .lineString(let p): try c.encode("LineString", forKey: .type); try c.encode(p, forKey: .coordinates)
        case .multiLineString(let p): try c.encode("MultiLineString", forKey: .type); try c.encode(p, forKey: .coordinates)
        case .polygon(let p): try c.encode("Polygon", forKey: .type); try c.encode(p, forKey: .coordinates)
        case .multiPolygon(let p): try c.encode("MultiPolygon", forKey: .type); try c.encode(p, forKey: .coordinates)
        case .geometryCollection(let g): try c.encode("GeometryCollection", forKey: .type); try c.encode(g, forKey: .geometries)
        }
    }
}

extension GeoJSONFeature: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: GeoJSONKeys.self)
        guard try c.decode(String.self, forKey: .type) == "Feature" else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "expected a Feature"))
        }
        id = try c.decodeIfPresent(JSONValue.self, forKey: .id)
        geometry = try c.decodeIfPresent(GeoJSONGeometry.self, forKey: .geometry)
        properties = try c.decodeIfPresent([String: JSONValue].self, forKey: .properties)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: GeoJSONKeys.self)
        try c.encode("Feature", forKey: .type)
        try c.encodeIfPresent(id, forKey: .id)
        // RFC 7946 §3.2: `geometry` and `properties` are members even when null.
        if let geometry { try c.encode(geometry, forKey: .geometry) } else { try c.encodeNil(forKey: .geometry) }
        if let properties { try c.encode(properties, forKey: .properties) } else { try c.encodeNil(forKey: .properties) }
    }
}

extension GeoJSON: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: GeoJSONKeys.self)
        switch try c.decode(String.self, forKey: .type) {
        case "Feature": self = .feature(try GeoJSONFeature(from: decoder))
        case "FeatureCollection": self = .featureCollection(try c.decode([GeoJSONFeature].self, forKey: .features))
        default: self = .geometry(try GeoJSONGeometry(from: decoder))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .geometry(let g): try g.encode(to: encoder)
        case .feature(let f): try f.encode(to: encoder)
        case .featureCollection(let fs):
            var c = encoder.container(keyedBy: GeoJSONKeys.self)
            try c.encode("FeatureCollection", forKey: .type)
            try c.encode(fs, forKey: .features)
        }
    }
}
