#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
public import GeoBase
import GeoCore
import XMLStreaming

/// One step of a GPX file, in file order, as the streaming reader produces it.
///
/// The large, once-per-file payloads are `indirect` (boxed), so an event is the size of a
/// point and the one-per-point events are copied without moving a metadata-sized value.
public enum GPXEvent: Hashable, Sendable {
    /// The `<gpx>` start tag. Always the first event.
    indirect case header(GPXHeader)
    /// The `<metadata>` element (GPX 1.1) or the top-level fields of GPX 1.0.
    indirect case metadata(GPXMetadata)
    case waypoint(GPXPoint)
    case routeStart
    case routePoint(GPXPoint)
    /// The end of a route, with everything it said about itself.
    indirect case routeEnd(GPXPathInfo)
    case trackStart
    case segmentStart
    case trackPoint(GPXPoint)
    case segmentEnd(GPXExtensions?)
    /// The end of a track, with everything it said about itself.
    indirect case trackEnd(GPXPathInfo)
    /// The document-level `<extensions>` (and, in GPX 1.0, foreign top-level elements).
    case extensions(GPXExtensions)
}

/// A pull reader that turns a GPX byte stream into `GPXEvent`s with constant memory.
///
/// ```swift
/// let reader = GPXStreamReader(source: MemorySource(bytes))
/// while let event = try reader.next() {
///     if case .trackPoint(let p) = event { … }
/// }
/// ```
///
/// Memory is bounded by the largest single point (plus a 256 KiB window), whatever the file
/// size. Reads GPX 1.0 and 1.1 leniently: element names are matched without their namespace
/// prefix, fields of either version are accepted in both, unknown elements are kept as raw
/// extensions, and anything after `</gpx>` is ignored.
///
/// Broken XML is an error; a bad value is not. An empty or invalid optional field is dropped
/// and the point kept; a point without a valid `lat` / `lon` is dropped; each is a
/// ``GPXWarning`` in ``warnings``. With ``GPXReadOptions/recovering``, damage (a cut-off or
/// malformed tail) ends the stream after the last complete point, closing what is open, and
/// is kept in ``damage``.
///
/// The reader is a reference type because it owns a buffer and a position in its source;
/// use one reader from one task at a time.
/// - Complexity: O(n) in the input size.
public final class GPXStreamReader {
    private var parser: GPXParser

    /// Creates a reader; nothing is read until `next()`.
    public init(source: some ByteSource, options: GPXReadOptions = GPXReadOptions()) {
        parser = GPXParser(source: source, options: options)
    }

    /// Reads up to the next event; nil after `</gpx>` (or, when recovering, after the events
    /// that close what the damage left open).
    /// - Throws: `GPXError` with the line, column and offset of the problem. After an error
    ///   the reader is finished: further calls return nil.
    public func next() throws(GPXError) -> GPXEvent? {
        try parser.next()
    }

    /// The warnings so far, in file order: the first `GPXReadOptions.warningLimit` of them.
    public var warnings: [GPXWarning] { parser.warnings }

    /// How many warnings there were so far, including those not kept in ``warnings``.
    public var warningCount: Int { parser.warningCount }

    /// Where and why a recovering read stopped early; nil when it read the whole file (and
    /// always nil without ``GPXReadOptions/recovering``, where damage throws).
    public var damage: GPXError? { parser.damage }

    /// The fields of the open track read so far (name, description, links…). GPX puts them
    /// before a track's first `<trkseg>`, so at a `.segmentStart` this is all of them in a
    /// schema-valid file (`.trackEnd` carries the final set): a streaming copy reads them here
    /// to write `<trk>`'s fields before its segments.
    public var openTrackInfo: GPXPathInfo { parser.openTrackInfo }

    /// The fields of the open route read so far; at its first `.routePoint`, all of them in a
    /// schema-valid file (`.routeEnd` carries the final set).
    public var openRouteInfo: GPXPathInfo { parser.openRouteInfo }

    /// Whether the file used an element that exists only in GPX 1.0 (top-level `author`,
    /// `email`, `url`, `urlname`, point `course` / `speed`).
    public var usesGPX10Elements: Bool { parser.usesGPX10Elements }

    /// The header's version, corrected once the whole file is read: a file that declares no
    /// version or namespace but uses GPX 1.0-only elements is GPX 1.0.
    var inferredVersion: GPXVersion? { parser.inferredVersion }

    /// Bytes in the reader's window (its memory, apart from the current point).
    var windowCapacity: Int { parser.windowCapacity }
}

/// The reader's state machine: a struct, so the hot path has no dynamic exclusivity checks.
struct GPXParser {
    private var scanner: XMLScanner
    private var text = XMLByteBuffer()
    private var pointRaw = XMLByteBuffer(capacity: 1024)
    private var pending: [GPXEvent] = []
    private var pendingIndex = 0
    private enum Context { case start, document, route, track, segment, finished }
    private var context: Context = .start
    private var routeInfo = GPXPathInfo()
    private var trackInfo = GPXPathInfo()
    private var segmentExtensions: GPXExtensions?
    private var metadata10 = GPXMetadata()
    private var hasMetadata10 = false
    private var documentExtensions: [UInt8] = []
    private var versionDeclared = false
    private(set) var usesGPX10Elements = false
    private let options: GPXReadOptions
    /// Whether points keep their text fields, links and raw XML (`GPXPointFields`).
    private let keepsPointText: Bool
    private(set) var warnings: [GPXWarning] = []
    private(set) var warningCount = 0
    private(set) var damage: GPXError?

    init(source: some ByteSource, options: GPXReadOptions) {
        scanner = XMLScanner(source: source)
        self.options = options
        keepsPointText = options.pointFields.keepsText
    }

    /// Bytes in the reader's window (its memory, apart from the current point).
    var windowCapacity: Int { scanner.capacity }

    var openTrackInfo: GPXPathInfo { trackInfo }
    var openRouteInfo: GPXPathInfo { routeInfo }

    /// The header's version, corrected once the whole file is read: a file that declares no
    /// version or namespace but uses GPX 1.0-only elements is GPX 1.0.
    var inferredVersion: GPXVersion? {
        versionDeclared ? nil : (usesGPX10Elements ? .v1_0 : nil)
    }

    mutating func next() throws(GPXError) -> GPXEvent? {
        if pendingIndex < pending.count {
            let e = pending[pendingIndex]
            pendingIndex += 1
            if pendingIndex == pending.count { pending.removeAll(keepingCapacity: true); pendingIndex = 0 }
            return e
        }
        do {
            return try step()
        } catch {
            let open = context
            context = .finished
            guard options.recovering, open != .start, error.code == .truncated || error.code == .malformedXML else { throw error }
            damage = error
            return try emitting(closingEvents(open))
        }
    }

    /// The events that close what is open in `context` when a recovering read stops there.
    private func closingEvents(_ context: Context) -> [GPXEvent] {
        var events: [GPXEvent]
        switch context {
        case .route: events = [.routeEnd(routeInfo)]
        case .track: events = [.trackEnd(trackInfo)]
        case .segment: events = [.segmentEnd(segmentExtensions), .trackEnd(trackInfo)]
        case .start, .document, .finished: events = []
        }
        if !documentExtensions.isEmpty {
            events.append(.extensions(GPXExtensions(xml: String(decoding: documentExtensions, as: UTF8.self))))
        }
        return events
    }

    /// Records a warning about the element whose start tag is at `offset`. Only the first
    /// `warningLimit` are built and kept (locating one scans the window); all are counted.
    private mutating func warn(_ code: GPXWarning.Code, element: String, text: String, at offset: Int,
                               _ message: @autoclosure () -> String) {
        warningCount += 1
        guard warnings.count < options.warningLimit else { return }
        let (line, column) = scanner.location(of: offset)
        warnings.append(GPXWarning(code, element: element, text: text, message: message(), line: line, column: column, offset: offset))
    }

    // MARK: - Tokens and errors

    /// The scanner's next token, its errors as `GPXError`s. White space before markup is
    /// passed over (every container ignores it) unless `keepingBlankText` (element text).
    @inline(__always)
    private mutating func nextToken(keepingBlankText: Bool = false) throws(GPXError) -> XMLTokenKind {
        do { return try scanner.next(skippingBlankText: !keepingBlankText) } catch { throw GPXError(error) }
    }

    /// Appends the range's text to `text`, references decoded (see `XMLScanner.appendDecoded`).
    private mutating func decode(_ r: Range<Int>, normalizeSpace: Bool) throws(GPXError) {
        do { try scanner.appendDecoded(r, to: &text, normalizeSpace: normalizeSpace) } catch { throw GPXError(error) }
    }

    /// An error located at an absolute input offset.
    private func failure(_ code: GPXError.Code, _ message: String, at offset: Int) -> GPXError {
        let (line, column) = scanner.location(of: offset)
        return GPXError(code, message, line: line, column: column, offset: offset)
    }

    // MARK: - Element names

    private enum Tag {
        case gpx, metadata, wpt, rte, rtept, trk, trkseg, trkpt, extensions
        case ele, time, magvar, geoidheight, name, cmt, desc, src, link, sym, type, fix, sat
        case hdop, vdop, pdop, ageofdgpsdata, dgpsid, number, course, speed
        case url, urlname, author, email, keywords, bounds, copyright, text, year, license
        case other
    }

    private func tag() -> Tag {
        let r = scanner.localNameRange
        switch r.count {
        case 3:
            if scanner.equals(r, "ele") { return .ele }
            if scanner.equals(r, "gpx") { return .gpx }
            if scanner.equals(r, "wpt") { return .wpt }
            if scanner.equals(r, "rte") { return .rte }
            if scanner.equals(r, "trk") { return .trk }
            if scanner.equals(r, "cmt") { return .cmt }
            if scanner.equals(r, "src") { return .src }
            if scanner.equals(r, "sym") { return .sym }
            if scanner.equals(r, "fix") { return .fix }
            if scanner.equals(r, "sat") { return .sat }
            if scanner.equals(r, "url") { return .url }
        case 4:
            if scanner.equals(r, "time") { return .time }
            if scanner.equals(r, "name") { return .name }
            if scanner.equals(r, "desc") { return .desc }
            if scanner.equals(r, "link") { return .link }
            if scanner.equals(r, "type") { return .type }
            if scanner.equals(r, "hdop") { return .hdop }
            if scanner.equals(r, "vdop") { return .vdop }
            if scanner.equals(r, "pdop") { return .pdop }
            if scanner.equals(r, "text") { return .text }
            if scanner.equals(r, "year") { return .year }
        case 5:
            if scanner.equals(r, "trkpt") { return .trkpt }
            if scanner.equals(r, "rtept") { return .rtept }
            if scanner.equals(r, "speed") { return .speed }
            if scanner.equals(r, "email") { return .email }
        case 6:
            if scanner.equals(r, "magvar") { return .magvar }
            if scanner.equals(r, "trkseg") { return .trkseg }
            if scanner.equals(r, "dgpsid") { return .dgpsid }
            if scanner.equals(r, "number") { return .number }
            if scanner.equals(r, "course") { return .course }
            if scanner.equals(r, "author") { return .author }
            if scanner.equals(r, "bounds") { return .bounds }
        case 7:
            if scanner.equals(r, "urlname") { return .urlname }
            if scanner.equals(r, "license") { return .license }
        case 8:
            if scanner.equals(r, "metadata") { return .metadata }
            if scanner.equals(r, "keywords") { return .keywords }
        case 9:
            if scanner.equals(r, "copyright") { return .copyright }
        case 10:
            if scanner.equals(r, "extensions") { return .extensions }
        case 11:
            if scanner.equals(r, "geoidheight") { return .geoidheight }
        case 13:
            if scanner.equals(r, "ageofdgpsdata") { return .ageofdgpsdata }
        default:
            break
        }
        return .other
    }

    // MARK: - The state machine

    private mutating func step() throws(GPXError) -> GPXEvent? {
        switch context {
        case .finished:
            return nil
        case .start:
            return try readHeader()
        case .document:
            while true {
                switch try nextToken() {
                case .startTag:
                    switch tag() {
                    case .metadata:
                        let m = try readMetadata()
                        return try emitting(.metadata(m))
                    case .wpt:
                        if let p = try readPoint() { return try emitting(.waypoint(p)) }
                    case .rte:
                        routeInfo = GPXPathInfo()
                        if scanner.selfClosing { return try emitting(.routeStart, .routeEnd(routeInfo)) }
                        context = .route
                        return try emitting(.routeStart)
                    case .trk:
                        trackInfo = GPXPathInfo()
                        if scanner.selfClosing { return try emitting(.trackStart, .trackEnd(trackInfo)) }
                        context = .track
                        return try emitting(.trackStart)
                    case .extensions:
                        documentExtensions.append(contentsOf: try readExtensions())
                    case .name: metadata10.name = try readString(); noteMetadata10(false)
                    case .desc: metadata10.description = try readString(); noteMetadata10(false)
                    case .author:
                        var person = metadata10.author ?? GPXPerson()
                        person.name = try readString()
                        metadata10.author = person
                        noteMetadata10(true)
                    case .email:
                        var person = metadata10.author ?? GPXPerson()
                        person.email = try readString()
                        metadata10.author = person
                        noteMetadata10(true)
                    case .url:
                        let href = try readString()
                        setURL(href, in: &metadata10.links)
                        noteMetadata10(true)
                    case .urlname:
                        let name = try readString()
                        setURLName(name, in: &metadata10.links)
                        noteMetadata10(true)
                    case .time: metadata10.time = try readTime(); noteMetadata10(false)
                    case .keywords: metadata10.keywords = try readString(); noteMetadata10(false)
                    case .bounds: metadata10.bounds = try readBounds(); noteMetadata10(false)
                    default:
                        documentExtensions.append(contentsOf: try readRawElement())
                    }
                case .endTag:
                    // Only </gpx> can close at this depth; the scanner checked the nesting.
                    context = .finished
                    try finishDocument()
                    var events: [GPXEvent] = []
                    if !documentExtensions.isEmpty {
                        events.append(.extensions(GPXExtensions(xml: String(decoding: documentExtensions, as: UTF8.self))))
                    }
                    guard !events.isEmpty || hasMetadata10 else { return nil }
                    return try emitting(events)
                case .endOfInput:
                    throw failure(.truncated, "the input ends before </gpx>", at: scanner.endOffset)
                default:
                    // White space, comments, processing instructions; stray text in a
                    // container is ignored (lenient, as other readers are).
                    continue
                }
            }
        case .route:
            while true {
                switch try nextToken() {
                case .startTag:
                    if case .rtept = tag() {
                        if let p = try readPoint() { return .routePoint(p) }
                        continue
                    }
                    var info = routeInfo
                    try readPathInfoField(into: &info)
                    routeInfo = info
                case .endTag:
                    context = .document
                    return .routeEnd(routeInfo)
                default:
                    // White space, comments, processing instructions; stray text in a
                    // container is ignored (lenient, as other readers are).
                    continue
                }
            }
        case .track:
            while true {
                switch try nextToken() {
                case .startTag:
                    if case .trkseg = tag() {
                        segmentExtensions = nil
                        if scanner.selfClosing {
                            pending.append(.segmentEnd(nil))
                            return .segmentStart
                        }
                        context = .segment
                        return .segmentStart
                    }
                    var info = trackInfo
                    try readPathInfoField(into: &info)
                    trackInfo = info
                case .endTag:
                    context = .document
                    return .trackEnd(trackInfo)
                default:
                    // White space, comments, processing instructions; stray text in a
                    // container is ignored (lenient, as other readers are).
                    continue
                }
            }
        case .segment:
            while true {
                switch try nextToken() {
                case .startTag:
                    switch tag() {
                    case .trkpt:
                        if let p = try readPoint() { return .trackPoint(p) }
                    case .extensions:
                        segmentExtensions = appending(try readExtensions(), to: segmentExtensions)
                    default:
                        segmentExtensions = appending(try readRawElement(), to: segmentExtensions)
                    }
                case .endTag:
                    context = .track
                    return .segmentEnd(segmentExtensions)
                default:
                    // White space, comments, processing instructions; stray text in a
                    // container is ignored (lenient, as other readers are).
                    continue
                }
            }
        }
    }

    /// Returns the first event and queues the rest, putting pending GPX 1.0 metadata first.
    private mutating func emitting(_ events: GPXEvent...) throws(GPXError) -> GPXEvent? {
        try emitting(events)
    }

    private mutating func emitting(_ events: [GPXEvent]) throws(GPXError) -> GPXEvent? {
        var all = events
        if hasMetadata10 {
            hasMetadata10 = false
            all.insert(.metadata(metadata10), at: 0)
        }
        guard let first = all.first else { return nil }
        pending.append(contentsOf: all.dropFirst())
        return first
    }

    private mutating func noteMetadata10(_ onlyInGPX10: Bool) {
        hasMetadata10 = true
        if onlyInGPX10 { usesGPX10Elements = true }
    }

    private mutating func readHeader() throws(GPXError) -> GPXEvent? {
        // A UTF-8 byte-order mark is allowed; the scanner rejects UTF-16 / UTF-32.
        var first = true
        while true {
            let kind = try nextToken()
            if first {
                first = false
                if kind == .text {
                    let r = scanner.tokenRange
                    var lo = r.lowerBound
                    let b = scanner.buf
                    if r.count >= 3, b[lo] == 0xEF, b[lo + 1] == 0xBB, b[lo + 2] == 0xBF { lo += 3 }
                    if !scanner.isBlank(lo..<r.upperBound) {
                        throw failure(.malformedXML, "text before the root element", at: scanner.tokenOffset)
                    }
                    continue
                }
            }
            switch kind {
            case .processingInstruction:
                try checkDeclaration()
            case .text:
                if !scanner.isBlank(scanner.tokenRange) {
                    throw failure(.malformedXML, "text before the root element", at: scanner.tokenOffset)
                }
            case .comment, .doctype:
                continue
            case .startTag:
                guard case .gpx = tag() else {
                    throw failure(.notGPX, "the root element is <\(scanner.nameString)>, not <gpx>", at: scanner.tokenOffset)
                }
                return try startDocument()
            case .endOfInput:
                throw failure(.truncated, "the input ends before the <gpx> element", at: scanner.endOffset)
            default:
                throw failure(.malformedXML, "unexpected markup before the root element", at: scanner.tokenOffset)
            }
        }
    }

    private mutating func checkDeclaration() throws(GPXError) {
        let r = scanner.tokenRange
        guard r.count > 5, scanner.equals(r.lowerBound..<(r.lowerBound + 5), "<?xml") else { return }
        let decl = scanner.string(r).lowercased()
        guard let found = decl.indices.first(where: { decl[$0...].hasPrefix("encoding") }) else { return }
        let rest = decl[decl.index(found, offsetBy: 8)...].drop { $0 == " " || $0 == "=" || $0 == "\"" || $0 == "'" }
        let name = rest.prefix { $0 != "\"" && $0 != "'" }
        guard ["utf-8", "utf8", "us-ascii", "ascii"].contains(String(name)) else {
            throw failure(.unsupportedEncoding, "encoding '\(name)' is not supported; only UTF-8 is", at: scanner.tokenOffset)
        }
    }

    private mutating func startDocument() throws(GPXError) -> GPXEvent? {
        var header = GPXHeader()
        var defaultNamespace: String?
        var declaredVersion: String?
        for i in 0..<scanner.attributeCount {
            let a = scanner.attribute(at: i)
            let name = scanner.string(a.name)
            let value = try attributeString(a.value) ?? ""
            if name == "version" { declaredVersion = value }
            else if name == "creator" { header.creator = value }
            else if name == "xmlns" { defaultNamespace = value }
            else if name == "xmlns:xsi" { continue }
            else if name.hasPrefix("xmlns:") { header.namespaces.append(GPXNamespace(prefix: String(name.dropFirst(6)), uri: value)) }
            else if name.hasSuffix("schemaLocation") { header.schemaLocation = value }
        }
        if let v = declaredVersion.map(Self.trimmed), let version = GPXVersion(rawValue: v) {
            header.version = version
            versionDeclared = true
        } else if defaultNamespace == GPXVersion.v1_0.namespace {
            header.version = .v1_0
            versionDeclared = true
        } else if defaultNamespace == GPXVersion.v1_1.namespace {
            versionDeclared = true
        }
        if scanner.selfClosing {
            context = .finished
            try finishDocument()
        } else {
            context = .document
        }
        return .header(header)
    }

    /// Reads what follows `</gpx>` (only white space, comments and processing instructions may):
    /// anything else is an error, or with `recovering` the ``damage``, after a complete document.
    private mutating func finishDocument() throws(GPXError) {
        do { try scanner.finishDocument() } catch {
            guard options.recovering else { throw GPXError(error) }
            damage = GPXError(error)
        }
    }

    // MARK: - Elements

    private mutating func readPathInfoField(into info: inout GPXPathInfo) throws(GPXError) {
        switch tag() {
        case .name: info.name = try readString()
        case .cmt: info.comment = try readString()
        case .desc: info.description = try readString()
        case .src: info.source = try readString()
        case .link: if let link = try readLink() { info.links.append(link) }
        case .url: setURL(try readString(), in: &info.links); usesGPX10Elements = true
        case .urlname: setURLName(try readString(), in: &info.links); usesGPX10Elements = true
        case .number: info.number = try readInteger()
        case .type: info.type = try readString()
        case .extensions: info.extensions = appending(try readExtensions(), to: info.extensions)
        default: info.extensions = appending(try readRawElement(), to: info.extensions)
        }
    }

    /// Reads a waypoint, route point or track point; nil (and a warning) when its `lat` or
    /// `lon` is missing or invalid, after skipping it.
    private mutating func readPoint() throws(GPXError) -> GPXPoint? {
        let start = scanner.tokenOffset
        scanner.pinnedOffset = start
        defer { scanner.pinnedOffset = .max }
        do {
            return try readPointBody(start: start)
        } catch {
            guard error.code == .truncated else { throw error }
            let (line, column) = scanner.location(of: start)
            throw GPXError(.truncated, "the point starting here is unfinished: \(error.message)",
                           line: line, column: column, offset: start)
        }
    }

    private mutating func readPointBody(start: Int) throws(GPXError) -> GPXPoint? {
        var latRange: Range<Int>?, lonRange: Range<Int>?
        for i in 0..<scanner.attributeCount {
            let a = scanner.attribute(at: i)
            if scanner.equals(a.name, "lat") { latRange = a.value } else if scanner.equals(a.name, "lon") { lonRange = a.value }
        }
        guard let lat = coordinate(latRange, limit: 90), let lon = coordinate(lonRange, limit: 180) else {
            warnPointDropped(latitude: latRange, longitude: lonRange, at: start)
            try skipElement()
            return nil
        }
        // GPX allows lon = 180 (longitudeType is [-180, 180)); Coordinate wants [-180, 180).
        var point = GPXPoint(coordinate: Coordinate(uncheckedLatitude: lat, longitude: lon == 180 ? -180 : lon))
        if scanner.selfClosing { return point }
        // A reused buffer for the point's raw extensions (one String allocation per point, none
        // when the read keeps no text).
        pointRaw.reset()
        while true {
            switch try nextToken() {
            case .startTag:
                switch tag() {
                // A value left out leaves the field as it was (unset, or an earlier duplicate's).
                // Numbers outside their GPXFieldRanges range are left out with a warning, as malformed ones.
                case .ele: if let v = try readDouble(in: GPXFieldRanges.elevation) { point.elevation = Distance(meters: v) }
                case .time: if let v = try readTime() { point.time = v }
                case .magvar: if let v = try readDouble(in: GPXFieldRanges.degrees) { point.magneticVariation = Bearing(degrees: v) }
                case .geoidheight: if let v = try readDouble(in: GPXFieldRanges.geoidHeight) { point.geoidHeight = Distance(meters: v) }
                case .name: if let v = try readPointText() { point.name = v }
                case .cmt: if let v = try readPointText() { point.comment = v }
                case .desc: if let v = try readPointText() { point.description = v }
                case .src: if let v = try readPointText() { point.source = v }
                // Links are read either way (a missing href is a warning); rare in points.
                case .link: if let link = try readLink(), keepsPointText { point.links.append(link) }
                case .url: if let v = try readPointText() { setURL(v, in: &point.links) }; usesGPX10Elements = true
                case .urlname: if let v = try readPointText() { setURLName(v, in: &point.links) }; usesGPX10Elements = true
                case .sym: if let v = try readPointText() { point.symbol = v }
                case .type: if let v = try readPointText() { point.type = v }
                case .fix: if let v = try readFix() { point.fix = v }
                case .sat: if let v = try readInteger() { point.satellites = v }
                case .hdop: if let v = try readDouble(in: GPXFieldRanges.dilution) { point.hdop = v }
                case .vdop: if let v = try readDouble(in: GPXFieldRanges.dilution) { point.vdop = v }
                case .pdop: if let v = try readDouble(in: GPXFieldRanges.dilution) { point.pdop = v }
                case .ageofdgpsdata: if let v = try readDouble(in: GPXFieldRanges.dgpsAge) { point.ageOfDGPSData = v }
                case .dgpsid: if let v = try readInteger() { point.dgpsID = v }
                case .course:
                    if let v = try readDouble(in: GPXFieldRanges.degrees) { point.course = Bearing(degrees: v) }
                    usesGPX10Elements = true
                case .speed:
                    if let v = try readDouble(in: GPXFieldRanges.speed) { point.speed = Speed(metersPerSecond: v) }
                    usesGPX10Elements = true
                case .extensions:
                    try captureExtensions(checkingGarminFields: true, keeping: keepsPointText)
                    if keepsPointText { pointRaw.append(scanner.captured.bytes) }
                default:
                    guard keepsPointText else { try skipElement(); continue }
                    try captureRawElement()
                    pointRaw.append(scanner.captured.bytes)
                }
            case .endTag:
                if !pointRaw.isEmpty { point.extensions = GPXExtensions(xml: pointRaw.string()) }
                return point
            default:
                continue
            }
        }
    }

    /// A coordinate attribute's value when it is a number in [-limit, limit]; nil otherwise.
    @inline(__always)
    private func coordinate(_ r: Range<Int>?, limit: Double) -> Double? {
        guard let r, let v = GPXNumber.double(scanner.buf + r.lowerBound, r.count), v >= -limit, v <= limit else { return nil }
        return v
    }

    /// The warning for a point left out for its `lat` or `lon` (the latitude's problem first),
    /// out of `readPointBody`'s hot path.
    @inline(never)
    private mutating func warnPointDropped(latitude: Range<Int>?, longitude: Range<Int>?, at start: Int) {
        let latitudeIsBad = coordinate(latitude, limit: 90) == nil
        let (name, what, limit, range) = latitudeIsBad ? ("lat", "latitude", 90, latitude) : ("lon", "longitude", 180, longitude)
        let element = scanner.nameString
        let raw = range.map { scanner.string($0) } ?? ""
        let problem = range == nil ? "has no \(name) attribute" : "\(name)='\(raw)' is not a \(what) in [-\(limit), \(limit)]"
        warn(.pointDropped, element: element, text: raw, at: start, "<\(element)> \(problem); the point is left out")
    }

    /// A point's text field (name, comment…); nil when the read keeps no text
    /// (`GPXPointFields.measurements`). The text is decoded either way, into the reused byte
    /// buffer, so a bad reference is the same error in both modes; only the String is saved.
    private mutating func readPointText() throws(GPXError) -> String? {
        try readText()
        return keepsPointText ? text.string() : nil
    }

    private mutating func readMetadata() throws(GPXError) -> GPXMetadata {
        var m = GPXMetadata()
        if scanner.selfClosing { return m }
        while true {
            switch try nextToken() {
            case .startTag:
                switch tag() {
                case .name: m.name = try readString()
                case .desc: m.description = try readString()
                case .author: m.author = try readPerson()
                case .copyright: m.copyright = try readCopyright()
                case .link: if let link = try readLink() { m.links.append(link) }
                case .time: m.time = try readTime()
                case .keywords: m.keywords = try readString()
                case .bounds: m.bounds = try readBounds()
                case .extensions: m.extensions = appending(try readExtensions(), to: m.extensions)
                default: m.extensions = appending(try readRawElement(), to: m.extensions)
                }
            case .endTag:
                return m
            default:
                continue
            }
        }
    }

    private mutating func readPerson() throws(GPXError) -> GPXPerson {
        var p = GPXPerson()
        if scanner.selfClosing { return p }
        while true {
            switch try nextToken() {
            case .startTag:
                switch tag() {
                case .name: p.name = try readString()
                case .email:
                    let id = try attributeString(scanner.attribute("id"))
                    let domain = try attributeString(scanner.attribute("domain"))
                    p.email = "\(id ?? "")@\(domain ?? "")"
                    try skipElement()
                case .link: p.link = try readLink()
                default: try skipElement()
                }
            case .endTag:
                return p
            default:
                continue
            }
        }
    }

    private mutating func readCopyright() throws(GPXError) -> GPXCopyright {
        var c = GPXCopyright(author: try attributeString(scanner.attribute("author")) ?? "")
        if scanner.selfClosing { return c }
        while true {
            switch try nextToken() {
            case .startTag:
                switch tag() {
                case .year: c.year = try readString()
                case .license: c.license = try readString()
                default: try skipElement()
                }
            case .endTag:
                return c
            default:
                continue
            }
        }
    }

    /// Reads a `<link>`; nil (and a warning) when it has no `href`, after skipping it.
    private mutating func readLink() throws(GPXError) -> GPXLink? {
        let offset = scanner.tokenOffset
        guard let href = try attributeString(scanner.attribute("href")) else {
            let element = scanner.nameString
            warn(.missingAttribute, element: element, text: "", at: offset, "<\(element)> has no href attribute; the link is left out")
            try skipElement()
            return nil
        }
        var link = GPXLink(href: href)
        if scanner.selfClosing { return link }
        while true {
            switch try nextToken() {
            case .startTag:
                switch tag() {
                case .text: link.text = try readString()
                case .type: link.type = try readString()
                default: try skipElement()
                }
            case .endTag:
                return link
            default:
                continue
            }
        }
    }

    /// Reads `<bounds>`; nil (and a warning) when an attribute is missing or not a number.
    private mutating func readBounds() throws(GPXError) -> GPXBounds? {
        let offset = scanner.tokenOffset
        let element = scanner.nameString
        var values: [Double] = []
        for name: StaticString in ["minlat", "minlon", "maxlat", "maxlon"] {
            guard let r = scanner.attribute(name) else {
                warn(.missingAttribute, element: element, text: "", at: offset, "<\(element)> has no \(name) attribute; the bounds are left out")
                break
            }
            guard let v = GPXNumber.double(scanner.buf + r.lowerBound, r.count) else {
                let raw = scanner.string(r)
                warn(raw.isEmpty ? .emptyValue : .invalidValue, element: element, text: raw, at: offset,
                     "<\(element)> \(name)='\(raw)' is not a number; the bounds are left out")
                break
            }
            values.append(v)
        }
        try skipElement()
        guard values.count == 4 else { return nil }
        return GPXBounds(minLatitude: values[0], minLongitude: values[1], maxLatitude: values[2], maxLongitude: values[3])
    }

    private func setURL(_ href: String, in links: inout [GPXLink]) {
        if let i = links.indices.last, links[i].href.isEmpty { links[i].href = href } else { links.append(GPXLink(href: href)) }
    }

    private func setURLName(_ name: String, in links: inout [GPXLink]) {
        if let i = links.indices.last, links[i].text == nil { links[i].text = name } else { links.append(GPXLink(href: "", text: name)) }
    }

    private static func trimmed(_ s: String) -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" || $0 == "\r\n" }
        return String(s.drop(while: isSpace).reversed().drop(while: isSpace).reversed())
    }

    private func appending(_ raw: [UInt8], to existing: GPXExtensions?) -> GPXExtensions? {
        if raw.isEmpty { return existing }
        let s = String(decoding: raw, as: UTF8.self)
        guard let existing else { return GPXExtensions(xml: s) }
        return GPXExtensions(xml: existing.xml + s)
    }

    // MARK: - Text content

    /// Reads the character data of the current simple element into `text` (entities decoded,
    /// CDATA unwrapped, comments dropped, nested elements skipped) and consumes its end tag.
    private mutating func readText() throws(GPXError) {
        text.reset()
        if scanner.selfClosing { return }
        let depth = scanner.depth
        while true {
            switch try nextToken(keepingBlankText: true) {
            case .text:
                try decode(scanner.tokenRange, normalizeSpace: false)
            case .cdata:
                let r = scanner.tokenRange
                text.append(scanner.buf + r.lowerBound + 9, count: r.count - 12)
            case .startTag:
                if !scanner.selfClosing { try skipElement() }
            case .endTag:
                if scanner.depth < depth { return }
            default:
                continue
            }
        }
    }

    private mutating func readString() throws(GPXError) -> String {
        try readText()
        return text.string()
    }

    /// The one rule for optional values: reads the current element's text and parses it;
    /// text that is empty (white space only) or does not parse gives nil and a warning, and
    /// the caller leaves the field unset.
    /// - Parameter type: what the text should be, for the message ("a number").
    @inline(__always)
    private mutating func readValue<Value>(_ type: String, _ parse: (UnsafeBufferPointer<UInt8>) -> Value?) throws(GPXError) -> Value? {
        let offset = scanner.tokenOffset
        // Keep the start tag in the window while the text is read, so a warning can locate it.
        let pinned = scanner.pinnedOffset
        scanner.pinnedOffset = min(pinned, offset)
        defer { scanner.pinnedOffset = pinned }
        try readText()
        if let v = parse(text.bytes) { return v }
        warnBadValue(type, at: offset)
        return nil
    }

    /// The warning of `readValue`, out of its hot path.
    @inline(never)
    private mutating func warnBadValue(_ type: String, at offset: Int) {
        // After readText the current token is the element's end tag (or its self-closing start
        // tag): either way its name is the element's.
        let element = scanner.nameString
        let raw = text.string()
        if raw.allSatisfy({ $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" || $0 == "\r\n" }) {
            warn(.emptyValue, element: element, text: raw, at: offset, "<\(element)> is empty, not \(type); the field is left out")
        } else {
            warn(.invalidValue, element: element, text: raw, at: offset, "<\(element)> '\(raw)' is not \(type); the field is left out")
        }
    }

    private mutating func readDouble() throws(GPXError) -> Double? {
        try readValue("a number") { GPXNumber.double($0.baseAddress!, $0.count) }
    }

    /// A number inside `range`; one outside is warned about and left out like a malformed one.
    private mutating func readDouble(in range: ValidRange) throws(GPXError) -> Double? {
        let offset = scanner.tokenOffset
        // Keep the start tag in the window until the range is checked, so the warning can locate it.
        let pinned = scanner.pinnedOffset
        scanner.pinnedOffset = min(pinned, offset)
        defer { scanner.pinnedOffset = pinned }
        guard let v = try readDouble() else { return nil }
        if range.contains(v) { return v }
        warnOutOfRange(range, at: offset)
        return nil
    }

    /// The warning of `readDouble(in:)`, out of its hot path.
    @inline(never)
    private mutating func warnOutOfRange(_ range: ValidRange, at offset: Int) {
        let element = scanner.nameString
        let raw = text.string()
        warn(.invalidValue, element: element, text: raw, at: offset, "<\(element)> '\(raw)' is outside \(range); the field is left out")
    }

    private mutating func readInteger() throws(GPXError) -> Int? {
        try readValue("an integer") { GPXNumber.integer($0.baseAddress!, $0.count) }
    }

    private mutating func readTime() throws(GPXError) -> Date? {
        try readValue("an ISO 8601 time") { ISO8601Time.date(from: $0) }
    }

    private mutating func readFix() throws(GPXError) -> GPXFix? {
        try readValue("one of none, 2d, 3d, dgps, pps") { GPXFix(rawValue: Self.trimmed(String(decoding: $0, as: UTF8.self))) }
    }

    private mutating func attributeString(_ r: Range<Int>?) throws(GPXError) -> String? {
        guard let r else { return nil }
        text.reset()
        try decode(r, normalizeSpace: true)
        return text.string()
    }

    /// Skips the rest of the current element (its start tag already read).
    private mutating func skipElement() throws(GPXError) {
        if scanner.selfClosing { return }
        let depth = scanner.depth
        while true {
            if try nextToken() == .endTag, scanner.depth < depth { return }
        }
    }

    /// Captures the raw bytes inside the current `<extensions>` element into
    /// `scanner.captured` and consumes its end tag.
    ///
    /// With `checkingGarminFields` (a point's extensions), the fields of a Garmin
    /// TrackPointExtension are read as they pass, by the rule of `GarminTrackPointExtension.Field`,
    /// so an empty or invalid one is a warning with its line and column like any optional
    /// field. The raw XML is kept as written; the typed accessor leaves such a field out.
    /// - Parameter keeping: false to read the element (checking the Garmin fields) without
    ///   capturing its bytes.
    private mutating func captureExtensions(checkingGarminFields: Bool = false, keeping: Bool = true) throws(GPXError) {
        scanner.captured.reset()
        if scanner.selfClosing { return }
        let depth = scanner.depth
        // The depth of an open TrackPointExtension element, .max when none is open.
        var garminDepth = Int.max
        scanner.capturing = keeping
        defer { scanner.capturing = false }
        while true {
            switch try nextToken() {
            case .endTag:
                if scanner.depth < depth {
                    if keeping { scanner.captured.removeLast(scanner.tokenRange.count) }
                    return
                }
                if scanner.depth < garminDepth { garminDepth = .max }
            case .startTag where checkingGarminFields:
                let name = scanner.localNameRange
                if garminDepth == .max {
                    if !scanner.selfClosing, scanner.equals(name, "TrackPointExtension") { garminDepth = scanner.depth }
                } else if scanner.depth == (scanner.selfClosing ? garminDepth : garminDepth + 1),
                          let field = GarminTrackPointExtension.Field(name: UnsafeBufferPointer(start: scanner.buf + name.lowerBound, count: name.count)) {
                    _ = try readValue(field.expected) { field.value($0) }
                }
            default:
                continue
            }
        }
    }

    private mutating func readExtensions() throws(GPXError) -> [UInt8] {
        try captureExtensions()
        return Array(scanner.captured.bytes)
    }

    /// Captures the raw bytes of the whole current element, start and end tags included, into
    /// `scanner.captured`.
    private mutating func captureRawElement() throws(GPXError) {
        let r = scanner.tokenRange
        scanner.captured.reset()
        scanner.captured.append(scanner.buf + r.lowerBound, count: r.count)
        if scanner.selfClosing { return }
        let depth = scanner.depth
        scanner.capturing = true
        defer { scanner.capturing = false }
        while true {
            if try nextToken() == .endTag, scanner.depth < depth { return }
        }
    }

    private mutating func readRawElement() throws(GPXError) -> [UInt8] {
        try captureRawElement()
        return Array(scanner.captured.bytes)
    }
}

extension GPXError {
    /// The scanner's error with the same location: `.truncated`, `.unsupportedEncoding`,
    /// `.malformedXML` or `.io`.
    init(_ error: XMLError) {
        let code: Code = switch error.code {
        case .truncated: .truncated
        case .io: .io
        case .unsupportedEncoding: .unsupportedEncoding
        default: .malformedXML
        }
        self.init(code, error.message, line: error.line, column: error.column, offset: error.offset,
                  underlying: error.underlying.map { "\($0)" })
    }
}
