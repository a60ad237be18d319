import GeoCore
import MapData
import TileArchives
import Platform

/// The JSON documents the tile server writes: TileJSON 3.0.0
/// (https://github.com/mapbox/tilejson-spec/tree/master/3.0.0), the index, and styles
/// rewritten to point at this server. `base` is `http://` and the `Host` the request named
/// (one `HostPolicy` accepted), so clients get absolute URLs that reach this server.
enum TileDocuments {
    /// A tileset's TileJSON: `tilejson` and `tiles` (the two required keys), zooms, bounds,
    /// centre `[lon, lat, zoom]`, `vector_layers`, attribution.
    static func tileJSON(_ m: MapSourceMetadata, name: String, base: String) -> JSONValue {
        var o: [String: JSONValue] = [
            "tilejson": .string("3.0.0"),
            "name": .string(m.name),
            "scheme": .string("xyz"),
            "format": .string(m.format.rawValue),
            "tiles": .array([.string("\(base)/\(pathSegment(name))/{z}/{x}/{y}.\(m.format.rawValue)")]),
            "minzoom": .number(Double(m.minZoom)),
            "maxzoom": .number(Double(m.maxZoom)),
        ]
        // The 3.0.0 schema requires `vector_layers` of every tileset (its text, of vector ones):
        // a raster tileset has none.
        o["vector_layers"] = .array(m.format == .mvt ? m.vectorLayers : [])
        if let b = m.bounds { o["bounds"] = .array([b.west, b.south, b.east, b.north].map(JSONValue.number)) }
        if let c = m.center {
            o["center"] = .array([c.coordinate.longitude, c.coordinate.latitude, Double(min(max(c.zoom, m.minZoom), m.maxZoom))].map(JSONValue.number))
        }
        if let a = m.attribution { o["attribution"] = .string(a) }
        if let d = m.description { o["description"] = .string(d) }
        return .object(o)
    }

    /// `/`: the tilesets with their TileJSON URLs, the styles with theirs.
    static func index(tilesets: [(name: String, metadata: MapSourceMetadata)], styles: [String], base: String) -> JSONValue {
        .object([
            "tilesets": .array(tilesets.map { t in
                .object(["name": .string(t.name), "format": .string(t.metadata.format.rawValue), "tilejson": .string("\(base)/\(pathSegment(t.name)).json"),
                         "minzoom": .number(Double(t.metadata.minZoom)), "maxzoom": .number(Double(t.metadata.maxZoom))])
            }),
            "styles": .array(styles.map { .object(["id": .string($0), "url": .string("\(base)/styles/\(pathSegment($0))/style.json")]) }),
        ])
    }

    /// A style whose sources, `glyphs` and `sprite` name this server. A vector or raster
    /// source goes to the tileset of its own name, or of the file its `url` or `tiles` name
    /// (`pmtiles://monaco.pmtiles` → `monaco`), or to the one tileset of its kind; a source
    /// matching none is left as written. `glyphs` is rewritten when fonts are served, `sprite`
    /// when its files are (`spriteIDs`: the sheet's id, or each entry's of a sprite array).
    static func rewrittenStyle(_ style: [String: JSONValue], id: String, tilesets: [(name: String, metadata: MapSourceMetadata)],
                               servesFonts: Bool, spriteIDs: Set<String>, base: String) -> JSONValue {
        var out = style
        if case .object(var sources)? = style["sources"] {
            for (sourceName, value) in sources {
                guard case .object(var source) = value, case .string(let type)? = source["type"], type == "vector" || type == "raster" else { continue }
                guard let target = tileset(for: sourceName, source, vector: type == "vector", tilesets) else { continue }
                source["tiles"] = nil
                source["url"] = .string("\(base)/\(pathSegment(target)).json")
                sources[sourceName] = .object(source)
            }
            out["sources"] = .object(sources)
        }
        if servesFonts, style["glyphs"] != nil { out["glyphs"] = .string("\(base)/fonts/{fontstack}/{range}.pbf") }
        switch style["sprite"] {
        case .string? where spriteIDs.contains(id):
            out["sprite"] = .string("\(base)/sprites/\(pathSegment(id))")
        case .array(let entries)?:
            out["sprite"] = .array(entries.map { entry in
                guard case .object(var e) = entry, case .string(let entryID)? = e["id"], spriteIDs.contains("\(id)-\(entryID)") else { return entry }
                e["url"] = .string("\(base)/sprites/\(pathSegment("\(id)-\(entryID)"))")
                return .object(e)
            })
        default: break
        }
        return .object(out)
    }

    private static func tileset(for sourceName: String, _ source: [String: JSONValue], vector: Bool,
                                _ tilesets: [(name: String, metadata: MapSourceMetadata)]) -> String? {
        let names = Set(tilesets.map(\.name))
        if names.contains(sourceName) { return sourceName }
        var references: [String] = []
        if case .string(let url)? = source["url"] { references.append(url) }
        if case .array(let tiles)? = source["tiles"] { references += tiles.compactMap { if case .string(let t) = $0 { t } else { nil } } }
        for reference in references {
            var path = Substring(reference)
            if let query = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<query] }
            var name = MapSources.name(of: String(path))
            if name.hasSuffix(".json") { name = String(name.dropLast(5)) }
            if names.contains(name) { return name }
        }
        let kind = tilesets.filter { ($0.metadata.format == .mvt) == vector }
        return kind.count == 1 ? kind[0].name : nil
    }

    /// A name as one URL path segment: RFC 3986 `pchar`s kept, everything else percent-encoded.
    static func pathSegment(_ name: String) -> String {
        var out = ""
        for byte in name.utf8 {
            let c = Character(Unicode.Scalar(byte))
            if byte < 0x80, c.isLetter || c.isNumber || "-._~!$&'()*+,;=:@".contains(c) {
                out.append(c)
            } else {
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }

    /// JSON text, keys sorted, `/` not escaped.
    static func text(_ value: JSONValue) -> String {
        return (try? JSONEncoder.stable().encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
    }

    /// A JSON text as an object; nil when it is not one.
    static func object(_ bytes: [UInt8]) -> [String: JSONValue]? {
        guard case .object(let o)? = try? JSONValue(parsing: bytes) else { return nil }
        return o
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
