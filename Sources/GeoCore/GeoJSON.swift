public import Platform
public import GeoBase

/// A GeoJSON position (RFC 7946 §3.1.1): longitude, latitude and an optional altitude in metres.
public struct GeoJSONPosition: Hashable, Sendable {
    /// The position, its longitude normalised into [-180, 180).
    public var coordinate: Coordinate
    /// Height in metres, as the optional third element.
    public var altitude: Double?
    /// The longitude as written, degrees: 180 stays 180 and 190 stays 190, where `coordinate`
    /// has −180 and −170. A map draws a line from −180 to 180 across the whole world and one from
    /// 170 to 190 across the antimeridian, as MapLibre's GeoJSON source does (geojson-vt's
    /// `lng / 360 + 0.5`, not wrapped).
    public var longitude: Double

    public init(_ coordinate: Coordinate, altitude: Double? = nil) {
        self.coordinate = coordinate
        self.altitude = altitude
        longitude = coordinate.longitude
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
        // Every value here encodes: positions are validated finite numbers.
        return (try? JSONEncoder.stable().encode(self)) ?? Data()
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
            longitude = lon
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.message))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.unkeyedContainer()
        try c.encode(longitude)
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

extension JSONValue {
    /// Parses one JSON text (RFC 8259): a value with nothing but white space around it. Numbers
    /// become the nearest `Double` (a text beyond its range becomes ±infinity); strings decode
    /// their escapes (a lone surrogate escape and invalid UTF-8 become U+FFFD); of repeated
    /// member names the last counts; nesting deeper than 512 levels is refused.
    ///
    /// Hand-written rather than `JSONDecoder().decode(JSONValue.self, …)`: decoding the
    /// recursive enum through `Codable` tries each case in turn and throws for the misses, and
    /// cost 72 % of the tracking server's CPU on Overland batches (26 µs a fix, `perf`, 2026-11-29).
    /// - Throws: `JSONSyntaxError` at the first byte that breaks the grammar.
    /// - Complexity: O(n) in the bytes.
    public init(parsing bytes: [UInt8]) throws(JSONSyntaxError) {
        var parser = JSONTextParser(bytes: bytes)
        do throws(JSONTextParser.Failure) {
            self = try parser.value(depth: 0)
            parser.skipSpace()
            guard parser.i == bytes.count else { throw JSONTextParser.Failure(offset: parser.i, message: "text after the JSON value") }
        } catch {
            throw JSONSyntaxError(bytes, offset: error.offset, message: error.message)
        }
    }
}

/// Where and why a text is not JSON (RFC 8259).
public struct JSONSyntaxError: Error, Hashable, CustomStringConvertible, Sendable {
    public var message: String
    /// 0-based byte offset, 1-based line and 1-based column in bytes.
    public var offset: Int, line: Int, column: Int

    public var description: String { "line \(line), column \(column) (byte offset \(offset)): \(message)" }

    /// The first problem in `bytes`; nil when they are one JSON value with nothing but white
    /// space around it (`JSONValue(parsing:)`).
    public init?(locatingIn bytes: [UInt8]) {
        do {
            _ = try JSONValue(parsing: bytes)
            return nil
        } catch {
            self = error
        }
    }

    init(_ bytes: [UInt8], offset: Int, message: String) {
        let before = bytes[..<min(offset, bytes.count)]
        let lineStart = (before.lastIndex(of: 0x0A) ?? -1) + 1
        self.message = message
        self.offset = offset
        line = before.count { $0 == 0x0A } + 1
        column = offset - lineStart + 1
    }
}

/// A recursive-descent parser of the JSON grammar (RFC 8259 §2–§7).
private struct JSONTextParser {
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

    mutating func value(depth: Int) throws(Failure) -> JSONValue {
        guard depth < 512 else { throw fail("nesting deeper than 512 levels") }
        skipSpace()
        guard i < bytes.count else { throw fail("expected a value") }
        switch bytes[i] {
        case 0x7B: // {
            i += 1
            var members: [String: JSONValue] = [:]
            skipSpace()
            if i < bytes.count, bytes[i] == 0x7D { i += 1; return .object(members) }
            while true {
                skipSpace()
                let name = try string()
                skipSpace()
                try expect(0x3A, "':' after a member name")
                members[name] = try value(depth: depth + 1)
                skipSpace()
                if i < bytes.count, bytes[i] == 0x2C { i += 1; continue }
                try expect(0x7D, "',' or '}'")
                return .object(members)
            }
        case 0x5B: // [
            i += 1
            var elements: [JSONValue] = []
            skipSpace()
            if i < bytes.count, bytes[i] == 0x5D { i += 1; return .array(elements) }
            while true {
                elements.append(try value(depth: depth + 1))
                skipSpace()
                if i < bytes.count, bytes[i] == 0x2C { i += 1; continue }
                try expect(0x5D, "',' or ']'")
                return .array(elements)
            }
        case 0x22: return .string(try string())
        case 0x74: try literal("true"); return .bool(true)
        case 0x66: try literal("false"); return .bool(false)
        case 0x6E: try literal("null"); return .null
        default: return .number(try number())
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

    /// A string's contents: the bytes between its quotes, escapes decoded (RFC 8259 §7).
    private mutating func string() throws(Failure) -> String {
        try expect(0x22, "a string")
        var out: [UInt8] = []
        var run = i // the start of the bytes not yet copied to `out`
        while i < bytes.count {
            let b = bytes[i]
            if b == 0x22 {
                defer { i += 1 }
                if out.isEmpty { return String(decoding: bytes[run..<i], as: UTF8.self) }
                out += bytes[run..<i]
                return String(decoding: out, as: UTF8.self)
            }
            if b < 0x20 { throw fail("a control character in a string") }
            guard b == 0x5C else { i += 1; continue }
            out += bytes[run..<i]
            i += 1
            guard i < bytes.count else { break }
            switch bytes[i] {
            case 0x22, 0x5C, 0x2F: out.append(bytes[i])
            case 0x62: out.append(0x08)
            case 0x66: out.append(0x0C)
            case 0x6E: out.append(0x0A)
            case 0x72: out.append(0x0D)
            case 0x74: out.append(0x09)
            case 0x75: // \uXXXX, a UTF-16 code unit; a surrogate pair is two of them
                var unit = try hex4()
                if (0xD800..<0xDC00).contains(unit), i + 2 < bytes.count, bytes[i + 1] == 0x5C, bytes[i + 2] == 0x75 {
                    let save = i
                    i += 2
                    let low = try hex4()
                    if (0xDC00..<0xE000).contains(low) {
                        unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                    } else {
                        i = save
                    }
                }
                let scalar = Unicode.Scalar(unit) ?? "\u{FFFD}"
                out += Array(String(Character(scalar)).utf8)
            default: throw fail("unknown escape")
            }
            i += 1
            run = i
        }
        throw fail("the text ends inside a string")
    }

    /// The four hex digits after `\u` (`i` on the `u`; left on the last digit).
    private mutating func hex4() throws(Failure) -> UInt32 {
        var unit: UInt32 = 0
        for _ in 0..<4 {
            i += 1
            guard i < bytes.count, let digit = bytes[i].hexDigitValue else { throw fail("expected four hex digits after \\u") }
            unit = unit << 4 | UInt32(digit)
        }
        return unit
    }

    private mutating func number() throws(Failure) -> Double {
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
        // The grammar checked above is a subset of what `Double(_:)` (strtod, correctly
        // rounded) reads.
        return Double(String(decoding: bytes[start..<i], as: UTF8.self))!
    }
}
