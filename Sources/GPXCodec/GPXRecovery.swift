public import GeoBase

/// Recovering a GPX file that a writer left cut or damaged (a position log after a crash or a
/// power loss), in streaming passes of constant memory: a first pass learns what a writer needs
/// before the points (`survey`); a file whose last complete track point is followed only by
/// closing tags or a torn write can be continued in place (`continuation`); any other file is
/// copied, what is recoverable in schema order, into a new writer (`copyRecoverable`).
public enum GPXRecovery {
    /// What the first pass over a file learns: the parts a writer needs before the points
    /// (header, metadata, the names of routes and tracks, which GPX puts first but the reader
    /// reports at their end) and how reading ended.
    public struct Survey: Sendable {
        public var header: GPXHeader?
        public var metadata = GPXMetadata()
        public var routeInfos: [GPXPathInfo] = []
        public var trackInfos: [GPXPathInfo] = []
        public var documentExtensions: GPXExtensions?
        /// Track points read before the end or the damage.
        public var points = 0
        /// Whether only closing tags, an empty segment's start and the document extensions
        /// follow the last track point (so the file can be continued right after that point).
        public var endsInLastSegment = false
        /// Where and how reading stopped early; nil when the document is whole.
        public var damage: GPXError?
    }

    /// A file whose elements are out of GPX's schema order (a waypoint after a track, a point
    /// outside its route or track): not a file this recovery rewrites.
    public struct SchemaOrderError: Error, Hashable, Sendable {}

    /// Reads `source` to its end or its damage.
    public static func survey(_ source: some ByteSource) -> Survey {
        var survey = Survey()
        let reader = GPXStreamReader(source: source)
        do {
            while let event = try reader.next() {
                switch event {
                case .header(let h): survey.header = h
                case .metadata(let m): survey.metadata = m
                case .routeEnd(let info): survey.routeInfos.append(info)
                case .trackEnd(let info): survey.trackInfos.append(info)
                case .extensions(let e): survey.documentExtensions = e
                case .trackPoint:
                    survey.points += 1
                    survey.endsInLastSegment = true
                case .segmentEnd(let e) where e == nil: break
                case .segmentStart: break
                default: survey.endsInLastSegment = false
                }
            }
        } catch {
            survey.damage = error
        }
        return survey
    }

    /// Where a surveyed file can be continued in place: right after its last complete
    /// `</trkpt>` (and the line break after it), when nothing but closing tags, a torn write or
    /// a processing instruction after `</gpx>` follows.
    /// - Parameters:
    ///   - tail: the file's last bytes (a torn write is at most one writer flush, so 256 KiB
    ///     suffice), which start at byte `tailStart` of a file of `size` bytes.
    /// - Returns: the byte offset to cut the file at and how many track points started after
    ///   it (torn, dropped); nil when the last point is not in the tail, or a point starts
    ///   between the cut and the damage (the reader did not keep exactly the points before it).
    public static func continuation(tail: ArraySlice<UInt8>, tailStart: Int64, size: Int64,
                                    survey: Survey) -> (cut: Int64, pointsDropped: Int)? {
        let base = tail.startIndex
        let damageStart = base + Int(min(survey.damage.map { Int64($0.offset) } ?? size, size) - tailStart)
        // The document ends at the first `</gpx>` (what follows is a processing instruction
        // parking a write in flight), or at the damage.
        let documentEnd = min(firstRange(of: "</gpx>", in: tail)?.lowerBound ?? tail.endIndex, damageStart)
        guard var end = lastRange(of: "</trkpt>", in: tail[..<documentEnd])?.upperBound else { return nil }
        if end < documentEnd, tail[end] == 0x0A { end += 1 }
        var beforeDamage = StartTagCounter("<trkpt"), dropped = StartTagCounter("<trkpt")
        beforeDamage.scan(tail[end..<damageStart])
        guard beforeDamage.count == 0 else { return nil }
        dropped.scan(tail[end...])
        return (tailStart + Int64(end - base), dropped.count)
    }

    /// The second pass: copies waypoints, routes and tracks in order into `writer`, dropping
    /// empty segments, and leaves the last track open (a new one named `trackName` when there
    /// is none). Reading stops at the damage the survey found.
    /// - Throws: `SchemaOrderError`; what the writer throws.
    public static func copyRecoverable<Sink>(from source: some ByteSource, survey: Survey, to w: inout GPXStreamWriter<Sink>,
                                             trackName: String?) throws {
        var stage = CopyStage.waypoints
        var routes = 0, tracks = 0
        var segmentOpen = false, trackEnded = false
        let reader = GPXStreamReader(source: source)
        while let event = try? reader.next() {
            switch event {
            case .header, .metadata: break
            case .waypoint(let p):
                guard stage == .waypoints else { throw SchemaOrderError() }
                try w.write(waypoint: p)
            case .routeStart:
                guard stage.rawValue <= CopyStage.routes.rawValue else { throw SchemaOrderError() }
                try w.beginRoute(routes < survey.routeInfos.count ? survey.routeInfos[routes] : GPXPathInfo())
                routes += 1
                stage = .inRoute
            case .routePoint(let p):
                guard stage == .inRoute else { throw SchemaOrderError() }
                try w.write(routePoint: p)
            case .routeEnd:
                guard stage == .inRoute else { throw SchemaOrderError() }
                try w.endRoute()
                stage = .routes
            case .trackStart:
                guard stage != .inRoute, stage != .inTrack else { throw SchemaOrderError() }
                if trackEnded { try w.endTrack() }
                try w.beginTrack(tracks < survey.trackInfos.count ? survey.trackInfos[tracks] : GPXPathInfo(name: trackName))
                tracks += 1
                stage = .inTrack
                trackEnded = false
            case .segmentStart:
                guard stage == .inTrack else { throw SchemaOrderError() }
            case .trackPoint(let p):
                guard stage == .inTrack else { throw SchemaOrderError() }
                if !segmentOpen { try w.beginSegment() }
                segmentOpen = true
                try w.write(trackPoint: p)
            case .segmentEnd(let extensions):
                guard stage == .inTrack else { throw SchemaOrderError() }
                if segmentOpen { try w.endSegment(extensions: extensions) }
                segmentOpen = false
            case .trackEnd:
                guard stage == .inTrack else { throw SchemaOrderError() }
                stage = .tracks
                trackEnded = true
            case .extensions:
                break // the writer's closing tags carry them (`Survey.documentExtensions`)
            }
        }
        // Reading stopped at the end or at the damage: close what is open, except the track.
        if segmentOpen { try w.endSegment() }
        if stage == .inRoute { try w.endRoute() }
        if stage != .inTrack && !trackEnded { try w.beginTrack(GPXPathInfo(name: trackName)) }
    }

    /// How many track points (`<trkpt` start tags) `source` holds, read in 64 KiB chunks,
    /// whether or not they are complete.
    /// - Complexity: O(n) in the source's size, constant memory.
    /// - Throws: what the source throws.
    public static func trackPointStartCount(in source: some ByteSource) throws -> Int {
        var source = source
        var counter = StartTagCounter("<trkpt")
        try source.forEachChunk { counter.scan($0) }
        return counter.count
    }

    /// Where `copyRecoverable` is in GPX's schema order.
    private enum CopyStage: Int { case waypoints, routes, inRoute, tracks, inTrack }

    /// Where `text` first occurs in `bytes`.
    private static func firstRange(of text: String, in bytes: ArraySlice<UInt8>) -> Range<Int>? {
        let pattern = Array(text.utf8)
        guard bytes.count >= pattern.count else { return nil }
        return stride(from: bytes.startIndex, through: bytes.endIndex - pattern.count, by: 1)
            .first { bytes[$0..<($0 + pattern.count)].elementsEqual(pattern) }
            .map { $0..<($0 + pattern.count) }
    }

    /// Where `text` last occurs in `bytes`.
    private static func lastRange(of text: String, in bytes: ArraySlice<UInt8>) -> Range<Int>? {
        let pattern = Array(text.utf8)
        guard bytes.count >= pattern.count else { return nil }
        return stride(from: bytes.endIndex - pattern.count, through: bytes.startIndex, by: -1)
            .first { bytes[$0..<($0 + pattern.count)].elementsEqual(pattern) }
            .map { $0..<($0 + pattern.count) }
    }
}

/// Counts the occurrences of a start tag (`<name`) in bytes scanned piece by piece.
private struct StartTagCounter {
    private let tag: [UInt8]
    private var matched = 0
    private(set) var count = 0

    init(_ tag: String) { self.tag = Array(tag.utf8) }

    mutating func scan(_ bytes: some Sequence<UInt8>) {
        for byte in bytes {
            // No proper prefix of a start tag `<name` is also its suffix, so a mismatch
            // restarts the match at this byte.
            matched = byte == tag[matched] ? matched + 1 : (byte == tag[0] ? 1 : 0)
            if matched == tag.count { count += 1; matched = 0 }
        }
    }
}
