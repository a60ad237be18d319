import GeoBase
import GeoCore
import Hummingbird
import MapData
import MapRenderer
import MapStyle
import StyleRendering
import Synchronization
import SystemIO
import TileArchives
import Platform

/// Raster tiles drawn on request: `/styles/{id}/{z}/{x}/{y}[@2x].png`, the style drawn by
/// StyleRendering's CPU rasterizer (`StyleSnapshot`), 256 px a side (512 px at @2x), as
/// tileserver-gl serves them. The style reads this server's tilesets, glyphs and sprites
/// directly (no HTTP), other URLs as `geo snapshot --style` reads them.
///
/// A missing tile is drawn with the 4 × 4 block of tiles round it (MapRenderer's `Metatile`, as
/// Mapnik's mod_tile and tileserver-gl draw): one image, so lines and labels run on across the
/// tiles' edges, cut into its 16 tiles, which all go into the memory-bounded raster cache;
/// the other 15 are then hits. Two requests missing one block at once both draw it.
/// A raster tile as drawn: which style, from which versions of the style file and of the tilesets
/// (a replaced file makes new keys; its old tiles age out), where, at which pixel ratio.
struct RasterTileKey: Hashable, Sendable {
    var style: String
    /// `TileServer.contentHash` of the style's bytes and the tilesets' `ReopeningMapSource.generation`s.
    var version: UInt64
    var z: Int, x: Int, y: Int
    var pixelRatio: Int
}

extension TileServer {
    /// The deepest raster zoom drawn (MapLibre's `maxzoom` limit).
    static let maximumRasterZoom = 24
    /// The base URL the style drawn for a raster tile names this server by.
    static let internalBase = "http://tileserver.internal"

    func raster(_ id: String, _ z: Int?, _ x: Int?, _ y: Int?, highDensity: Bool) -> TileAnswer {
        guard let style = styles.first(where: { $0.id == id }) else { return Self.text("no style \(id)", status: 404) }
        guard let z, let x, let y, z <= Self.maximumRasterZoom, x < 1 << z, y < 1 << z else {
            return Self.text("no raster tile there: zooms 0…\(Self.maximumRasterZoom), x and y below 2^z", status: 404)
        }
        guard let (bytes, hash) = try? style.contents() else {
            note("\(style.name): cannot be read")
            return Self.text("the style \(id) cannot be read", status: 500)
        }
        let key = RasterTileKey(style: id, version: rasterVersion(styleHash: hash), z: z, x: x, y: y, pixelRatio: highDensity ? 2 : 1)
        if let png = rasterCache.bytes(for: key) { return Self.png(png) }
        do {
            return Self.png(try drawBlock(holding: key, style: preparedStyle(key, bytes), from: style))
        } catch {
            note("style \(id): raster tile \(z)/\(x)/\(y): \(error)")
            return Self.text("raster tile \(z)/\(x)/\(y) cannot be drawn", status: 500)
        }
    }

    /// The style `key.style` as its raster tiles draw it (its sources, glyphs and sprite
    /// pointing at this server), decoded once per version (`key.version`).
    /// - Throws: `TileServerError.invalidStyle` for a file that is not a JSON object, or the
    ///   `StyleDocumentError` of one that is not a style.
    private func preparedStyle(_ key: RasterTileKey, _ bytes: [UInt8]) throws -> StyleDocument {
        if let prepared = preparedStyles.withLock({ $0[key.style] }), prepared.version == key.version { return prepared.document }
        guard let object = TileDocuments.object(bytes) else { throw TileServerError(.invalidStyle, "not a JSON object") }
        let sets = tilesets.map { ($0.name, $0.source.current().metadata) }
        let rewritten = TileDocuments.rewrittenStyle(object, id: key.style, tilesets: sets, servesFonts: servesFonts,
                                                     spriteIDs: Set(sprites.keys), base: Self.internalBase)
        let document = try StyleDocument(data: Data(TileDocuments.text(rewritten).utf8))
        preparedStyles.withLock { $0[key.style] = (key.version, document) }
        return document
    }

    /// Draws the metatile holding `key`'s tile, caches its tiles (unless a style or tileset
    /// changed meanwhile) and returns the PNG of `key`'s.
    private func drawBlock(holding key: RasterTileKey, style: StyleDocument, from served: ServedStyle) throws -> [UInt8] {
        let resources = StyleResourcePaths(base: served.folder, styleFolder: served.folder ?? ".")
        let block = Metatile.block(holding: key.x, key.y, zoom: key.z)
        let camera = StyleCamera(block: block, pixelRatio: key.pixelRatio)
        let snapshot = try StyleSnapshot(style: style, camera: camera) { url in
            if url.hasPrefix(Self.internalBase + "/") { return try self.resource(String(url.dropFirst(Self.internalBase.count))) }
            return try resources.load(url) { try FileDescriptor.readContents(of: $0, limit: $1) }
        }
        let unchanged = (try? served.contents()).map { rasterVersion(styleHash: $0.hash) } == key.version
        var wanted: [UInt8] = []
        for tile in try block.tiles(of: snapshot.image, pixelRatio: key.pixelRatio) {
            let png = try PNG.encode(tile.image)
            var k = key
            (k.x, k.y) = (tile.x, tile.y)
            if unchanged { rasterCache.insert(png, for: k) }
            if k == key { wanted = png }
        }
        return wanted
    }

    /// The raster cache's version of a style's drawing: `version(_:styleHash:)` of the style
    /// file and of each tileset once it has been checked for a replacement.
    private func rasterVersion(styleHash: UInt64) -> UInt64 {
        Self.version(tilesets.map { $0.source.versioned().generation }, styleHash: styleHash)
    }

    private static func png(_ bytes: [UInt8]) -> TileAnswer {
        TileAnswer(headers: [.contentType: "image/png", .cacheControl: tileCaching], body: ByteBuffer(bytes: bytes))
    }

    /// What this server would send for `path`, for the style being drawn: TileJSON, tiles (as
    /// stored; the renderer inflates gzip), glyphs, sprites.
    private func resource(_ path: String) throws -> [UInt8] {
        switch try TileRoute.parse(path) {
        case .tileJSON(let name):
            guard let source = tileset(name) else { break }
            return Array(TileDocuments.text(TileDocuments.tileJSON(source.metadata, name: name, base: Self.internalBase)).utf8)
        case .tile(let name, let z?, let x?, let y?, _):
            guard let source = tileset(name), z <= source.metadata.maxZoom, x < 1 << z, y < 1 << z else { break }
            return try source.tile(zoom: z, x: x, y: y)?.bytes ?? []
        case .glyphs(let stack, let range):
            if let bytes = try glyphBytes(stack, range) { return bytes }
        case .sprite(let id, let highDensity, let ext):
            if let sprite = sprites[id] { return try sprite.bytes(highDensity: highDensity, ext: ext) }
        default: break
        }
        throw TileServerError(.notServed, "\(path) is not served")
    }
}
