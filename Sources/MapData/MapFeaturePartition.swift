import ProtobufWire

/// An append-only scratch file for `MapFeaturePartition`; the I/O layer implements it
/// (TileArchives' `FeatureSpillFile`), so MapData itself does no I/O.
public protocol MapSpillStorage: AnyObject {
    /// Appends `bytes` at the end and returns the offset they start at.
    func append(_ bytes: [UInt8]) throws -> Int64
    /// The `count` bytes at `offset`, all of them (they were appended before).
    func read(offset: Int64, count: Int) throws -> [UInt8]
}

/// A square of tiles of one zoom level that `MapFeaturePartition` cuts at once, and where the
/// records of the features that reach it are in the scratch file.
public struct PartitionBlock: Hashable, Sendable {
    public var zoom: Int
    public var columns: ClosedRange<Int>
    public var rows: ClosedRange<Int>
    /// Record bytes of the features that reach it: what cutting it reads.
    public var bytes: Int { ranges.reduce(0) { $0 + $1.length } }
    /// Of `bytes`, those of features whose box (grown by the tile buffer) covers the whole
    /// block, as a split counts them (0 for a block not made by a split): no split makes them
    /// smaller, so the block budget leaves them out.
    public fileprivate(set) var spanningBytes = 0
    /// Runs of length-prefixed records in the scratch file, each record at most once.
    fileprivate var ranges: [SpillRange]
}

/// A run of records in a `MapSpillStorage`.
struct SpillRange: Hashable, Sendable {
    var offset: Int64
    var length: Int
}

/// Map features kept in a scratch file instead of memory, partitioned by place, so tiles are
/// cut block by block holding one block's features at a time: an external partition, as
/// tilemaker's `--store` and Planetiler keep features on disk by tile.
///
/// Each feature is written once, to the bucket of the north-west corner of its box: buckets
/// are the blocks of the highest zoom (`TilingOptions.blockSize` tiles a side, i.e. tiles of
/// zoom `bucketZoom` = maxZoom − log2 blockSize), split by the feature's `minZoom`, so a zoom
/// reads only the features it shows. A block of a lower zoom covers the same ground as a bucket
/// (`TilingOptions.blockSide(atZoom:)`) down to `bucketZoom`, and below it is one tile, a square
/// of whole buckets. A feature whose box, grown by the tile buffer of zoom z
/// (`MapTiler.blocks(atZoom:)`'s test), reaches past the block of z holding its bucket is also
/// listed in the overlap index (its box, those zooms, its place in the file), so every block it
/// reaches finds it. A block holding more than `blockBudget` record bytes is split into its
/// four quarters, each written anew with the records that reach it, recursively, down to one
/// tile; a quarter's features that reach all of it (a sea or a forest around it) do not count
/// against the budget, since no split makes them smaller. A block's (or part's) features are
/// read back in batches and cut (`TileBlockCut`); each tile orders its features by input order,
/// so the tiles are the bytes `MapTiler` makes from all features at once, however the blocks
/// are split.
///
/// Memory, while a part of a block of zoom z is cut: one chunk read back (at most
/// `bufferLimit` bytes), one batch of records at full detail (`batchLimit` bytes, or one feature
/// if larger), and the part's pieces and encoded tiles — its features simplified for z and
/// clipped, with their properties — where the part holds at most `blockBudget` record bytes
/// besides those of features reaching all of it, or is one tile; so it follows the options, the
/// densest tile's output and the largest features, not the extract nor how dense a block is.
/// A split holds one chunk and at most `bufferLimit` bytes (and one record) pending. Beside
/// that: write buffers of at most `bufferLimit` bytes while features are added, and two indexes
/// that do grow with the extract, at a few bytes a feature: the places of the buckets' chunks
/// in the file (16 bytes a chunk, one per bucket and flush) and the overlap index (64 bytes per
/// listed feature: those near a block edge at a zoom that shows them, or wider than a block).
/// The scratch file grows by the records of each split block, once per level of splitting.
public struct MapFeaturePartition {
    public let options: TilingOptions
    private let storage: any MapSpillStorage
    /// Bytes of pending records held before they are written out, in all buckets together.
    public let bufferLimit: Int
    /// Bytes of records read back and held at full detail while a block is cut: a batch is cut
    /// (simplified, clipped) before the next is read.
    public let batchLimit: Int
    /// Record bytes a block may hold and still be cut at once: a block over it is cut as its
    /// four quarter blocks, recursively, down to one tile (`cutTiles(of:drops:_:)`).
    public let blockBudget: Int
    /// The zoom whose tiles are buckets: maxZoom − log2(blockSize), at least 0.
    private let bucketZoom: Int
    private var pending: [UInt64: WireWriter] = [:]
    private var pendingBytes = 0
    /// Per bucket key, where its chunks are in the file.
    private var chunks: [UInt64: [SpillRange]] = [:]
    private var overlaps: [Overlap] = []
    private var written = false
    /// Features added, in order (their sequence numbers are 0..<count).
    public private(set) var count = 0
    /// The world box of every feature added; empty when none.
    public private(set) var worldBounds = WorldRect.empty

    /// A feature listed because it reaches past its bucket's block at some zooms.
    private struct Overlap {
        var sequence: Int
        var minZoom: Int
        /// Bit z set: at zoom z its buffered box reaches past the block holding its bucket.
        var zooms: UInt32
        var box: (Double, Double, Double, Double)
        var key: UInt64
        /// The chunk of `key` it is in (by index, known once written) and its place in the chunk.
        var chunk: Int
        var start: Int
        var length: Int
    }

    /// - Parameters:
    ///   - storage: the scratch file.
    ///   - bufferLimit: pending bytes held before a write; small values write often (tests).
    ///   - batchLimit: record bytes read back before they are cut; small values cut feature by
    ///     feature (tests).
    ///   - blockBudget: record bytes of a block cut at once; small values split every block
    ///     down to single tiles (tests).
    /// - Throws: `MapDataError.invalidArgument` for bad options.
    public init(options: TilingOptions, storage: any MapSpillStorage, bufferLimit: Int = 4 << 20, batchLimit: Int = 2 << 20, blockBudget: Int = 4 << 20) throws(MapDataError) {
        try options.validate()
        self.options = options
        self.storage = storage
        self.bufferLimit = max(1, bufferLimit)
        self.batchLimit = max(1, batchLimit)
        self.blockBudget = max(1, blockBudget)
        bucketZoom = max(0, options.maxZoom - options.blockSize.trailingZeroBitCount)
    }

    /// A bucket's key: its column and row at `bucketZoom` (at most 16, so 28 bits each) and the
    /// minimum zoom of its features.
    private static func key(x: Int, y: Int, minZoom: Int) -> UInt64 { UInt64(x) << 36 | UInt64(y) << 8 | UInt64(minZoom) }
    private static func parts(_ key: UInt64) -> (x: Int, y: Int, minZoom: Int) {
        (Int(key >> 36), Int((key >> 8) & 0xFFF_FFFF), Int(key & 0xFF))
    }

    /// The tiles of zoom `z` a world box reaches when grown by the tile buffer: the rule of
    /// `MapTiler.blocks(atZoom:)`.
    private func tiles(reachedBy b: (Double, Double, Double, Double), zoom z: Int) -> (x: ClosedRange<Int>, y: ClosedRange<Int>) {
        let tileCount = 1 << z, scale = Double(tileCount), margin = Double(options.buffer) / Double(options.extent)
        func tile(_ v: Double) -> Int { min(tileCount - 1, max(0, Int((v * scale - margin).rounded(.down)))) }
        func lastTile(_ v: Double) -> Int { min(tileCount - 1, max(0, Int((v * scale + margin).rounded(.down)))) }
        return (tile(b.0)...lastTile(b.2), tile(b.1)...lastTile(b.3))
    }

    /// The blocks of zoom `z` a box reaches, in block coordinates.
    private func reach(_ b: (Double, Double, Double, Double), zoom z: Int) -> (x: ClosedRange<Int>, y: ClosedRange<Int>) {
        let shift = options.blockSide(atZoom: z).trailingZeroBitCount, t = tiles(reachedBy: b, zoom: z)
        return ((t.x.lowerBound >> shift)...(t.x.upperBound >> shift), (t.y.lowerBound >> shift)...(t.y.upperBound >> shift))
    }

    /// The block of zoom `z` holding bucket (x, y), in block coordinates: from `bucketZoom` up
    /// a block is a bucket's ground (`TilingOptions.blockSide(atZoom:)`), below it one tile.
    private func block(ofBucket x: Int, _ y: Int, zoom z: Int) -> (x: Int, y: Int) {
        let down = max(0, bucketZoom - z)
        return (x >> down, y >> down)
    }

    /// Adds features in input order.
    /// - Throws: whatever the storage throws when a write fails.
    public mutating func add(_ features: [MapFeature]) throws {
        precondition(!written, "Broken contract: features added after finishWriting()")
        for f in features {
            let sequence = count
            count += 1
            guard let b = f.geometry.bounds else { continue }
            worldBounds = worldBounds.union(b)
            guard f.minZoom <= options.maxZoom else { continue } // never drawn at these zooms
            let minZoom = max(0, f.minZoom)
            let box = (b.minX, b.minY, b.maxX, b.maxY)
            let buckets = Double(1 << bucketZoom)
            let bx = min((1 << bucketZoom) - 1, max(0, Int((b.minX * buckets).rounded(.down))))
            let by = min((1 << bucketZoom) - 1, max(0, Int((b.minY * buckets).rounded(.down))))
            let key = Self.key(x: bx, y: by, minZoom: minZoom)
            var zooms: UInt32 = 0
            for z in max(minZoom, options.minZoom)...options.maxZoom where options.blockSide(atZoom: z) < 1 << z {
                let home = block(ofBucket: bx, by, zoom: z), r = reach(box, zoom: z)
                if r.x != home.x...home.x || r.y != home.y...home.y { zooms |= 1 << UInt32(z) }
            }
            var writer = pending.removeValue(forKey: key) ?? WireWriter()
            let start = writer.bytes.count
            var record = WireWriter()
            MapFeatureRecord.append(f, sequence: sequence, to: &record)
            writer.writeVarint(UInt64(record.bytes.count))
            writer.bytes += record.bytes
            pendingBytes += writer.bytes.count - start
            if zooms != 0 {
                overlaps.append(Overlap(sequence: sequence, minZoom: minZoom, zooms: zooms, box: box, key: key,
                                        chunk: chunks[key]?.count ?? 0, start: start, length: writer.bytes.count - start))
            }
            pending[key] = writer
            if pendingBytes >= bufferLimit { try flush() }
        }
    }

    /// Writes every pending record out, one chunk per bucket.
    private mutating func flush() throws {
        for (key, writer) in pending {
            let offset = try storage.append(writer.bytes)
            chunks[key, default: []].append(SpillRange(offset: offset, length: writer.bytes.count))
        }
        pending = [:]
        pendingBytes = 0
    }

    /// Writes out what is pending; call once after the last `add`, before cutting.
    public mutating func finishWriting() throws {
        try flush()
        written = true
    }

    /// The blocks of zoom `z` that some feature reaches, in tile-id order (as
    /// `MapTiler.blocks(atZoom:)`, and like it with the squares that polygons fill and nothing
    /// else reaches as single blocks, `TileFill` runs: a listed polygon that reaches 2 × 2
    /// blocks or more is read back to find them).
    /// - Throws: what the storage throws; `MapDataError` for a damaged scratch file.
    /// - Complexity: O(buckets + listed features and the blocks each reaches, the blocks a
    ///   polygon fills counted as the quads along its outline).
    public func blocks(atZoom z: Int) throws -> [PartitionBlock] {
        precondition(written, "Broken contract: blocks(atZoom:) before finishWriting()")
        var byBlock: [UInt64: (buckets: [UInt64], overlaps: [Int32])] = [:]
        for key in chunks.keys {
            let p = Self.parts(key)
            guard p.minZoom <= z else { continue }
            let b = block(ofBucket: p.x, p.y, zoom: z)
            byBlock[UInt64(b.x) << 32 | UInt64(b.y), default: ([], [])].buckets.append(key)
        }
        var fills: [(TileFill.Quad, Int32)] = []
        for (i, o) in overlaps.enumerated() where o.minZoom <= z && o.zooms & (1 << UInt32(z)) != 0 {
            let r = reach(o.box, zoom: z)
            if r.x.count >= 2, r.y.count >= 2, let found = try fillQuads(of: o, zoom: z, reach: r) {
                for q in found.touched { byBlock[q.key, default: ([], [])].overlaps.append(Int32(i)) }
                for q in found.covered { fills.append((q, Int32(i))) }
                continue
            }
            for x in r.x { for y in r.y { byBlock[UInt64(x) << 32 | UInt64(y), default: ([], [])].overlaps.append(Int32(i)) } }
        }
        let side = options.blockSide(atZoom: z), shift = side.trailingZeroBitCount, level = z - shift
        let (extra, runs) = TileFill.arrange(blocks: byBlock.keys, fills: fills, blockLevel: level)
        for (key, ids) in extra { byBlock[key]!.overlaps += ids }
        /// The records of listed features, less those read with a bucket the block holds.
        func ranges(_ listed: [Int32], held: Set<UInt64>) -> [SpillRange] {
            listed.compactMap { i in
                let o = overlaps[Int(i)]
                guard !held.contains(o.key) else { return nil }
                let chunk = chunks[o.key]![o.chunk]
                return SpillRange(offset: chunk.offset + Int64(o.start), length: o.length)
            }
        }
        var blocks = byBlock.map { key, members in
            (TileFill.Quad(level: level, x: Int(key >> 32), y: Int(key & 0xFFFF_FFFF)),
             members.buckets.flatMap { chunks[$0]! } + ranges(members.overlaps, held: Set(members.buckets)))
        }
        blocks += runs.map { ($0.0, ranges($0.1, held: [])) }
        return blocks.map { quad, ranges in
            let s = side << (level - quad.level)
            return (quad.firstTileID(atZoom: level),
                    PartitionBlock(zoom: z, columns: (quad.x * s)...(quad.x * s + s - 1), rows: (quad.y * s)...(quad.y * s + s - 1), ranges: ranges))
        }.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// `TileBlockCut.fillQuads` of a listed feature, read back from the scratch file.
    private func fillQuads(of o: Overlap, zoom z: Int, reach r: (x: ClosedRange<Int>, y: ClosedRange<Int>)) throws
        -> (covered: [TileFill.Quad], touched: [TileFill.Quad])? {
        let chunk = chunks[o.key]![o.chunk]
        var found: (covered: [TileFill.Quad], touched: [TileFill.Quad])?
        try Self.records(try storage.read(offset: chunk.offset + Int64(o.start), count: o.length)) { _, feature, _ in
            found = TileBlockCut.fillQuads(of: feature, zoom: z, reach: (r.x, r.y), options: options)
        }
        return found
    }

    /// Cuts one block into its tiles that hold anything, MVT-encoded, and hands them to `body`
    /// in tile-id order, a part of the block at a time: a block over `blockBudget` record bytes
    /// (less its `spanningBytes`) is split into its four quarter blocks (`quarters(of:)`),
    /// recursively, down to one tile.
    /// A part's features are read back a batch of at most `batchLimit` record bytes at a time
    /// and cut (`TileBlockCut`); what was dropped for size is added to `drops`.
    /// - Parameter body: called with each part that holds tiles (`bytes` − `spanningBytes` at
    ///   most `blockBudget`, or one tile) and its tiles.
    /// - Throws: what the storage or `body` throws; `MapDataError` for a damaged scratch file
    ///   or a failed gzip.
    /// - Complexity: O(bytes of the block) to read, once more per level of splitting, then as
    ///   `MapTiler.tiles(in:drops:)`.
    public func cutTiles(of block: PartitionBlock, drops: inout GeneralisationDrops, _ body: (PartitionBlock, [EncodedTile]) throws -> Void) throws {
        guard !block.ranges.isEmpty else { return }
        if block.columns.count > 1, block.bytes - block.spanningBytes > blockBudget {
            for quarter in try quarters(of: block) { try cutTiles(of: quarter, drops: &drops, body) }
            return
        }
        var cut = TileBlockCut(options: options, zoom: block.zoom, columns: block.columns, rows: block.rows)
        var batch: [(sequence: Int, feature: MapFeature)] = [], batchBytes = 0
        for range in block.ranges {
            try Self.records(try storage.read(offset: range.offset, count: range.length)) { sequence, feature, record in
                batch.append((sequence, feature))
                batchBytes += record.count
                if batchBytes >= batchLimit {
                    cut.add(batch, drops: &drops)
                    batch.removeAll(keepingCapacity: true)
                    batchBytes = 0
                }
            }
        }
        cut.add(batch, drops: &drops)
        batch = []
        try body(block, try cut.tiles(drops: &drops))
    }

    /// The four quarter blocks of `block`, in tile-id order, each with the records of the
    /// block's features that reach it (by `MapTiler.blocks(atZoom:)`'s rule), written anew at
    /// the end of the scratch file: one pass over the block's records, holding at most a
    /// quarter of `bufferLimit` bytes (and one record) pending per quarter.
    private func quarters(of block: PartitionBlock) throws -> [PartitionBlock] {
        let half = block.columns.count / 2, z = block.zoom
        var parts = [(0, 0), (1, 0), (0, 1), (1, 1)].map { (dx, dy) in
            PartitionBlock(zoom: z, columns: (block.columns.lowerBound + dx * half)...(block.columns.lowerBound + dx * half + half - 1),
                           rows: (block.rows.lowerBound + dy * half)...(block.rows.lowerBound + dy * half + half - 1), ranges: [])
        }
        var pending = [WireWriter](repeating: WireWriter(), count: 4)
        func write(_ i: Int) throws {
            guard !pending[i].bytes.isEmpty else { return }
            let offset = try storage.append(pending[i].bytes)
            parts[i].ranges.append(SpillRange(offset: offset, length: pending[i].bytes.count))
            pending[i] = WireWriter()
        }
        for range in block.ranges {
            try Self.records(try storage.read(offset: range.offset, count: range.length)) { _, feature, record in
                guard let b = feature.geometry.bounds else { return }
                let r = tiles(reachedBy: (b.minX, b.minY, b.maxX, b.maxY), zoom: z)
                for i in parts.indices where parts[i].columns.overlaps(r.x) && parts[i].rows.overlaps(r.y) {
                    let start = pending[i].bytes.count
                    pending[i].writeVarint(UInt64(record.count))
                    pending[i].bytes.append(contentsOf: record)
                    if parts[i].columns.clamped(to: r.x) == parts[i].columns, parts[i].rows.clamped(to: r.y) == parts[i].rows {
                        parts[i].spanningBytes += pending[i].bytes.count - start
                    }
                    if pending[i].bytes.count >= bufferLimit / 4 { try write(i) }
                }
            }
        }
        for i in pending.indices { try write(i) }
        let shift = half.trailingZeroBitCount
        return parts.sorted { PMTiles.tileID(zoom: z - shift, x: $0.columns.lowerBound >> shift, y: $0.rows.lowerBound >> shift)
            < PMTiles.tileID(zoom: z - shift, x: $1.columns.lowerBound >> shift, y: $1.rows.lowerBound >> shift) }
    }

    /// Calls `body` with each length-prefixed record of a chunk: its sequence number, its
    /// feature and its bytes (without the length).
    private static func records(_ bytes: [UInt8], _ body: (_ sequence: Int, _ feature: MapFeature, _ record: UnsafeRawBufferPointer) throws -> Void) throws {
        let count = bytes.count
        try bytes.withUnsafeBufferPointer { (buffer: UnsafeBufferPointer<UInt8>) in
            var r = WireReader(UnsafeRawBufferPointer(start: buffer.baseAddress, count: count))
            while !r.isAtEnd {
                let record: UnsafeRawBufferPointer
                do { record = try r.readBytes() } catch { throw MapDataError(.truncated, "feature chunk: \(error)") }
                var inner = WireReader(record)
                let (sequence, feature) = try MapFeatureRecord.read(&inner)
                try body(sequence, feature, record)
            }
        }
    }
}
