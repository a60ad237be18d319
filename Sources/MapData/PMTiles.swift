import GeoBase
import Synchronization
import ZlibCompression

/// PMTiles version 3 (https://github.com/protomaps/PMTiles/blob/main/spec/v3/spec.md): one file
/// of tiles addressed by a Hilbert tile id, with gzip-compressed varint directories.
///
/// Layout written here (spec §2): the 127-byte header, the root directory, the JSON metadata,
/// the leaf directories, then the tile data, clustered (in tile-id order).
public enum PMTiles {
    /// Bytes of the fixed header (spec §3).
    public static let headerSize = 127
    /// The header and the root directory must fit in the first 16 KiB (spec §2).
    public static let rootLimit = 16_384
    /// Leaf directories are followed at most this deep (the spec needs one level; readers of
    /// hostile files must stop somewhere).
    static let maximumDepth = 3
    /// Most bytes a directory or the metadata may inflate to: 16 MiB. The spec keeps the root in
    /// the first 16 KiB (§2) and leaves small enough to fetch one per request (the reference
    /// writer starts leaves at 4,096 entries, a planet's are under 1 MiB); gzip inflates up to
    /// about 1,000× (RFC 1951's longest match per bit), so a hostile 64 KiB directory could
    /// otherwise ask for 64 MiB and a 64 MiB one for 64 GiB.
    public static let maximumDirectorySize = 16 << 20
    /// The deepest zoom read: tile ids past zoom 26 are refused (`tile(id:)`), so a header
    /// naming a deeper `max_zoom` is damage.
    public static let maximumZoom: UInt8 = 26

    /// The tile id of z/x/y: the count of tiles of all lower zooms plus the position on the
    /// zoom's Hilbert curve (spec §4 "Tile IDs").
    /// - Precondition: 0 ≤ z ≤ 26 and x, y in 0..<2^z (callers validate).
    public static func tileID(zoom z: Int, x: Int, y: Int) -> UInt64 {
        var id = ((UInt64(1) << (2 * UInt64(z))) - 1) / 3
        var x = UInt64(x), y = UInt64(y)
        let n = UInt64(1) << UInt64(z)
        var s = n / 2
        while s > 0 {
            let rx: UInt64 = (x & s) != 0 ? 1 : 0, ry: UInt64 = (y & s) != 0 ? 1 : 0
            id += s * s * ((3 * rx) ^ ry)
            (x, y) = rotated(n: n, x: x, y: y, rx: rx, ry: ry)
            s >>= 1
        }
        return id
    }

    /// The z/x/y of a tile id (the inverse of `tileID`).
    /// - Throws: `MapDataError.invalidArchive` for an id past zoom 26.
    public static func tile(id: UInt64) throws(MapDataError) -> (zoom: Int, x: Int, y: Int) {
        var z = 0
        var first: UInt64 = 0
        while true {
            let count = UInt64(1) << (2 * UInt64(z))
            if id < first + count { break }
            first += count
            z += 1
            guard z <= 26 else { throw MapDataError(.invalidArchive, "tile id \(id) is past zoom 26") }
        }
        var position = id - first
        var x: UInt64 = 0, y: UInt64 = 0
        var s: UInt64 = 1
        let n = UInt64(1) << UInt64(z)
        while s < n {
            let rx = 1 & (position / 2), ry = 1 & (position ^ rx)
            (x, y) = rotated(n: s, x: x, y: y, rx: rx, ry: ry)
            x += s * rx
            y += s * ry
            position /= 4
            s *= 2
        }
        return (z, Int(x), Int(y))
    }

    /// The Hilbert curve's quadrant rotation.
    @inline(__always)
    private static func rotated(n: UInt64, x: UInt64, y: UInt64, rx: UInt64, ry: UInt64) -> (UInt64, UInt64) {
        guard ry == 0 else { return (x, y) }
        if rx == 1 { return (n - 1 - y, n - 1 - x) }
        return (y, x)
    }
}

/// One directory entry (spec §5): a run of `runLength` tiles sharing one content, or (run
/// length 0) a pointer to a leaf directory.
public struct PMTilesEntry: Hashable, Sendable {
    public var tileID: UInt64
    /// Offset in the tile data section (tiles) or the leaf directory section (leaves).
    public var offset: UInt64
    public var length: UInt32
    public var runLength: UInt32

    public init(tileID: UInt64, offset: UInt64, length: UInt32, runLength: UInt32) {
        self.tileID = tileID
        self.offset = offset
        self.length = length
        self.runLength = runLength
    }
}

/// The fixed header (spec §3), little-endian.
public struct PMTilesHeader: Hashable, Sendable {
    public enum Compression: UInt8, Sendable { case unknown = 0, none = 1, gzip = 2, brotli = 3, zstd = 4 }
    public enum TileType: UInt8, Sendable { case unknown = 0, mvt = 1, png = 2, jpeg = 3, webp = 4, avif = 5 }

    public var rootOffset: UInt64 = 0, rootLength: UInt64 = 0
    public var metadataOffset: UInt64 = 0, metadataLength: UInt64 = 0
    public var leafOffset: UInt64 = 0, leafLength: UInt64 = 0
    public var tileDataOffset: UInt64 = 0, tileDataLength: UInt64 = 0
    public var addressedTiles: UInt64 = 0, tileEntries: UInt64 = 0, tileContents: UInt64 = 0
    public var clustered = true
    public var internalCompression = Compression.gzip
    public var tileCompression = Compression.gzip
    public var tileType = TileType.mvt
    public var minZoom: UInt8 = 0, maxZoom: UInt8 = 0
    /// Bounds and centre in 1e-7 degrees.
    public var minLonE7: Int32 = -1_800_000_000, minLatE7: Int32 = -850_511_287
    public var maxLonE7: Int32 = 1_800_000_000, maxLatE7: Int32 = 850_511_287
    public var centerZoom: UInt8 = 0
    public var centerLonE7: Int32 = 0, centerLatE7: Int32 = 0

    public init() {}

    public func encoded() -> [UInt8] {
        var b: [UInt8] = Array("PMTiles".utf8) + [3]
        b.reserveCapacity(PMTiles.headerSize)
        func u64(_ v: UInt64) { for i in 0..<8 { b.append(UInt8(truncatingIfNeeded: v >> (8 * UInt64(i)))) } }
        func i32(_ v: Int32) { let u = UInt32(bitPattern: v); for i in 0..<4 { b.append(UInt8(truncatingIfNeeded: u >> (8 * UInt32(i)))) } }
        for v in [rootOffset, rootLength, metadataOffset, metadataLength, leafOffset, leafLength, tileDataOffset, tileDataLength,
                  addressedTiles, tileEntries, tileContents] { u64(v) }
        b += [clustered ? 1 : 0, internalCompression.rawValue, tileCompression.rawValue, tileType.rawValue, minZoom, maxZoom]
        for v in [minLonE7, minLatE7, maxLonE7, maxLatE7] { i32(v) }
        b.append(centerZoom)
        i32(centerLonE7); i32(centerLatE7)
        return b
    }

    /// Decodes the first 127 bytes of an archive.
    /// - Throws: `MapDataError` `.truncated` (fewer bytes), `.invalidArchive` (no magic, a
    ///   tile type v3 does not define, `min_zoom` above `max_zoom`, `max_zoom` past
    ///   ``PMTiles/maximumZoom``), `.unsupported` (another version or compression).
    public init(decoding b: [UInt8]) throws(MapDataError) {
        guard b.count >= PMTiles.headerSize else { throw MapDataError(.truncated, "PMTiles header needs \(PMTiles.headerSize) bytes, the file has \(b.count)", offset: 0) }
        guard b[0..<7].elementsEqual("PMTiles".utf8) else { throw MapDataError(.invalidArchive, "no PMTiles magic", offset: 0) }
        guard b[7] == 3 else { throw MapDataError(.unsupported, "PMTiles version \(b[7]); this reader reads version 3", offset: 7) }
        func u64(_ at: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(b[at + $1]) << (8 * UInt64($1)) } }
        func i32(_ at: Int) -> Int32 { Int32(bitPattern: (0..<4).reduce(0) { $0 | UInt32(b[at + $1]) << (8 * UInt32($1)) }) }
        rootOffset = u64(8); rootLength = u64(16); metadataOffset = u64(24); metadataLength = u64(32)
        leafOffset = u64(40); leafLength = u64(48); tileDataOffset = u64(56); tileDataLength = u64(64)
        addressedTiles = u64(72); tileEntries = u64(80); tileContents = u64(88)
        clustered = b[96] == 1
        guard let directories = Compression(rawValue: b[97]), let tiles = Compression(rawValue: b[98]) else {
            throw MapDataError(.invalidArchive, "unknown compression \(b[97]) / \(b[98])", offset: 97)
        }
        guard directories == .gzip || directories == .none else { throw MapDataError(.unsupported, "directory compression \(directories); gzip and none are read", offset: 97) }
        internalCompression = directories
        tileCompression = tiles
        guard let type = TileType(rawValue: b[99]) else {
            throw MapDataError(.invalidArchive, "tile type \(b[99]) is not one PMTiles v3 defines (0 unknown to 5 AVIF)", offset: 99)
        }
        tileType = type
        minZoom = b[100]; maxZoom = b[101]
        guard maxZoom <= PMTiles.maximumZoom else {
            throw MapDataError(.invalidArchive, "max_zoom \(maxZoom) is above \(PMTiles.maximumZoom), the deepest zoom this reader reads", offset: 101)
        }
        guard minZoom <= maxZoom else {
            throw MapDataError(.invalidArchive, "min_zoom \(minZoom) is above max_zoom \(maxZoom)", offset: 100)
        }
        minLonE7 = i32(102); minLatE7 = i32(106); maxLonE7 = i32(110); maxLatE7 = i32(114)
        centerZoom = b[118]; centerLonE7 = i32(119); centerLatE7 = i32(123)
    }
}

/// Directory (de)serialisation (spec §5): entry count, then columns of varints: tile-id deltas,
/// run lengths, lengths, and offsets (0 = right after the previous entry, else offset + 1).
enum PMTilesDirectory {
    static func encoded(_ entries: [PMTilesEntry]) -> [UInt8] {
        var b: [UInt8] = []
        b.reserveCapacity(entries.count * 6 + 8)
        func varint(_ value: UInt64) {
            var v = value
            while v >= 0x80 { b.append(UInt8(truncatingIfNeeded: v) | 0x80); v >>= 7 }
            b.append(UInt8(v))
        }
        varint(UInt64(entries.count))
        var last: UInt64 = 0
        for e in entries { varint(e.tileID - last); last = e.tileID }
        for e in entries { varint(UInt64(e.runLength)) }
        for e in entries { varint(UInt64(e.length)) }
        for (i, e) in entries.enumerated() {
            if i > 0, e.offset == entries[i - 1].offset + UInt64(entries[i - 1].length) { varint(0) } else { varint(e.offset + 1) }
        }
        return b
    }

    /// - Throws: `MapDataError.invalidArchive` for a directory that ends early, has more
    ///   entries than bytes, ids that do not increase, or an offset of 0 on the first entry.
    static func decoded(_ b: [UInt8], at offset: Int) throws(MapDataError) -> [PMTilesEntry] {
        var i = 0
        func varint() throws(MapDataError) -> UInt64 {
            var result: UInt64 = 0, shift: UInt64 = 0
            while true {
                guard i < b.count, shift < 64 else { throw MapDataError(.invalidArchive, "directory ends inside a varint", offset: offset) }
                let byte = b[i]; i += 1
                result |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 { return result }
                shift += 7
            }
        }
        let count = try varint()
        // Each entry takes at least 4 bytes (one varint per column).
        guard count <= UInt64(b.count) / 4 + 1 else { throw MapDataError(.invalidArchive, "directory claims \(count) entries in \(b.count) bytes", offset: offset) }
        var entries = [PMTilesEntry](repeating: PMTilesEntry(tileID: 0, offset: 0, length: 0, runLength: 0), count: Int(count))
        var id: UInt64 = 0
        for k in 0..<entries.count {
            let (next, overflow) = id.addingReportingOverflow(try varint())
            guard !overflow, k == 0 || next > id else { throw MapDataError(.invalidArchive, "directory tile ids do not increase", offset: offset) }
            id = next
            entries[k].tileID = id
        }
        for k in 0..<entries.count {
            let v = try varint()
            guard v <= UInt64(UInt32.max) else { throw MapDataError(.invalidArchive, "run length \(v) does not fit 32 bits", offset: offset) }
            entries[k].runLength = UInt32(v)
        }
        for k in 0..<entries.count {
            let v = try varint()
            guard v <= UInt64(UInt32.max) else { throw MapDataError(.invalidArchive, "length \(v) does not fit 32 bits", offset: offset) }
            entries[k].length = UInt32(v)
        }
        for k in 0..<entries.count {
            let v = try varint()
            if v == 0 {
                guard k > 0 else { throw MapDataError(.invalidArchive, "first directory entry has offset 0 (\"after the previous\")", offset: offset) }
                entries[k].offset = entries[k - 1].offset + UInt64(entries[k - 1].length)
            } else {
                entries[k].offset = v - 1
            }
        }
        return entries
    }
}

/// Builds a PMTiles v3 archive in memory from tiles added in increasing tile-id order.
/// Identical tile contents are stored once (dedup by content), and consecutive ids with one
/// content become one run-length entry.
public struct PMTilesWriter: Sendable {
    private var entries: [PMTilesEntry] = []
    /// Tile bytes added and not yet taken by `takeTileData()`.
    private var data: [UInt8] = []
    /// Bytes of tile data so far, taken or not.
    private var dataLength: UInt64 = 0
    private var taken = false
    /// Where each distinct small tile's bytes are (`deduplicationLimit`).
    private var offsets: [[UInt8]: UInt64] = [:]
    private var contents: UInt64 = 0
    private var addressed: UInt64 = 0
    private var header = PMTilesHeader()

    /// - Parameter tileCompression: how the tiles handed to `add` are already compressed.
    public init(tileType: PMTilesHeader.TileType = .mvt, tileCompression: PMTilesHeader.Compression = .gzip) {
        header.tileType = tileType
        header.tileCompression = tileCompression
        header.minZoom = UInt8.max
    }

    /// Tiles up to this many bytes are stored once however often they occur (sea, forest, empty
    /// land at high zoom all look alike); larger ones as they come, so the index stays small.
    public static let deduplicationLimit = 1024

    /// Adds one tile's bytes (already compressed as declared), or those of a run of
    /// `runLength` tiles from z/x/y on in tile-id order that share them (one entry, or one per
    /// 2^32 − 1 tiles: the run length is a 32-bit field, spec §5).
    /// - Throws: `MapDataError.invalidArgument` when ids do not increase, a run is empty, or a
    ///   tile is over 4 GiB.
    public mutating func add(zoom: Int, x: Int, y: Int, data tile: [UInt8], runLength: Int = 1) throws(MapDataError) {
        let id = PMTiles.tileID(zoom: zoom, x: x, y: y)
        guard entries.last.map({ id >= $0.tileID + UInt64($0.runLength) }) ?? true else {
            throw MapDataError(.invalidArgument, "tile \(zoom)/\(x)/\(y) comes before the end of tile id run \(entries.last!.tileID); add tiles in tile-id order")
        }
        guard runLength >= 1 else { throw MapDataError(.invalidArgument, "an empty run of tiles at \(zoom)/\(x)/\(y)") }
        guard tile.count <= Int(UInt32.max) else { throw MapDataError(.invalidArgument, "tile \(zoom)/\(x)/\(y) is over 4 GiB") }
        addressed += UInt64(runLength)
        header.minZoom = min(header.minZoom, UInt8(zoom))
        header.maxZoom = max(header.maxZoom, UInt8(zoom))
        let offset: UInt64
        if tile.count <= Self.deduplicationLimit, let known = offsets[tile] {
            offset = known
        } else {
            offset = dataLength
            if tile.count <= Self.deduplicationLimit { offsets[tile] = offset }
            data += tile
            dataLength += UInt64(tile.count)
            contents += 1
        }
        var start = id, left = UInt64(runLength)
        if let last = entries.last, last.offset == offset, last.length == UInt32(tile.count), last.tileID + UInt64(last.runLength) == id {
            let more = min(left, UInt64(UInt32.max - last.runLength))
            entries[entries.count - 1].runLength += UInt32(more)
            start += more
            left -= more
        }
        while left > 0 {
            let n = min(left, UInt64(UInt32.max))
            entries.append(PMTilesEntry(tileID: start, offset: offset, length: UInt32(tile.count), runLength: UInt32(n)))
            start += n
            left -= n
        }
    }

    /// Tile bytes added since the last call and not yet taken.
    public var pendingTileDataCount: Int { data.count }

    /// Hands over the tile bytes added since the last call, for a caller that keeps them in a
    /// file rather than in memory; it then writes `leadingSections(…)` followed by every piece
    /// taken, in order.
    public mutating func takeTileData() -> [UInt8] {
        taken = true
        defer { data = [] }
        return data
    }

    /// The finished archive.
    /// - Throws: `MapDataError.invalidArgument` when tile data was taken out (`takeTileData()`).
    public func finished(metadata: String, bounds: (west: Double, south: Double, east: Double, north: Double),
                         center: (longitude: Double, latitude: Double), centerZoom: Int) throws(MapDataError) -> [UInt8] {
        guard !taken else { throw MapDataError(.invalidArgument, "tile data was taken out; write leadingSections and the data instead") }
        return try leadingSections(metadata: metadata, bounds: bounds, center: center, centerZoom: centerZoom) + data
    }

    /// Everything of the archive before its tile data: the header, the root directory, the
    /// metadata and the leaf directories (PMTiles v3 §2, in that order).
    /// - Parameters:
    ///   - metadata: the JSON metadata object (spec §6), UTF-8.
    ///   - bounds: west, south, east, north in degrees; `center` and `centerZoom` for viewers.
    public func leadingSections(metadata: String, bounds: (west: Double, south: Double, east: Double, north: Double),
                                center: (longitude: Double, latitude: Double), centerZoom: Int) throws(MapDataError) -> [UInt8] {
        var h = header
        if entries.isEmpty { h.minZoom = 0 }
        func e7(_ d: Double) -> Int32 { Int32(max(-1_800_000_000, min(1_800_000_000, (d * 1e7).rounded()))) }
        h.minLonE7 = e7(bounds.west); h.minLatE7 = e7(bounds.south); h.maxLonE7 = e7(bounds.east); h.maxLatE7 = e7(bounds.north)
        h.centerLonE7 = e7(center.longitude); h.centerLatE7 = e7(center.latitude)
        h.centerZoom = UInt8(max(0, min(255, centerZoom)))
        h.addressedTiles = addressed
        h.tileEntries = UInt64(entries.count)
        h.tileContents = contents
        let (root, leaves) = try directories()
        let meta = try gzip(Array(metadata.utf8))
        h.rootOffset = UInt64(PMTiles.headerSize)
        h.rootLength = UInt64(root.count)
        h.metadataOffset = h.rootOffset + h.rootLength
        h.metadataLength = UInt64(meta.count)
        h.leafOffset = h.metadataOffset + h.metadataLength
        h.leafLength = UInt64(leaves.count)
        h.tileDataOffset = h.leafOffset + h.leafLength
        h.tileDataLength = dataLength
        var out = h.encoded()
        out.reserveCapacity(Int(h.tileDataOffset))
        out += root
        out += meta
        out += leaves
        return out
    }

    /// The root directory and the leaf section: all entries in the root when they fit in
    /// 16 KiB with the header, else leaves of a size that doubles until the root fits.
    private func directories() throws(MapDataError) -> (root: [UInt8], leaves: [UInt8]) {
        let root = try gzip(PMTilesDirectory.encoded(entries))
        if root.count + PMTiles.headerSize <= PMTiles.rootLimit { return (root, []) }
        var leafSize = 4096
        while true {
            var leaves: [UInt8] = []
            var rootEntries: [PMTilesEntry] = []
            var start = 0
            while start < entries.count {
                let chunk = Array(entries[start..<min(entries.count, start + leafSize)])
                let leaf = try gzip(PMTilesDirectory.encoded(chunk))
                rootEntries.append(PMTilesEntry(tileID: chunk[0].tileID, offset: UInt64(leaves.count), length: UInt32(leaf.count), runLength: 0))
                leaves += leaf
                start += leafSize
            }
            let root = try gzip(PMTilesDirectory.encoded(rootEntries))
            if root.count + PMTiles.headerSize <= PMTiles.rootLimit { return (root, leaves) }
            leafSize *= 2
        }
    }

    private func gzip(_ bytes: [UInt8]) throws(MapDataError) -> [UInt8] {
        do { return try Gzip.compress(bytes) } catch { throw MapDataError(.invalidArgument, "gzip: \(error)") }
    }
}

/// Random access to the bytes of an archive; the I/O layer implements it over a file.
public protocol TileArchiveBytes {
    /// Total size in bytes.
    var size: Int { get }
    /// `count` bytes at `offset`; fewer only at the end.
    func read(offset: Int, count: Int) throws -> [UInt8]
}

extension Array: TileArchiveBytes where Element == UInt8 {
    public var size: Int { count }
    public func read(offset: Int, count: Int) throws -> [UInt8] {
        guard offset >= 0, offset < self.count else { return [] }
        return Array(self[offset..<Swift.min(self.count, offset + count)])
    }
}

/// Reads tiles from a PMTiles v3 archive through `TileArchiveBytes`.
public struct PMTilesReader<Source: TileArchiveBytes> {
    public let header: PMTilesHeader
    private let source: Source
    private let root: [PMTilesEntry]
    /// Leaf directories decoded for earlier tiles, shared by copies of this reader.
    private let leaves = PMTilesLeafCache()

    /// Reads and checks the header and root directory.
    /// - Throws: `MapDataError` `.truncated` (a section past the end of the file),
    ///   `.invalidArchive`, `.unsupported`.
    public init(_ source: Source) throws(MapDataError) {
        self.source = source
        let head = try Self.bytes(source, 0, PMTiles.headerSize)
        header = try PMTilesHeader(decoding: head)
        // Each section's offset and length fields sit at `field` in the header (PMTiles v3 §3): the
        // byte at fault when the section lies outside the file.
        for (name, field, offset, length) in [("root directory", 8, header.rootOffset, header.rootLength), ("metadata", 24, header.metadataOffset, header.metadataLength),
                                              ("leaf directories", 40, header.leafOffset, header.leafLength), ("tile data", 56, header.tileDataOffset, header.tileDataLength)] {
            let (end, overflow) = offset.addingReportingOverflow(length)
            guard !overflow, end <= UInt64(source.size) else {
                throw MapDataError(.truncated, "\(name) at byte \(offset) of \(length) bytes ends past the end of the file (\(source.size) bytes)", offset: field)
            }
        }
        root = try Self.directory(source, header, offset: header.rootOffset, length: header.rootLength, referencedAt: 8)
    }

    /// The metadata JSON text.
    public func metadata() throws(MapDataError) -> String {
        let raw = try Self.bytes(source, Int(header.metadataOffset), Int(header.metadataLength))
        return String(decoding: try Self.inflate(raw, header.internalCompression, at: Int(header.metadataOffset)), as: UTF8.self)
    }

    /// The stored bytes of tile z/x/y (compressed as `header.tileCompression` says), or nil.
    public func tile(zoom: Int, x: Int, y: Int) throws(MapDataError) -> [UInt8]? {
        guard (0...26).contains(zoom), (0..<(1 << zoom)).contains(x), (0..<(1 << zoom)).contains(y) else {
            throw MapDataError(.invalidArgument, "no tile \(zoom)/\(x)/\(y)")
        }
        let id = PMTiles.tileID(zoom: zoom, x: x, y: y)
        var entries = root
        var directoryOffset = Int(header.rootOffset)
        for _ in 0...PMTiles.maximumDepth {
            // The last entry whose id is ≤ the wanted one.
            var lo = 0, hi = entries.count - 1, found = -1
            while lo <= hi {
                let mid = (lo + hi) / 2
                if entries[mid].tileID <= id { found = mid; lo = mid + 1 } else { hi = mid - 1 }
            }
            guard found >= 0 else { return nil }
            let e = entries[found]
            if e.runLength == 0 {
                (entries, directoryOffset) = try cachedLeafDirectory(e, referencedAt: directoryOffset)
                continue
            }
            guard id - e.tileID < UInt64(e.runLength) else { return nil } // id ≥ e.tileID: no overflow
            return try tileBytes(e)
        }
        throw MapDataError(.invalidArchive, "leaf directories nest deeper than \(PMTiles.maximumDepth)")
    }

    /// Every tile entry in tile-id order, leaves expanded (one entry per run).
    public func entries() throws(MapDataError) -> [PMTilesEntry] {
        var out: [PMTilesEntry] = []
        func walk(_ list: [PMTilesEntry], at directoryOffset: Int, depth: Int) throws(MapDataError) {
            guard depth <= PMTiles.maximumDepth else { throw MapDataError(.invalidArchive, "leaf directories nest deeper than \(PMTiles.maximumDepth)") }
            for e in list {
                if e.runLength == 0 {
                    let (leaf, offset) = try leafDirectory(e, referencedAt: directoryOffset)
                    try walk(leaf, at: offset, depth: depth + 1)
                } else {
                    out.append(e)
                }
            }
        }
        try walk(root, at: Int(header.rootOffset), depth: 0)
        return out
    }

    /// The stored bytes of an entry's tile.
    public func tileBytes(_ e: PMTilesEntry) throws(MapDataError) -> [UInt8] {
        let (end, overflow) = e.offset.addingReportingOverflow(UInt64(e.length))
        guard !overflow, end <= header.tileDataLength else {
            throw MapDataError(.invalidArchive, "tile \(e.tileID) lies past the tile data section")
        }
        return try Self.bytes(source, Int(header.tileDataOffset + e.offset), Int(e.length))
    }

    /// `leafDirectory` held in `leaves`: a tile request walks through a leaf, and reading,
    /// inflating and decoding one (the reference writer's hold 4,096 entries) for every request
    /// costs more than the tile's own read.
    private func cachedLeafDirectory(_ e: PMTilesEntry, referencedAt: Int) throws(MapDataError) -> ([PMTilesEntry], Int) {
        let key = PMTilesLeafCache.Key(offset: e.offset, length: e.length)
        if let held = leaves.directory(key) { return held }
        let leaf = try leafDirectory(e, referencedAt: referencedAt)
        leaves.insert(leaf, for: key)
        return leaf
    }

    /// The leaf directory entry `e` points to (offsets count from the leaf section), and where
    /// it starts in the file; `referencedAt` is the directory holding `e`, the byte at fault.
    private func leafDirectory(_ e: PMTilesEntry, referencedAt: Int) throws(MapDataError) -> ([PMTilesEntry], Int) {
        let (offset, overflow) = header.leafOffset.addingReportingOverflow(e.offset)
        guard !overflow else { throw MapDataError(.invalidArchive, "leaf directory offset \(e.offset) is past any file", offset: referencedAt) }
        return (try Self.directory(source, header, offset: offset, length: UInt64(e.length), referencedAt: referencedAt), Int(offset))
    }

    /// The directory of `length` bytes at `offset`, decompressed and decoded; `referencedAt` is
    /// the byte that points to it (the header's field, or the directory holding a leaf's entry).
    private static func directory(_ source: Source, _ header: PMTilesHeader, offset: UInt64, length: UInt64, referencedAt: Int) throws(MapDataError) -> [PMTilesEntry] {
        let (end, overflow) = offset.addingReportingOverflow(length)
        guard length <= 64 << 20, !overflow, end <= UInt64(source.size) else {
            throw MapDataError(.truncated, "directory of \(length) bytes at \(offset) is past the end of the file (\(source.size) bytes)", offset: referencedAt)
        }
        let raw = try bytes(source, Int(offset), Int(length))
        return try PMTilesDirectory.decoded(try inflate(raw, header.internalCompression, at: Int(offset)), at: Int(offset))
    }

    /// Inflates a directory or the metadata, at most `PMTiles.maximumDirectorySize` bytes.
    /// - Throws: `MapDataError.invalidArchive` for bad gzip or one that inflates past the limit.
    private static func inflate(_ raw: [UInt8], _ compression: PMTilesHeader.Compression, at offset: Int) throws(MapDataError) -> [UInt8] {
        guard compression == .gzip else { return raw }
        do { return try Gzip.decompress(raw, limit: PMTiles.maximumDirectorySize) } catch {
            let what = error.code == .tooLarge ? "gzip section of \(raw.count) bytes \(error.message), more than any directory" : "gzip: \(error)"
            throw MapDataError(.invalidArchive, what, offset: offset)
        }
    }

    private static func bytes(_ source: Source, _ offset: Int, _ count: Int) throws(MapDataError) -> [UInt8] {
        let b: [UInt8]
        do { b = try source.read(offset: offset, count: count) } catch { throw MapDataError(.invalidArchive, "read: \(error)", offset: offset) }
        guard b.count == count else { throw MapDataError(.truncated, "wanted \(count) bytes at \(offset), the file has \(b.count)", offset: offset) }
        return b
    }
}

extension PMTilesReader: Sendable where Source: Sendable {}

/// The leaf directories a `PMTilesReader` has decoded, by where they lie in the leaf section,
/// the least recently used dropped first once more than `entryLimit` entries are held in all
/// (a hostile leaf may inflate to `PMTiles.maximumDirectorySize`; one that alone passes the
/// limit is not held).
final class PMTilesLeafCache: Sendable {
    struct Key: Hashable {
        /// Offset in the leaf directory section and length, bytes, as the parent entry gives them.
        let offset: UInt64, length: UInt32
    }

    /// The most directory entries held: 262,144 (64 leaves of the reference writer's 4,096), 6 MiB.
    static let entryLimit = 1 << 18

    private struct State {
        var leaves = LeastRecentlyUsedCache<Key, (entries: [PMTilesEntry], fileOffset: Int)>(capacity: Int.max)
        var entries = 0
    }

    private let state = Mutex(State())

    /// The directory and its offset in the file, when held.
    func directory(_ key: Key) -> ([PMTilesEntry], Int)? {
        state.withLock { $0.leaves.value(forKey: key) }.map { ($0.entries, $0.fileOffset) }
    }

    func insert(_ leaf: ([PMTilesEntry], Int), for key: Key) {
        guard leaf.0.count <= Self.entryLimit else { return }
        state.withLock { s in
            if let replaced = s.leaves.removeValue(forKey: key) { s.entries -= replaced.entries.count }
            while s.entries + leaf.0.count > Self.entryLimit, let dropped = s.leaves.removeLeastRecentlyUsed() { s.entries -= dropped.value.entries.count }
            s.leaves.insert((leaf.0, leaf.1), forKey: key)
            s.entries += leaf.0.count
        }
    }

    /// Directories and entries held now.
    var held: (directories: Int, entries: Int) { state.withLock { ($0.leaves.count, $0.entries) } }
}
