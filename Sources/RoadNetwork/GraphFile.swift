public import GeoBase
import ZlibCompression

/// The binary graph file format, version 4 (version 1 had no `notStartPoint` edge flag, so
/// its ferries would be start points; version 2 had no OSM node ids for shape points, which
/// map matching reports; version 3 had no spatial grid, which every reader then built; older
/// files are refused and must be extracted again).
///
/// ```
/// offset  size  field
///  0      4     magic "LKRG"
///  4      4     format version, UInt32 little-endian (4)
///  8      8     payload length in bytes, UInt64
/// 16      4     CRC-32 (IEEE 802.3, zlib's `crc32`) of the payload
/// 20      4     reserved, zero
/// 24      …     payload: profile name, turn costs, then every column as
///               UInt64 element count + raw little-endian elements, 8-byte aligned; last
///               the spatial index's grid at its default cell size (`SpatialIndex.Grid`)
/// ```
/// Columns are stored exactly as they sit in memory, so a mapped file's columns are used in
/// place (`GraphColumn`) and a stream's are a bounds-checked copy per column; nothing parses text.
enum GraphFile {
    static let magic: [UInt8] = Array("LKRG".utf8)
    static let version: UInt32 = 4
    static let headerSize = 24
}

private struct Writer {
    var bytes: [UInt8] = []

    mutating func align() { while bytes.count % 8 != 0 { bytes.append(0) } }
    mutating func int<T: FixedWidthInteger>(_ v: T) {
        withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) }
    }
    mutating func double(_ v: Double) { int(v.bitPattern) }
    mutating func string(_ s: String) {
        let utf8 = Array(s.utf8)
        int(UInt32(utf8.count))
        bytes.append(contentsOf: utf8)
    }
    mutating func column<T: BitwiseCopyable>(_ a: GraphColumn<T>) {
        align()
        int(UInt64(a.count))
        a.withUnsafeBufferPointer { bytes.append(contentsOf: UnsafeRawBufferPointer($0)) }
    }
}

/// Where the decoder reads a graph file's payload from: a buffer in memory, or a byte source
/// read straight into each column.
private protocol PayloadSource {
    /// Bytes of the payload read so far.
    var offset: Int { get }
    /// Bytes the payload holds past `offset` at most (what the header announces).
    var remaining: Int { get }
    /// Copies the next `buffer.count` bytes into `buffer`.
    /// - Throws: `RoadNetworkError.truncated` naming `what` when the payload ends first; what
    ///   a byte source throws.
    mutating func copy(into buffer: UnsafeMutableRawBufferPointer, _ what: String) throws
    /// A column: its element count, then its elements (see the extension's `column`).
    mutating func column<T: BitwiseCopyable>(_ type: T.Type, _ what: String) throws -> GraphColumn<T>
}

extension PayloadSource {
    func fail(_ what: String) -> RoadNetworkError {
        RoadNetworkError(.truncated, "the file ends inside \(what)", offset: offset)
    }
    mutating func align() throws {
        var padding: UInt64 = 0
        let n = (8 - offset % 8) % 8
        try withUnsafeMutableBytes(of: &padding) { try copy(into: UnsafeMutableRawBufferPointer(rebasing: $0[..<n]), "padding") }
    }
    mutating func int<T: FixedWidthInteger>(_ type: T.Type, _ what: String) throws -> T {
        var v = T.zero
        try withUnsafeMutableBytes(of: &v) { try copy(into: $0, what) }
        return T(littleEndian: v)
    }
    mutating func double(_ what: String) throws -> Double {
        Double(bitPattern: try int(UInt64.self, what))
    }
    /// A string: its UTF-8 length, then its bytes, read in pieces of at most 64 KiB, so memory
    /// follows what the file holds, not what a damaged length claims.
    mutating func string(_ what: String) throws -> String {
        let n = Int(try int(UInt32.self, what))
        guard n <= remaining else { throw fail(what) }
        var utf8: [UInt8] = []
        while utf8.count < n {
            let k = min(1 << 16, n - utf8.count)
            utf8 += try [UInt8](unsafeUninitializedCapacity: k) { buffer, initialized in
                try copy(into: UnsafeMutableRawBufferPointer(buffer), what)
                initialized = k
            }
        }
        return String(decoding: utf8, as: UTF8.self)
    }
    /// A column's element count, checked against the bytes that remain.
    mutating func columnCount<T: BitwiseCopyable>(_ type: T.Type, _ what: String) throws -> Int {
        try align()
        let count = try int(UInt64.self, what)
        guard count <= UInt64(remaining) / UInt64(MemoryLayout<T>.stride) else { throw fail(what) }
        return Int(count)
    }
    /// A column: its element count, then its elements, read straight into the column; one
    /// larger than 64 MiB is read in 64 MiB pieces (then copied into the column), so memory
    /// follows what the file holds, not what a damaged count claims.
    mutating func column<T: BitwiseCopyable>(_ type: T.Type, _ what: String) throws -> GraphColumn<T> {
        let n = try columnCount(T.self, what), piece = max(1, (1 << 26) / MemoryLayout<T>.stride)
        if n <= piece { return try GraphColumn(count: n) { try copy(into: UnsafeMutableRawBufferPointer($0), what) } }
        var result = ContiguousArray<T>()
        while result.count < n {
            let k = min(piece, n - result.count)
            let part = try ContiguousArray<T>(unsafeUninitializedCapacity: k) { buffer, initialized in
                try copy(into: UnsafeMutableRawBufferPointer(buffer), what)
                initialized = k
            }
            if result.isEmpty { result = part } else { result.append(contentsOf: part) }
        }
        return GraphColumn(result)
    }
}

/// A payload held in memory: copied out column by column, or, when `stable` keeps the memory
/// in place (a mapped file), its columns are views into it.
private struct BufferPayload: PayloadSource {
    let base: UnsafeRawBufferPointer
    let stable: (any StableBytes)?
    var offset = 0
    var remaining: Int { base.count - offset }

    mutating func column<T: BitwiseCopyable>(_ type: T.Type, _ what: String) throws -> GraphColumn<T> {
        let n = try columnCount(T.self, what)
        guard let stable else { return try GraphColumn(count: n) { try copy(into: UnsafeMutableRawBufferPointer($0), what) } }
        // The payload starts 8-byte aligned in the file (after the 24-byte header) and columns
        // are 8-byte aligned in it, so every element is aligned in place.
        let column = GraphColumn<T>(stable, at: base.baseAddress.map { $0 + offset }, count: n)
        offset += n * MemoryLayout<T>.stride
        return column
    }

    mutating func copy(into buffer: UnsafeMutableRawBufferPointer, _ what: String) throws {
        guard buffer.count <= remaining else { throw fail(what) }
        buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: base[offset..<offset + buffer.count]))
        offset += buffer.count
    }
}

/// A payload read from a byte source as it is decoded, its CRC-32 taken on the way.
private struct StreamPayload<Source: ByteSource>: PayloadSource {
    var source: Source
    /// The payload length the header announces.
    let length: Int
    var offset = 0
    var crc: UInt32 = 0
    var remaining: Int { length - offset }

    mutating func copy(into buffer: UnsafeMutableRawBufferPointer, _ what: String) throws {
        guard buffer.count <= remaining else { throw fail(what) }
        var filled = 0
        while filled < buffer.count {
            let n = try source.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
            guard n > 0 else { throw fail(what) }
            crc = Zlib.crc32(UnsafeRawBufferPointer(rebasing: buffer[filled..<filled + n]), continuing: crc)
            filled += n
            offset += n
        }
    }

    /// Reads the rest of what the header announces (into its CRC); false when the source ends first.
    mutating func drain() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while remaining > 0 {
            let want = min(chunk.count, remaining)
            let n = try chunk.withUnsafeMutableBytes { try source.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[..<want])) }
            if n == 0 { return false }
            crc = chunk.withUnsafeBytes { Zlib.crc32(UnsafeRawBufferPointer(rebasing: $0[..<n]), continuing: crc) }
            offset += n
        }
        return true
    }
}

extension RoadGraph {
    /// The graph as a graph file of the current version (see `GraphFile`), ready to write to disk.
    /// - Complexity: O(size of the graph).
    public func serialized() -> [UInt8] {
        var w = Writer()
        w.string(profileName)
        w.double(turnCosts.turnPenaltySeconds); w.double(turnCosts.turnBias)
        w.double(turnCosts.oncomingTurnPenaltySeconds); w.double(turnCosts.uTurnPenaltySeconds)
        w.column(nodeLatitudes); w.column(nodeLongitudes); w.column(nodeOSMIDs); w.column(nodeFlags)
        w.column(nodePenalties); w.column(nodeRoadCounts); w.column(firstEdge); w.column(firstIncoming)
        w.column(incomingEdges)
        w.column(edgeSources); w.column(edgeTargets); w.column(edgeSegments); w.column(edgeDurations)
        w.column(edgeWeights); w.column(edgeSpeeds); w.column(edgeFlags); w.column(edgeModes); w.column(edgeTwins)
        w.column(edgeStartBearings); w.column(edgeEndBearings)
        w.column(shapeOffsets); w.column(shapeLatitudes); w.column(shapeLongitudes); w.column(shapeOSMIDs)
        w.column(segmentLengths)
        w.column(segmentWayIDs); w.column(segmentNames); w.column(segmentClasses)
        w.align()
        w.int(UInt64(names.count))
        for n in names { w.string(n) }
        w.column(GraphColumn(restrictions.map(\.from.rawValue)))
        w.column(GraphColumn(restrictions.map(\.to.rawValue)))
        w.column(GraphColumn(restrictions.map(\.kind.rawValue)))
        let grid = grid ?? SpatialIndex.Grid(graph: self, cellSize: SpatialIndex.defaultCellSize)
        w.align()
        w.double(grid.cellSize); w.double(grid.referenceLatitude)
        w.column(grid.cellKeys); w.column(grid.cellStarts); w.column(grid.cellItems); w.column(grid.pieceOffsets)

        var out: [UInt8] = GraphFile.magic
        withUnsafeBytes(of: GraphFile.version.littleEndian) { out.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt64(w.bytes.count).littleEndian) { out.append(contentsOf: $0) }
        let crc = w.bytes.withUnsafeBytes { Zlib.crc32($0) }
        withUnsafeBytes(of: crc.littleEndian) { out.append(contentsOf: $0) }
        out.append(contentsOf: [0, 0, 0, 0])
        out.append(contentsOf: w.bytes)
        return out
    }

    /// The size of the whole file whose first bytes are `header` (at least `headerSize` of
    /// them; more are ignored): the magic and version are checked first, so a reader learns
    /// from 24 bytes that a file is no graph (`/dev/zero`) and then reads no more than the
    /// header announces, instead of reading to the end of the file.
    /// - Throws: `RoadNetworkError` `.badMagic`, `.unsupportedVersion` or `.truncated` (fewer
    ///   bytes than the header).
    static func serializedSize(header bytes: UnsafeRawBufferPointer) throws(RoadNetworkError) -> UInt64 {
        guard bytes.count >= 4 else { throw RoadNetworkError(.truncated, "the file is shorter than the magic", offset: bytes.count) }
        guard Array(bytes[0..<4]) == GraphFile.magic else {
            throw RoadNetworkError(.badMagic, "not a LocationKit road graph (expected magic LKRG)", offset: 0)
        }
        guard bytes.count >= GraphFile.headerSize else {
            throw RoadNetworkError(.truncated, "the file ends inside the header", offset: bytes.count)
        }
        let version = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
        guard version == GraphFile.version else {
            throw RoadNetworkError(.unsupportedVersion, "format version \(version); this build reads version \(GraphFile.version): extract the graph again (geo extract)", offset: 4)
        }
        let length = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        let (size, overflow) = length.addingReportingOverflow(UInt64(GraphFile.headerSize))
        guard !overflow else { throw RoadNetworkError(.truncated, "the header announces \(length) payload bytes, more than any file holds", offset: 8) }
        return size
    }

    /// Reads a graph file from `source` and decodes it. A regular file is mapped and its
    /// columns used in place (`ByteSource.mapRemaining()`, `GraphColumn`); other sources have
    /// each column read straight into it and the CRC-32 taken on the way: the header first,
    /// then no more than the size it announces, so a stream that is no graph (`/dev/zero`, a FIFO) is refused after 24 bytes.
    /// Errors are those of `init(serialized:)` for the same bytes: a damaged payload is a
    /// checksum mismatch even where it also breaks the structure, a short one is truncated.
    /// (Reading the file into one buffer and copying the columns out of it faulted in and copied
    /// every byte twice: a quarter of `geo match` on a 20 MB graph.)
    /// - Throws: `RoadNetworkError` as `init(serialized:)`; what the source throws.
    public init(reading source: inout some ByteSource) throws {
        if let mapped = try source.mapRemaining() {
            try self.init(serialized: mapped.bytes, keeping: mapped)
            return
        }
        let header = try source.read(upTo: GraphFile.headerSize)
        let (size, storedCRC) = try header.withUnsafeBytes { header in
            Result { () throws(RoadNetworkError) in
                (try Self.serializedSize(header: header), UInt32(littleEndian: header.loadUnaligned(fromByteOffset: 16, as: UInt32.self)))
            }
        }.get()
        var payload = StreamPayload(source: source, length: Int(clamping: size - UInt64(GraphFile.headerSize)))
        defer { source = payload.source }
        let decoded: Result<RoadGraph, any Error>
        do { decoded = .success(try Self.decode(&payload)) } catch { decoded = .failure(error) }
        if case .failure(let error) = decoded, !(error is RoadNetworkError) { throw error }
        let whole = try payload.drain()
        guard whole else {
            throw RoadNetworkError(.truncated, "the header announces \(payload.length) payload bytes but \(payload.offset) follow",
                                   offset: GraphFile.headerSize + payload.offset)
        }
        guard payload.crc == storedCRC else {
            throw RoadNetworkError(.checksumMismatch, "payload CRC-32 is \(payload.crc), the header says \(storedCRC)", offset: 16)
        }
        do { self = try decoded.get() } catch var error as RoadNetworkError {
            // Payload offsets are made file offsets.
            error.offset = GraphFile.headerSize + (error.offset ?? payload.offset)
            throw error
        }
    }

    /// Decodes a graph file's bytes.
    /// - Throws: `RoadNetworkError` with `.badMagic`, `.unsupportedVersion`, `.truncated`,
    ///   `.checksumMismatch` or `.corrupt`, and the byte offset where it was detected.
    /// - Complexity: O(file size): one checksum pass, and one copy per column unless kept in place.
    public init(serialized bytes: UnsafeRawBufferPointer) throws(RoadNetworkError) {
        try self.init(serialized: bytes, keeping: nil)
    }

    /// Decodes a graph file's bytes; with `stable` (the owner of `bytes`, a mapped file) the
    /// columns are views into them rather than copies, when the payload is 8-byte aligned.
    private init(serialized bytes: UnsafeRawBufferPointer, keeping stable: (any StableBytes)?) throws(RoadNetworkError) {
        let length = try Self.serializedSize(header: bytes) - UInt64(GraphFile.headerSize)
        let storedCRC = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 16, as: UInt32.self))
        let available = UInt64(bytes.count - GraphFile.headerSize)
        guard length <= available else {
            throw RoadNetworkError(.truncated, "the header announces \(length) payload bytes but \(available) follow", offset: bytes.count)
        }
        let base = UnsafeRawBufferPointer(rebasing: bytes[GraphFile.headerSize..<GraphFile.headerSize + Int(length)])
        let crc = Zlib.crc32(base)
        guard crc == storedCRC else {
            throw RoadNetworkError(.checksumMismatch, "payload CRC-32 is \(crc), the header says \(storedCRC)", offset: 16)
        }
        let aligned = base.baseAddress.map { Int(bitPattern: $0) % 8 == 0 } ?? false
        var payload = BufferPayload(base: base, stable: aligned ? stable : nil)
        do { self = try Self.decode(&payload) } catch {
            // A buffer throws nothing but the decoder's own errors.
            var e = error as? RoadNetworkError ?? RoadNetworkError(.corrupt, "\(error)")
            e.offset = GraphFile.headerSize + (e.offset ?? payload.offset)
            throw e
        }
    }

    /// The graph in a payload, column by column (see `GraphFile`); every cross-reference is
    /// checked by `RoadGraph`'s initializer.
    private static func decode(_ r: inout some PayloadSource) throws -> RoadGraph {
        let profileName = try r.string("the profile name")
        let turnCosts = TurnCostModel(turnPenaltySeconds: try r.double("turn costs"), turnBias: try r.double("turn costs"),
                                      oncomingTurnPenaltySeconds: try r.double("turn costs"),
                                      uTurnPenaltySeconds: try r.double("turn costs"))
        let nodeLatitudes = try r.column(Int32.self, "node latitudes")
        let nodeLongitudes = try r.column(Int32.self, "node longitudes")
        let nodeOSMIDs = try r.column(Int64.self, "node ids")
        let nodeFlags = try r.column(UInt8.self, "node flags")
        let nodePenalties = try r.column(Float.self, "node penalties")
        let nodeRoadCounts = try r.column(UInt8.self, "node road counts")
        let firstEdge = try r.column(UInt32.self, "edge offsets")
        let firstIncoming = try r.column(UInt32.self, "incoming offsets")
        let incomingEdges = try r.column(UInt32.self, "incoming edges")
        let edgeSources = try r.column(UInt32.self, "edge sources")
        let edgeTargets = try r.column(UInt32.self, "edge targets")
        let edgeSegments = try r.column(UInt32.self, "edge segments")
        let edgeDurations = try r.column(Float.self, "edge durations")
        let edgeWeights = try r.column(Float.self, "edge weights")
        let edgeSpeeds = try r.column(Float.self, "edge speeds")
        let edgeFlags = try r.column(UInt8.self, "edge flags")
        let edgeModes = try r.column(UInt8.self, "edge modes")
        let edgeTwins = try r.column(UInt32.self, "edge twins")
        let edgeStartBearings = try r.column(Float.self, "edge bearings")
        let edgeEndBearings = try r.column(Float.self, "edge bearings")
        let shapeOffsets = try r.column(UInt32.self, "shape offsets")
        let shapeLatitudes = try r.column(Int32.self, "shape latitudes")
        let shapeLongitudes = try r.column(Int32.self, "shape longitudes")
        let shapeOSMIDs = try r.column(Int64.self, "shape node ids")
        let segmentLengths = try r.column(Double.self, "segment lengths")
        let segmentWayIDs = try r.column(Int64.self, "segment way ids")
        let segmentNames = try r.column(UInt32.self, "segment names")
        let segmentClasses = try r.column(UInt8.self, "segment classes")
        try r.align()
        let nameCount = try r.int(UInt64.self, "the name table")
        guard nameCount <= UInt64(r.remaining) else { throw r.fail("the name table") }
        var names: [String] = []
        names.reserveCapacity(Int(min(nameCount, 1 << 16)))
        for _ in 0..<nameCount { names.append(try r.string("the name table")) }
        let from = try r.column(UInt32.self, "restrictions")
        let to = try r.column(UInt32.self, "restrictions")
        let kinds = try r.column(UInt8.self, "restrictions")
        guard from.count == to.count, to.count == kinds.count else {
            throw RoadNetworkError(.corrupt, "restriction columns differ in length", offset: r.offset)
        }
        var restrictions = ContiguousArray<TurnRestriction>()
        restrictions.reserveCapacity(from.count)
        for i in from.indices {
            guard let kind = TurnRestriction.Kind(rawValue: kinds[i]) else {
                throw RoadNetworkError(.corrupt, "unknown restriction kind \(kinds[i])", offset: r.offset)
            }
            restrictions.append(TurnRestriction(from: RoadGraph.EdgeID(from[i]), to: RoadGraph.EdgeID(to[i]), kind: kind))
        }
        try r.align()
        let cellSize = try r.double("the spatial grid"), referenceLatitude = try r.double("the spatial grid")
        let grid = SpatialIndex.Grid(cellSize: cellSize, referenceLatitude: referenceLatitude,
                                     cellKeys: try r.column(UInt64.self, "the grid's cells"),
                                     cellStarts: try r.column(UInt32.self, "the grid's rows"),
                                     cellItems: try r.column(UInt32.self, "the grid's items"),
                                     pieceOffsets: try r.column(Double.self, "the grid's offsets"))
        return try RoadGraph(
            profileName: profileName, turnCosts: turnCosts,
            nodeLatitudes: nodeLatitudes, nodeLongitudes: nodeLongitudes, nodeOSMIDs: nodeOSMIDs,
            nodeFlags: nodeFlags, nodePenalties: nodePenalties, nodeRoadCounts: nodeRoadCounts,
            firstEdge: firstEdge, firstIncoming: firstIncoming, incomingEdges: incomingEdges,
            edgeSources: edgeSources, edgeTargets: edgeTargets, edgeSegments: edgeSegments,
            edgeDurations: edgeDurations, edgeWeights: edgeWeights, edgeSpeeds: edgeSpeeds,
            edgeFlags: edgeFlags, edgeModes: edgeModes, edgeTwins: edgeTwins,
            edgeStartBearings: edgeStartBearings, edgeEndBearings: edgeEndBearings,
            shapeOffsets: shapeOffsets, shapeLatitudes: shapeLatitudes, shapeLongitudes: shapeLongitudes,
            shapeOSMIDs: shapeOSMIDs,
            segmentLengths: segmentLengths, segmentWayIDs: segmentWayIDs, segmentNames: segmentNames,
            segmentClasses: segmentClasses, names: names, restrictions: restrictions, grid: grid)
    }

    /// Decodes a graph file held in an array.
    /// - Throws: see `init(serialized: UnsafeRawBufferPointer)`.
    public init(serialized bytes: [UInt8]) throws(RoadNetworkError) {
        let result: Result<RoadGraph, RoadNetworkError> = bytes.withUnsafeBytes { buffer in
            do throws(RoadNetworkError) { return .success(try RoadGraph(serialized: buffer)) } catch { return .failure(error) }
        }
        self = try result.get()
    }
}
