public import Foundation
import GeoBase
import GeoCore
import MapData
import SystemIO
import XMLStreaming
import ZlibCompression

/// Reads OpenStreetMap XML (`.osm`, API 0.6 format, https://wiki.openstreetmap.org/wiki/OSM_XML),
/// plain or gzip-compressed (`.osm.gz`, detected from the gzip magic bytes, not the name).
///
/// XMLStreaming's byte-level pull scanner (the one GPXCodec uses; no DOM, no Foundation
/// XMLParser) over the file read in 1 MiB chunks, inflated on the fly when gzipped; elements
/// are handed to the caller in blocks of `options.blockSize`, so memory grows with what the
/// caller keeps. Handles the XML declaration, comments, CDATA, DOCTYPE, both quote styles and
/// the five predefined plus numeric character references, normalizes white space in attribute
/// values (XML 1.0 §3.3.3, as expat-based osmium does) and checks tag nesting; elements other
/// than `node`, `way`, `relation`, `bounds` and their children (Overpass `<note>`, `<meta>`,
/// changesets) are skipped, and so is character data.
public struct OSMXMLReader: Sendable {
    /// The file being read.
    public let url: URL
    public let options: OSMReadOptions

    public init(url: URL, options: OSMReadOptions = OSMReadOptions()) {
        self.url = url
        self.options = options
    }

    /// Reads the whole file, calling `body` with blocks of elements in file order.
    /// - Returns: counts, the `<bounds>` as the header's bounding box, and what was dropped.
    /// - Throws: `OSMError` `.invalidXML` / `.truncated` with byte offset, line and column
    ///   (elements before the error have been delivered), `.io`, or whatever `body` throws.
    /// - Complexity: O(file size).
    @discardableResult
    public func read(_ body: (OSMElementBlock) throws -> Void) throws -> OSMReadSummary {
        let descriptor: FileDescriptor
        do { descriptor = try FileDescriptor(opening: url.path) } catch {
            throw OSMError(.io, "\(error)")
        }
        defer { try? descriptor.close() }
        let chunks = FileChunks(descriptor: descriptor)
        return try Self.parse(chunks: { try chunks.next() }, options: options, body)
    }

    /// Parses OSM XML held in memory (plain or gzipped), as `read(_:)` does for a file.
    @discardableResult
    public static func read(bytes: [UInt8], options: OSMReadOptions = OSMReadOptions(), _ body: (OSMElementBlock) throws -> Void) throws -> OSMReadSummary {
        var given = false
        return try parse(chunks: {
            if given { return nil }
            given = true
            return bytes
        }, options: options, body)
    }

    /// The file in chunks of up to `size` bytes (1 MiB).
    struct FileChunks {
        let descriptor: FileDescriptor
        var size = 1 << 20
        func next() throws(OSMError) -> [UInt8]? {
            var failure: SystemIOError?
            let chunk = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
                do throws(SystemIOError) {
                    count = try descriptor.read(into: UnsafeMutableRawBufferPointer(buffer))
                } catch {
                    count = 0
                    failure = error
                }
            }
            if let failure { throw OSMError(.io, "\(failure)") }
            return chunk.isEmpty ? nil : chunk
        }
    }

    /// Parses the bytes `next` hands out chunk by chunk (until nil), plain or gzipped.
    static func parse(chunks next: () throws -> [UInt8]?, options: OSMReadOptions, _ body: (OSMElementBlock) throws -> Void) throws -> OSMReadSummary {
        // The scanner keeps its source for the whole read, which ends before this call returns.
        try withoutActuallyEscaping(next) { next in
            var parser = OSMXMLParser(source: OSMXMLSource(chunks: next), options: options)
            while true {
                let block: OSMElementBlock?
                do {
                    block = try parser.nextBlock()
                } catch {
                    // Elements before the error are delivered before it is thrown.
                    if let partial = parser.takePartialBlock() {
                        parser.summary.add(partial)
                        try body(partial)
                    }
                    throw error
                }
                guard let block else { return parser.summary }
                parser.summary.add(block)
                try body(block)
            }
        }
    }
}

/// Serves the chunks of `OSMXMLReader.parse`, inflated when the first bytes are the gzip magic.
///
/// Compressed input is inflated `inflateStep` bytes at a time: deflate expands at most 1032:1
/// (zlib's technical details), so the inflated bytes waiting to be scanned stay under about
/// 1 MiB however well the input compresses (a gigabyte of white space is a megabyte of gzip).
struct OSMXMLSource: ByteSource {
    let chunks: () throws -> [UInt8]?
    private var pending: [UInt8] = []
    private var position = 0
    private var inflater: Inflater?
    /// The compressed chunk being inflated and how much of it has been.
    private var compressed: [UInt8] = []
    private var inflated = 0
    private var first = true
    private var done = false
    /// Decompressed bytes served so far (the XML offset of the next byte).
    private var served = 0

    /// Compressed bytes inflated per refill.
    static let inflateStep = 1024

    /// Inflated bytes held for the scanner (at most about 1032 × `inflateStep`).
    var bufferedBytes: Int { pending.count }

    init(chunks: @escaping () throws -> [UInt8]?) {
        self.chunks = chunks
    }

    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        while position == pending.count {
            pending.removeAll(keepingCapacity: true)
            position = 0
            if let inflater, inflated < compressed.count {
                let end = min(inflated + Self.inflateStep, compressed.count)
                do {
                    try compressed[inflated..<end].withUnsafeBytes { raw in try inflater.inflate(raw, into: &pending) }
                } catch {
                    throw OSMError(.corrupted, "gzip: \(PBFDecoder.describe(error))", offset: served)
                }
                inflated = end
                continue
            }
            if done { return 0 }
            guard let chunk = try chunks() else {
                done = true
                if let inflater, !inflater.isComplete {
                    throw OSMError(.truncated, "gzip stream ends before its end marker", offset: served)
                }
                return 0
            }
            if first {
                first = false
                if chunk.count >= 2, chunk[0] == 0x1F, chunk[1] == 0x8B {
                    // No total limit: the XML is consumed as it inflates, `inflateStep` compressed
                    // bytes (at most about 1 MiB inflated) at a time, and the scanner bounds a token.
                    do { inflater = try Inflater(format: .gzip, limit: .max) } catch { throw OSMError(.io, error.message) }
                }
            }
            if inflater == nil {
                pending = chunk
            } else {
                compressed = chunk
                inflated = 0
            }
        }
        let n = min(buffer.count, pending.count - position)
        pending.withUnsafeBytes { src in
            buffer.baseAddress?.copyMemory(from: src.baseAddress! + position, byteCount: n)
        }
        position += n
        served += n
        return n
    }
}

/// Builds OSM elements from the scanner's tokens.
struct OSMXMLParser {
    let options: OSMReadOptions
    var summary = OSMReadSummary()

    private var scanner: XMLScanner
    private var block = OSMElementBlock()
    private enum Open { case none, node, way, relation }
    private var open = Open.none
    private var node = OSMNode(id: 0, latitudeE7: 0, longitudeE7: 0)
    private var nodeValid = true
    private var way = OSMWay(id: 0, nodeRefs: [])
    private var relation = OSMRelation(id: 0, members: [])
    private var sawRoot = false
    private var finished = false
    /// Decoded attribute text (reused, no per-tag allocation).
    private var decoded = XMLByteBuffer()

    init(source: some ByteSource, options: OSMReadOptions) {
        self.options = options
        scanner = XMLScanner(source: source)
        scanner.discardsText = true // character data is skipped; this bounds the window
    }

    /// Reads up to the next full block (or the last, partial one); nil at the end.
    /// - Throws: `OSMError` `.invalidXML` / `.truncated` with offset, line and column, or the
    ///   source's own `OSMError`.
    mutating func nextBlock() throws(OSMError) -> OSMElementBlock? {
        if finished { return takePartialBlock() }
        while true {
            let kind: XMLTokenKind
            do { kind = try scanner.next() } catch { throw Self.osmError(error) }
            switch kind {
            case .startTag:
                try handleStart()
            case .endTag:
                try handleEnd()
            case .endOfInput:
                guard sawRoot else { throw error(.invalidXML, "no <osm> root element", at: scanner.endOffset) }
                finished = true
                return takePartialBlock()
            default:
                // Character data between tags (whitespace, Overpass's <note> text), comments,
                // declarations carry no OSM data.
                continue
            }
            if block.count >= options.blockSize { return takePartialBlock() }
        }
    }

    /// The elements read since the last block, if any.
    mutating func takePartialBlock() -> OSMElementBlock? {
        guard block.count > 0 else { return nil }
        defer { block = OSMElementBlock() }
        return block
    }

    /// The scanner's error as an `OSMError` (a source's own `OSMError` passes through).
    private static func osmError(_ e: XMLError) -> OSMError {
        if e.code == .io, let own = e.underlying as? OSMError { return own }
        let code: OSMError.Code = e.code == .truncated ? .truncated : e.code == .io ? .io : .invalidXML
        return OSMError(code, e.message, offset: e.offset, line: e.line, column: e.column)
    }

    /// An error located at an absolute offset (by default the current tag's `<`).
    private func error(_ code: OSMError.Code, _ message: String, at offset: Int? = nil) -> OSMError {
        let at = offset ?? scanner.tokenOffset
        let (line, column) = scanner.location(of: at)
        return OSMError(code, message, offset: at, line: line, column: column)
    }

    /// The window as a buffer, for the value parsers; valid until the next token.
    private var window: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: scanner.buf, count: scanner.end) }

    private mutating func handleEnd() throws(OSMError) {
        let name = scanner.nameRange
        switch name.count {
        case 4 where scanner.equals(name, "node"):
            guard open == .node else { throw error(.invalidXML, "</node> without <node>") }
            closeElement()
        case 3 where scanner.equals(name, "way"):
            guard open == .way else { throw error(.invalidXML, "</way> without <way>") }
            closeElement()
        case 8 where scanner.equals(name, "relation"):
            guard open == .relation else { throw error(.invalidXML, "</relation> without <relation>") }
            closeElement()
        default:
            break
        }
    }

    private mutating func handleStart() throws(OSMError) {
        let b = window
        let name = scanner.nameRange
        if scanner.equals(name, "nd") {
            guard open == .way else { throw error(.invalidXML, "<nd> outside a way") }
            way.nodeRefs.append(try integer(b, scanner.attribute("ref"), "ref"))
        } else if scanner.equals(name, "tag") {
            guard open != .none else { return }
            guard let k = scanner.attribute("k"), let v = scanner.attribute("v") else {
                throw error(.invalidXML, "<tag> needs k and v")
            }
            let key = try text(k), value = try text(v)
            guard TagRules.isAcceptable(key: key, value: value) else { summary.ignoredTagCount += 1; return }
            switch open {
            case .node: node.tags.append(key: key, value: value)
            case .way: way.tags.append(key: key, value: value)
            case .relation: relation.tags.append(key: key, value: value)
            case .none: break
            }
        } else if scanner.equals(name, "node") {
            guard open == .none else { throw error(.invalidXML, "<node> inside another element") }
            let id = try integer(b, scanner.attribute("id"), "id")
            nodeValid = true
            var lat: Int32 = 0, lon: Int32 = 0
            if let la = scanner.attribute("lat"), let lo = scanner.attribute("lon"),
               let fla = Self.fixedPoint(b, la), let flo = Self.fixedPoint(b, lo),
               fla >= -900_000_000, fla <= 900_000_000, flo >= -1_800_000_000, flo <= 1_800_000_000 {
                lat = Int32(fla)
                lon = Int32(flo)
            } else if scanner.attribute("visible").map({ scanner.equals($0, "false") }) != true {
                // A deleted node in a history file has no position; anything else is absurd.
                nodeValid = false
            }
            node = OSMNode(id: id, latitudeE7: lat, longitudeE7: lon, metadata: try metadata(b))
            opening(.node)
        } else if scanner.equals(name, "way") {
            guard open == .none else { throw error(.invalidXML, "<way> inside another element") }
            way = OSMWay(id: try integer(b, scanner.attribute("id"), "id"), nodeRefs: [], metadata: try metadata(b))
            opening(.way)
        } else if scanner.equals(name, "member") {
            guard open == .relation else { throw error(.invalidXML, "<member> outside a relation") }
            guard let t = scanner.attribute("type") else { throw error(.invalidXML, "<member> needs a type") }
            let type: OSMElementType
            if scanner.equals(t, "node") { type = .node } else if scanner.equals(t, "way") { type = .way } else if scanner.equals(t, "relation") { type = .relation } else {
                throw error(.invalidXML, "unknown member type")
            }
            let ref = try integer(b, scanner.attribute("ref"), "ref")
            let role = try scanner.attribute("role").map { r throws(OSMError) in try text(r) } ?? ""
            relation.members.append(OSMMember(type: type, ref: ref, role: role))
        } else if scanner.equals(name, "relation") {
            guard open == .none else { throw error(.invalidXML, "<relation> inside another element") }
            relation = OSMRelation(id: try integer(b, scanner.attribute("id"), "id"), members: [], metadata: try metadata(b))
            opening(.relation)
        } else if scanner.equals(name, "osm") {
            sawRoot = true
            var header = OSMHeader(requiredFeatures: [])
            header.writingProgram = try scanner.attribute("generator").map { r throws(OSMError) in try text(r) }
            summary.header = summary.header ?? header
        } else if scanner.equals(name, "bounds") {
            if let s = scanner.attribute("minlat").flatMap({ Self.fixedPoint(b, $0) }), let w = scanner.attribute("minlon").flatMap({ Self.fixedPoint(b, $0) }),
               let nn = scanner.attribute("maxlat").flatMap({ Self.fixedPoint(b, $0) }), let e = scanner.attribute("maxlon").flatMap({ Self.fixedPoint(b, $0) }) {
                var header = summary.header ?? OSMHeader(requiredFeatures: [])
                header.boundingBox = try? BoundingBox(south: Double(s) / 1e7, west: Double(w) / 1e7, north: Double(nn) / 1e7, east: Double(e) / 1e7)
                summary.header = header
            }
        }
    }

    /// Marks an element open (the block's offset is its first element's), closing it at once
    /// when its tag is self-closing.
    private mutating func opening(_ element: Open) {
        if block.count == 0 { block.byteOffset = scanner.tokenOffset }
        open = element
        if scanner.selfClosing { closeElement() }
    }

    private mutating func closeElement() {
        switch open {
        case .node:
            if nodeValid { block.nodes.append(node) } else { summary.rejectedNodeCount += 1 }
        case .way: block.ways.append(way)
        case .relation: block.relations.append(relation)
        case .none: break
        }
        open = .none
    }

    /// The element's metadata attributes; a value that does not parse is optional data gone bad,
    /// so it is dropped and counted (``OSMReadSummary/droppedMetadataValueCount``), not the file.
    private mutating func metadata(_ b: UnsafeBufferPointer<UInt8>) throws(OSMError) -> OSMMetadata? {
        guard options.includesMetadata else { return nil }
        var m = OSMMetadata()
        var any = false
        var dropped = 0
        /// Stores a value that parsed; counts one that did not.
        func keep<Value>(_ value: Value?, _ store: (Value) -> Void) {
            if let value { store(value); any = true } else { dropped += 1 }
        }
        if let r = scanner.attribute("version") { keep(Self.decimal(b, r).flatMap(Int32.init(exactly:))) { m.version = $0 } }
        if let r = scanner.attribute("changeset") { keep(Self.decimal(b, r)) { m.changeset = $0 } }
        if let r = scanner.attribute("uid") { keep(Self.decimal(b, r).flatMap(Int32.init(exactly:))) { m.uid = $0 } }
        if let r = scanner.attribute("timestamp") { keep(ISO8601Time.epochSeconds(canonical: UnsafeBufferPointer(rebasing: b[r]))) { m.timestamp = $0 } }
        if let r = scanner.attribute("user") { m.user = try text(r); any = true }
        if let r = scanner.attribute("visible") { m.visible = !scanner.equals(r, "false"); any = true }
        summary.droppedMetadataValueCount += dropped
        return any ? m : nil
    }

    /// A required integer attribute (`id`, `ref`): missing or malformed is an error.
    private func integer(_ b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>?, _ name: String) throws(OSMError) -> Int64 {
        guard let range else { throw error(.invalidXML, "missing attribute \(name)") }
        guard let v = Self.decimal(b, range) else { throw error(.invalidXML, "attribute \(name) is not a 64-bit integer") }
        return v
    }

    /// `-?[0-9]+` as a 64-bit integer; nil when malformed or out of range.
    static func decimal(_ b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int64? {
        var i = range.lowerBound
        var negative = false
        if i < range.upperBound, b[i] == 0x2D { negative = true; i += 1 }
        guard i < range.upperBound else { return nil }
        var v: Int64 = 0
        while i < range.upperBound {
            let d = b[i] &- 0x30
            guard d < 10 else { return nil }
            let (m, o1) = v.multipliedReportingOverflow(by: 10)
            let (s, o2) = m.addingReportingOverflow(Int64(d))
            guard !o1, !o2 else { return nil }
            v = s
            i += 1
        }
        return negative ? -v : v
    }

    /// A decimal degree value as 1e-7 units, rounded half away from zero; nil when malformed.
    static func fixedPoint(_ b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int64? {
        var i = range.lowerBound
        let end = range.upperBound
        var negative = false
        if i < end, b[i] == 0x2D || b[i] == 0x2B { negative = b[i] == 0x2D; i += 1 }
        var whole: Int64 = 0, fraction: Int64 = 0, digits = 0, roundUp = false, sawDigit = false
        while i < end, b[i] &- 0x30 < 10 {
            whole = whole * 10 + Int64(b[i] - 0x30)
            guard whole < 10_000_000_000 else { return nil }
            sawDigit = true
            i += 1
        }
        if i < end, b[i] == 0x2E {
            i += 1
            while i < end, b[i] &- 0x30 < 10 {
                if digits < 7 { fraction = fraction * 10 + Int64(b[i] - 0x30); digits += 1 } else if digits == 7 { roundUp = b[i] >= 0x35; digits += 1 }
                sawDigit = true
                i += 1
            }
        }
        if i != end {
            // Exponent or other forms: fall back to the general parser.
            guard let d = Double(String(decoding: UnsafeBufferPointer(rebasing: b[range]), as: UTF8.self)), d.isFinite, abs(d) < 1000 else { return nil }
            return Int64((d * 1e7).rounded())
        }
        guard sawDigit else { return nil }
        for _ in min(digits, 7)..<7 { fraction *= 10 }
        let v = whole * 10_000_000 + fraction + (roundUp ? 1 : 0)
        return negative ? -v : v
    }

    /// Attribute text with references decoded and white space normalized (XML 1.0 §3.3.3, §4.1, §4.6).
    private mutating func text(_ r: Range<Int>) throws(OSMError) -> String {
        decoded.reset()
        do { try scanner.appendDecoded(r, to: &decoded, normalizeSpace: true) } catch {
            throw Self.osmError(error)
        }
        return decoded.string()
    }
}
