public import Foundation
import GeoCore
import SystemIO
import ZlibCompression

/// Reads OpenStreetMap XML (`.osm`, API 0.6 format, https://wiki.openstreetmap.org/wiki/OSM_XML),
/// plain or gzip-compressed (`.osm.gz`, detected from the gzip magic bytes, not the name).
///
/// A small hand-written tokenizer over bytes (no DOM, no Foundation XMLParser): the file is
/// read in 1 MiB chunks, inflated on the fly when gzipped, and elements are handed to the
/// caller in blocks of `options.blockSize`, so memory grows with what the caller keeps.
/// Handles the XML declaration, comments, CDATA, DOCTYPE, both quote styles and the five
/// predefined plus numeric character references; elements other than `node`, `way`,
/// `relation`, `bounds` and their children (Overpass `<note>`, `<meta>`, changesets) are
/// skipped, and so is character data.
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

    /// The file in chunks of up to 1 MiB.
    private struct FileChunks {
        let descriptor: FileDescriptor
        func next() throws(OSMError) -> [UInt8]? {
            var failure: SystemIOError?
            let chunk = [UInt8](unsafeUninitializedCapacity: 1 << 20) { buffer, count in
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
        let parser = OSMXMLParser(options: options)
        var pending: [UInt8] = []
        var inflater: Inflater?
        var first = true
        while let chunk = try next() {
            if first {
                first = false
                if chunk.count >= 2, chunk[0] == 0x1F, chunk[1] == 0x8B {
                    do { inflater = try Inflater(format: .gzip) } catch {
                        throw OSMError(.io, error.message)
                    }
                }
            }
            if let inflater {
                do {
                    try chunk.withUnsafeBytes { raw in try inflater.inflate(raw, into: &pending) }
                } catch {
                    try flush(parser, body, final: true)
                    throw OSMError(.corrupted, "gzip: \(PBFDecoder.describe(error))", offset: parser.absoluteOffset(pending.count))
                }
            } else {
                pending.append(contentsOf: chunk)
            }
            let used: Int
            do {
                used = try pending.withUnsafeBufferPointer { buffer in try parser.consume(buffer, isFinal: false) }
            } catch {
                try flush(parser, body, final: true)
                throw error
            }
            parser.discard(pending[0..<used])
            pending.removeSubrange(0..<used)
            try flush(parser, body)
        }
        if let inflater, !inflater.isComplete {
            try flush(parser, body, final: true)
            throw OSMError(.truncated, "gzip stream ends before its end marker", offset: parser.absoluteOffset(pending.count))
        }
        do {
            _ = try pending.withUnsafeBufferPointer { buffer in try parser.consume(buffer, isFinal: true) }
            try parser.finish()
        } catch {
            try flush(parser, body, final: true)
            throw error
        }
        try flush(parser, body, final: true)
        return parser.summary
    }

    private static func flush(_ parser: OSMXMLParser, _ body: (OSMElementBlock) throws -> Void, final: Bool = false) throws {
        for block in parser.takeReadyBlocks(final: final) {
            parser.summary.add(block)
            try body(block)
        }
    }
}

/// The streaming OSM XML tokenizer and element builder.
final class OSMXMLParser {
    let options: OSMReadOptions
    var summary = OSMReadSummary()

    private var ready: [OSMElementBlock] = []
    private var block = OSMElementBlock()
    private enum Open { case none, node, way, relation }
    private var open = Open.none
    private var node = OSMNode(id: 0, latitudeE7: 0, longitudeE7: 0)
    private var nodeValid = true
    private var way = OSMWay(id: 0, nodeRefs: [])
    private var relation = OSMRelation(id: 0, members: [])
    private var sawRoot = false

    /// Absolute offset of the start of the current buffer, and line bookkeeping for it.
    private var baseOffset = 0
    private var baseLine = 1
    private var baseColumn = 1

    /// Attribute name and value ranges of the tag being handled (reused, no per-tag allocation).
    private var attributes: [(name: Range<Int>, value: Range<Int>)] = []

    init(options: OSMReadOptions) {
        self.options = options
        attributes.reserveCapacity(16)
    }

    func absoluteOffset(_ index: Int) -> Int { baseOffset + index }

    /// Forgets bytes already consumed, keeping line and column counts.
    func discard(_ bytes: ArraySlice<UInt8>) {
        for b in bytes {
            if b == 0x0A { baseLine += 1; baseColumn = 1 } else { baseColumn += 1 }
        }
        baseOffset += bytes.count
    }

    func takeReadyBlocks(final: Bool) -> [OSMElementBlock] {
        if final, block.count > 0 {
            ready.append(block)
            block = OSMElementBlock()
        }
        defer { ready.removeAll() }
        return ready
    }

    func finish() throws(OSMError) {
        guard open == .none else {
            throw OSMError(.truncated, "file ends inside an element", offset: baseOffset, line: baseLine, column: baseColumn)
        }
        guard sawRoot else {
            throw OSMError(.invalidXML, "no <osm> root element", offset: baseOffset, line: baseLine, column: baseColumn)
        }
    }

    private func error(_ code: OSMError.Code, _ message: String, at index: Int, in buffer: UnsafeBufferPointer<UInt8>) -> OSMError {
        var line = baseLine, column = baseColumn
        for i in 0..<min(index, buffer.count) {
            if buffer[i] == 0x0A { line += 1; column = 1 } else { column += 1 }
        }
        return OSMError(code, message, offset: baseOffset + index, line: line, column: column)
    }

    /// Consumes every complete piece of markup; returns how many bytes were used. With
    /// `isFinal` an incomplete tag is an error (the file was cut).
    func consume(_ buffer: UnsafeBufferPointer<UInt8>, isFinal: Bool) throws(OSMError) -> Int {
        var p = 0
        let n = buffer.count
        while p < n {
            // Character data between tags (whitespace, Overpass's <note> text) carries no OSM data.
            guard let lt = Self.find(0x3C, in: buffer, from: p) else { return n }
            guard let (end, tagResult) = try scanMarkup(buffer, at: lt) else {
                if isFinal { throw error(.truncated, "file ends inside markup", at: lt, in: buffer) }
                return lt
            }
            if let tagResult { try handle(tagResult, buffer, at: lt) }
            p = end
        }
        return n
    }

    @inline(__always)
    private static func find(_ byte: UInt8, in b: UnsafeBufferPointer<UInt8>, from: Int) -> Int? {
        guard from < b.count, let base = b.baseAddress else { return nil }
        guard let hit = memchr(base + from, Int32(byte), b.count - from) else { return nil }
        return base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
    }

    private static func find(_ pattern: StaticString, in b: UnsafeBufferPointer<UInt8>, from: Int) -> Int? {
        let pat = UnsafeBufferPointer(start: pattern.utf8Start, count: pattern.utf8CodeUnitCount)
        var i = from
        while let hit = find(pat[0], in: b, from: i) {
            if hit + pat.count > b.count { return nil }
            var ok = true
            for j in 1..<pat.count where b[hit + j] != pat[j] { ok = false; break }
            if ok { return hit }
            i = hit + 1
        }
        return nil
    }

    /// A tag found by the scanner: its name range, whether it closes, whether it self-closes.
    struct Tag {
        var name: Range<Int>
        var isEnd: Bool
        var selfClosing: Bool
    }

    @inline(__always)
    private static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 }

    /// Scans markup at `<`: returns the index after it and the tag (nil for declarations,
    /// comments, CDATA), or nil when the buffer ends first. Attributes land in `attributes`.
    private func scanMarkup(_ b: UnsafeBufferPointer<UInt8>, at lt: Int) throws(OSMError) -> (Int, Tag?)? {
        let n = b.count
        guard lt + 1 < n else { return nil }
        switch b[lt + 1] {
        case 0x3F: // <? … ?>
            guard let e = Self.find("?>", in: b, from: lt + 2) else { return nil }
            return (e + 2, nil)
        case 0x21: // <!-- … -->, <![CDATA[ … ]]>, <!DOCTYPE … >
            guard lt + 4 <= n else { return nil }
            if b[lt + 2] == 0x2D, b[lt + 3] == 0x2D {
                guard let e = Self.find("-->", in: b, from: lt + 4) else { return nil }
                return (e + 3, nil)
            }
            if b[lt + 2] == 0x5B {
                guard let e = Self.find("]]>", in: b, from: lt + 2) else { return nil }
                return (e + 3, nil)
            }
            guard let e = Self.find(0x3E, in: b, from: lt + 2) else { return nil }
            return (e + 1, nil)
        case 0x2F: // </name>
            guard let e = Self.find(0x3E, in: b, from: lt + 2) else { return nil }
            var nameEnd = lt + 2
            while nameEnd < e, !Self.isSpace(b[nameEnd]) { nameEnd += 1 }
            return (e + 1, Tag(name: lt + 2 ..< nameEnd, isEnd: true, selfClosing: false))
        default:
            attributes.removeAll(keepingCapacity: true)
            var p = lt + 1
            while p < n, !Self.isSpace(b[p]), b[p] != 0x2F, b[p] != 0x3E { p += 1 }
            let name = lt + 1 ..< p
            guard !name.isEmpty || p >= n else { throw error(.invalidXML, "a tag without a name", at: lt, in: b) }
            while true {
                while p < n, Self.isSpace(b[p]) { p += 1 }
                guard p < n else { return nil }
                if b[p] == 0x3E { return (p + 1, Tag(name: name, isEnd: false, selfClosing: false)) }
                if b[p] == 0x2F {
                    guard p + 1 < n else { return nil }
                    guard b[p + 1] == 0x3E else { throw error(.invalidXML, "'/' not followed by '>'", at: p, in: b) }
                    return (p + 2, Tag(name: name, isEnd: false, selfClosing: true))
                }
                let nameStart = p
                while p < n, b[p] != 0x3D, !Self.isSpace(b[p]), b[p] != 0x3E, b[p] != 0x2F { p += 1 }
                let attrName = nameStart ..< p
                while p < n, Self.isSpace(b[p]) { p += 1 }
                guard p < n else { return nil }
                guard b[p] == 0x3D, !attrName.isEmpty else { throw error(.invalidXML, "attribute without '='", at: p, in: b) }
                p += 1
                while p < n, Self.isSpace(b[p]) { p += 1 }
                guard p < n else { return nil }
                let quote = b[p]
                guard quote == 0x22 || quote == 0x27 else { throw error(.invalidXML, "attribute value without quotes", at: p, in: b) }
                guard let close = Self.find(quote, in: b, from: p + 1) else { return nil }
                attributes.append((attrName, p + 1 ..< close))
                p = close + 1
            }
        }
    }

    @inline(__always)
    private static func equals(_ b: UnsafeBufferPointer<UInt8>, _ r: Range<Int>, _ s: StaticString) -> Bool {
        guard r.count == s.utf8CodeUnitCount else { return false }
        let p = s.utf8Start
        for (i, j) in r.enumerated() where b[j] != p[i] { return false }
        return true
    }

    private func attribute(_ b: UnsafeBufferPointer<UInt8>, _ name: StaticString) -> Range<Int>? {
        for a in attributes where Self.equals(b, a.name, name) { return a.value }
        return nil
    }

    private func handle(_ tag: Tag, _ b: UnsafeBufferPointer<UInt8>, at lt: Int) throws(OSMError) {
        if tag.isEnd {
            if Self.equals(b, tag.name, "node") {
                guard open == .node else { throw error(.invalidXML, "</node> without <node>", at: lt, in: b) }
                closeElement()
            } else if Self.equals(b, tag.name, "way") {
                guard open == .way else { throw error(.invalidXML, "</way> without <way>", at: lt, in: b) }
                closeElement()
            } else if Self.equals(b, tag.name, "relation") {
                guard open == .relation else { throw error(.invalidXML, "</relation> without <relation>", at: lt, in: b) }
                closeElement()
            }
            return
        }
        let name = tag.name
        if Self.equals(b, name, "tag") {
            guard open != .none else { return }
            guard let k = attribute(b, "k"), let v = attribute(b, "v") else {
                throw error(.invalidXML, "<tag> needs k and v", at: lt, in: b)
            }
            let key = try text(b, k, at: lt), value = try text(b, v, at: lt)
            guard TagRules.isAcceptable(key: key, value: value) else { summary.ignoredTagCount += 1; return }
            switch open {
            case .node: node.tags.append(key: key, value: value)
            case .way: way.tags.append(key: key, value: value)
            case .relation: relation.tags.append(key: key, value: value)
            case .none: break
            }
        } else if Self.equals(b, name, "nd") {
            guard open == .way else { throw error(.invalidXML, "<nd> outside a way", at: lt, in: b) }
            way.nodeRefs.append(try integer(b, attribute(b, "ref"), "ref", at: lt))
        } else if Self.equals(b, name, "member") {
            guard open == .relation else { throw error(.invalidXML, "<member> outside a relation", at: lt, in: b) }
            guard let t = attribute(b, "type") else { throw error(.invalidXML, "<member> needs a type", at: lt, in: b) }
            let type: OSMElementType
            if Self.equals(b, t, "node") { type = .node } else if Self.equals(b, t, "way") { type = .way } else if Self.equals(b, t, "relation") { type = .relation } else {
                throw error(.invalidXML, "unknown member type", at: lt, in: b)
            }
            let ref = try integer(b, attribute(b, "ref"), "ref", at: lt)
            let role = try attribute(b, "role").map { r throws(OSMError) in try text(b, r, at: lt) } ?? ""
            relation.members.append(OSMMember(type: type, ref: ref, role: role))
        } else if Self.equals(b, name, "node") {
            guard open == .none else { throw error(.invalidXML, "<node> inside another element", at: lt, in: b) }
            let id = try integer(b, attribute(b, "id"), "id", at: lt)
            nodeValid = true
            var lat: Int32 = 0, lon: Int32 = 0
            if let la = attribute(b, "lat"), let lo = attribute(b, "lon"),
               let fla = Self.fixedPoint(b, la), let flo = Self.fixedPoint(b, lo),
               fla >= -900_000_000, fla <= 900_000_000, flo >= -1_800_000_000, flo <= 1_800_000_000 {
                lat = Int32(fla)
                lon = Int32(flo)
            } else if attribute(b, "visible").map({ Self.equals(b, $0, "false") }) != true {
                // A deleted node in a history file has no position; anything else is absurd.
                nodeValid = false
            }
            node = OSMNode(id: id, latitudeE7: lat, longitudeE7: lon, metadata: try metadata(b, at: lt))
            open = .node
            if tag.selfClosing { closeElement() }
        } else if Self.equals(b, name, "way") {
            guard open == .none else { throw error(.invalidXML, "<way> inside another element", at: lt, in: b) }
            way = OSMWay(id: try integer(b, attribute(b, "id"), "id", at: lt), nodeRefs: [], metadata: try metadata(b, at: lt))
            open = .way
            if tag.selfClosing { closeElement() }
        } else if Self.equals(b, name, "relation") {
            guard open == .none else { throw error(.invalidXML, "<relation> inside another element", at: lt, in: b) }
            relation = OSMRelation(id: try integer(b, attribute(b, "id"), "id", at: lt), members: [], metadata: try metadata(b, at: lt))
            open = .relation
            if tag.selfClosing { closeElement() }
        } else if Self.equals(b, name, "osm") {
            sawRoot = true
            var header = OSMHeader(requiredFeatures: [])
            header.writingProgram = try attribute(b, "generator").map { r throws(OSMError) in try text(b, r, at: lt) }
            summary.header = summary.header ?? header
        } else if Self.equals(b, name, "bounds") {
            if let s = attribute(b, "minlat").flatMap({ Self.fixedPoint(b, $0) }), let w = attribute(b, "minlon").flatMap({ Self.fixedPoint(b, $0) }),
               let nn = attribute(b, "maxlat").flatMap({ Self.fixedPoint(b, $0) }), let e = attribute(b, "maxlon").flatMap({ Self.fixedPoint(b, $0) }) {
                var header = summary.header ?? OSMHeader(requiredFeatures: [])
                header.boundingBox = try? BoundingBox(south: Double(s) / 1e7, west: Double(w) / 1e7, north: Double(nn) / 1e7, east: Double(e) / 1e7)
                summary.header = header
            }
        }
    }

    private func closeElement() {
        switch open {
        case .node:
            if nodeValid { block.nodes.append(node) } else { summary.rejectedNodeCount += 1 }
        case .way: block.ways.append(way)
        case .relation: block.relations.append(relation)
        case .none: break
        }
        open = .none
        if block.count >= options.blockSize {
            block.byteOffset = baseOffset
            ready.append(block)
            block = OSMElementBlock()
        }
    }

    private func metadata(_ b: UnsafeBufferPointer<UInt8>, at lt: Int) throws(OSMError) -> OSMMetadata? {
        guard options.includesMetadata else { return nil }
        var m = OSMMetadata()
        var any = false
        if let r = attribute(b, "version") { m.version = Int32(truncatingIfNeeded: try integer(b, r, "version", at: lt)); any = true }
        if let r = attribute(b, "changeset") { m.changeset = try integer(b, r, "changeset", at: lt); any = true }
        if let r = attribute(b, "uid") { m.uid = Int32(truncatingIfNeeded: try integer(b, r, "uid", at: lt)); any = true }
        if let r = attribute(b, "user") { m.user = try text(b, r, at: lt); any = true }
        if let r = attribute(b, "visible") { m.visible = !Self.equals(b, r, "false"); any = true }
        if let r = attribute(b, "timestamp") {
            guard let t = Self.timestamp(b, r) else { throw error(.invalidXML, "timestamp is not YYYY-MM-DDTHH:MM:SSZ", at: lt, in: b) }
            m.timestamp = t
            any = true
        }
        return any ? m : nil
    }

    private func integer(_ b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>?, _ name: String, at lt: Int) throws(OSMError) -> Int64 {
        guard let range else { throw error(.invalidXML, "missing attribute \(name)", at: lt, in: b) }
        var i = range.lowerBound
        var negative = false
        if i < range.upperBound, b[i] == 0x2D { negative = true; i += 1 }
        guard i < range.upperBound else { throw error(.invalidXML, "attribute \(name) is not an integer", at: lt, in: b) }
        var v: Int64 = 0
        while i < range.upperBound {
            let d = b[i] &- 0x30
            guard d < 10 else { throw error(.invalidXML, "attribute \(name) is not an integer", at: lt, in: b) }
            let (m, o1) = v.multipliedReportingOverflow(by: 10)
            let (s, o2) = m.addingReportingOverflow(Int64(d))
            guard !o1, !o2 else { throw error(.invalidXML, "attribute \(name) overflows 64 bits", at: lt, in: b) }
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

    /// `YYYY-MM-DDTHH:MM:SSZ` to seconds since 1970 (days from civil: H. Hinnant, "chrono-Compatible
    /// Low-Level Date Algorithms").
    static func timestamp(_ b: UnsafeBufferPointer<UInt8>, _ r: Range<Int>) -> Int64? {
        guard r.count == 20, b[r.lowerBound + 19] == 0x5A else { return nil }
        func num(_ from: Int, _ len: Int) -> Int64? {
            var v: Int64 = 0
            for i in 0..<len {
                let d = b[r.lowerBound + from + i] &- 0x30
                guard d < 10 else { return nil }
                v = v * 10 + Int64(d)
            }
            return v
        }
        guard let y0 = num(0, 4), let m = num(5, 2), let d = num(8, 2), let hh = num(11, 2), let mm = num(14, 2), let ss = num(17, 2),
              (1...12).contains(m), (1...31).contains(d), hh < 24, mm < 60, ss < 61 else { return nil }
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        return days * 86_400 + hh * 3_600 + mm * 60 + ss
    }

    /// Attribute text with character references decoded (XML 1.0 §4.1, §4.6).
    private func text(_ b: UnsafeBufferPointer<UInt8>, _ r: Range<Int>, at lt: Int) throws(OSMError) -> String {
        let slice = UnsafeBufferPointer(rebasing: b[r])
        guard slice.contains(0x26) else { return String(decoding: slice, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(slice.count)
        var i = 0
        while i < slice.count {
            guard slice[i] == 0x26 else { out.append(slice[i]); i += 1; continue }
            guard let semi = slice[i...].firstIndex(of: 0x3B), semi - i <= 12 else {
                throw error(.invalidXML, "unterminated character reference", at: lt, in: b)
            }
            let name = String(decoding: UnsafeBufferPointer(rebasing: slice[(i + 1)..<semi]), as: UTF8.self)
            switch name {
            case "amp": out.append(0x26)
            case "lt": out.append(0x3C)
            case "gt": out.append(0x3E)
            case "quot": out.append(0x22)
            case "apos": out.append(0x27)
            default:
                var scalarValue: UInt32?
                if name.hasPrefix("#x") { scalarValue = UInt32(name.dropFirst(2), radix: 16) } else if name.hasPrefix("#") { scalarValue = UInt32(name.dropFirst(), radix: 10) }
                guard let v = scalarValue, let scalar = Unicode.Scalar(v) else {
                    throw error(.invalidXML, "unknown entity &\(name);", at: lt, in: b)
                }
                out.append(contentsOf: Array(String(Character(scalar)).utf8))
            }
            i = semi + 1
        }
        return String(decoding: out, as: UTF8.self)
    }
}
