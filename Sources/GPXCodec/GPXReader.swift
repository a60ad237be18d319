public import GeoBase
/// What a read returns: the document, what was left out of it, and where a recovering read
/// stopped.
public struct GPXReadResult: Sendable {
    /// Everything read. After damage (with `GPXReadOptions.recovering`): every complete point,
    /// segment, route and track before it, unfinished ones closed after their last complete
    /// point.
    public var document: GPXDocument
    /// The first `GPXReadOptions.warningLimit` warnings, in file order.
    public var warnings: [GPXWarning]
    /// How many warnings there were, including those not kept in `warnings`.
    public var warningCount: Int
    /// Where and why a recovering read stopped early; nil when the whole file was read.
    public var damage: GPXError?
}

/// Reads whole GPX documents into memory (built on `GPXStreamReader`).
public enum GPXReader {
    /// Reads a document, with its warnings and, when recovering, its damage.
    /// - Throws: `GPXError` with line, column and offset when the file cannot be read: broken
    ///   XML, a cut-off file (unless `options.recovering`), not GPX, not UTF-8, an I/O error.
    /// - Complexity: O(n) in the input size; memory O(points).
    public static func read(_ source: some ByteSource, options: GPXReadOptions) throws(GPXError) -> GPXReadResult {
        let reader = GPXStreamReader(source: source, options: options)
        var builder = GPXDocumentBuilder()
        while let event = try reader.next() { builder.add(event) }
        return GPXReadResult(document: builder.finish(inferredVersion: reader.inferredVersion),
                             warnings: reader.warnings, warningCount: reader.warningCount, damage: reader.damage)
    }

    /// Reads a complete document; values left out are not reported (see
    /// `read(_:options:)` for the warnings).
    /// - Throws: `GPXError` with line, column and offset at the first problem.
    /// - Complexity: O(n) in the input size; memory O(points).
    public static func read(_ source: some ByteSource) throws(GPXError) -> GPXDocument {
        try read(source, options: GPXReadOptions()).document
    }

    /// Reads a document from bytes in memory; values left out are not reported.
    /// - Throws: `GPXError` with line, column and offset at the first problem.
    public static func read(bytes: some Sequence<UInt8>) throws(GPXError) -> GPXDocument {
        try read(MemorySource(bytes))
    }
}

/// Assembles `GPXEvent`s into a `GPXDocument`.
public struct GPXDocumentBuilder: Sendable {
    private var document = GPXDocument()
    private var route: GPXRoute?
    private var track: GPXTrack?
    private var segment: GPXTrackSegment?

    public init() {}

    /// Adds one event in stream order.
    public mutating func add(_ event: GPXEvent) {
        switch event {
        case .header(let h): document.header = h
        case .metadata(let m): document.metadata = m
        case .waypoint(let p): document.waypoints.append(p)
        case .routeStart: route = GPXRoute()
        case .routePoint(let p): route?.points.append(p)
        case .routeEnd(let info):
            if var r = route { r.info = info; document.routes.append(r) }
            route = nil
        case .trackStart: track = GPXTrack()
        case .segmentStart: segment = GPXTrackSegment()
        case .trackPoint(let p): segment?.points.append(p)
        case .segmentEnd(let ext):
            if var s = segment { s.extensions = ext; track?.segments.append(s) }
            segment = nil
        case .trackEnd(let info):
            if var t = track { t.info = info; document.tracks.append(t) }
            track = nil
        case .extensions(let e): document.extensions = e
        }
    }

    /// The document, with any still-open segment, track or route closed.
    public func finish(inferredVersion: GPXVersion? = nil) -> GPXDocument {
        var d = document
        if let inferredVersion { d.header.version = inferredVersion }
        if let route { d.routes.append(route) }
        if var track {
            if let segment { track.segments.append(segment) }
            d.tracks.append(track)
        }
        return d
    }
}

/// The track points of a GPX stream as an `AsyncSequence`, in file order across all tracks
/// and segments (or of one track), read with constant memory.
///
/// ```swift
/// for try await point in GPXTrackPoints(source: MemorySource(bytes)) { … }
/// ```
/// Each iteration creates a reader over a copy of `source`. Breaking out of the loop stops
/// reading. Errors are `GPXError`; with `GPXReadOptions.recovering` a damaged file ends the
/// sequence after its last complete point instead. Warnings are not reported here: use
/// `GPXStreamReader` to see them.
public struct GPXTrackPoints<Source: ByteSource>: AsyncSequence {
    public typealias Element = GPXPoint
    public typealias Failure = GPXError

    private let source: Source
    private let track: Int?
    private let options: GPXReadOptions

    /// - Parameters:
    ///   - source: the bytes.
    ///   - track: the 0-based index of the one track to read, or nil for all tracks.
    ///   - options: how damage is treated.
    public init(source: Source, track: Int? = nil, options: GPXReadOptions = GPXReadOptions()) {
        self.source = source
        self.track = track
        self.options = options
    }

    public func makeAsyncIterator() -> Iterator { Iterator(reader: GPXStreamReader(source: source, options: options), track: track) }

    public struct Iterator: AsyncIteratorProtocol {
        let reader: GPXStreamReader
        let track: Int?
        var currentTrack = -1

        public mutating func next() async throws(GPXError) -> GPXPoint? {
            try nextPoint()
        }

        public mutating func next(isolation actor: isolated (any Actor)?) async throws(GPXError) -> GPXPoint? {
            try nextPoint()
        }

        private mutating func nextPoint() throws(GPXError) -> GPXPoint? {
            while let event = try reader.next() {
                switch event {
                case .trackStart:
                    currentTrack += 1
                    // Past the wanted track: stop without reading the rest of the file.
                    if let track, currentTrack > track { return nil }
                case .trackPoint(let p) where track == nil || track == currentTrack:
                    return p
                default:
                    continue
                }
            }
            return nil
        }
    }
}

extension GPXTrackPoints: Sendable where Source: Sendable {}

extension GPXStreamReader {
    /// Calls `body` for every track point, in file order; the synchronous counterpart of
    /// `GPXTrackPoints`.
    /// - Throws: `GPXError` from reading, or stops when `body` throws.
    public func forEachTrackPoint(_ body: (GPXPoint) throws(GPXError) -> Void) throws(GPXError) {
        while let event = try next() {
            if case .trackPoint(let p) = event { try body(p) }
        }
    }
}
