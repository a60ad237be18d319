public import GeoCore

/// One source of a style (spec v8 "Sources"): where its tiles, GeoJSON or image come from.
/// URLs stay as written; resolving them (`local://`, relative paths, TileJSON) is the caller's.
public struct StyleSource: Sendable {
    /// `vector`, `raster`, `raster-dem`, `geojson`, `image`, `video`.
    public let type: String
    /// Tile URL templates (`{z}`, `{x}`, `{y}`), for `vector`, `raster` and `raster-dem`.
    public let tiles: [String]
    /// A TileJSON URL (tiled sources) or the image's URL (`image`).
    public let url: String?
    /// Tile side in CSS pixels at the tile's own zoom: 512 unless the source says (raster's spec default is 512).
    public let tileSize: Double
    public let minZoom: Double, maxZoom: Double
    /// `tms` numbers rows from the south.
    public let isTMS: Bool
    /// A GeoJSON source's `data`: an inline GeoJSON object or a URL string.
    public let data: JSONValue?
    /// An image source's corners, `[lng, lat]` from the top left clockwise.
    public let coordinates: [[Double]]
    /// The source's JSON as written.
    public let json: JSONValue

    init?(name: String, json: JSONValue, diagnostics: inout [StyleDiagnostic]) {
        let path = "sources.\(name)"
        guard case .object(let o) = json else {
            diagnostics.append(StyleDiagnostic(path: path, message: "object expected, \(StyleValidation.typeName(json)) found", recovery: "source left out"))
            return nil
        }
        let spec = StyleSpec.v8
        guard case .string(let type)? = o["type"] else {
            diagnostics.append(StyleDiagnostic(path: path, message: #"missing required property "type""#, recovery: "source left out"))
            return nil
        }
        guard spec.sourceTypes.contains(type) else {
            diagnostics.append(StyleDiagnostic(path: path + ".type", message: "expected one of [\(spec.sourceTypes.joined(separator: ", "))], \"\(type)\" found",
                                               recovery: "source left out"))
            return nil
        }
        let section = "source_" + type
        for (key, value) in o.sorted(by: { $0.key < $1.key }) where key != "type" {
            guard let entry = spec.entry(section, key) else {
                diagnostics.append(StyleDiagnostic(path: path, message: "unknown property \"\(key)\""))
                continue
            }
            let ps = PropertySpecification(json: entry)
            if ["number", "boolean", "string", "enum", "array"].contains(ps.type) {
                diagnostics += StyleValidation.constantProblems(value, ps, path: "\(path).\(key)").map { var d = $0; d.recovery = "default used"; return d }
            }
        }
        if type == "geojson", o["data"] == nil {
            diagnostics.append(StyleDiagnostic(path: path, message: #"missing required property "data""#, recovery: "source left out"))
            return nil
        }
        if type == "image", o["url"]?.string == nil || o["coordinates"] == nil {
            diagnostics.append(StyleDiagnostic(path: path, message: #"missing required property "url" or "coordinates""#, recovery: "source left out"))
            return nil
        }
        func number(_ key: String, _ fallback: Double) -> Double {
            let ps = PropertySpecification(json: spec.entry(section, key))
            guard case .number(let n)? = o[key], StyleValidation.constantProblems(.number(n), ps, path: "").isEmpty else { return fallback }
            return n
        }
        self.type = type
        self.json = json
        tiles = o["tiles"]?.items.compactMap(\.string) ?? []
        url = o["url"]?.string
        tileSize = number("tileSize", 512)
        minZoom = number("minzoom", 0)
        maxZoom = number("maxzoom", type == "geojson" ? 18 : 22)
        isTMS = o["scheme"]?.string == "tms"
        data = o["data"]
        coordinates = o["coordinates"]?.items.map { $0.items.compactMap { if case .number(let n) = $0 { n } else { nil } } } ?? []
    }
}
