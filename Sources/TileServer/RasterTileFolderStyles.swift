public import GeoBase
public import MapData
public import MapRenderer
public import MapStyle
public import StyleRendering
import SystemIO

extension RasterTileFolder {
    /// What draws one block (its 16 tiles in one 1024² image, as this server draws raster
    /// tiles) with the built-in style `scheme` over `data`, for ``drawBlock``: the block
    /// `geo snapshot --style default` draws there (`MapSnapshotter(scheme:…)`,
    /// `StyleCamera(block:pixelRatio:)` at pixel ratio 1). Labels are in the glyph ranges
    /// `glyphRange` makes (nil: none, a warning per range); each block's warnings go to `warn`.
    public static func styleBlocks(_ scheme: DefaultStyle.Scheme, options: DefaultStyle.Options, data: any MapSource,
                                   glyphRange: ((String, UInt32) throws -> [UInt8])?,
                                   warn: @escaping (String) -> Void) -> (Metatile) throws -> Pixmap {
        { block in
            let snapshot = try MapSnapshotter(scheme: scheme, options: options, data: data, camera: StyleCamera(block: block, pixelRatio: 1),
                                              glyphRange: glyphRange).snapshot()
            snapshot.warnings.forEach(warn)
            return snapshot.image
        }
    }

    /// What draws one block with a style file whose one vector source `data` serves, for
    /// ``drawBlock``; the style's other URLs (sprite, glyphs, GeoJSON, raster tiles) are read
    /// from the files `resources` resolves them to, as `geo snapshot --style` reads them.
    /// Each block's warnings go to `warn`.
    /// - Throws: `TileServerError` `.invalidStyle` ("has N vector sources") when the style has
    ///   not exactly one vector source to hand `data` to.
    public static func styleBlocks(_ style: StyleDocument, data: any MapSource, resources: StyleResourcePaths,
                                   warn: @escaping (String) -> Void) throws(TileServerError) -> (Metatile) throws -> Pixmap {
        let vector = style.sources.filter { $0.value.type == "vector" }.map(\.key)
        guard vector.count == 1 else { throw TileServerError(.invalidStyle, "has \(vector.count) vector sources") }
        return { block in
            let snapshot = try MapSnapshotter(style: style, sources: [vector[0]: data], camera: StyleCamera(block: block, pixelRatio: 1)) { url in
                try resources.load(url) { try FileDescriptor.readContents(of: $0, limit: $1) }
            }.snapshot()
            snapshot.warnings.forEach(warn)
            return snapshot.image
        }
    }
}
