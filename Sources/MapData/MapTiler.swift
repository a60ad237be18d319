import Dispatch
import GeoCore
import ZlibCompression

/// Cuts map features into vector tiles, one zoom level at a time.
///
/// Generalisation rule per zoom z (pixels are those of a 256-pixel tile, 1 px = extent/256 units):
/// - a feature is kept from its `minZoom` (the schema's table);
/// - below `maxZoom`, lines and rings are simplified by Douglas–Peucker with a 0.5 px tolerance,
///   polygons and holes under 4 px² and lines shorter than 1 px are dropped; at `maxZoom` the
///   tolerance is 1/16 px (one unit of a 4096 grid) and nothing is dropped for size;
/// - below `maxZoom`, buildings, land use and land cover under 16 px² are merged per tile with
///   the others of their class into one feature (`PolygonMerging`: their union with gaps under
///   a pixel closed; merged areas under 4 px² dropped); it carries only `class` and no id;
/// - what is dropped for size is counted per layer (`GeneralisationDrops`);
/// - geometry is clipped to each tile's box grown by `buffer` (lines by parametric segment
///   clipping, polygon rings by Sutherland–Hodgman), first into column strips, then rows, so a
///   feature over n tiles costs O(points × (columns + rows)), not O(points × n);
/// - coordinates are rounded on the global grid of the zoom, so neighbouring tiles agree on
///   every shared point;
/// - a tile whose buffered box lies inside a polygon holds that polygon as its buffered square
///   (the fill tile of tilemaker and Planetiler), one shared set of commands; a block or larger
///   aligned square that polygons fill and nothing else reaches is not cut tile by tile but
///   given as one `EncodedTile` run (`TileFill`), so a polygon costs the tiles along its
///   outline, not the tiles it covers (a world-sized sea at zoom 14 is a few thousand blocks
///   and runs, not 2^28 tiles).
///
/// A zoom level is cut in square blocks of `TilingOptions.blockSide(atZoom:)` tiles, aligned to
/// the grid; each block takes the features whose box reaches it. An aligned block is one run of
/// the Hilbert curve PMTiles numbers tiles by (PMTiles v3, "Tile IDs"), so blocks taken in the
/// tile-id order of the zoom above them give all tiles of a zoom in tile-id order, ready to be
/// written out block by block.
///
/// Memory while cutting zoom z: the features (given), each feature's box, the list of features
/// per block (one entry per block a feature's box reaches), and one block's pieces and tiles
/// (`TileBlockCut`).
public struct MapTiler: Sendable {
    public let features: [MapFeature]
    public let options: TilingOptions
    /// Each feature's world box; an empty geometry's is `WorldRect.empty`.
    private let bounds: [WorldRect]

    /// - Throws: `MapDataError.invalidArgument` for bad options.
    public init(features: [MapFeature], options: TilingOptions = TilingOptions()) throws(MapDataError) {
        try options.validate()
        self.features = features
        self.options = options
        bounds = features.map { $0.geometry.bounds ?? .empty }
    }

    /// The tiles of zoom `z` that hold anything, MVT-encoded, in PMTiles tile-id order.
    /// - Throws: `MapDataError` when gzip fails (out of memory).
    /// - Complexity: as `tiles(in:)` over `blocks(atZoom:)`.
    public func tiles(atZoom z: Int) throws(MapDataError) -> [EncodedTile] {
        var tiles: [EncodedTile] = [], drops = GeneralisationDrops()
        for block in blocks(atZoom: z) { tiles += try self.tiles(in: block, drops: &drops) }
        return tiles
    }

    /// The blocks of zoom `z` (`TilingOptions.blockSide(atZoom:)`) that some feature reaches, in
    /// tile-id order: cutting them in this order gives the zoom's tiles in tile-id order.
    /// - Complexity: O(features + the blocks each reaches).
    public func blocks(atZoom z: Int) -> [TileBlock] {
        let tileCount = 1 << z, scale = Double(tileCount), margin = Double(options.buffer) / Double(options.extent)
        let side = options.blockSide(atZoom: z), shift = side.trailingZeroBitCount
        func tile(_ v: Double) -> Int { min(tileCount - 1, max(0, Int((v * scale - margin).rounded(.down)))) }
        func lastTile(_ v: Double) -> Int { min(tileCount - 1, max(0, Int((v * scale + margin).rounded(.down)))) }
        var members: [UInt64: [Int32]] = [:]
        var fills: [(TileFill.Quad, Int32)] = []
        for (i, b) in bounds.enumerated() where features[i].minZoom <= z && !b.isEmpty {
            let reach = ((tile(b.minX) >> shift)...(lastTile(b.maxX) >> shift), (tile(b.minY) >> shift)...(lastTile(b.maxY) >> shift))
            if let found = TileBlockCut.fillQuads(of: features[i], zoom: z, reach: reach, options: options) {
                for q in found.touched { members[q.key, default: []].append(Int32(i)) }
                for q in found.covered { fills.append((q, Int32(i))) }
                continue
            }
            for bx in reach.0 {
                for by in reach.1 { members[UInt64(bx) << 32 | UInt64(by), default: []].append(Int32(i)) }
            }
        }
        let (extra, runs) = TileFill.arrange(blocks: members.keys, fills: fills, blockLevel: z - shift)
        for (key, ids) in extra { members[key] = (members[key]! + ids).sorted() }
        var blocks = members.map { key, list in
            (TileFill.Quad(level: z - shift, x: Int(key >> 32), y: Int(key & 0xFFFF_FFFF)), list)
        }
        blocks += runs
        return blocks.map { quad, list in
            let s = side << (z - shift - quad.level)
            return (quad.firstTileID(atZoom: z - shift), TileBlock(zoom: z, columns: (quad.x * s)...(quad.x * s + s - 1), rows: (quad.y * s)...(quad.y * s + s - 1), members: list))
        }.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// The tiles of one block that hold anything, MVT-encoded, in tile-id order; what was
    /// dropped for size is added to `drops`.
    /// - Throws: `MapDataError` when gzip fails (out of memory).
    /// - Complexity: O(points × (columns + rows) of the block, per member feature), on
    ///   `options.parallelism` threads.
    public func tiles(in block: TileBlock, drops: inout GeneralisationDrops) throws(MapDataError) -> [EncodedTile] {
        var cut = TileBlockCut(options: options, zoom: block.zoom, columns: block.columns, rows: block.rows)
        cut.add(block.members.map { (Int($0), features[Int($0)]) }, drops: &drops)
        return try cut.tiles(drops: &drops)
    }
}

/// The tiles of one block, cut a batch of features at a time and encoded at the end: how
/// `MapTiler` and `MapFeaturePartition` cut. Features may come in any order and batches; a
/// tile's features are ordered by their sequence numbers (input order) when it is encoded, so
/// the tiles do not depend on the batches.
///
/// Memory: the block's pieces (each feature's geometry simplified for the zoom, clipped per
/// tile, as MVT commands; for a small polygon to merge, its rings, exact, in tile units), the
/// properties of each feature that left a piece, and the encoded tiles; a batch's full
/// geometry only while it is cut (`add`).
struct TileBlockCut {
    let options: TilingOptions
    let zoom: Int
    let columns: ClosedRange<Int>
    let rows: ClosedRange<Int>
    /// Per tile key (column << 32 | row), its pieces in the order cut.
    private var byTile: [UInt64: [Piece]] = [:]
    /// Per sequence number, the feature of a piece less its geometry (layer, id, properties).
    private var headers: [Int: MapFeature] = [:]
    /// The features whose polygons fill every tile of the block (`TileFill`): not cut, each
    /// tile holds their `fillSquare`.
    private var blockFills: [Int] = []
    /// The commands of a polygon filling a tile: its buffered square, the same for every tile.
    let fillSquare: [UInt32]

    init(options: TilingOptions, zoom: Int, columns: ClosedRange<Int>, rows: ClosedRange<Int>) {
        self.options = options
        self.zoom = zoom
        self.columns = columns
        self.rows = rows
        let lo = Int64(-options.buffer), hi = Int64(options.extent + options.buffer)
        var e = GeometryEncoder()
        e.addPolygons([[[TilePoint(x: lo, y: lo), TilePoint(x: hi, y: lo), TilePoint(x: hi, y: hi), TilePoint(x: lo, y: hi), TilePoint(x: lo, y: lo)]]])
        fillSquare = e.commands
    }

    /// A clipped, encoded piece of one feature in one tile.
    struct Piece {
        var sequence: Int
        var type: VectorTileGeometryType
        var commands: [UInt32]
        var kind = Kind.single
        /// Of a `.toMerge` piece: the feature's polygons (exterior first) in tile units of the zoom.
        var rings: [[[MapPoint]]] = []

        enum Kind {
            /// The feature's own geometry.
            case single
            /// A small polygon of a merged layer, merged with its class in the tile (no commands yet).
            case toMerge
            /// The merged outline of a class's small polygons; `sequence` is the first of them.
            case merged
        }
    }

    /// The layers whose small polygons merge below the highest zoom (`PolygonMerging`).
    static let mergedLayers: Set<MapLayer> = [.building, .landuse, .landcover]
    /// Polygons under this many square pixels (of a 256-pixel tile) merge.
    static let mergedArea = 16.0

    /// Cuts `batch` (features with their sequence numbers) into the block's tiles on
    /// `options.parallelism` threads; what is dropped for size is added to `drops`.
    /// - Complexity: O(points × (columns + rows) of the block, per feature).
    mutating func add(_ batch: [(sequence: Int, feature: MapFeature)], drops: inout GeneralisationDrops) {
        guard !batch.isEmpty else { return }
        let workers = max(1, min(options.parallelism, batch.count))
        let chunk = (batch.count + workers - 1) / workers
        var partial = [WorkerCut](repeating: WorkerCut(), count: workers)
        let block = self // the workers read the block's options, not the pieces it gathers
        partial.withUnsafeMutableBufferPointer { buffer in
            let slots = DisjointSlots(buffer: buffer)
            DispatchQueue.concurrentPerform(iterations: workers) { w in
                var out = WorkerCut()
                for (sequence, feature) in batch[(w * chunk)..<min(batch.count, w * chunk + chunk)]
                where block.cut(feature, sequence: sequence, into: &out.pieces, fills: &out.fills, drops: &out.drops) {
                    var header = feature
                    header.geometry = .points([])
                    out.headers.append((sequence, header))
                }
                slots.buffer[w] = out
            }
        }
        for out in partial {
            for (key, pieces) in out.pieces { byTile[key, default: []].append(contentsOf: pieces) }
            for (sequence, header) in out.headers { headers[sequence] = header }
            blockFills += out.fills
            drops.add(out.drops)
        }
    }

    /// The block's tiles that hold anything, MVT-encoded, in tile-id order, with the small
    /// polygons of each merged and what that dropped added to `drops`.
    /// - Throws: `MapDataError` when gzip fails (out of memory).
    func tiles(drops: inout GeneralisationDrops) throws(MapDataError) -> [EncodedTile] {
        let z = zoom
        // The tiles only block fills reach: one content, encoded once.
        let fills = blockFills.sorted().map { Piece(sequence: $0, type: .polygon, commands: fillSquare) }
        var filled: [UInt8] = []
        if !fills.isEmpty {
            filled = encode(fills)
            if options.compressesTiles {
                do { filled = try Gzip.compress(filled) } catch { throw MapDataError(.invalidArgument, "gzip of a fill tile of zoom \(z): \(error)") }
            }
            if byTile.isEmpty {
                // An aligned square (a block or a `TileFill` run): one run of tile ids from its first.
                let side = columns.count, level = z - side.trailingZeroBitCount
                let quad = TileFill.Quad(level: level, x: columns.lowerBound / side, y: rows.lowerBound / side)
                let first = try PMTiles.tile(id: quad.firstTileID(atZoom: z))
                return [EncodedTile(zoom: z, x: first.x, y: first.y, data: filled, runLength: side * side)]
            }
        }
        let workers = max(1, min(options.parallelism, byTile.count))
        let keys = byTile.keys.map { key in (key, PMTiles.tileID(zoom: z, x: Int(key >> 32), y: Int(key & 0xFFFF_FFFF))) }
            .sorted { $0.1 < $1.1 }.map(\.0)
        var tiles = [EncodedTile](repeating: EncodedTile(zoom: z, x: 0, y: 0, data: []), count: keys.count)
        var tallies = [WorkerTally](repeating: WorkerTally(), count: workers)
        tiles.withUnsafeMutableBufferPointer { tileBuffer in
            tallies.withUnsafeMutableBufferPointer { tallyBuffer in
                let slots = DisjointSlots(buffer: tileBuffer), tally = DisjointSlots(buffer: tallyBuffer)
                DispatchQueue.concurrentPerform(iterations: workers) { w in
                    // Tiles that polygons fill and nothing else reaches, by their features: encoded once.
                    var filledTiles: [[Int]: [UInt8]] = [:]
                    // Worker w takes every workers-th tile: neighbours (alike in size) spread evenly.
                    for i in stride(from: w, to: keys.count, by: workers) {
                        let key = keys[i]
                        let inOrder = (byTile[key]! + fills).sorted { $0.sequence < $1.sequence }
                        let filledBy = inOrder.allSatisfy { $0.kind == .single && $0.commands == fillSquare } ? inOrder.map(\.sequence) : nil
                        if let filledBy, let known = filledTiles[filledBy] {
                            slots.buffer[i] = EncodedTile(zoom: z, x: Int(key >> 32), y: Int(key & 0xFFFF_FFFF), data: known)
                            continue
                        }
                        let pieces = resolved(inOrder, column: Int(key >> 32), row: Int(key & 0xFFFF_FFFF), drops: &tally.buffer[w].drops)
                        var data = encode(pieces)
                        defer { if let filledBy { filledTiles[filledBy] = data } }
                        if options.compressesTiles {
                            do { data = try Gzip.compress(data) } catch {
                                tally.buffer[w].failure = MapDataError(.invalidArgument, "gzip of tile \(z)/\(key >> 32)/\(key & 0xFFFF_FFFF): \(error)")
                            }
                        }
                        slots.buffer[i] = EncodedTile(zoom: z, x: Int(key >> 32), y: Int(key & 0xFFFF_FFFF), data: data)
                    }
                }
            }
        }
        if let failure = tallies.lazy.compactMap(\.failure).first { throw failure }
        for t in tallies { drops.add(t.drops) }
        guard !fills.isEmpty else { return tiles }
        // The block's other tiles hold the fills alone.
        for column in columns {
            for row in rows where byTile[UInt64(column) << 32 | UInt64(row)] == nil {
                tiles.append(EncodedTile(zoom: z, x: column, y: row, data: filled))
            }
        }
        return tiles.sorted { PMTiles.tileID(zoom: z, x: $0.x, y: $0.y) < PMTiles.tileID(zoom: z, x: $1.x, y: $1.y) }
    }

    /// The pieces of one tile with its small polygons merged, per layer and class, into one
    /// piece each (`PolygonMerging`).
    private func resolved(_ pieces: [Piece], column: Int, row: Int, drops: inout GeneralisationDrops) -> [Piece] {
        guard pieces.contains(where: { $0.kind == .toMerge }) else { return pieces }
        var out = pieces.filter { $0.kind != .toMerge }
        var groups: [String: [Piece]] = [:], order: [String] = []
        for p in pieces where p.kind == .toMerge {
            let f = headers[p.sequence]!
            let key = f.layer.rawValue + "/" + (f.featureClass ?? "")
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(p)
        }
        let extent = Double(options.extent)
        let origin = MapPoint(x: Double(column) * extent, y: Double(row) * extent)
        for key in order {
            let members = groups[key]!
            let (merged, dropped) = PolygonMerging.merged(members.flatMap(\.rings), origin: origin, extent: extent, buffer: Double(options.buffer), pixel: extent / 256)
            if dropped > 0 { drops.mergedAreas[headers[members[0].sequence]!.layer, default: 0] += dropped }
            guard !merged.isEmpty else { continue }
            var e = GeometryEncoder()
            e.addPolygons(merged.map { rings in
                rings.map { ring in ring.map { TilePoint(x: Int64($0.x.rounded()) - Int64(column * options.extent), y: Int64($0.y.rounded()) - Int64(row * options.extent)) } }
            })
            if !e.commands.isEmpty { out.append(Piece(sequence: members[0].sequence, type: .polygon, commands: e.commands, kind: .merged)) }
        }
        return out
    }

    /// Encodes the pieces of one tile: layers in draw order, keys and values shared per layer.
    private func encode(_ pieces: [Piece]) -> [UInt8] {
        var byLayer: [MapLayer: [Piece]] = [:]
        for p in pieces { byLayer[headers[p.sequence]!.layer, default: []].append(p) }
        var tile = VectorTile()
        for layer in MapLayer.allCases {
            guard let list = byLayer[layer] else { continue }
            var out = VectorTileLayer(name: layer.rawValue, extent: UInt32(options.extent))
            var keyIndex: [String: UInt32] = [:], valueIndex: [VectorTileValue: UInt32] = [:]
            for p in list {
                let f = headers[p.sequence]!
                var tags: [UInt32] = []
                tags.reserveCapacity(f.properties.count * 2)
                // A merged piece stands for many features: only the class they share.
                for property in p.kind == .merged ? f.properties.filter({ $0.key == "class" }) : f.properties {
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
                let id: UInt64? = f.id >= 0 && p.kind != .merged ? UInt64(f.id) &* 10 &+ UInt64(f.source.rawValue) : nil
                out.features.append(VectorTileFeature(id: id, tags: tags, type: p.type, geometry: p.commands))
            }
            tile.layers.append(out)
        }
        return tile.encoded()
    }

    /// Whether a feature's polygons go to `PolygonMerging` at zoom `z` instead of being cut
    /// alone: below the highest zoom, in a merged layer, under `mergedArea` px² together.
    static func mergesSmall(_ feature: MapFeature, _ polygons: [MapPolygon], zoom z: Int, options: TilingOptions) -> Bool {
        guard z < options.maxZoom, mergedLayers.contains(feature.layer) else { return false }
        let extent = Double(options.extent), scale = Double(1 << z) * extent, pixel = extent / 256
        var twice = 0.0
        for polygon in polygons { twice += abs(TileClipping.twiceArea(polygon.exterior.map { p in MapPoint(x: p.x * scale, y: p.y * scale) })) }
        return twice / 2 < mergedArea * pixel * pixel
    }

    /// A feature's polygons as zoom `z` cuts them, in tile units: rings simplified (0.5 px,
    /// 1/16 px at the highest zoom), and below the highest zoom without polygons and holes
    /// under 4 px²; exterior first in each.
    static func kept(_ polygons: [MapPolygon], zoom z: Int, options: TilingOptions) -> [[[MapPoint]]] {
        let extent = Double(options.extent), scale = Double(1 << z) * extent, pixel = extent / 256
        let lastZoom = z >= options.maxZoom
        let tolerance = lastZoom ? pixel / 16 : pixel / 2
        let minimumArea = lastZoom ? 0 : 4 * pixel * pixel * 2 // twice-area units
        func scaled(_ ps: [MapPoint]) -> [MapPoint] { ps.map { MapPoint(x: $0.x * scale, y: $0.y * scale) } }
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
        return kept
    }

    /// The blocks of zoom `z` a polygon feature fills whole and those its outline touches
    /// (`TileFill.quads`), when it reaches at least 2 × 2 blocks (`reach`, block columns and
    /// rows) and is cut alone; nil for any other feature, which is cut in every block it reaches.
    static func fillQuads(of feature: MapFeature, zoom z: Int, reach: (ClosedRange<Int>, ClosedRange<Int>),
                          options: TilingOptions) -> (covered: [TileFill.Quad], touched: [TileFill.Quad])? {
        guard reach.0.count >= 2, reach.1.count >= 2, case .polygons(let polygons) = feature.geometry,
              !mergesSmall(feature, polygons, zoom: z, options: options) else { return nil }
        let rings = kept(polygons, zoom: z, options: options)
        guard !rings.isEmpty else { return nil } // dropped for size: cut() counts it
        return TileFill.quads(of: TileFill.edges(of: rings.flatMap { $0 }), zoom: z, blockShift: options.blockSide(atZoom: z).trailingZeroBitCount,
                              extent: Double(options.extent), buffer: Double(options.buffer), reach: (reach.0, reach.1))
    }

    /// Whether a cut ring, in tile coordinates, is the tile's buffered square.
    private func isFillSquare(_ ring: [TilePoint]) -> Bool {
        let lo = Int64(-options.buffer), hi = Int64(options.extent + options.buffer)
        var points: [TilePoint] = []
        for p in ring where p != points.last { points.append(p) }
        if points.count > 1, points.first == points.last { points.removeLast() }
        guard points.count == 4, Set(points).count == 4 else { return false }
        for (i, p) in points.enumerated() {
            let q = points[(i + 1) % 4]
            guard p.x == lo || p.x == hi, p.y == lo || p.y == hi, (p.x == q.x) != (p.y == q.y) else { return false }
        }
        return true
    }

    /// Generalises and clips `feature` at the block's zoom, adding its pieces to the block's
    /// tiles it touches, or its sequence number to `fills` when its polygons fill the whole
    /// block (`TileFill.covers`); whether it left any.
    private func cut(_ feature: MapFeature, sequence: Int, into pieces: inout [UInt64: [Piece]], fills: inout [Int], drops: inout GeneralisationDrops) -> Bool {
        let z = zoom, allowedRows = rows
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
        var added = false
        func emit(_ key: UInt64, _ piece: Piece) {
            pieces[key, default: []].append(piece)
            added = true
        }
        /// Counts the feature as dropped for size, once per zoom: in the block holding its box's
        /// north-west tile.
        func countDropped() {
            guard let b = feature.geometry.bounds else { return }
            let tx = min(tileCount - 1, max(0, Int((b.minX * Double(tileCount)).rounded(.down))))
            let ty = min(tileCount - 1, max(0, Int((b.minY * Double(tileCount)).rounded(.down))))
            if columns.contains(tx), allowedRows.contains(ty) { drops.features[feature.layer, default: 0] += 1 }
        }

        switch feature.geometry {
        case .points(let points):
            var byTile: [UInt64: [TilePoint]] = [:]
            for p in scaled(points) {
                let tx = Int((p.x / extent).rounded(.down)), ty = Int((p.y / extent).rounded(.down))
                guard columns.contains(tx), allowedRows.contains(ty) else { continue }
                byTile[key(tx, ty), default: []].append(TilePoint(x: grid(p.x, origin: tx * options.extent), y: grid(p.y, origin: ty * options.extent)))
            }
            for (k, ps) in byTile {
                var e = GeometryEncoder()
                e.addPoints(ps)
                emit(k, Piece(sequence: sequence, type: .point, commands: e.commands))
            }
        case .lines(let lines):
            var kept: [[MapPoint]] = []
            for line in lines {
                let s = TileClipping.simplified(scaled(line), tolerance: tolerance)
                guard s.count >= 2, lastZoom || TileClipping.length(s) >= pixel else { continue }
                kept.append(s)
            }
            guard !kept.isEmpty else {
                if !lastZoom { countDropped() }
                return false
            }
            forEachTile(of: kept.flatMap { $0 }, columns: columns, rows: allowedRows, tileCount: tileCount, extent: extent, buffer: buffer) { column, lower, upper, rows in
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
                    if !e.commands.isEmpty { emit(key(column, row), Piece(sequence: sequence, type: .lineString, commands: e.commands)) }
                }
            }
        case .polygons(let polygons) where Self.mergesSmall(feature, polygons, zoom: z, options: options):
            let rings = polygons.map { ([$0.exterior] + $0.holes).map(scaled) }
            forEachTile(of: rings.flatMap { $0[0] }, columns: columns, rows: allowedRows, tileCount: tileCount, extent: extent, buffer: buffer) { column, _, _, rows in
                for row in rows { emit(key(column, row), Piece(sequence: sequence, type: .polygon, commands: [], kind: .toMerge, rings: rings)) }
            }
        case .polygons(let polygons):
            let kept = Self.kept(polygons, zoom: z, options: options)
            guard !kept.isEmpty else {
                if !lastZoom { countDropped() }
                return false
            }
            let blockBox = TileFill.Box(minX: Double(columns.lowerBound) * extent - buffer, minY: Double(allowedRows.lowerBound) * extent - buffer,
                                        maxX: Double(columns.upperBound + 1) * extent + buffer, maxY: Double(allowedRows.upperBound + 1) * extent + buffer)
            // Only polygons whose box holds the block's can fill it (O(points), as the cut).
            var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
            for p in kept.lazy.flatMap({ $0[0] }) {
                minX = min(minX, p.x); maxX = max(maxX, p.x)
                minY = min(minY, p.y); maxY = max(maxY, p.y)
            }
            if minX <= blockBox.minX, maxX >= blockBox.maxX, minY <= blockBox.minY, maxY >= blockBox.maxY,
               TileFill.covers(TileFill.edges(of: kept.flatMap { $0 }), blockBox) {
                fills.append(sequence)
                return true
            }
            forEachTile(of: kept.flatMap { $0[0] }, columns: columns, rows: allowedRows, tileCount: tileCount, extent: extent, buffer: buffer) { column, lower, upper, rows in
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
                    // A polygon whose hole holds the whole tile covers none of it (cut, it is the
                    // buffered square twice, exterior and hole).
                    out.removeAll { isFillSquare($0[0]) && $0.dropFirst().contains(where: isFillSquare) }
                    guard !out.isEmpty else { continue }
                    if out.count == 1, out[0].count == 1, isFillSquare(out[0][0]) {
                        emit(key(column, row), Piece(sequence: sequence, type: .polygon, commands: fillSquare))
                        continue
                    }
                    var e = GeometryEncoder()
                    e.addPolygons(out)
                    if !e.commands.isEmpty { emit(key(column, row), Piece(sequence: sequence, type: .polygon, commands: e.commands)) }
                }
            }
        }
        return added
    }

    /// Calls `body` per tile column of `columns` that the points' box (grown by `buffer`)
    /// touches, with the column's buffered x range and its rows within `rows`.
    private func forEachTile(of points: [MapPoint], columns allowed: ClosedRange<Int>, rows allowedRows: ClosedRange<Int>, tileCount: Int, extent: Double, buffer: Double,
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
        guard let columns = range(minX, maxX), let rows = range(minY, maxY), columns.overlaps(allowed), rows.overlaps(allowedRows) else { return }
        for column in columns.clamped(to: allowed) {
            body(column, Double(column) * extent - buffer, Double(column + 1) * extent + buffer, rows.clamped(to: allowedRows))
        }
    }
}

/// What one worker of `TileBlockCut.add` cut: pieces by tile, the features filling the block,
/// the features that left any (geometry emptied), and what it dropped for size.
private struct WorkerCut {
    var pieces: [UInt64: [TileBlockCut.Piece]] = [:]
    var fills: [Int] = []
    var headers: [(Int, MapFeature)] = []
    var drops = GeneralisationDrops()
}

/// What one worker of `TileBlockCut.tiles` counted, and the error that stopped it.
private struct WorkerTally {
    var drops = GeneralisationDrops()
    var failure: MapDataError?
}

/// Lets concurrent workers write disjoint slots of one buffer.
/// @unchecked Sendable: each index is written by exactly one `concurrentPerform` iteration, and
/// the buffer is read only after `concurrentPerform` returns.
private struct DisjointSlots<T>: @unchecked Sendable {
    let buffer: UnsafeMutableBufferPointer<T>
}
