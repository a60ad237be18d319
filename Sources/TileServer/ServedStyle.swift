import GeoBase
import GeoCore
import MapStyle
import StyleRendering
import SystemIO

/// A style the server answers for: a file (`--style`, a `WatchedFile`, so that a replacement
/// is served from the next request on), or one of the built-in styles (`DefaultStyle`'s
/// day and night) over a vector tileset of the OpenMapTiles schema `geo tiles build` writes.
struct ServedStyle: Sendable {
    enum Origin: Sendable {
        case file(WatchedFile)
        /// The style's bytes and their `TileServer.contentHash`.
        case builtIn([UInt8], hash: UInt64)
    }

    let id: String
    let origin: Origin

    /// The style's bytes as they are now, and their `TileServer.contentHash`.
    func contents() throws -> (bytes: [UInt8], hash: UInt64) {
        switch origin {
        case .file(let file): try file.contents()
        case .builtIn(let bytes, let hash): (bytes, hash)
        }
    }

    /// What the style's relative and `local://` URLs resolve against: its file's folder (none
    /// for a built-in style, whose URLs all name this server).
    var folder: String? {
        if case .file(let file) = origin { return FileDescriptor.directory(of: file.path) }
        return nil
    }

    /// Where errors about the style point.
    var name: String {
        if case .file(let file) = origin { return file.path }
        return "the built-in style \(id)"
    }

    /// The built-in styles `default` and `default-night` over `tileset` (its source's `url`
    /// names the tileset, so `TileDocuments.rewrittenStyle` points it at this server; its
    /// `glyphs` are rewritten to this server's fonts like any style's, its `sprite` to the
    /// built-in sheet). Without fonts (`withLabels` false) the labels and `glyphs` are left out
    /// (a client could not draw them, and MapLibre refuses `text-field` without `glyphs`): label
    /// layers go, icon layers keep their icons.
    static func builtIn(over tileset: String, showing options: DefaultStyle.Options, withLabels: Bool) throws -> [ServedStyle] {
        try DefaultStyle.Scheme.allCases.map { scheme in
            guard case .object(var root) = try DefaultStyle.json(scheme, options: options), case .object(var sources)? = root["sources"],
                  case .object(var source)? = sources[DefaultStyle.sourceID] else {
                throw TileServerError(.invalidStyle, "the built-in \(scheme.rawValue) style has no \(DefaultStyle.sourceID) source")
            }
            // The tileset's TileJSON says its zooms and bounds.
            (source["tiles"], source["minzoom"], source["maxzoom"]) = (nil, nil, nil)
            source["url"] = .string(tileset + ".json")
            sources[DefaultStyle.sourceID] = .object(source)
            root["sources"] = .object(sources)
            if !withLabels, case .array(let layers)? = root["layers"] {
                root["glyphs"] = nil
                root["layers"] = .array(layers.compactMap { layer in
                    guard case .object(var l) = layer, case .object(var layout)? = l["layout"], layout["text-field"] != nil else { return layer }
                    guard layout["icon-image"] != nil else { return nil }
                    layout = layout.filter { !$0.key.hasPrefix("text-") }
                    l["layout"] = .object(layout)
                    if case .object(let paint)? = l["paint"] { l["paint"] = .object(paint.filter { !$0.key.hasPrefix("text-") }) }
                    return .object(l)
                })
            }
            let bytes = Array(TileDocuments.text(.object(root)).utf8)
            return ServedStyle(id: scheme == .day ? "default" : "default-night", origin: .builtIn(bytes, hash: TileServer.contentHash(bytes)))
        }
    }
}

/// A sprite sheet the server answers for: `NAME.json` / `NAME.png` and their `@2x` files beside a
/// style file, or the built-in styles' sheet (StyleRendering's `DefaultStyleSprite`).
enum ServedSprite: Sendable {
    /// The sheet's path without `[@2x].json|png`.
    case files(String)
    case builtIn

    /// The sheet's index (`ext` "json") or image ("png"), at 2× when `highDensity`.
    func bytes(highDensity: Bool, ext: String) throws -> [UInt8] {
        switch self {
        case .files(let path): return try FileDescriptor.readContents(of: path + (highDensity ? "@2x." : ".") + ext)
        case .builtIn:
            let files = try DefaultStyleSprite.files(pixelRatio: highDensity ? 2 : 1)
            return ext == "png" ? files.png : files.json
        }
    }
}
