public import GeoBase
public import MapData
public import MapRenderer
public import MapStyle
public import StyleRendering

extension RasterTileFolder {
    /// What draws one block (its 16 tiles in one 1024² image, as this server draws raster
    /// tiles) with the built-in style `scheme` over `data`, for ``drawBlock``: the block
    /// `geo snapshot --style default` draws there (`MapSnapshotter(scheme:…)`,
    /// `StyleCamera(block:pixelRatio:)` at pixel ratio 1). Labels are in the glyph ranges
    /// `glyphRange` makes (nil: none, a warning per range); each block's warnings go to `warn`.
    /// One ``Map`` draws every block (``render(_:zoom:)`` draws one block at a time), so the
    /// decoded tiles, the features each layer keeps of them, placed labels and shaped text
    /// carry from block to block.
    public static func styleBlocks(_ scheme: DefaultStyle.Scheme, options: DefaultStyle.Options, data: any MapSource,
                                   glyphRange: ((String, UInt32) throws -> [UInt8])?,
                                   warn: @escaping (String) -> Void) -> (Metatile) throws -> Pixmap {
        blocks(warn: warn) { try Map(scheme: scheme, options: options, data: data, glyphRange: glyphRange) }
    }

    /// What draws one block with a style file whose one vector source `data` serves, for
    /// ``drawBlock``; the style's other URLs (sprite, glyphs, GeoJSON, raster tiles) are read
    /// from the files `resources` resolves them to, as `geo snapshot --style` reads them, by
    /// one ``Map`` for every block as above. Each block's warnings go to `warn`.
    /// - Throws: `TileServerError` `.invalidStyle` ("has N vector sources") when the style has
    ///   not exactly one vector source to hand `data` to.
    public static func styleBlocks(_ style: StyleDocument, data: any MapSource, resources: StyleResourcePaths,
                                   warn: @escaping (String) -> Void) throws(TileServerError) -> (Metatile) throws -> Pixmap {
        let vector = style.sources.filter { $0.value.type == "vector" }.map(\.key)
        guard vector.count == 1 else { throw TileServerError(.invalidStyle, "has \(vector.count) vector sources") }
        return blocks(warn: warn) {
            try Map(style: style, sources: [vector[0]: data], load: resources.readFile)
        }
    }

    /// Draws each block with the one map `makeMap` makes for the first, its warnings to `warn`.
    private static func blocks(warn: @escaping (String) -> Void, _ makeMap: @escaping () throws -> Map) -> (Metatile) throws -> Pixmap {
        var map: Map?
        return { block in
            let drawing = try map ?? makeMap()
            map = drawing
            let snapshot = try drawing.snapshot(camera: StyleCamera(block: block, pixelRatio: 1))
            snapshot.warnings.forEach(warn)
            return snapshot.image
        }
    }
}
