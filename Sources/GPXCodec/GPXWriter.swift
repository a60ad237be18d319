import Platform
public import GeoBase
import GeoCore

/// A sink that holds a complete document after every write (a crash-safe log): each write
/// of a `GPXStreamWriter(completing:…)` ends with the closing tags of the elements still open
/// (`</trkseg>`, `</trk>`, the document extensions, `</gpx>`), and the sink puts the next write
/// where those closing tags start, overwriting them.
public protocol GPXCompletingSink: ByteSink {
    /// Writes all of `bytes`, whose last `closingTagCount` bytes are the closing tags the next
    /// write replaces.
    mutating func write(_ bytes: UnsafeRawBufferPointer, closingTagCount: Int) throws
}

extension GPXCompletingSink {
    /// Writes `bytes` as content without closing tags.
    public mutating func write(_ bytes: UnsafeRawBufferPointer) throws {
        try write(bytes, closingTagCount: 0)
    }
}

/// Writes GPX element by element, so a track of any length needs constant memory, in the
/// element order the schema requires (GPX 1.1 `gpxType`: metadata, wpt*, rte*, trk*,
/// extensions; GPX 1.0 likewise with its top-level fields).
///
/// ```swift
/// var w = try GPXStreamWriter(sink: MemorySink(), header: GPXHeader(creator: "me"))
/// try w.beginTrack(GPXPathInfo(name: "run"))
/// try w.beginSegment()
/// try w.write(trackPoint: point)
/// try w.endSegment()
/// try w.endTrack()
/// let sink = try w.finish()
/// ```
///
/// Output is UTF-8, indented two spaces per level. Numbers are written in the shortest
/// decimal form that reads back to the same `Double`, never with an exponent (the schema's
/// `xsd:decimal` forbids one); non-finite numbers are omitted. Times are UTC with `Z`.
/// Raw extensions are written verbatim, so they must be well-formed XML content. Text
/// characters that XML 1.0 cannot carry (C0 controls other than tab, LF, CR) are dropped.
///
/// A writer made with `init(completing:…)` ends every write with the closing tags of what is
/// open, so its `GPXCompletingSink` holds a complete document after each `flush()`.
///
/// Calling the methods out of schema order is a broken contract and stops the program.
public struct GPXStreamWriter<Sink: ByteSink> {
    private var sink: Sink
    private var buffer: [UInt8] = []
    private let version: GPXVersion
    /// The completing sink's `write(_:closingTagCount:)`, or nil for a sink that is only appended to.
    private let writeCompleting: ((inout Sink, UnsafeRawBufferPointer, Int) throws -> Void)?
    /// Written before `</gpx>` in the closing tags of a completing writer.
    private let documentExtensions: GPXExtensions?
    private enum Stage: Int, Comparable {
        case waypoints, routes, inRoute, tracks, inTrack, inSegment, finished
        static func < (a: Stage, b: Stage) -> Bool { a.rawValue < b.rawValue }
    }
    private var stage = Stage.waypoints
    private let flushThreshold = 1 << 16

    /// Starts a document: the XML declaration, `<gpx>` and the metadata.
    /// - Parameters:
    ///   - header: version, creator and namespaces; the version decides the output schema.
    ///   - metadata: written as `<metadata>` (1.1) or as top-level fields (1.0) unless empty.
    /// - Throws: what the sink throws.
    public init(sink: Sink, header: GPXHeader, metadata: GPXMetadata = GPXMetadata()) throws {
        try self.init(sink: sink, header: header, metadata: metadata, writeCompleting: nil, documentExtensions: nil)
    }

    /// Starts a document that is complete after every write: each hand-over to `sink` (every
    /// `flush()`, and the automatic ones every 64 KiB) ends with the closing tags of the
    /// elements then open — what `endRoute()`, `endSegment()`, `endTrack()` and
    /// `finish(extensions: documentExtensions)` would write — which the sink overwrites with
    /// the next write.
    /// - Parameter documentExtensions: the document-level extensions, written before `</gpx>`.
    /// - Throws: what the sink throws.
    public init(completing sink: Sink, header: GPXHeader, metadata: GPXMetadata = GPXMetadata(),
                documentExtensions: GPXExtensions? = nil) throws where Sink: GPXCompletingSink {
        try self.init(sink: sink, header: header, metadata: metadata,
                      writeCompleting: Self.completingWrite, documentExtensions: documentExtensions)
    }

    /// Continues, as a completing writer, a document whose last track point ends where `sink`
    /// writes next, inside a `<trkseg>` of its last, open `<trk>` (a crash-safe log reopened
    /// after its closing tags were cut off). Writes nothing itself: the next flush writes what
    /// follows, then the closing tags.
    /// - Parameters:
    ///   - version: the document's version, which decides the output schema.
    ///   - documentExtensions: the document-level extensions, written before `</gpx>`.
    public init(continuingSegmentIn sink: Sink, version: GPXVersion, documentExtensions: GPXExtensions? = nil) where Sink: GPXCompletingSink {
        self.sink = sink
        self.version = version
        writeCompleting = Self.completingWrite
        self.documentExtensions = documentExtensions
        buffer.reserveCapacity(flushThreshold + 4096)
        stage = .inSegment
    }

    private init(sink: Sink, header: GPXHeader, metadata: GPXMetadata,
                 writeCompleting: ((inout Sink, UnsafeRawBufferPointer, Int) throws -> Void)?,
                 documentExtensions: GPXExtensions?) throws {
        self.sink = sink
        self.version = header.version
        self.writeCompleting = writeCompleting
        self.documentExtensions = documentExtensions
        buffer.reserveCapacity(flushThreshold + 4096)
        raw("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"")
        raw(header.version.rawValue)
        raw("\" creator=\"")
        escaped(header.creator, attribute: true)
        raw("\" xmlns=\"")
        raw(header.version.namespace)
        raw("\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\"")
        for ns in header.namespaces {
            raw(" xmlns")
            if let prefix = ns.prefix { raw(":"); raw(prefix) }
            raw("=\"")
            escaped(ns.uri, attribute: true)
            raw("\"")
        }
        if let location = header.schemaLocation {
            raw(" xsi:schemaLocation=\"")
            escaped(location, attribute: true)
            raw("\"")
        }
        raw(">\n")
        if !metadata.isEmpty { writeMetadata(metadata) }
        try flushIfNeeded()
    }

    // MARK: - Public elements

    /// Writes a `<wpt>`; only before any route or track.
    public mutating func write(waypoint: GPXPoint) throws {
        precondition(stage == .waypoints, "Broken contract: GPX waypoints come before routes and tracks")
        point(waypoint, tag: "wpt", indent: 1)
        try flushIfNeeded()
    }

    /// Opens a `<rte>` and writes what it says about itself (1.1 puts that before the points).
    public mutating func beginRoute(_ info: GPXPathInfo = GPXPathInfo()) throws {
        precondition(stage <= .routes, "Broken contract: GPX routes come after waypoints and before tracks")
        stage = .inRoute
        indent(1); raw("<rte>\n")
        pathInfo(info, indent: 2)
        try flushIfNeeded()
    }

    /// Writes an `<rtept>` into the open route.
    public mutating func write(routePoint: GPXPoint) throws {
        precondition(stage == .inRoute, "Broken contract: a route point needs beginRoute")
        point(routePoint, tag: "rtept", indent: 2)
        try flushIfNeeded()
    }

    /// Closes the open route.
    public mutating func endRoute() throws {
        precondition(stage == .inRoute, "Broken contract: endRoute without beginRoute")
        stage = .routes
        routeEndTag()
        try flushIfNeeded()
    }

    /// Opens a `<trk>` and writes what it says about itself.
    public mutating func beginTrack(_ info: GPXPathInfo = GPXPathInfo()) throws {
        precondition(stage <= .tracks && stage != .inRoute, "Broken contract: GPX tracks come after routes")
        stage = .inTrack
        indent(1); raw("<trk>\n")
        pathInfo(info, indent: 2)
        try flushIfNeeded()
    }

    /// Opens a `<trkseg>` in the open track.
    public mutating func beginSegment() throws {
        precondition(stage == .inTrack, "Broken contract: a segment needs beginTrack")
        stage = .inSegment
        indent(2); raw("<trkseg>\n")
    }

    /// Writes a `<trkpt>` into the open segment.
    public mutating func write(trackPoint: GPXPoint) throws {
        precondition(stage == .inSegment, "Broken contract: a track point needs beginSegment")
        point(trackPoint, tag: "trkpt", indent: 3)
        try flushIfNeeded()
    }

    /// Closes the open segment, writing its extensions after its points.
    public mutating func endSegment(extensions: GPXExtensions? = nil) throws {
        precondition(stage == .inSegment, "Broken contract: endSegment without beginSegment")
        stage = .inTrack
        extensionsElement(extensions, indent: 3)
        segmentEndTag()
        try flushIfNeeded()
    }

    /// Closes the open track.
    public mutating func endTrack() throws {
        precondition(stage == .inTrack, "Broken contract: endTrack with no open track (or an open segment)")
        stage = .tracks
        trackEndTag()
        try flushIfNeeded()
    }

    /// Hands everything buffered to the sink in one write (call after each point for a
    /// crash-safe log); a completing writer appends the closing tags of what is open to it.
    /// After an error the buffered bytes stay buffered, for the next flush.
    public mutating func flush() throws {
        guard !buffer.isEmpty else { return }
        guard let writeCompleting else {
            try buffer.withUnsafeBytes { try sink.write($0) }
            buffer.removeAll(keepingCapacity: true)
            return
        }
        let contentCount = buffer.count
        appendClosingTags()
        do {
            try buffer.withUnsafeBytes { try writeCompleting(&sink, $0, buffer.count - contentCount) }
        } catch {
            buffer.removeSubrange(contentCount...)
            throw error
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes the document-level extensions and `</gpx>`, flushes, and returns the sink.
    /// - Parameter extensions: the document-level extensions; a completing writer's own when nil.
    public mutating func finish(extensions: GPXExtensions? = nil) throws -> Sink {
        precondition(stage != .inRoute && stage != .inTrack && stage != .inSegment && stage != .finished,
                     "Broken contract: finish with an open route, track or segment")
        stage = .finished
        documentEnd(extensions ?? documentExtensions)
        try flush()
        return sink
    }

    // MARK: - Closing tags

    /// Appends the closing tags of every element open at this stage, without closing them.
    private mutating func appendClosingTags() {
        switch stage {
        case .finished: return
        case .waypoints, .routes, .tracks: break
        case .inRoute: routeEndTag()
        case .inTrack: trackEndTag()
        case .inSegment: segmentEndTag(); trackEndTag()
        }
        documentEnd(documentExtensions)
    }

    private mutating func routeEndTag() { indent(1); raw("</rte>\n") }
    private mutating func segmentEndTag() { indent(2); raw("</trkseg>\n") }
    private mutating func trackEndTag() { indent(1); raw("</trk>\n") }

    private mutating func documentEnd(_ extensions: GPXExtensions?) {
        extensionsElement(extensions, indent: 1)
        raw("</gpx>\n")
    }

    // MARK: - Element bodies

    private mutating func writeMetadata(_ m: GPXMetadata) {
        if version == .v1_0 {
            simple("name", m.name, indent: 1)
            simple("desc", m.description, indent: 1)
            simple("author", m.author?.name, indent: 1)
            simple("email", m.author?.email, indent: 1)
            url10(m.links.first, indent: 1)
            simple("time", m.time.map(ISO8601Time.string(from:)), indent: 1)
            simple("keywords", m.keywords, indent: 1)
            bounds(m.bounds, indent: 1)
            if let e = m.extensions { raw(e.xml) }
            return
        }
        indent(1); raw("<metadata>\n")
        simple("name", m.name, indent: 2)
        simple("desc", m.description, indent: 2)
        if let a = m.author {
            indent(2); raw("<author>\n")
            simple("name", a.name, indent: 3)
            if let email = a.email {
                let at = email.lastIndex(of: "@") ?? email.endIndex
                indent(3); raw("<email id=\"")
                escaped(String(email[..<at]), attribute: true)
                raw("\" domain=\"")
                escaped(at < email.endIndex ? String(email[email.index(after: at)...]) : "", attribute: true)
                raw("\"/>\n")
            }
            if let l = a.link { link(l, indent: 3) }
            indent(2); raw("</author>\n")
        }
        if let c = m.copyright {
            indent(2); raw("<copyright author=\"")
            escaped(c.author, attribute: true)
            raw("\">\n")
            simple("year", c.year, indent: 3)
            simple("license", c.license, indent: 3)
            indent(2); raw("</copyright>\n")
        }
        for l in m.links { link(l, indent: 2) }
        simple("time", m.time.map(ISO8601Time.string(from:)), indent: 2)
        simple("keywords", m.keywords, indent: 2)
        bounds(m.bounds, indent: 2)
        extensionsElement(m.extensions, indent: 2)
        indent(1); raw("</metadata>\n")
    }

    private mutating func pathInfo(_ info: GPXPathInfo, indent level: Int) {
        simple("name", info.name, indent: level)
        simple("cmt", info.comment, indent: level)
        simple("desc", info.description, indent: level)
        simple("src", info.source, indent: level)
        if version == .v1_0 {
            url10(info.links.first, indent: level)
            simple("number", info.number.map(String.init), indent: level)
            // Not in the 1.0 schema, but real 1.0 files carry it; kept so nothing is lost.
            simple("type", info.type, indent: level)
            if let e = info.extensions { raw(e.xml) }
        } else {
            for l in info.links { link(l, indent: level) }
            simple("number", info.number.map(String.init), indent: level)
            simple("type", info.type, indent: level)
            extensionsElement(info.extensions, indent: level)
        }
    }

    private mutating func point(_ p: GPXPoint, tag: StaticString, indent level: Int) {
        indent(level)
        raw("<"); raw(tag); raw(" lat=\""); number(p.coordinate.latitude)
        raw("\" lon=\""); number(p.coordinate.longitude); raw("\"")
        let hasChildren = p.elevation != nil || p.time != nil || p.magneticVariation != nil || p.geoidHeight != nil
            || p.name != nil || p.comment != nil || p.description != nil || p.source != nil || !p.links.isEmpty
            || p.symbol != nil || p.type != nil || p.fix != nil || p.satellites != nil || p.hdop != nil
            || p.vdop != nil || p.pdop != nil || p.ageOfDGPSData != nil || p.dgpsID != nil || p.extensions != nil
            || (version == .v1_0 && (p.course != nil || p.speed != nil))
        guard hasChildren else { raw("/>\n"); return }
        raw(">\n")
        let inner = level + 1
        numberElement("ele", p.elevation?.meters, indent: inner)
        if let t = p.time { simple("time", ISO8601Time.string(from: t), indent: inner) }
        if version == .v1_0 {
            numberElement("course", p.course?.degrees, indent: inner)
            numberElement("speed", p.speed?.metersPerSecond, indent: inner)
        }
        numberElement("magvar", p.magneticVariation?.degrees, indent: inner)
        numberElement("geoidheight", p.geoidHeight?.meters, indent: inner)
        simple("name", p.name, indent: inner)
        simple("cmt", p.comment, indent: inner)
        simple("desc", p.description, indent: inner)
        simple("src", p.source, indent: inner)
        if version == .v1_0 { url10(p.links.first, indent: inner) } else { for l in p.links { link(l, indent: inner) } }
        simple("sym", p.symbol, indent: inner)
        simple("type", p.type, indent: inner)
        simple("fix", p.fix?.rawValue, indent: inner)
        simple("sat", p.satellites.map(String.init), indent: inner)
        numberElement("hdop", p.hdop, indent: inner)
        numberElement("vdop", p.vdop, indent: inner)
        numberElement("pdop", p.pdop, indent: inner)
        numberElement("ageofdgpsdata", p.ageOfDGPSData, indent: inner)
        simple("dgpsid", p.dgpsID.map(String.init), indent: inner)
        extensionsElement(p.extensions, indent: inner)
        indent(level); raw("</"); raw(tag); raw(">\n")
    }

    private mutating func link(_ l: GPXLink, indent level: Int) {
        indent(level); raw("<link href=\""); escaped(l.href, attribute: true)
        guard l.text != nil || l.type != nil else { raw("\"/>\n"); return }
        raw("\">\n")
        simple("text", l.text, indent: level + 1)
        simple("type", l.type, indent: level + 1)
        indent(level); raw("</link>\n")
    }

    private mutating func url10(_ l: GPXLink?, indent level: Int) {
        guard let l else { return }
        if !l.href.isEmpty { simple("url", l.href, indent: level) }
        simple("urlname", l.text, indent: level)
    }

    private mutating func bounds(_ b: GPXBounds?, indent level: Int) {
        guard let b else { return }
        indent(level)
        raw("<bounds minlat=\""); number(b.minLatitude)
        raw("\" minlon=\""); number(b.minLongitude)
        raw("\" maxlat=\""); number(b.maxLatitude)
        raw("\" maxlon=\""); number(b.maxLongitude)
        raw("\"/>\n")
    }

    private mutating func extensionsElement(_ e: GPXExtensions?, indent level: Int) {
        guard let e else { return }
        if version == .v1_0 { raw(e.xml); return }
        indent(level); raw("<extensions>"); raw(e.xml); raw("</extensions>\n")
    }

    private mutating func simple(_ tag: StaticString, _ value: String?, indent level: Int) {
        guard let value else { return }
        indent(level); raw("<"); raw(tag); raw(">")
        escaped(value, attribute: false)
        raw("</"); raw(tag); raw(">\n")
    }

    private mutating func numberElement(_ tag: StaticString, _ value: Double?, indent level: Int) {
        guard let value, value.isFinite else { return }
        indent(level); raw("<"); raw(tag); raw(">")
        number(value)
        raw("</"); raw(tag); raw(">\n")
    }

    // MARK: - Bytes

    @inline(__always)
    private mutating func raw(_ s: StaticString) {
        buffer.append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    private mutating func raw(_ s: String) {
        buffer.append(contentsOf: s.utf8)
    }

    private mutating func indent(_ level: Int) {
        for _ in 0..<level { buffer.append(0x20); buffer.append(0x20) }
    }

    private mutating func escaped(_ s: String, attribute: Bool) {
        for c in s.utf8 {
            switch c {
            case 0x26: raw("&amp;")
            case 0x3C: raw("&lt;")
            case 0x3E: raw("&gt;")
            case 0x22 where attribute: raw("&quot;")
            case 0x0D: raw("&#13;")
            case 0x0A where attribute: raw("&#10;")
            case 0x09 where attribute: raw("&#9;")
            case 0x09, 0x0A: buffer.append(c)
            case 0..<0x20: continue
            default: buffer.append(c)
            }
        }
    }

    /// The shortest round-tripping decimal, without an exponent; whole numbers with ".0", as
    /// `description` writes them. Most coordinates and measurements have at most 7 decimals:
    /// `ShortestDecimal` writes those without making a `String`.
    private mutating func number(_ v: Double) {
        if ShortestDecimal.appendFewDecimals(v, to: &buffer) { return }
        let s = v.description
        guard let e = s.utf8.firstIndex(where: { $0 == 0x65 || $0 == 0x45 }) else {
            raw(s)
            return
        }
        // Expand "d.ddde±x" into plain decimal digits.
        let mantissa = s[..<e], exponent = Int(s[s.index(after: e)...]) ?? 0
        var negative = false
        var digits: [UInt8] = []
        var pointAt = 0
        for c in mantissa.utf8 {
            if c == 0x2D { negative = true } else if c == 0x2E { pointAt = digits.count } else { digits.append(c) }
        }
        if !mantissa.utf8.contains(0x2E) { pointAt = digits.count }
        pointAt += exponent
        if negative { buffer.append(0x2D) }
        if pointAt <= 0 {
            raw("0.")
            for _ in 0..<(-pointAt) { buffer.append(0x30) }
            buffer.append(contentsOf: digits)
        } else if pointAt >= digits.count {
            buffer.append(contentsOf: digits)
            for _ in 0..<(pointAt - digits.count) { buffer.append(0x30) }
        } else {
            buffer.append(contentsOf: digits[..<pointAt])
            buffer.append(0x2E)
            buffer.append(contentsOf: digits[pointAt...])
        }
    }

    private mutating func flushIfNeeded() throws {
        if buffer.count >= flushThreshold { try flush() }
    }
}

extension GPXStreamWriter where Sink: GPXCompletingSink {
    /// How a completing writer hands its bytes over.
    private static var completingWrite: (inout Sink, UnsafeRawBufferPointer, Int) throws -> Void {
        { try $0.write($1, closingTagCount: $2) }
    }
}

/// Writes whole documents (built on `GPXStreamWriter`).
public enum GPXWriter {
    /// Writes a document to a sink, in the version its header names.
    /// - Throws: what the sink throws.
    /// - Complexity: O(n) in the number of points.
    @discardableResult
    public static func write<Sink: ByteSink>(_ document: GPXDocument, to sink: Sink) throws -> Sink {
        var w = try GPXStreamWriter(sink: sink, header: document.header, metadata: document.metadata)
        for p in document.waypoints { try w.write(waypoint: p) }
        for r in document.routes {
            try w.beginRoute(r.info)
            for p in r.points { try w.write(routePoint: p) }
            try w.endRoute()
        }
        for t in document.tracks {
            try w.beginTrack(t.info)
            for s in t.segments {
                try w.beginSegment()
                for p in s.points { try w.write(trackPoint: p) }
                try w.endSegment(extensions: s.extensions)
            }
            try w.endTrack()
        }
        return try w.finish(extensions: document.extensions)
    }

    /// The document as UTF-8 GPX bytes.
    public static func bytes(_ document: GPXDocument) -> [UInt8] {
        // A memory sink never throws.
        (try? write(document, to: MemorySink()).bytes) ?? []
    }

    /// The document as a GPX string.
    public static func string(_ document: GPXDocument) -> String {
        String(decoding: bytes(document), as: UTF8.self)
    }
}
