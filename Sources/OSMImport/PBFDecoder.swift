import GeoCore
import ProtobufWire
import ZlibCompression

/// Decoding of the PBF messages, over borrowed bytes.
enum PBFDecoder {
    /// The message of a `WireError`, or the description of anything else.
    static func describe(_ error: any Error) -> String {
        (error as? WireError)?.message ?? "\(error)"
    }

    /// Inflates and decodes one `OSMData` frame with an inflater from `pool`.
    static func decode<Content>(_ frame: PBFFrame, includesMetadata: Bool, pool: PBFDecodingPool) -> Result<DecodedBlock<Content>, OSMError> {
        do {
            var decoded = try pool.withInflater { inflater in
                try withBlobContent(frame.blob, inflater: inflater) { raw throws(WireError) in
                    try primitiveBlock(raw, includesMetadata: includesMetadata) as DecodedBlock<Content>
                }
            }
            decoded.block.byteOffset = frame.offset
            return .success(decoded)
        } catch let error as OSMError {
            return .failure(OSMError(error.code, error.message, offset: frame.offset))
        } catch let error as WireError {
            return .failure(OSMError(.corrupted, error.message, offset: frame.offset))
        } catch {
            return .failure(OSMError(.corrupted, "\(error)", offset: frame.offset))
        }
    }

    /// `BlobHeader { type = 1; indexdata = 2; datasize = 3 }`.
    static func blobHeader(_ bytes: UnsafeRawBufferPointer) throws(WireError) -> (type: String, dataSize: Int) {
        var r = WireReader(bytes)
        var type: String?
        var size: Int?
        while !r.isAtEnd {
            let (field, wire) = try r.readKey()
            switch field {
            case 1:
                try WireReader.expect(wire, .lengthDelimited, field: field)
                type = String(decoding: try r.readBytes(), as: UTF8.self)
            case 3:
                try WireReader.expect(wire, .varint, field: field)
                size = Int(truncatingIfNeeded: Int32(truncatingIfNeeded: try r.readInt64()))
            default:
                try r.skip(wire)
            }
        }
        guard let type, let size else { throw WireError("BlobHeader lacks type or datasize") }
        return (type, size)
    }

    /// Calls `body` with the uncompressed content of a `Blob { raw = 1; raw_size = 2; zlib_data = 3;
    /// lzma_data = 4; OBSOLETE_bzip2_data = 5; lz4_data = 6; zstd_data = 7 }`: raw content in
    /// place, zlib content inflated by `inflater` in one call into its buffer of `raw_size`.
    static func withBlobContent<R>(_ blob: [UInt8], inflater: SizedInflater, _ body: (UnsafeRawBufferPointer) throws(WireError) -> R) throws -> R {
        try blob.withUnsafeBytes { bytes throws -> R in
            var r = WireReader(bytes)
            var rawSize: Int?
            var raw: UnsafeRawBufferPointer?
            var zlib: UnsafeRawBufferPointer?
            while !r.isAtEnd {
                let (field, wire) = try r.readKey()
                switch field {
                case 1:
                    try WireReader.expect(wire, .lengthDelimited, field: field)
                    raw = try r.readBytes()
                case 2:
                    try WireReader.expect(wire, .varint, field: field)
                    rawSize = Int(truncatingIfNeeded: Int32(truncatingIfNeeded: try r.readInt64()))
                case 3:
                    try WireReader.expect(wire, .lengthDelimited, field: field)
                    zlib = try r.readBytes()
                case 4, 5, 6, 7:
                    let name = [4: "lzma", 5: "bzip2", 6: "lz4", 7: "zstd"][field] ?? "unknown"
                    throw OSMError(.unsupportedCompression, "blob is \(name)-compressed; only raw and zlib are supported")
                default:
                    try r.skip(wire)
                }
            }
            if let raw { return try body(raw) }
            guard let zlib else { throw WireError("blob has neither raw nor zlib_data") }
            guard let rawSize, rawSize >= 0, rawSize <= PBFFrameStream.maximumBlobSize else {
                throw WireError("zlib blob has a missing or absurd raw_size")
            }
            return try inflater.inflate(zlib, size: rawSize) { content in try body(content) }
        }
    }

    /// `HeaderBlock { bbox = 1; required_features = 4; optional_features = 5; writingprogram = 16;
    /// source = 17; osmosis_replication_timestamp = 32; …_sequence_number = 33; …_base_url = 34 }`.
    static func headerBlock(_ bytes: UnsafeRawBufferPointer) throws(WireError) -> OSMHeader {
        var header = OSMHeader(requiredFeatures: [])
        var r = WireReader(bytes)
        while !r.isAtEnd {
            let (field, wire) = try r.readKey()
            switch (field, wire) {
            case (1, .lengthDelimited):
                // HeaderBBox { left = 1; right = 2; top = 3; bottom = 4 } in nanodegrees (sint64).
                var b = WireReader(try r.readBytes())
                var edges = [Int64](repeating: 0, count: 5)
                while !b.isAtEnd {
                    let (f, w) = try b.readKey()
                    if (1...4).contains(f), w == .varint { edges[Int(f)] = try b.readSignedVarint() } else { try b.skip(w) }
                }
                let south = Double(edges[4]) / 1e9, west = Double(edges[1]) / 1e9
                let north = Double(edges[3]) / 1e9, east = Double(edges[2]) / 1e9
                header.boundingBox = try? BoundingBox(south: south, west: west, north: north, east: east)
            case (4, .lengthDelimited): header.requiredFeatures.append(String(decoding: try r.readBytes(), as: UTF8.self))
            case (5, .lengthDelimited): header.optionalFeatures.append(String(decoding: try r.readBytes(), as: UTF8.self))
            case (16, .lengthDelimited): header.writingProgram = String(decoding: try r.readBytes(), as: UTF8.self)
            case (17, .lengthDelimited): header.source = String(decoding: try r.readBytes(), as: UTF8.self)
            case (32, .varint): header.replicationTimestamp = try r.readInt64()
            case (33, .varint): header.replicationSequenceNumber = try r.readInt64()
            case (34, .lengthDelimited): header.replicationBaseURL = String(decoding: try r.readBytes(), as: UTF8.self)
            default: try r.skip(wire)
            }
        }
        return header
    }

    /// The string table of a block: per entry whether it may be a tag value (`TagRules`) and a
    /// key (also not empty), and the strings themselves when elements are built (`holdsStrings`).
    struct StringTable {
        let holdsStrings: Bool
        var strings: [String] = []
        var acceptableValue: [Bool] = []
        var acceptableKey: [Bool] = []

        init(holdsStrings: Bool) { self.holdsStrings = holdsStrings }

        var count: Int { acceptableValue.count }

        /// Adds the next entry, given as its UTF-8 bytes.
        mutating func append(_ bytes: UnsafeRawBufferPointer) {
            // A string of at most 255 bytes has at most 255 characters: only longer ones need decoding.
            let string = holdsStrings || bytes.count > TagRules.maximumLength ? String(decoding: bytes, as: UTF8.self) : ""
            let acceptable = bytes.count <= TagRules.maximumLength || TagRules.isShortEnough(string)
            acceptableValue.append(acceptable)
            acceptableKey.append(acceptable && !bytes.isEmpty)
            if holdsStrings { strings.append(string) }
        }

        /// The string at `index` ("" when the table holds no strings); throws when outside the table.
        @inline(__always)
        func string(_ index: UInt64) throws(WireError) -> String {
            guard index < UInt64(count) else { throw WireError("string index \(index) outside the table of \(count)") }
            return holdsStrings ? strings[Int(index)] : ""
        }

        /// Appends the tag `(key, value)` to `tags` if acceptable (and the table holds strings),
        /// else counts it as ignored.
        @inline(__always)
        func appendTag(key k: UInt64, value v: UInt64, to tags: inout OSMTags, ignored: inout Int) throws(WireError) {
            guard k < UInt64(count), v < UInt64(count) else {
                throw WireError("tag string index \(max(k, v)) outside the table of \(count)")
            }
            if !acceptableKey[Int(k)] || !acceptableValue[Int(v)] {
                ignored += 1
            } else if holdsStrings {
                tags.append(key: strings[Int(k)], value: strings[Int(v)])
            }
        }
    }

    /// Coordinate and time scaling of one block.
    struct BlockScale {
        var granularity: Int64 = 100
        var latOffset: Int64 = 0
        var lonOffset: Int64 = 0
        var dateGranularity: Int64 = 1000

        /// Raw block units to 1e-7 degrees, nil when outside the valid range.
        @inline(__always)
        func fixed(lat: Int64, lon: Int64) -> (Int32, Int32)? {
            var la: Int64, lo: Int64
            if granularity == 100 && latOffset == 0 && lonOffset == 0 {
                la = lat
                lo = lon
            } else {
                // nanodegrees = offset + granularity × value (osmformat.proto); 1e-7° = 100 nanodegrees.
                let (nla, o1) = granularity.multipliedReportingOverflow(by: lat)
                let (nlo, o2) = granularity.multipliedReportingOverflow(by: lon)
                guard !o1, !o2 else { return nil }
                la = Self.roundedDivide(nla &+ latOffset, 100)
                lo = Self.roundedDivide(nlo &+ lonOffset, 100)
            }
            guard la >= -900_000_000, la <= 900_000_000, lo >= -1_800_000_000, lo <= 1_800_000_000 else { return nil }
            return (Int32(la), Int32(lo))
        }

        @inline(__always)
        static func roundedDivide(_ a: Int64, _ b: Int64) -> Int64 {
            a >= 0 ? (a + b / 2) / b : -((-a + b / 2) / b)
        }

        /// Block timestamp units to whole seconds.
        @inline(__always)
        func seconds(_ t: Int64) -> Int64 { dateGranularity == 1000 ? t : t &* dateGranularity / 1000 }
    }

    /// `PrimitiveBlock { stringtable = 1; primitivegroup = 2; granularity = 17; date_granularity = 18;
    /// lat_offset = 19; lon_offset = 20 }`.
    static func primitiveBlock<Content>(_ bytes: UnsafeRawBufferPointer, includesMetadata: Bool) throws(WireError) -> DecodedBlock<Content> {
        var r = WireReader(bytes)
        var scale = BlockScale()
        var table = StringTable(holdsStrings: Content.buildsElements)
        var groups: [UnsafeRawBufferPointer] = []
        while !r.isAtEnd {
            let (field, wire) = try r.readKey()
            switch (field, wire) {
            case (1, .lengthDelimited):
                // StringTable { repeated bytes s = 1 }
                var s = WireReader(try r.readBytes())
                while !s.isAtEnd {
                    let (f, w) = try s.readKey()
                    guard f == 1, w == .lengthDelimited else { try s.skip(w); continue }
                    table.append(try s.readBytes())
                }
            case (2, .lengthDelimited): groups.append(try r.readBytes())
            case (17, .varint): scale.granularity = try r.readInt64()
            case (18, .varint): scale.dateGranularity = try r.readInt64()
            case (19, .varint): scale.latOffset = try r.readInt64()
            case (20, .varint): scale.lonOffset = try r.readInt64()
            default: try r.skip(wire)
            }
        }
        guard scale.granularity > 0, scale.dateGranularity > 0 else { throw WireError("granularity must be positive") }
        var out = DecodedBlock<Content>()
        for group in groups {
            // PrimitiveGroup { nodes = 1; dense = 2; ways = 3; relations = 4; changesets = 5 }
            var g = WireReader(group)
            while !g.isAtEnd {
                let (field, wire) = try g.readKey()
                switch (field, wire) {
                case (1, .lengthDelimited):
                    try node(try g.readBytes(), table, scale, includesMetadata, &out)
                case (2, .lengthDelimited):
                    try denseNodes(try g.readBytes(), table, scale, includesMetadata, &out)
                case (3, .lengthDelimited):
                    out.block.add(try way(try g.readBytes(), table, scale, includesMetadata, &out.ignoredTags))
                case (4, .lengthDelimited):
                    out.block.add(try relation(try g.readBytes(), table, scale, includesMetadata, &out.ignoredTags))
                default:
                    try g.skip(wire)
                }
            }
        }
        return out
    }

    /// `Info { version = 1; timestamp = 2; changeset = 3; uid = 4; user_sid = 5; visible = 6 }`.
    static func info(_ bytes: UnsafeRawBufferPointer, _ table: StringTable, _ scale: BlockScale) throws(WireError) -> OSMMetadata {
        var m = OSMMetadata()
        var r = WireReader(bytes)
        while !r.isAtEnd {
            let (field, wire) = try r.readKey()
            switch (field, wire) {
            case (1, .varint): m.version = Int32(truncatingIfNeeded: try r.readInt64())
            case (2, .varint): m.timestamp = scale.seconds(try r.readInt64())
            case (3, .varint): m.changeset = try r.readInt64()
            case (4, .varint): m.uid = Int32(truncatingIfNeeded: try r.readInt64())
            case (5, .varint): m.user = try table.string(try r.readVarint())
            case (6, .varint): m.visible = try r.readVarint() != 0
            default: try r.skip(wire)
            }
        }
        return m
    }

    /// Reads the packed `keys` and `vals` of a way, relation or node into tags.
    @inline(__always)
    static func tags(keys: UnsafeRawBufferPointer, values: UnsafeRawBufferPointer, _ table: StringTable, ignored: inout Int) throws(WireError) -> OSMTags {
        var tags = OSMTags()
        guard keys.count > 0 else { return tags }
        var k = WireReader(keys), v = WireReader(values)
        if table.holdsStrings { tags.reserveCapacity(WireReader.varintCount(keys)) }
        while !k.isAtEnd {
            try table.appendTag(key: try k.readVarint(), value: try v.readVarint(), to: &tags, ignored: &ignored)
        }
        return tags
    }

    /// The tags of one dense node: `keys_vals` index pairs up to the 0 that ends the node. The
    /// pairs are counted first so the tags take one allocation of the exact size (when the
    /// table holds no strings, they are only checked and counted, in one pass).
    @inline(__always)
    static func denseTags(_ kv: inout WireReader, _ table: StringTable, ignored: inout Int) throws(WireError) -> OSMTags {
        var tags = OSMTags()
        guard table.holdsStrings else {
            while case let key = try kv.readVarint(), key != 0 {
                try table.appendTag(key: key, value: try kv.readVarint(), to: &tags, ignored: &ignored)
            }
            return tags
        }
        var scan = kv
        var pairs = 0
        while try scan.readVarint() != 0 {
            _ = try scan.readVarint()
            pairs += 1
        }
        guard pairs > 0 else {
            kv = scan
            return tags
        }
        tags.reserveCapacity(pairs)
        for _ in 0..<pairs {
            try table.appendTag(key: try kv.readVarint(), value: try kv.readVarint(), to: &tags, ignored: &ignored)
        }
        kv = scan
        return tags
    }

    /// `Node { id = 1; keys = 2; vals = 3; info = 4; lat = 8; lon = 9 }` (non-dense nodes).
    static func node<Content>(_ bytes: UnsafeRawBufferPointer, _ table: StringTable, _ scale: BlockScale, _ includesMetadata: Bool, _ out: inout DecodedBlock<Content>) throws(WireError) {
        var lat: Int64 = 0, lon: Int64 = 0
        var r = WireReader(bytes)
        var head = ElementFields()
        while let other = try head.read(&r, signedID: true, table, scale, includesMetadata) {
            switch other {
            case (8, .varint): lat = try r.readSignedVarint()
            case (9, .varint): lon = try r.readSignedVarint()
            default: try r.skip(other.wire)
            }
        }
        let tags = try tags(keys: head.keys, values: head.values, table, ignored: &out.ignoredTags)
        guard let (la, lo) = scale.fixed(lat: lat, lon: lon) else { out.rejectedNodes += 1; return }
        out.block.addNode(id: head.id, latitudeE7: la, longitudeE7: lo, tags: tags, metadata: head.metadata)
    }

    /// The fields every element message (`Node`, `Way`, `Relation`) has: `id = 1` (sint64 in a
    /// `Node`, int64 in the others), `keys = 2`, `vals = 3`, `info = 4`.
    struct ElementFields {
        var id: Int64 = 0
        var keys = UnsafeRawBufferPointer(start: nil, count: 0)
        var values = UnsafeRawBufferPointer(start: nil, count: 0)
        /// The decoded `info`, when metadata is read.
        var metadata: OSMMetadata?

        /// Reads the element message's fields from `r` into these until one of another number:
        /// returns its number and wire type with `r` at its value, for the caller to read or
        /// skip; nil at the message's end. `info` is decoded only when `includesMetadata`.
        ///
        /// A loop in the caller rather than a closure that returns the fields (6d4c17d), which
        /// copied them out: 0.7 % more of OSMBench's instructions on monaco.osm.pbf (callgrind).
        @inline(__always)
        mutating func read(_ r: inout WireReader, signedID: Bool, _ table: StringTable, _ scale: BlockScale,
                           _ includesMetadata: Bool) throws(WireError) -> (field: UInt64, wire: WireType)? {
            while !r.isAtEnd {
                let (field, wire) = try r.readKey()
                switch (field, wire) {
                case (1, .varint): id = try signedID ? r.readSignedVarint() : r.readInt64()
                case (2, .lengthDelimited): keys = try r.readBytes()
                case (3, .lengthDelimited): values = try r.readBytes()
                case (4, .lengthDelimited):
                    let b = try r.readBytes()
                    if includesMetadata { metadata = try info(b, table, scale) }
                default: return (field, wire)
                }
            }
            return nil
        }
    }

    /// `DenseNodes { id = 1 (sint64, delta); denseinfo = 5; lat = 8, lon = 9 (sint64, delta);
    /// keys_vals = 10 (int32: key, value pairs, 0 ends a node) }`.
    static func denseNodes<Content>(_ bytes: UnsafeRawBufferPointer, _ table: StringTable, _ scale: BlockScale, _ includesMetadata: Bool, _ out: inout DecodedBlock<Content>) throws(WireError) {
        var r = WireReader(bytes)
        var idBytes = UnsafeRawBufferPointer(start: nil, count: 0), latBytes = idBytes, lonBytes = idBytes, kvBytes = idBytes, infoBytes = idBytes
        while !r.isAtEnd {
            let (field, wire) = try r.readKey()
            switch (field, wire) {
            case (1, .lengthDelimited): idBytes = try r.readBytes()
            case (5, .lengthDelimited): infoBytes = try r.readBytes()
            case (8, .lengthDelimited): latBytes = try r.readBytes()
            case (9, .lengthDelimited): lonBytes = try r.readBytes()
            case (10, .lengthDelimited): kvBytes = try r.readBytes()
            default: try r.skip(wire)
            }
        }
        var ids = WireReader(idBytes), lats = WireReader(latBytes), lons = WireReader(lonBytes), kv = WireReader(kvBytes)
        let hasTags = kvBytes.count > 0

        // DenseInfo { version = 1; timestamp = 2 (delta); changeset = 3 (delta); uid = 4 (delta);
        // user_sid = 5 (delta); visible = 6 }, all packed.
        let withInfo = includesMetadata && infoBytes.count > 0
        var versions = WireReader(), times = WireReader(), changesets = WireReader(), uids = WireReader(), users = WireReader(), visibles = WireReader()
        if withInfo {
            var i = WireReader(infoBytes)
            while !i.isAtEnd {
                let (field, wire) = try i.readKey()
                switch (field, wire) {
                case (1, .lengthDelimited): versions = WireReader(try i.readBytes())
                case (2, .lengthDelimited): times = WireReader(try i.readBytes())
                case (3, .lengthDelimited): changesets = WireReader(try i.readBytes())
                case (4, .lengthDelimited): uids = WireReader(try i.readBytes())
                case (5, .lengthDelimited): users = WireReader(try i.readBytes())
                case (6, .lengthDelimited): visibles = WireReader(try i.readBytes())
                default: try i.skip(wire)
                }
            }
        }

        if Content.buildsElements { out.block.reserveNodeCapacity(WireReader.varintCount(idBytes)) }
        var id: Int64 = 0, lat: Int64 = 0, lon: Int64 = 0
        var time: Int64 = 0, changeset: Int64 = 0, uid: Int64 = 0, user: Int64 = 0
        while !ids.isAtEnd {
            id &+= try ids.readSignedVarint()
            lat &+= try lats.readSignedVarint()
            lon &+= try lons.readSignedVarint()
            let tags = hasTags ? try denseTags(&kv, table, ignored: &out.ignoredTags) : OSMTags()
            var metadata: OSMMetadata?
            if withInfo {
                var m = OSMMetadata()
                if !versions.isAtEnd { m.version = Int32(truncatingIfNeeded: try versions.readInt64()) }
                if !times.isAtEnd { time &+= try times.readSignedVarint(); m.timestamp = scale.seconds(time) }
                if !changesets.isAtEnd { changeset &+= try changesets.readSignedVarint(); m.changeset = changeset }
                if !uids.isAtEnd { uid &+= try uids.readSignedVarint(); m.uid = Int32(truncatingIfNeeded: uid) }
                if !users.isAtEnd {
                    user &+= try users.readSignedVarint()
                    guard user >= 0 else { throw WireError("negative user_sid") }
                    m.user = try table.string(UInt64(user))
                }
                if !visibles.isAtEnd { m.visible = try visibles.readVarint() != 0 }
                metadata = m
            }
            guard let (la, lo) = scale.fixed(lat: lat, lon: lon) else { out.rejectedNodes += 1; continue }
            out.block.addNode(id: id, latitudeE7: la, longitudeE7: lo, tags: tags, metadata: metadata)
        }
    }

    /// `Way { id = 1; keys = 2; vals = 3; info = 4; refs = 8 (sint64, delta); lat = 9; lon = 10 }`;
    /// the optional LocationsOnWays coordinates are skipped.
    ///
    /// Never inlined: inlined into `primitiveBlock` (since 6d4c17d), its ref loop called
    /// `readSignedVarint` and `reserveCapacity` out of line, +4.5 % of OSMBench's instructions
    /// on monaco.osm.pbf (callgrind); in a function of its own the optimizer inlines them.
    @inline(never)
    static func way(_ bytes: UnsafeRawBufferPointer, _ table: StringTable, _ scale: BlockScale, _ includesMetadata: Bool, _ ignored: inout Int) throws(WireError) -> OSMWay {
        var refBytes = UnsafeRawBufferPointer(start: nil, count: 0)
        var r = WireReader(bytes)
        var head = ElementFields()
        while let other = try head.read(&r, signedID: false, table, scale, includesMetadata) {
            if case (8, .lengthDelimited) = other { refBytes = try r.readBytes() } else { try r.skip(other.wire) }
        }
        let tags = try tags(keys: head.keys, values: head.values, table, ignored: &ignored)
        var refs: [Int64] = []
        var refReader = WireReader(refBytes)
        if table.holdsStrings {
            refs.reserveCapacity(WireReader.varintCount(refBytes))
            var ref: Int64 = 0
            while !refReader.isAtEnd {
                ref &+= try refReader.readSignedVarint()
                refs.append(ref)
            }
        } else {
            while !refReader.isAtEnd { _ = try refReader.readVarint() }
        }
        return OSMWay(id: head.id, nodeRefs: refs, tags: tags, metadata: head.metadata)
    }

    /// `Relation { id = 1; keys = 2; vals = 3; info = 4; roles_sid = 8; memids = 9 (sint64, delta);
    /// types = 10 (NODE = 0, WAY = 1, RELATION = 2) }`.
    static func relation(_ bytes: UnsafeRawBufferPointer, _ table: StringTable, _ scale: BlockScale, _ includesMetadata: Bool, _ ignored: inout Int) throws(WireError) -> OSMRelation {
        var roleBytes = UnsafeRawBufferPointer(start: nil, count: 0), idBytes = roleBytes, typeBytes = roleBytes
        var r = WireReader(bytes)
        var head = ElementFields()
        while let other = try head.read(&r, signedID: false, table, scale, includesMetadata) {
            switch other {
            case (8, .lengthDelimited): roleBytes = try r.readBytes()
            case (9, .lengthDelimited): idBytes = try r.readBytes()
            case (10, .lengthDelimited): typeBytes = try r.readBytes()
            default: try r.skip(other.wire)
            }
        }
        let tags = try tags(keys: head.keys, values: head.values, table, ignored: &ignored)
        var members: [OSMMember] = []
        if table.holdsStrings { members.reserveCapacity(WireReader.varintCount(idBytes)) }
        var roles = WireReader(roleBytes), ids = WireReader(idBytes), types = WireReader(typeBytes)
        var ref: Int64 = 0
        while !ids.isAtEnd {
            ref &+= try ids.readSignedVarint()
            let role = try table.string(UInt64(truncatingIfNeeded: try roles.readInt64()))
            let rawType = try types.readVarint()
            guard rawType <= 2, let type = OSMElementType(rawValue: UInt8(rawType)) else {
                throw WireError("relation \(head.id) has member type \(rawType)")
            }
            if table.holdsStrings { members.append(OSMMember(type: type, ref: ref, role: role)) }
        }
        return OSMRelation(id: head.id, members: members, tags: tags, metadata: head.metadata)
    }
}
