public import GeoBase
public import MapData
public import MapRenderer
public import MapStyle
public import StyleRendering
public import TileArchives

extension RasterTileFolder {
    /// `geo tiles render`: the raster tiles of `zooms` over `map` (`path` names it) written
    /// into the folder `output` (created when missing), refused before any work when more than
    /// `limit` — drawn by the painter, labelled in the local fonts (``MapFiles/text()``), or
    /// with `style`: the built-in `default` / `default-night` over `map` as `geo snapshot
    /// --style default` draws it, or a style file with `map` as its one vector source, its
    /// other URLs read as `geo snapshot --style` reads them (`local://` under `base`). After
    /// each zoom `progress` gets the zoom, its tiles and the totals written so far.
    /// - Returns: the tiles written, and the style's warnings (``BlockWarnings/lines``).
    /// - Throws: `TileServerError`: `.nothingToDraw`, `.tooManyTiles`, `.cannotCreateFolder`,
    ///   `.invalidStyle` for a style file without one vector source, as ``render(_:zoom:)``;
    ///   `MapFilesError` for the style file; `RenderError.fontNotFound` for a label font;
    ///   `MapDataError` when `map` cannot serve tiles.
    public static func render(_ map: DrawnMapData, named path: String, zooms: ClosedRange<Int>, limit: Int, to output: String,
                              style: String?, base: String?,
                              progress: (_ zoom: Int, _ tiles: Int, _ total: (tiles: Int, bytes: Int)) -> Void) throws -> (written: Int, warnings: [String]) {
        var folder = try RasterTileFolder(map, folder: output)
        // Every tile first, to refuse an unbounded request before any work.
        let tiles = try folder.tiles(zooms: zooms, limit: limit)
        try createFolder(output) // before drawing: -o naming a file is refused at once
        var warnings = BlockWarnings()
        if let style {
            let source = try map.mapSource(name: path)
            if let scheme = DefaultStyle.Scheme(styleName: style) {
                folder.drawBlock = styleBlocks(scheme, options: DefaultStyle.Options(hiding: [], poiClasses: [], pedestrianClasses: []), data: source,
                                               glyphRange: try MapFiles.localGlyphRanges()) { warnings.add($0) }
            } else {
                folder.drawBlock = try styleBlocks(try MapFiles.style(at: style), data: source,
                                                   resources: StyleResourcePaths(base: base, stylePath: style)) { warnings.add($0) }
            }
        } else {
            folder.text = try MapFiles.text()
        }
        let (written, _) = try folder.render(tiles, zooms: zooms, progress: progress)
        return (written, warnings.lines)
    }

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
