import ProtobufWire

/// An append-only scratch file for `MapFeaturePartition`; the I/O layer implements it
/// (TileArchives' `FeatureSpillFile`), so MapData itself does no I/O.
public protocol MapSpillStorage: AnyObject {
    /// Appends `bytes` at the end and returns the offset they start at.
    func append(_ bytes: [UInt8]) throws -> Int64
    /// The `count` bytes at `offset`, all of them (they were appended before).
    func read(offset: Int64, count: Int) throws -> [UInt8]
}

/// A square of tiles of one zoom level that `MapFeaturePartition` cuts at once, with the
/// buckets and listed features that reach it.
public struct PartitionBlock: Hashable, Sendable {
    public var zoom: Int
    public var columns: ClosedRange<Int>
    public var rows: ClosedRange<Int>
    /// Bucket keys whose features all lie in the block.
    fileprivate var buckets: [UInt64]
    /// Indices into the overlap index of the features from other blocks that reach it.
    fileprivate var overlaps: [Int32]
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
/// reaches finds it. A block's features are read back in batches and cut (`TileBlockCut`); each
/// tile orders its features by input order, so the tiles are the bytes `MapTiler` makes from all
/// features at once.
///
/// Memory, while a block of zoom z is cut: one batch of records at full detail (`batchLimit`
/// bytes, or one feature if larger) and the block's pieces — its features simplified for z and
/// clipped, with their properties — for at most `blockSize`² tiles of maxZoom's ground, or one
/// tile below `bucketZoom`; so it follows the options and the densest tile's output, not the
/// extract. Beside that: write buffers of at most `bufferLimit` bytes while features are added,
/// and two indexes that do grow with the extract, at a few bytes a feature: the places of the
/// buckets' chunks in the file (16 bytes a chunk, one per bucket and flush) and the overlap
/// index (64 bytes per listed feature: those near a block edge at a zoom that shows them, or
/// wider than a block).
public struct MapFeaturePartition {
    public let options: TilingOptions
    private let storage: any MapSpillStorage
    /// Bytes of pending records held before they are written out, in all buckets together.
    public let bufferLimit: Int
    /// Bytes of records read back and held at full detail while a block is cut: a batch is cut
    /// (simplified, clipped) before the next is read.
    public let batchLimit: Int
    /// The zoom whose tiles are buckets: maxZoom − log2(blockSize), at least 0.
    private let bucketZoom: Int
    private var pending: [UInt64: WireWriter] = [:]
    private var pendingBytes = 0
    /// Per bucket key, where its chunks are in the file.
    private var chunks: [UInt64: [(offset: Int64, length: Int)]] = [:]
    private var overlaps: [Overlap] = []
    private var written = false
    /// Features added, in order (their sequence numbers are 0..<count).
    public private(set) var count = 0
    /// The world box of every feature added, as (minX, minY, maxX, maxY); inverted when none.
    public private(set) var worldBounds = (minX: 1.0, minY: 1.0, maxX: 0.0, maxY: 0.0)

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
    /// - Throws: `MapDataError.invalidArgument` for bad options.
    public init(options: TilingOptions, storage: any MapSpillStorage, bufferLimit: Int = 16 << 20, batchLimit: Int = 4 << 20) throws(MapDataError) {
        try options.validate()
        self.options = options
        self.storage = storage
        self.bufferLimit = max(1, bufferLimit)
        self.batchLimit = max(1, batchLimit)
        bucketZoom = max(0, options.maxZoom - options.blockSize.trailingZeroBitCount)
    }

    /// A bucket's key: its column and row at `bucketZoom` (at most 16, so 28 bits each) and the
    /// minimum zoom of its features.
    private static func key(x: Int, y: Int, minZoom: Int) -> UInt64 { UInt64(x) << 36 | UInt64(y) << 8 | UInt64(minZoom) }
    private static func parts(_ key: UInt64) -> (x: Int, y: Int, minZoom: Int) {
        (Int(key >> 36), Int((key >> 8) & 0xFFF_FFFF), Int(key & 0xFF))
    }

    /// The blocks of zoom `z` a box reaches, in block coordinates, by `MapTiler.blocks(atZoom:)`'s rule.
    private func reach(_ b: (Double, Double, Double, Double), zoom z: Int) -> (x: ClosedRange<Int>, y: ClosedRange<Int>) {
        let tileCount = 1 << z, scale = Double(tileCount), margin = Double(options.buffer) / Double(options.extent)
        let shift = options.blockSide(atZoom: z).trailingZeroBitCount
        func tile(_ v: Double) -> Int { min(tileCount - 1, max(0, Int((v * scale - margin).rounded(.down)))) }
        func lastTile(_ v: Double) -> Int { min(tileCount - 1, max(0, Int((v * scale + margin).rounded(.down)))) }
        return ((tile(b.0) >> shift)...(lastTile(b.2) >> shift), (tile(b.1) >> shift)...(lastTile(b.3) >> shift))
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
            worldBounds = (min(worldBounds.minX, b.minX), min(worldBounds.minY, b.minY), max(worldBounds.maxX, b.maxX), max(worldBounds.maxY, b.maxY))
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
            chunks[key, default: []].append((offset, writer.bytes.count))
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
    /// `MapTiler.blocks(atZoom:)`).
    /// - Complexity: O(buckets + listed features and the blocks each reaches).
    public func blocks(atZoom z: Int) -> [PartitionBlock] {
        precondition(written, "Broken contract: blocks(atZoom:) before finishWriting()")
        var byBlock: [UInt64: (buckets: [UInt64], overlaps: [Int32])] = [:]
        for key in chunks.keys {
            let p = Self.parts(key)
            guard p.minZoom <= z else { continue }
            let b = block(ofBucket: p.x, p.y, zoom: z)
            byBlock[UInt64(b.x) << 32 | UInt64(b.y), default: ([], [])].buckets.append(key)
        }
        for (i, o) in overlaps.enumerated() where o.minZoom <= z && o.zooms & (1 << UInt32(z)) != 0 {
            let r = reach(o.box, zoom: z)
            for x in r.x { for y in r.y { byBlock[UInt64(x) << 32 | UInt64(y), default: ([], [])].overlaps.append(Int32(i)) } }
        }
        let side = options.blockSide(atZoom: z), shift = side.trailingZeroBitCount
        return byBlock.map { key, members in
            let bx = Int(key >> 32), by = Int(key & 0xFFFF_FFFF)
            return PartitionBlock(zoom: z, columns: (bx * side)...(bx * side + side - 1), rows: (by * side)...(by * side + side - 1),
                                  buckets: members.buckets, overlaps: members.overlaps)
        }.sorted { PMTiles.tileID(zoom: z - shift, x: $0.columns.lowerBound >> shift, y: $0.rows.lowerBound >> shift)
            < PMTiles.tileID(zoom: z - shift, x: $1.columns.lowerBound >> shift, y: $1.rows.lowerBound >> shift) }
    }

    /// The tiles of one block that hold anything, MVT-encoded, in tile-id order: its features
    /// read back a batch of at most `batchLimit` record bytes at a time and cut
    /// (`TileBlockCut`); what was dropped for size is added to `drops`.
    /// - Throws: what the storage throws; `MapDataError` for a damaged scratch file or a
    ///   failed gzip.
    /// - Complexity: O(bytes of the block's buckets) to read, then as `MapTiler.tiles(in:drops:)`.
    public func tiles(in block: PartitionBlock, drops: inout GeneralisationDrops) throws -> [EncodedTile] {
        var cut = TileBlockCut(options: options, zoom: block.zoom, columns: block.columns, rows: block.rows)
        var batch: [(sequence: Int, feature: MapFeature)] = [], batchBytes = 0
        func take(_ bytes: [UInt8]) throws(MapDataError) {
            try Self.records(bytes) { sequence, feature, size in
                batch.append((sequence, feature))
                batchBytes += size
                if batchBytes >= batchLimit {
                    cut.add(batch, drops: &drops)
                    batch.removeAll(keepingCapacity: true)
                    batchBytes = 0
                }
            }
        }
        for key in block.buckets {
            for chunk in chunks[key] ?? [] { try take(try storage.read(offset: chunk.offset, count: chunk.length)) }
        }
        // A listed feature whose bucket the block holds was read with it.
        let read = Set(block.buckets)
        for i in block.overlaps {
            let o = overlaps[Int(i)]
            guard !read.contains(o.key) else { continue }
            let chunk = chunks[o.key]![o.chunk]
            try take(try storage.read(offset: chunk.offset + Int64(o.start), count: o.length))
        }
        cut.add(batch, drops: &drops)
        batch = []
        return try cut.tiles(drops: &drops)
    }

    /// Calls `body` with each length-prefixed record of a chunk.
    private static func records(_ bytes: [UInt8], _ body: (_ sequence: Int, _ feature: MapFeature, _ size: Int) -> Void) throws(MapDataError) {
        let count = bytes.count
        try bytes.withUnsafeBufferPointer { (buffer: UnsafeBufferPointer<UInt8>) throws(MapDataError) in
            var r = WireReader(UnsafeRawBufferPointer(start: buffer.baseAddress, count: count))
            while !r.isAtEnd {
                let record: UnsafeRawBufferPointer
                do { record = try r.readBytes() } catch { throw MapDataError(.truncated, "feature chunk: \(error)") }
                var inner = WireReader(record)
                let (sequence, feature) = try MapFeatureRecord.read(&inner)
                body(sequence, feature, record.count)
            }
        }
    }
}
