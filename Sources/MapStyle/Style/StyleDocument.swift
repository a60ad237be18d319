public import GeoCore
public import Platform

/// Why a style document could not be decoded at all.
public struct StyleDocumentError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The JSON path of the problem (`version`; empty for the whole document).
    public var path: String
    public var message: String
    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }
    public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}

/// A MapLibre style (spec v8 "Root"): camera, sources, sprite and glyph URLs, layers in draw
/// order. Decoding never stops at a bad layer, source or property: it is reported in
/// ``diagnostics`` and left out or replaced by its default, as MapLibre Native does.
public struct StyleDocument: Sendable {
    public var name: String?
    /// The camera the style proposes: centre `[longitude, latitude]` in degrees, zoom in
    /// MapLibre's convention (a 512-pixel world at zoom 0), bearing and pitch in degrees.
    public var center: (longitude: Double, latitude: Double)?
    public var zoom: Double?
    public var bearing: Double
    public var pitch: Double
    public var sources: [String: StyleSource]
    /// `sprite`: a URL or an array of `{id, url}`; as written.
    public var sprite: JSONValue?
    public var glyphs: String?
    public var layers: [StyleLayer]
    public var metadata: JSONValue?
    /// The root `state`: the default values `global-state` reads.
    public var globalState: [String: ExpressionValue]
    /// Every problem found, with its JSON path, in document order.
    public var diagnostics: [StyleDiagnostic]

    /// The largest style document read, bytes: a style of every OpenMapTiles layer is ~200 KB.
    public static let maximumSize = 64 << 20

    /// Decodes a style from its bytes.
    /// - Throws: ``StyleDocumentError`` when the bytes are not JSON (with the line and column),
    ///   not an object, larger than ``maximumSize``, or not `"version": 8`.
    public init(data: Data) throws(StyleDocumentError) {
        guard data.count <= Self.maximumSize else {
            throw StyleDocumentError(path: "", message: "the style is \(data.count) bytes, more than the \(Self.maximumSize) a style may have")
        }
        let json: JSONValue
        do {
            json = try JSONValue(parsing: [UInt8](data))
        } catch {
            throw StyleDocumentError(path: "", message: "not JSON at \(error)")
        }
        try self.init(json: json)
    }

    /// Decodes a style from its JSON.
    public init(json: JSONValue) throws(StyleDocumentError) {
        guard case .object(let root) = json else {
            throw StyleDocumentError(path: "", message: "object expected, \(StyleValidation.typeName(json)) found")
        }
        guard let version = root["version"] else { throw StyleDocumentError(path: "", message: #"missing required property "version""#) }
        guard version == .number(8) else {
            throw StyleDocumentError(path: "version", message: "expected one of [8], \(StyleValidation.quoted(version)) found")
        }
        var diagnostics: [StyleDiagnostic] = []
        let spec = StyleSpec.v8
        for key in root.keys.sorted() where spec.entry("$root", key) == nil {
            diagnostics.append(StyleDiagnostic(path: key, message: "unknown property \"\(key)\""))
        }
        func checked(_ key: String) -> JSONValue? {
            guard let v = root[key] else { return nil }
            let ps = PropertySpecification(json: spec.entry("$root", key))
            let problems = StyleValidation.constantProblems(v, ps, path: key)
            diagnostics += problems.map { var d = $0; d.recovery = "default used"; return d }
            return problems.isEmpty ? v : nil
        }
        name = checked("name")?.string
        if let c = checked("center")?.items, c.count == 2, case .number(let lng) = c[0], case .number(let lat) = c[1] {
            center = (lng, lat)
        }
        zoom = if case .number(let z)? = checked("zoom") { z } else { nil }
        bearing = if case .number(let b)? = checked("bearing") { b } else { 0 }
        pitch = if case .number(let p)? = checked("pitch") { p } else { 0 }
        glyphs = checked("glyphs")?.string
        sprite = root["sprite"]
        metadata = root["metadata"]
        var state: [String: ExpressionValue] = [:]
        if case .object(let s)? = root["state"] {
            for (key, value) in s { state[key] = ExpressionValue(value.member("default") ?? .null) }
        }
        globalState = state

        var sources: [String: StyleSource] = [:]
        switch root["sources"] {
        case .object(let members)?:
            for (key, value) in members.sorted(by: { $0.key < $1.key }) {
                if let s = StyleSource(name: key, json: value, diagnostics: &diagnostics) { sources[key] = s }
            }
        case nil: diagnostics.append(StyleDiagnostic(path: "", message: #"missing required property "sources""#))
        case let other?: diagnostics.append(StyleDiagnostic(path: "sources", message: "object expected, \(StyleValidation.typeName(other)) found"))
        }
        self.sources = sources

        var layers: [StyleLayer] = []
        var ids: Set<String> = []
        switch root["layers"] {
        case .array(let items)?:
            for (i, item) in items.enumerated() {
                if let layer = StyleLayer(json: item, index: i, sources: sources, seenIDs: &ids, globalState: state, diagnostics: &diagnostics) {
                    layers.append(layer)
                }
            }
        case nil: diagnostics.append(StyleDiagnostic(path: "", message: #"missing required property "layers""#))
        case let other?: diagnostics.append(StyleDiagnostic(path: "layers", message: "array expected, \(StyleValidation.typeName(other)) found"))
        }
        self.layers = layers
        self.diagnostics = diagnostics
    }
}
