import GeoCore
public import Platform
import GeoBase

/// One test of maplibre-style-spec's expression conformance suite
/// (`test/integration/expression/tests/**/test.json`), run as its harness runs it: the
/// expression parsed for the fixture's property specification, then evaluated for each input
/// without falling back to defaults.
public enum ExpressionTestFixture {
    /// The harness's result for the fixture's bytes, as one line of JSON:
    /// `{"compiled": {"result": "success", "isFeatureConstant", "isZoomConstant", "type"},
    /// "outputs": [...]}` or `{"compiled": {"result": "error", "errors": [{"key", "error"}]}}`.
    /// Colour results are `[r, g, b, a]`, premultiplied, 0 … 1; an input that fails to evaluate
    /// gives `{"error": "…"}`.
    /// - Throws: ``ExpressionFixtureError`` when the bytes are not a JSON object.
    public static func run(_ bytes: Data) throws(ExpressionFixtureError) -> String {
        let json: JSONValue
        do { json = try JSONValue(parsing: [UInt8](bytes)) } catch {
            throw ExpressionFixtureError(message: "the fixture is not JSON: \(error)")
        }
        guard case .object(let fixture) = json else { throw ExpressionFixtureError(message: "the fixture is not a JSON object") }
        let property = PropertySpecification(json: fixture["propertySpec"])
        var globalState: [String: ExpressionValue] = [:]
        if case .object(let state)? = fixture["globalState"] { globalState = state.mapValues(ExpressionValue.init) }
        var out = ""
        let expression: StyleExpression
        do {
            expression = try StyleExpression(json: fixture["expression"] ?? .null, property: property, globalState: globalState)
        } catch {
            let errors = error.errors.map { ExpressionValue.object(["key": .string($0.key), "error": .string($0.message)]) }
            out += #"{"compiled":{"result":"error","errors":"#
            ExpressionJSON.write(.array(errors), to: &out)
            return out + "}}"
        }
        let kind = expression.kind
        out += #"{"compiled":{"result":"success","isFeatureConstant":"#
        out += kind == .constant || kind == .camera ? "true" : "false"
        out += #","isZoomConstant":"# + (kind == .constant || kind == .source ? "true" : "false")
        out += #","type":"#
        JSONText.appendQuoted(expression.type.description, to: &out)
        out += #"},"outputs":["#
        for (i, input) in (fixture["inputs"]?.items ?? []).enumerated() {
            if i > 0 { out += "," }
            ExpressionJSON.write(stripPrecision(evaluate(expression, input)), to: &out)
        }
        return out + "]}"
    }

    /// Numbers cut to 6 significant figures, rounding down, but never below the units digit:
    /// how the suite's harness writes its expected outputs (`stripPrecision` in
    /// `test/lib/json-diff.ts`, applied twice so that a cut number stays as it is).
    static func stripPrecision(_ value: ExpressionValue) -> ExpressionValue {
        switch value {
        case .number(let x) where x != 0 && x.isFinite:
            let multiplier = pow(10, max(0, 6 - (log10(abs(x))).rounded(.up)))
            let once = (x * multiplier).rounded(.down) / multiplier
            return .number((once * multiplier).rounded(.down) / multiplier)
        case .array(let items): return .array(items.map(stripPrecision))
        case .object(let members): return .object(members.mapValues(stripPrecision))
        case .null, .boolean, .number, .string: return value
        default: return stripPrecision(ExpressionJSON.plain(value))
        }
    }

    /// One input `[globals, feature]` evaluated; colours as `[r, g, b, a]`, failures as `{"error"}`.
    private static func evaluate(_ expression: StyleExpression, _ input: JSONValue) -> ExpressionValue {
        let pair = input.items
        let g = pair.first ?? .null, f = pair.count > 1 ? pair[1] : .null
        var globals = ExpressionGlobals()
        if case .number(let z)? = g.member("zoom") { globals.zoom = z }
        if case .number(let d)? = g.member("heatmapDensity") { globals.heatmapDensity = d }
        if case .number(let e)? = g.member("elevation") { globals.elevation = e }
        if case .number(let p)? = g.member("lineProgress") { globals.lineProgress = p }
        if let a = g.member("accumulated") { globals.accumulated = ExpressionValue(a) }
        let images = g.member("availableImages").map { $0.items.compactMap(\.string) }
        var tile: CanonicalTile?
        // A tile address of integers, zoom 0 … 32; anything else is no tile.
        if let c = g.member("canonicalID"), case .number(let z)? = c.member("z"), case .number(let x)? = c.member("x"),
           case .number(let y)? = c.member("y"), let zoom = Int(exactly: z), (0...32).contains(zoom),
           let column = Int(exactly: x), let row = Int(exactly: y) {
            tile = CanonicalTile(z: zoom, x: column, y: row)
        }
        var feature = ExpressionFeature()
        if case .object(let p)? = f.member("properties") { feature.properties = p.mapValues(ExpressionValue.init) }
        if let id = f.member("id") { feature.id = ExpressionValue(id) }
        if let geometry = f.member("geometry") { place(geometry, tile, into: &feature) }
        var state: [String: ExpressionValue] = [:]
        if case .object(let s)? = f.member("featureState") { state = s.mapValues(ExpressionValue.init) }
        do {
            let value = try expression.evaluate(globals: globals, feature: feature, featureState: state, tile: tile, availableImages: images ?? [])
            if expression.type == .color {
                guard case .color(let c) = value else {
                    return .object(["error": .string("Cannot read properties of \(value.type) (reading 'r')")])
                }
                return .array(c.premultiplied.map(ExpressionValue.number))
            }
            return value
        } catch {
            return .object(["error": .string("layers[0].paint.some-property\(error.key): \(error.message)")])
        }
    }

    /// The feature's geometry type and, with a tile, its geometry in that tile's coordinates
    /// (multi-geometries as their single type, polygons' rings flattened), as the harness does.
    private static func place(_ geometry: JSONValue, _ tile: CanonicalTile?, into feature: inout ExpressionFeature) {
        guard let type = geometry.member("type")?.string else { return }
        feature.geometryType = type
        guard let tile, let coordinates = geometry.member("coordinates") else { return }
        func point(_ p: JSONValue) -> TilePoint {
            let c = p.items.compactMap { if case .number(let n) = $0 { n } else { nil } }
            let world = GeometryFilter.tileCoordinates((c.first ?? 0, c.count > 1 ? c[1] : 0), tile)
            return TilePoint(x: world.x - Double(tile.x) * GeometryFilter.extent, y: world.y - Double(tile.y) * GeometryFilter.extent)
        }
        func line(_ l: JSONValue) -> [TilePoint] { l.items.map(point) }
        switch type {
        case "Point": feature.geometry = [[point(coordinates)]]
        case "MultiPoint": feature.geometryType = "Point"; feature.geometry = coordinates.items.map { [point($0)] }
        case "LineString": feature.geometry = [line(coordinates)]
        case "MultiLineString": feature.geometryType = "LineString"; feature.geometry = coordinates.items.map(line)
        case "Polygon": feature.geometry = coordinates.items.map(line)
        case "MultiPolygon": feature.geometryType = "Polygon"; feature.geometry = coordinates.items.flatMap { $0.items.map(line) }
        default: feature.geometry = []
        }
    }
}

/// A fixture that is not a JSON object.
public struct ExpressionFixtureError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
