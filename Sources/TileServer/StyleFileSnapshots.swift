public import MapStyle
public import StyleRendering
public import TileArchives
public import GeoBase
public import GeoCore
import MapData
import Platform
import SystemIO

/// MapLibre styles drawn for one camera with what they need read from files (`geo snapshot
/// --style`): a style file's URLs read where ``StyleResourcePaths`` resolves them, as
/// ``RasterTileFolder`` reads them for its blocks, or a built-in style over a command's map data.
public enum StyleFileSnapshots {
    /// The zoom of a built-in style's snapshot when none is given: the legacy `geo snapshot`'s
    /// 16 (the seed's zoom level), 15 in MapLibre's 512-pixel world.
    public static let defaultStyleZoom = MapSnapshotter.zoom(hereZoomLevel: 16)

    /// `style` drawn for `camera`, each URL it names (sprite, glyphs, GeoJSON, tiles) read from
    /// the file `resources` resolves it to (``StyleResourcePaths/readFile(_:)``), a vector
    /// source's tile archive opened (``archiveSources(of:resources:)``); what could not be read
    /// or drawn is in the snapshot's warnings.
    /// - Throws: ``MapFilesError`` at an archive the style names that is missing or damaged;
    ///   `MapSnapshotError`.
    public static func snapshot(_ style: StyleDocument, resources: StyleResourcePaths, camera: StyleCamera) throws -> StyleSnapshot {
        try MapSnapshotter(style: style, sources: try archiveSources(of: style, resources: resources), camera: camera, load: resources.readFile).snapshot()
    }

    /// The style's vector sources whose `url` names a tile archive file, `pmtiles://PATH`
    /// (the PMTiles protocol's scheme) or `mbtiles://PATH` (MapLibre Native's), opened as map
    /// sources: PATH resolved as the style's other URLs are (``StyleResourcePaths/path(for:)``:
    /// absolute, `local://` under the base, else against the style's folder).
    /// - Throws: ``MapFilesError`` at the archive's path (``MapFiles/mapData(_:cachedTiles:onDamagedTile:)``).
    static func archiveSources(of style: StyleDocument, resources: StyleResourcePaths) throws -> [String: any MapSource] {
        var sources: [String: any MapSource] = [:]
        for (id, source) in style.sources where source.type == "vector" {
            guard let url = source.url, let scheme = ["pmtiles://", "mbtiles://"].first(where: url.hasPrefix) else { continue }
            let path = try resources.path(for: String(url.dropFirst(scheme.count)))
            // A tile that does not decode is the style's warning where it is drawn (the map
            // source hands tiles over as stored), not the legacy painter's callback.
            sources[id] = try MapFiles.mapData(path) { _, _, _, _ in }.mapSource(name: id)
        }
        return sources
    }

    /// The built-in style `scheme` with `options` over `data` (an archive's tiles, or an OSM
    /// extract's or the sample city's features tiled in memory; `name` names it in errors),
    /// drawn for `camera`, labels in the glyph ranges `glyphRange` makes (nil: none, a warning
    /// per range).
    /// - Throws: `MapDataError` when `data` cannot serve tiles; `MapSnapshotError`.
    public static func snapshot(_ scheme: DefaultStyle.Scheme, options: DefaultStyle.Options, data: DrawnMapData, named name: String,
                                camera: StyleCamera, glyphRange: ((String, UInt32) throws -> [UInt8])?) throws -> StyleSnapshot {
        try MapSnapshotter(scheme: scheme, options: options, data: try data.mapSource(name: name), camera: camera, glyphRange: glyphRange).snapshot()
    }

    /// The style file at `path` drawn `width` × `height` pixels at `pixelRatio` device pixels
    /// each, with the style's own camera where `center` (degrees), `zoom` (MapLibre's 512-pixel
    /// world), `bearing` or `pitch` (degrees) is nil; its URLs read from under `base` and the
    /// style's folder (``StyleResourcePaths``). `geo snapshot --style FILE`.
    /// - Throws: ``MapFilesError`` at `path` for a style that cannot be read (``MapFiles/style(at:)``);
    ///   `MapSnapshotError`.
    public static func snapshot(styleAt path: String, base: String?, width: Int, height: Int, pixelRatio: Double,
                                center: Coordinate?, zoom: Double?, bearing: Double?, pitch: Double?) throws -> StyleSnapshot {
        let style = try MapFiles.style(at: path)
        let camera = StyleCamera(style: style, width: width, height: height, pixelRatio: pixelRatio,
                                 center: center, zoom: zoom, bearing: bearing, pitch: pitch)
        return try snapshot(style, resources: StyleResourcePaths(base: base, stylePath: path), camera: camera)
    }

    /// The built-in style `scheme` with `options` over `data` (named `name`) drawn `width` ×
    /// `height` pixels at `pixelRatio`, looking at `center` (degrees) from `zoom` (MapLibre's;
    /// nil: ``defaultStyleZoom``), `bearing` and `pitch` (degrees; nil: 0), labels in glyphs made
    /// from the local Noto fonts (``MapFiles/localGlyphRanges()``). `geo snapshot --style default`.
    /// - Throws: as ``MapFiles/localGlyphRanges()`` and ``snapshot(_:options:data:named:camera:glyphRange:)``.
    public static func snapshot(_ scheme: DefaultStyle.Scheme, options: DefaultStyle.Options, data: DrawnMapData, named name: String,
                                center: Coordinate, zoom: Double?, bearing: Double, pitch: Double?,
                                width: Int, height: Int, pixelRatio: Double) throws -> StyleSnapshot {
        let camera = StyleCamera(longitude: center.longitude, latitude: center.latitude, zoom: zoom ?? defaultStyleZoom,
                                 bearing: bearing, pitch: pitch ?? 0, width: width, height: height, pixelRatio: pixelRatio)
        return try snapshot(scheme, options: options, data: data, named: name, camera: camera, glyphRange: try MapFiles.localGlyphRanges())
    }
}

extension MapFiles {
    /// The decoded style at `path`, read up to `StyleDocument.maximumSize` bytes.
    /// - Throws: ``MapFilesError`` at `path`: as ``contents(_:limit:)``; `.damaged` for a file
    ///   that is not a v8 style.
    public static func style(at path: String) throws(MapFilesError) -> StyleDocument {
        let bytes = try contents(path, limit: StyleDocument.maximumSize + 1)
        do { return try StyleDocument(data: Data(bytes)) } catch { throw MapFilesError(.damaged, "\(error)", at: path) }
    }
}

extension StyleResourcePaths {
    /// The bytes of the file `url` resolves to (``load(_:read:)``), read through SystemIO and
    /// refused unread past ``maximumResourceSize``: the loader of a style drawn from files.
    /// - Throws: `StyleRenderError` for a URL with no file; `SystemIOError` naming the path.
    public func readFile(_ url: String) throws -> [UInt8] {
        try load(url) { try FileDescriptor.readContents(of: $0, limit: $1) }
    }
}

extension DefaultStyle.Options {
    /// The built-in style's switches from the legacy snapshot's (`geo snapshot --hide`,
    /// `--show-poi`, `--show-pedestrian`): `hidden` categories left out; POIs and pedestrian
    /// features only of the classes named, every class for "all".
    public init(hiding hidden: Set<String>, poiClasses: Set<String>, pedestrianClasses: Set<String>) {
        self.init()
        hiddenCategories = hidden
        self.poiClasses = poiClasses.contains("all") ? nil : poiClasses
        self.pedestrianClasses = pedestrianClasses.contains("all") ? nil : pedestrianClasses
    }
}
