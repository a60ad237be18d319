#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import GeoBase

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
    /// - Throws: `GeoCoreError.invalidGeoJSON` naming where the first problem is: for text that
    ///   is not JSON its line, column (in bytes, both 1-based) and byte offset; for JSON that is
    ///   not GeoJSON the JSON path of the bad member (`$.features[2].geometry.coordinates`).
    public init(data: Data) throws(GeoCoreError) {
        do {
            self = try JSONDecoder().decode(GeoJSON.self, from: data)
        } catch let error as GeoCoreError {
            throw error
        } catch let DecodingError.dataCorrupted(context) {
            // Foundation's decoder does not say where the syntax breaks; find it.
            if context.codingPath.isEmpty, let bad = JSONSyntaxError(locatingIn: [UInt8](data)) {
                throw GeoCoreError(.invalidGeoJSON, "\(bad)")
            }
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

/// Where a text stops being JSON (RFC 8259): the first byte the grammar cannot accept. For
/// readers over Foundation's decoder, which does not say where (GeoJSON, MapStyle's fixtures).
public struct JSONSyntaxError: CustomStringConvertible, Sendable {
    public var message: String
    /// 0-based byte offset, 1-based line and 1-based column in bytes.
    public var offset: Int, line: Int, column: Int

    public var description: String { "line \(line), column \(column) (byte offset \(offset)): \(message)" }

    /// Scans `bytes`; nil when they are one JSON value with nothing but white space around it.
    /// Nesting deeper than 512 levels is reported, as Foundation's decoder refuses it.
    public init?(locatingIn bytes: [UInt8]) {
        var scanner = JSONSyntaxScanner(bytes: bytes)
        let problem: (offset: Int, message: String)
        do {
            try scanner.value(depth: 0)
            scanner.skipSpace()
            guard scanner.i < bytes.count else { return nil }
            problem = (scanner.i, "text after the JSON value")
        } catch {
            problem = (error.offset, error.message)
        }
        let before = bytes[..<min(problem.offset, bytes.count)]
        let lineStart = (before.lastIndex(of: 0x0A) ?? -1) + 1
        message = problem.message
        offset = problem.offset
        line = before.count { $0 == 0x0A } + 1
        column = problem.offset - lineStart + 1
    }
}

/// A recursive-descent recognizer for the JSON grammar (RFC 8259 §2–§7); it builds nothing.
private struct JSONSyntaxScanner {
    struct Failure: Error { var offset: Int; var message: String }
    let bytes: [UInt8]
    var i = 0

    mutating func skipSpace() {
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == 0x0A || bytes[i] == 0x0D { i += 1 }
    }

    private func fail(_ message: String) -> Failure {
        Failure(offset: i, message: i < bytes.count ? message : "the text ends inside a JSON value")
    }

    private mutating func expect(_ byte: UInt8, _ what: String) throws(Failure) {
        guard i < bytes.count, bytes[i] == byte else { throw fail("expected \(what)") }
        i += 1
    }

    mutating func value(depth: Int) throws(Failure) {
        guard depth < 512 else { throw fail("nesting deeper than 512 levels") }
        skipSpace()
        guard i < bytes.count else { throw fail("expected a value") }
        switch bytes[i] {
        case 0x7B: // {
            i += 1
            skipSpace()
            if i < bytes.count, bytes[i] == 0x7D { i += 1; return }
            while true {
                skipSpace()
                try string()
                skipSpace()
                try expect(0x3A, "':' after a member name")
                try value(depth: depth + 1)
                skipSpace()
                if i < bytes.count, bytes[i] == 0x2C { i += 1; continue }
                try expect(0x7D, "',' or '}'")
                return
            }
        case 0x5B: // [
            i += 1
            skipSpace()
            if i < bytes.count, bytes[i] == 0x5D { i += 1; return }
            while true {
                try value(depth: depth + 1)
                skipSpace()
                if i < bytes.count, bytes[i] == 0x2C { i += 1; continue }
                try expect(0x5D, "',' or ']'")
                return
            }
        case 0x22: try string()
        case 0x74: try literal("true")
        case 0x66: try literal("false")
        case 0x6E: try literal("null")
        default: try number()
        }
    }

    private mutating func literal(_ word: StaticString) throws(Failure) {
        let w = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        let start = i
        for b in w {
            guard i < bytes.count, bytes[i] == b else { throw Failure(offset: start, message: "expected '\(word)'") }
            i += 1
        }
    }

    private mutating func string() throws(Failure) {
        try expect(0x22, "a string")
        while i < bytes.count {
            let b = bytes[i]
            if b == 0x22 { i += 1; return }
            if b < 0x20 { throw fail("a control character in a string") }
            if b == 0x5C {
                i += 1
                guard i < bytes.count else { break }
                if bytes[i] == 0x75 { // \uXXXX
                    for _ in 0..<4 {
                        i += 1
                        guard i < bytes.count, bytes[i].isHexDigit else { throw fail("expected four hex digits after \\u") }
                    }
                } else if !"\"\\/bfnrt".utf8.contains(bytes[i]) {
                    throw fail("unknown escape")
                }
            }
            i += 1
        }
        throw fail("the text ends inside a string")
    }

    private mutating func number() throws(Failure) {
        let start = i
        if i < bytes.count, bytes[i] == 0x2D { i += 1 }
        func digits() -> Int {
            let from = i
            while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 { i += 1 }
            return i - from
        }
        let whole = digits()
        guard whole > 0 else { i = start; throw fail("expected a value") }
        if whole > 1, bytes[i - whole] == 0x30 { throw Failure(offset: i - whole, message: "a number with a leading zero") }
        if i < bytes.count, bytes[i] == 0x2E {
            i += 1
            guard digits() > 0 else { throw fail("expected digits after '.'") }
        }
        if i < bytes.count, bytes[i] == 0x65 || bytes[i] == 0x45 {
            i += 1
            if i < bytes.count, bytes[i] == 0x2B || bytes[i] == 0x2D { i += 1 }
            guard digits() > 0 else { throw fail("expected exponent digits") }
        }
    }
}

private extension UInt8 {
    var isHexDigit: Bool { (self >= 0x30 && self <= 0x39) || (self | 0x20 >= 0x61 && self | 0x20 <= 0x66) }
}
