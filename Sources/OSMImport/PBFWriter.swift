public import Foundation
import GeoCore
import MapData
import ProtobufWire
import SystemIO
import ZlibCompression

/// Writes `.osm.pbf` files (OSM wiki "PBF Format"): an `OSMHeader` block with bounding box and
/// required features, then zlib-compressed `OSMData` blocks with DenseNodes, ways and
/// relations, each with its own string table (strings sorted by frequency, so common keys get
/// one-byte indices).
///
/// Elements are buffered per kind and written in blocks of `elementsPerBlock`; a change of
/// kind starts a new block. Write nodes, then ways, then relations, each sorted by id, for a
/// file other tools treat as sorted. A block mixing elements with and without metadata writes
/// empty metadata (version 0, timestamp 0…) for the latter. A node's tag with an empty key is
/// not written: DenseNodes cannot encode one (string 0 ends a node's tags). A way's or
/// relation's is, and the readers drop it as absurd (``OSMReadSummary/ignoredTagCount``).
///
/// ```swift
/// let writer = try OSMPBFWriter(url: url, header: OSMHeader(boundingBox: box))
/// for node in nodes { try writer.write(node) }
/// try writer.close()
/// ```
public final class OSMPBFWriter {
    /// Tuning of the output.
    public struct Options: Sendable {
        /// Elements per block (osmium writes 8 000).
        public var elementsPerBlock: Int
        /// zlib level 0…9 (0 stores blocks raw, uncompressed).
        public var compressionLevel: Int
        /// Whether element metadata is written when present.
        public var includesMetadata: Bool

        public init(elementsPerBlock: Int = 8_000, compressionLevel: Int = 6, includesMetadata: Bool = true) {
            self.elementsPerBlock = max(1, elementsPerBlock)
            self.compressionLevel = min(max(0, compressionLevel), 9)
            self.includesMetadata = includesMetadata
        }
    }

    /// The file, replaced when `close()` succeeds (`AtomicFileReplacement`'s rules).
    private let replacement: AtomicFileReplacement
    private var descriptor: FileDescriptor { replacement.descriptor }
    private let options: Options
    private var nodes: [OSMNode] = []
    private var ways: [OSMWay] = []
    private var relations: [OSMRelation] = []
    private var closed = false

    /// Starts the file and writes its header block; the file appears (or replaces the old
    /// one) only at `close()`. A FIFO or device is written through.
    /// - Parameter header: written as given, with `OsmSchema-V0.6` and `DenseNodes` always
    ///   listed as required features and `writingProgram` defaulting to "LocationKit".
    /// - Throws: `OSMError.io` when the file cannot be created.
    public init(url: URL, header: OSMHeader = OSMHeader(), options: Options = Options()) throws(OSMError) {
        self.options = options
        do { replacement = try AtomicFileReplacement(replacing: url.path) } catch {
            throw OSMError(.io, "\(error)")
        }
        try writeBlob(type: "OSMHeader", content: Self.headerBlock(header).bytes)
    }

    deinit { if !closed { replacement.discard() } }

    /// Appends a node; a full block is compressed and written at once.
    /// - Throws: `OSMError.io` when the block cannot be written.
    /// - Complexity: amortised O(1) per element plus O(block size) per written block.
    public func write(_ node: OSMNode) throws(OSMError) {
        if !ways.isEmpty || !relations.isEmpty { try flush() }
        nodes.append(node)
        if nodes.count >= options.elementsPerBlock { try flush() }
    }

    /// Appends a way.
    public func write(_ way: OSMWay) throws(OSMError) {
        if !nodes.isEmpty || !relations.isEmpty { try flush() }
        ways.append(way)
        if ways.count >= options.elementsPerBlock { try flush() }
    }

    /// Appends a relation.
    public func write(_ relation: OSMRelation) throws(OSMError) {
        if !nodes.isEmpty || !ways.isEmpty { try flush() }
        relations.append(relation)
        if relations.count >= options.elementsPerBlock { try flush() }
    }

    /// Appends any element.
    public func write(_ element: OSMElement) throws(OSMError) {
        switch element {
        case .node(let n): try write(n)
        case .way(let w): try write(w)
        case .relation(let r): try write(r)
        }
    }

    /// Appends a block's nodes, ways and relations in that order.
    public func write(_ block: OSMElementBlock) throws(OSMError) {
        for n in block.nodes { try write(n) }
        for w in block.ways { try write(w) }
        for r in block.relations { try write(r) }
    }

    /// Writes what is buffered and closes the file; further writes are a broken contract.
    /// Without it the last, partial block is lost.
    /// - Throws: `OSMError.io` when writing or closing fails.
    public func close() throws(OSMError) {
        guard !closed else { return }
        try flush()
        do {
            try replacement.commit()
            closed = true
            try descriptor.close()
        } catch {
            throw OSMError(.io, "\(error.about(replacement.path))")
        }
    }

    /// Writes a whole data set to `url`: nodes, then ways, then relations.
    /// - Throws: `OSMError.io` when the file cannot be written.
    public static func write(nodes: [OSMNode], ways: [OSMWay], relations: [OSMRelation], header: OSMHeader = OSMHeader(),
                             to url: URL, options: Options = Options()) throws(OSMError) {
        let writer = try OSMPBFWriter(url: url, header: header, options: options)
        for n in nodes { try writer.write(n) }
        for w in ways { try writer.write(w) }
        for r in relations { try writer.write(r) }
        try writer.close()
    }

    // MARK: - Encoding

    private func flush() throws(OSMError) {
        precondition(!closed, "Broken contract: OSMPBFWriter used after close()")
        guard !nodes.isEmpty || !ways.isEmpty || !relations.isEmpty else { return }
        var encoder = BlockEncoder(includesMetadata: options.includesMetadata)
        let group = encoder.group(nodes: nodes, ways: ways, relations: relations)
        var block = WireWriter(capacity: group.bytes.count + 1024)
        block.writeMessageField(1, encoder.stringTable())
        block.writeMessageField(2, group)
        nodes.removeAll(keepingCapacity: true)
        ways.removeAll(keepingCapacity: true)
        relations.removeAll(keepingCapacity: true)
        try writeBlob(type: "OSMData", content: block.bytes)
    }

    private func writeBlob(type: String, content: [UInt8]) throws(OSMError) {
        var blob = WireWriter(capacity: content.count / 2 + 64)
        if options.compressionLevel == 0 {
            blob.writeBytesField(1, content)
        } else {
            blob.writeVarintField(2, Int64(content.count))
            do { blob.writeBytesField(3, try Zlib.deflate(content, level: options.compressionLevel)) } catch {
                throw OSMError(.io, "\(error)")
            }
        }
        var header = WireWriter()
        header.writeStringField(1, type)
        header.writeVarintField(3, Int64(blob.bytes.count))
        let n = UInt32(header.bytes.count)
        var frame: [UInt8] = [UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)]
        frame += header.bytes
        frame += blob.bytes
        do { try descriptor.writeAll(frame) } catch {
            throw OSMError(.io, "\(error.about(replacement.path))")
        }
    }

    static func headerBlock(_ header: OSMHeader) -> WireWriter {
        var w = WireWriter()
        if let box = header.boundingBox {
            // HeaderBBox in nanodegrees: left = 1, right = 2, top = 3, bottom = 4.
            var b = WireWriter()
            b.writeSignedField(1, Int64((box.west * 1e9).rounded()))
            b.writeSignedField(2, Int64((box.east * 1e9).rounded()))
            b.writeSignedField(3, Int64((box.north * 1e9).rounded()))
            b.writeSignedField(4, Int64((box.south * 1e9).rounded()))
            w.writeMessageField(1, b)
        }
        var required = ["OsmSchema-V0.6", "DenseNodes"]
        for f in header.requiredFeatures where !required.contains(f) && f != "LocationsOnWays" { required.append(f) }
        for f in required { w.writeStringField(4, f) }
        for f in header.optionalFeatures { w.writeStringField(5, f) }
        w.writeStringField(16, header.writingProgram ?? "LocationKit")
        if let s = header.source { w.writeStringField(17, s) }
        if let t = header.replicationTimestamp { w.writeVarintField(32, t) }
        if let n = header.replicationSequenceNumber { w.writeVarintField(33, n) }
        if let u = header.replicationBaseURL { w.writeStringField(34, u) }
        return w
    }
}

/// Encodes one PrimitiveBlock's group; strings are collected first, then numbered by frequency.
struct BlockEncoder {
    let includesMetadata: Bool
    private var counts: [String: Int] = [:]
    private var index: [String: Int64] = [:]

    init(includesMetadata: Bool) { self.includesMetadata = includesMetadata }

    /// `StringTable { repeated bytes s = 1 }`, entry 0 empty (a delimiter in DenseNodes keys_vals).
    func stringTable() -> WireWriter {
        var ordered = [String](repeating: "", count: index.count + 1)
        for (s, i) in index { ordered[Int(i)] = s }
        var w = WireWriter()
        for s in ordered { w.writeStringField(1, s) }
        return w
    }

    private mutating func number(_ strings: some Sequence<String>) {
        for s in strings { counts[s, default: 0] += 1 }
    }

    private mutating func assignIndices() {
        // Most frequent first (ties by text for a deterministic file); index 0 stays reserved.
        let sorted = counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        for (i, entry) in sorted.enumerated() { index[entry.key] = Int64(i + 1) }
    }

    @inline(__always)
    private func id(_ s: String) -> Int64 { index[s] ?? 0 }

    private func metadataStrings(_ m: OSMMetadata?) -> [String] {
        guard includesMetadata, let m, !m.user.isEmpty else { return [] }
        return [m.user]
    }

    /// Encodes one `PrimitiveGroup` holding whichever kind is non-empty.
    mutating func group(nodes: [OSMNode], ways: [OSMWay], relations: [OSMRelation]) -> WireWriter {
        for n in nodes { number(n.tags.lazy.flatMap { [$0.key, $0.value] }); number(metadataStrings(n.metadata)) }
        for w in ways { number(w.tags.lazy.flatMap { [$0.key, $0.value] }); number(metadataStrings(w.metadata)) }
        for r in relations {
            number(r.tags.lazy.flatMap { [$0.key, $0.value] })
            number(r.members.lazy.map(\.role))
            number(metadataStrings(r.metadata))
        }
        counts[""] = nil
        assignIndices()

        var group = WireWriter()
        if !nodes.isEmpty { group.writeMessageField(2, dense(nodes)) }
        for w in ways { group.writeMessageField(3, way(w)) }
        for r in relations { group.writeMessageField(4, relation(r)) }
        return group
    }

    private func dense(_ nodes: [OSMNode]) -> WireWriter {
        var d = WireWriter()
        d.writePackedSigned(1, deltas(nodes.lazy.map(\.id)))
        if includesMetadata, nodes.contains(where: { $0.metadata != nil }) {
            let ms = nodes.map { $0.metadata ?? OSMMetadata() }
            var info = WireWriter()
            info.writePacked(1, ms.lazy.map { Int64($0.version) })
            info.writePackedSigned(2, deltas(ms.lazy.map(\.timestamp)))
            info.writePackedSigned(3, deltas(ms.lazy.map(\.changeset)))
            info.writePackedSigned(4, deltas(ms.lazy.map { Int64($0.uid) }))
            info.writePackedSigned(5, deltas(ms.lazy.map { id($0.user) }))
            if ms.contains(where: { !$0.visible }) { info.writePacked(6, ms.lazy.map { $0.visible ? 1 : 0 }) }
            d.writeMessageField(5, info)
        }
        d.writePackedSigned(8, deltas(nodes.lazy.map { Int64($0.latitudeE7) }))
        d.writePackedSigned(9, deltas(nodes.lazy.map { Int64($0.longitudeE7) }))
        if nodes.contains(where: { !$0.tags.isEmpty }) {
            var kv: [Int64] = []
            for n in nodes {
                for t in n.tags where !t.key.isEmpty { kv.append(id(t.key)); kv.append(id(t.value)) }
                kv.append(0)
            }
            d.writePacked(10, kv)
        }
        return d
    }

    private func info(_ m: OSMMetadata?) -> WireWriter? {
        guard includesMetadata, let m else { return nil }
        var w = WireWriter()
        w.writeVarintField(1, Int64(m.version))
        w.writeVarintField(2, m.timestamp)
        w.writeVarintField(3, m.changeset)
        w.writeVarintField(4, Int64(m.uid))
        w.writeVarintField(5, id(m.user))
        if !m.visible { w.writeVarintField(6, 0) }
        return w
    }

    private func writeTags(_ tags: OSMTags, into w: inout WireWriter) {
        w.writePacked(2, tags.lazy.map { id($0.key) })
        w.writePacked(3, tags.lazy.map { id($0.value) })
    }

    private func way(_ way: OSMWay) -> WireWriter {
        var w = WireWriter()
        w.writeVarintField(1, way.id)
        writeTags(way.tags, into: &w)
        if let i = info(way.metadata) { w.writeMessageField(4, i) }
        w.writePackedSigned(8, deltas(way.nodeRefs))
        return w
    }

    private func relation(_ r: OSMRelation) -> WireWriter {
        var w = WireWriter()
        w.writeVarintField(1, r.id)
        writeTags(r.tags, into: &w)
        if let i = info(r.metadata) { w.writeMessageField(4, i) }
        w.writePacked(8, r.members.lazy.map { id($0.role) })
        w.writePackedSigned(9, deltas(r.members.lazy.map(\.ref)))
        w.writePacked(10, r.members.lazy.map { Int64($0.type.rawValue) })
        return w
    }

    private func deltas(_ values: some Sequence<Int64>) -> [Int64] {
        var previous: Int64 = 0
        return values.map { v in
            defer { previous = v }
            return v &- previous
        }
    }
}
