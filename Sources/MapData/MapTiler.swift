import Dispatch
import ZlibCompression

/// What `MapTiler` makes: the zoom range, the tile grid, and how much of each neighbour a tile
/// holds.
public struct TilingOptions: Hashable, Sendable {
    public var minZoom: Int
    public var maxZoom: Int
    /// Tile units per tile side (MVT extent).
    public var extent: Int
    /// Tile units of the neighbours kept around each tile, so strokes and labels that cross an
    /// edge draw without seams: 64 = 4 pixels of a 256-pixel tile.
    public var buffer: Int
    /// Threads used for clipping and encoding one zoom level.
    public var parallelism: Int
    /// Tile columns cut per pass of a zoom level. The uncompressed pieces of one pass are all
    /// that is held at once (encoded tiles are kept), so memory follows the pass, not the zoom.
    public var columnsPerPass: Int
    /// Whether `EncodedTile.data` is gzip-compressed (as PMTiles and MBTiles store tiles), done
    /// on the same threads as the encoding.
    public var compressesTiles: Bool

    /// The zoom levels `MapTiler` accepts.
    public static let zoomRange = 0...16

    public init(minZoom: Int = 0, maxZoom: Int = 14, extent: Int = 4096, buffer: Int = 64, parallelism: Int = 1,
                columnsPerPass: Int = 128, compressesTiles: Bool = false) {
        self.minZoom = minZoom
        self.maxZoom = maxZoom
        self.extent = extent
        self.buffer = buffer
        self.parallelism = parallelism
        self.columnsPerPass = columnsPerPass
        self.compressesTiles = compressesTiles
    }

    /// - Throws: `MapDataError.invalidArgument` for zooms outside 0…16 or reversed, an extent
    ///   outside 256…16384, a buffer outside 0…extent.
    public func validate() throws(MapDataError) {
        guard Self.zoomRange.contains(minZoom), Self.zoomRange.contains(maxZoom), minZoom <= maxZoom else {
            throw MapDataError(.invalidArgument, "zoom range \(minZoom)…\(maxZoom) is not within 0…16, lowest first")
        }
        guard (256...16384).contains(extent) else { throw MapDataError(.invalidArgument, "extent \(extent) is outside 256…16384") }
        guard (0...extent).contains(buffer) else { throw MapDataError(.invalidArgument, "buffer \(buffer) is outside 0…\(extent)") }
        guard parallelism >= 1 else { throw MapDataError(.invalidArgument, "parallelism \(parallelism) is below 1") }
        guard columnsPerPass >= 1 else { throw MapDataError(.invalidArgument, "columnsPerPass \(columnsPerPass) is below 1") }
    }
}

/// One encoded tile: its address and its MVT bytes (gzip-compressed when
/// `TilingOptions.compressesTiles`).
public struct EncodedTile: Hashable, Sendable {
    public var zoom: Int
    public var x: Int
    public var y: Int
    public var data: [UInt8]

    public init(zoom: Int, x: Int, y: Int, data: [UInt8]) {
        self.zoom = zoom
        self.x = x
        self.y = y
        self.data = data
    }
}

/// Cuts map features into vector tiles, one zoom level at a time.
///
/// Generalisation rule per zoom z (pixels are those of a 256-pixel tile, 1 px = extent/256 units):
/// - a feature is kept from its `minZoom` (the schema's table);
/// - below `maxZoom`, lines and rings are simplified by Douglas–Peucker with a 0.5 px tolerance,
///   polygons and holes under 4 px² and lines shorter than 1 px are dropped; at `maxZoom` the
///   tolerance is 1/16 px (one unit of a 4096 grid) and nothing is dropped for size;
/// - geometry is clipped to each tile's box grown by `buffer` (lines by parametric segment
///   clipping, polygon rings by Sutherland–Hodgman), first into column strips, then rows, so a
///   feature over n tiles costs O(points × (columns + rows)), not O(points × n);
/// - coordinates are rounded on the global grid of the zoom, so neighbouring tiles agree on
///   every shared point.
///
/// A zoom level is cut in passes of `columnsPerPass` tile columns; each pass takes the features
/// whose box reaches its columns.
public struct MapTiler: Sendable {
    public let features: [MapFeature]
    public let options: TilingOptions
    /// Each feature's world box (minX, minY, maxX, maxY); an empty geometry's is inverted.
    private let bounds: [(Double, Double, Double, Double)]

    /// - Throws: `MapDataError.invalidArgument` for bad options.
    public init(features: [MapFeature], options: TilingOptions = TilingOptions()) throws(MapDataError) {
        try options.validate()
        self.features = features
        self.options = options
        bounds = features.map { $0.geometry.bounds.map { ($0.minX, $0.minY, $0.maxX, $0.maxY) } ?? (1, 1, 0, 0) }
    }

    /// A clipped, encoded piece of one feature in one tile.
    private struct Piece {
        var feature: Int32
        var type: VectorTileGeometryType
        var commands: [UInt32]
    }

    /// The tiles of zoom `z` that hold anything, MVT-encoded, in PMTiles tile-id order.
    /// - Throws: `MapDataError` when gzip fails (out of memory).
    /// - Complexity: O(points × (columns + rows) per feature), on `options.parallelism` threads.
    public func tiles(atZoom z: Int) throws(MapDataError) -> [EncodedTile] {
        let scale = Double(1 << z), margin = Double(options.buffer) / Double(options.extent)
        // The columns any feature shown at z reaches.
        var first = Int.max, last = Int.min
        for (i, b) in bounds.enumerated() where features[i].minZoom <= z && b.0 <= b.2 {
            first = min(first, Int(b.0 * scale - margin))
            last = max(last, Int(b.2 * scale + margin))
        }
        guard first <= last else { return [] }
        first = max(0, first); last = min((1 << z) - 1, last)
        var tiles: [EncodedTile] = []
        for start in stride(from: first, through: last, by: options.columnsPerPass) {
            let columns = start...min(last, start + options.columnsPerPass - 1)
            tiles += try pass(zoom: z, columns: columns)
        }
        if first + options.columnsPerPass <= last {
            tiles.sort { PMTiles.tileID(zoom: z, x: $0.x, y: $0.y) < PMTiles.tileID(zoom: z, x: $1.x, y: $1.y) }
        }
        return tiles
    }

    /// Cuts and encodes the tiles of some columns of zoom `z`, in tile-id order.
    private func pass(zoom z: Int, columns: ClosedRange<Int>) throws(MapDataError) -> [EncodedTile] {
        let workers = max(1, options.parallelism)
        let chunk = (features.count + workers - 1) / max(workers, 1)
        let scale = Double(1 << z), margin = Double(options.buffer) / Double(options.extent)
        let west = Double(columns.lowerBound) - margin, east = Double(columns.upperBound + 1) + margin
        var partial = [[UInt64: [Piece]]](repeating: [:], count: workers)
        partial.withUnsafeMutableBufferPointer { buffer in
            let slots = DisjointSlots(buffer: buffer)
            DispatchQueue.concurrentPerform(iterations: workers) { w in
                var pieces: [UInt64: [Piece]] = [:]
                let lower = w * chunk, upper = min(features.count, lower + chunk)
                if lower < upper {
                    for i in lower..<upper where features[i].minZoom <= z && bounds[i].0 * scale <= east && bounds[i].2 * scale >= west {
                        cut(i, zoom: z, columns: columns, into: &pieces)
                    }
                }
                slots.buffer[w] = pieces
            }
        }
        // Merge in worker order: worker w holds a contiguous, earlier range of features than w + 1.
        var byTile = partial[0]
        for w in 1..<workers {
            for (key, pieces) in partial[w] { byTile[key, default: []].append(contentsOf: pieces) }
        }
        partial = []
        let merged = byTile
        let keys = merged.keys.map { key in (key, PMTiles.tileID(zoom: z, x: Int(key >> 32), y: Int(key & 0xFFFF_FFFF))) }
            .sorted { $0.1 < $1.1 }.map(\.0)
        var tiles = [EncodedTile](repeating: EncodedTile(zoom: z, x: 0, y: 0, data: []), count: keys.count)
        var failed = [MapDataError?](repeating: nil, count: workers)
        tiles.withUnsafeMutableBufferPointer { tileBuffer in
            failed.withUnsafeMutableBufferPointer { failureBuffer in
                let slots = DisjointSlots(buffer: tileBuffer), failures = DisjointSlots(buffer: failureBuffer)
                DispatchQueue.concurrentPerform(iterations: workers) { w in
                    // Worker w takes every workers-th tile: neighbours (alike in size) spread evenly.
                    for i in stride(from: w, to: keys.count, by: workers) {
                        let key = keys[i]
                        var data = encode(merged[key]!)
                        if options.compressesTiles {
                            do { data = try Gzip.compress(data) } catch {
                                failures.buffer[w] = MapDataError(.invalidArgument, "gzip of tile \(z)/\(key >> 32)/\(key & 0xFFFF_FFFF): \(error)")
                            }
                        }
                        slots.buffer[i] = EncodedTile(zoom: z, x: Int(key >> 32), y: Int(key & 0xFFFF_FFFF), data: data)
                    }
                }
            }
        }
        if let failure = failed.lazy.compactMap({ $0 }).first { throw failure }
        return tiles
    }

    /// Encodes the pieces of one tile: layers in draw order, keys and values shared per layer.
    private func encode(_ pieces: [Piece]) -> [UInt8] {
        var byLayer: [MapLayer: [Piece]] = [:]
        for p in pieces { byLayer[features[Int(p.feature)].layer, default: []].append(p) }
        var tile = VectorTile()
        for layer in MapLayer.allCases {
            guard let list = byLayer[layer] else { continue }
            var out = VectorTileLayer(name: layer.rawValue, extent: UInt32(options.extent))
            var keyIndex: [String: UInt32] = [:], valueIndex: [VectorTileValue: UInt32] = [:]
            for p in list {
                let f = features[Int(p.feature)]
                var tags: [UInt32] = []
                tags.reserveCapacity(f.properties.count * 2)
                for property in f.properties {
                    let k: UInt32
                    if let known = keyIndex[property.key] { k = known } else {
                        k = UInt32(out.keys.count); keyIndex[property.key] = k; out.keys.append(property.key)
                    }
                    let value = VectorTileValue(property.value)
                    let v: UInt32
                    if let known = valueIndex[value] { v = known } else {
                        v = UInt32(out.values.count); valueIndex[value] = v; out.values.append(value)
                    }
                    tags.append(k); tags.append(v)
                }
                // OpenMapTiles' id: the OSM id × 10 + the element kind.
                let id: UInt64? = f.id >= 0 ? UInt64(f.id) &* 10 &+ UInt64(f.source.rawValue) : nil
                out.features.append(VectorTileFeature(id: id, tags: tags, type: p.type, geometry: p.commands))
            }
            tile.layers.append(out)
        }
        return tile.encoded()
    }

    /// Generalises and clips feature `index` at zoom `z`, adding its pieces to the tiles it touches.
    private func cut(_ index: Int, zoom z: Int, columns: ClosedRange<Int>, into pieces: inout [UInt64: [Piece]]) {
        let feature = features[index]
        let extent = Double(options.extent)
        let scale = Double(1 << z) * extent
        let pixel = extent / 256
        let lastZoom = z >= options.maxZoom
        let tolerance = lastZoom ? pixel / 16 : pixel / 2
        let tileCount = 1 << z
        let buffer = Double(options.buffer)
        @inline(__always) func scaled(_ ps: [MapPoint]) -> [MapPoint] { ps.map { MapPoint(x: $0.x * scale, y: $0.y * scale) } }
        @inline(__always) func key(_ x: Int, _ y: Int) -> UInt64 { UInt64(x) << 32 | UInt64(y) }
        @inline(__always) func grid(_ v: Double, origin: Int) -> Int64 { Int64(v.rounded()) - Int64(origin) }

        switch feature.geometry {
        case .points(let points):
            var byTile: [UInt64: [TilePoint]] = [:]
            for p in scaled(points) {
                let tx = Int((p.x / extent).rounded(.down)), ty = Int((p.y / extent).rounded(.down))
                guard columns.contains(tx), (0..<tileCount).contains(ty) else { continue }
                byTile[key(tx, ty), default: []].append(TilePoint(x: grid(p.x, origin: tx * options.extent), y: grid(p.y, origin: ty * options.extent)))
            }
            for (k, ps) in byTile {
                var e = GeometryEncoder()
                e.addPoints(ps)
                pieces[k, default: []].append(Piece(feature: Int32(index), type: .point, commands: e.commands))
            }
        case .lines(let lines):
            var kept: [[MapPoint]] = []
            for line in lines {
                let s = TileClipping.simplified(scaled(line), tolerance: tolerance)
                guard s.count >= 2, lastZoom || TileClipping.length(s) >= pixel else { continue }
                kept.append(s)
            }
            guard !kept.isEmpty else { return }
            forEachTile(of: kept.flatMap { $0 }, columns: columns, tileCount: tileCount, extent: extent, buffer: buffer) { column, lower, upper, rows in
                var strip: [[MapPoint]] = []
                for l in kept { TileClipping.clipLine(l, .x, lower, upper, into: &strip) }
                guard !strip.isEmpty else { return }
                for row in rows {
                    let top = Double(row) * extent - buffer, bottom = Double(row + 1) * extent + buffer
                    var parts: [[MapPoint]] = []
                    for l in strip { TileClipping.clipLine(l, .y, top, bottom, into: &parts) }
                    guard !parts.isEmpty else { continue }
                    var e = GeometryEncoder()
                    for part in parts {
                        e.addLine(part.map { TilePoint(x: grid($0.x, origin: column * options.extent), y: grid($0.y, origin: row * options.extent)) })
                    }
                    if !e.commands.isEmpty { pieces[key(column, row), default: []].append(Piece(feature: Int32(index), type: .lineString, commands: e.commands)) }
                }
            }
        case .polygons(let polygons):
            let minimumArea = lastZoom ? 0 : 4 * pixel * pixel * 2 // twice-area units
            var kept: [[[MapPoint]]] = []
            for polygon in polygons {
                let exterior = TileClipping.simplified(scaled(polygon.exterior), tolerance: tolerance)
                guard exterior.count >= 4, abs(TileClipping.twiceArea(exterior)) > minimumArea else { continue }
                var rings = [exterior]
                for hole in polygon.holes {
                    let h = TileClipping.simplified(scaled(hole), tolerance: tolerance)
                    if h.count >= 4, abs(TileClipping.twiceArea(h)) > minimumArea { rings.append(h) }
                }
                kept.append(rings)
            }
            guard !kept.isEmpty else { return }
            forEachTile(of: kept.flatMap { $0[0] }, columns: columns, tileCount: tileCount, extent: extent, buffer: buffer) { column, lower, upper, rows in
                var strip: [[[MapPoint]]] = []
                for polygon in kept {
                    let exterior = TileClipping.clipRing(polygon[0], .x, lower, upper)
                    guard !exterior.isEmpty else { continue }
                    strip.append([exterior] + polygon.dropFirst().map { TileClipping.clipRing($0, .x, lower, upper) }.filter { !$0.isEmpty })
                }
                guard !strip.isEmpty else { return }
                for row in rows {
                    let top = Double(row) * extent - buffer, bottom = Double(row + 1) * extent + buffer
                    var out: [[[TilePoint]]] = []
                    for polygon in strip {
                        let exterior = TileClipping.clipRing(polygon[0], .y, top, bottom)
                        guard !exterior.isEmpty else { continue }
                        var rings = [exterior]
                        for hole in polygon.dropFirst() {
                            let h = TileClipping.clipRing(hole, .y, top, bottom)
                            if !h.isEmpty { rings.append(h) }
                        }
                        out.append(rings.map { ring in ring.map { TilePoint(x: grid($0.x, origin: column * options.extent), y: grid($0.y, origin: row * options.extent)) } })
                    }
                    guard !out.isEmpty else { continue }
                    var e = GeometryEncoder()
                    e.addPolygons(out)
                    if !e.commands.isEmpty { pieces[key(column, row), default: []].append(Piece(feature: Int32(index), type: .polygon, commands: e.commands)) }
                }
            }
        }
    }

    /// Calls `body` per tile column of `columns` that the points' box (grown by `buffer`)
    /// touches, with the column's buffered x range and its rows.
    private func forEachTile(of points: [MapPoint], columns allowed: ClosedRange<Int>, tileCount: Int, extent: Double, buffer: Double,
                             _ body: (_ column: Int, _ lower: Double, _ upper: Double, _ rows: ClosedRange<Int>) -> Void) {
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        for p in points {
            minX = min(minX, p.x); maxX = max(maxX, p.x)
            minY = min(minY, p.y); maxY = max(maxY, p.y)
        }
        guard minX <= maxX else { return }
        func range(_ lo: Double, _ hi: Double) -> ClosedRange<Int>? {
            let a = max(0, Int(((lo - buffer) / extent).rounded(.down))), b = min(tileCount - 1, Int(((hi + buffer) / extent).rounded(.down)))
            return a <= b ? a...b : nil
        }
        guard let columns = range(minX, maxX), let rows = range(minY, maxY), columns.overlaps(allowed) else { return }
        for column in columns.clamped(to: allowed) {
            body(column, Double(column) * extent - buffer, Double(column + 1) * extent + buffer, rows)
        }
    }
}

/// Lets concurrent workers write disjoint slots of one buffer.
/// @unchecked Sendable: each index is written by exactly one `concurrentPerform` iteration, and
/// the buffer is read only after `concurrentPerform` returns.
private struct DisjointSlots<T>: @unchecked Sendable {
    let buffer: UnsafeMutableBufferPointer<T>
}
