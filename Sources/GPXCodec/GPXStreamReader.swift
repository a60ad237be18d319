import Platform
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
    var scanner: XMLScanner
    var text = XMLByteBuffer()
    var pointRaw = XMLByteBuffer(capacity: 1024)
    var pending: [GPXEvent] = []
    var pendingIndex = 0
    enum Context { case start, document, route, track, segment, finished }
    var context: Context = .start
    var routeInfo = GPXPathInfo()
    var trackInfo = GPXPathInfo()
    var segmentExtensions: GPXExtensions?
    var metadata10 = GPXMetadata()
    var hasMetadata10 = false
    var documentExtensions: [UInt8] = []
    var versionDeclared = false
    var usesGPX10Elements = false
    let options: GPXReadOptions
    /// Whether points keep their text fields, links and raw XML (`GPXPointFields`).
    let keepsPointText: Bool
    var warnings: [GPXWarning] = []
    var warningCount = 0
    var damage: GPXError?

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
    func closingEvents(_ context: Context) -> [GPXEvent] {
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
    mutating func warn(_ code: GPXWarning.Code, element: String, text: String, at offset: Int,
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
    mutating func nextToken(keepingBlankText: Bool = false) throws(GPXError) -> XMLTokenKind {
        do { return try scanner.next(skippingBlankText: !keepingBlankText) } catch { throw GPXError(error) }
    }

    /// Appends the range's text to `text`, references decoded (see `XMLScanner.appendDecoded`).
    mutating func decode(_ r: Range<Int>, normalizeSpace: Bool) throws(GPXError) {
        do { try scanner.appendDecoded(r, to: &text, normalizeSpace: normalizeSpace) } catch { throw GPXError(error) }
    }

    /// An error located at an absolute input offset.
    func failure(_ code: GPXError.Code, _ message: String, at offset: Int) -> GPXError {
        let (line, column) = scanner.location(of: offset)
        return GPXError(code, message, line: line, column: column, offset: offset)
    }

    // MARK: - Element names

    enum Tag {
        case gpx, metadata, wpt, rte, rtept, trk, trkseg, trkpt, extensions
        case ele, time, magvar, geoidheight, name, cmt, desc, src, link, sym, type, fix, sat
        case hdop, vdop, pdop, ageofdgpsdata, dgpsid, number, course, speed
        case url, urlname, author, email, keywords, bounds, copyright, text, year, license
        case other
    }

    func tag() -> Tag {
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

    mutating func step() throws(GPXError) -> GPXEvent? {
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
    mutating func emitting(_ events: GPXEvent...) throws(GPXError) -> GPXEvent? {
        try emitting(events)
    }

    mutating func emitting(_ events: [GPXEvent]) throws(GPXError) -> GPXEvent? {
        var all = events
        if hasMetadata10 {
            hasMetadata10 = false
            all.insert(.metadata(metadata10), at: 0)
        }
        guard let first = all.first else { return nil }
        pending.append(contentsOf: all.dropFirst())
        return first
    }

    mutating func noteMetadata10(_ onlyInGPX10: Bool) {
        hasMetadata10 = true
        if onlyInGPX10 { usesGPX10Elements = true }
    }

    mutating func readHeader() throws(GPXError) -> GPXEvent? {
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

    mutating func checkDeclaration() throws(GPXError) {
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

    mutating func startDocument() throws(GPXError) -> GPXEvent? {
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
    mutating func finishDocument() throws(GPXError) {
        do { try scanner.finishDocument() } catch {
            guard options.recovering else { throw GPXError(error) }
            damage = GPXError(error)
        }
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
