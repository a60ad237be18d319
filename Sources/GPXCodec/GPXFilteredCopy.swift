public import GeoBase
public import GeoCore

/// A track segment's filter in a streaming copy (`GPXFilteredCopy`): it takes the segment's
/// timed points one at a time and hands on, in order, the points it keeps.
public protocol GPXSegmentFilter {
    /// Takes one timed point, as `fix` (by the copy's accuracy policy), and hands on the points
    /// it now keeps.
    mutating func push(_ fix: Location, point: GPXPoint, _ emit: (GPXPoint) throws -> Void) throws
    /// The segment ended: hands on what still waits.
    mutating func finish(_ emit: (GPXPoint) throws -> Void) throws
}

/// A GPX file copied event by event with each track segment's points passed through a filter
/// (`geo gpx clean` and `geo gpx smooth`): memory stays flat however long the file.
public enum GPXFilteredCopy {
    /// What a streaming copy could not put where GPX's schema order wants it, having written
    /// what follows it already: counted and reported, not silently lost.
    public struct LeftOut: Hashable, Sendable {
        /// Waypoints after the first route or track, routes after the first track.
        public var waypoints = 0, routes = 0
        /// GPX 1.0 document fields (name, time…) after the first waypoint, route or track.
        public var metadata = false
        /// Tracks with fields (name, links…) after their first segment.
        public var trackFields = 0

        public init() {}

        /// One sentence per kind of what was left out; empty when nothing was.
        public var messages: [String] {
            var out: [String] = []
            if waypoints > 0 { out.append("\(waypoints) waypoints after the first route or track left out (GPX puts waypoints first)") }
            if routes > 0 { out.append("\(routes) routes after the first track left out (GPX puts routes before tracks)") }
            if metadata { out.append("document fields after the first waypoint, route or track left out") }
            if trackFields > 0 { out.append("fields of \(trackFields) tracks written after their first segment left out") }
            return out
        }
    }

    /// Where a streaming copy is in GPX's schema order.
    private enum DocumentPart { case waypoints, routes, tracks }

    /// Copies the document `reader` reads to `sink` event by event, passing each track
    /// segment's timed points (as fixes, by `accuracy`) through a fresh `segment()` and
    /// writing the points it hands on; points without a time are left out (filters need time).
    /// Header, metadata, waypoints, routes, track and segment fields and extensions are copied.
    /// Memory is the reader's and writer's buffers plus one segment filter's, however long
    /// the file. In a file out of GPX's schema order, what comes too late is left out and
    /// counted in `leftOut` (the whole-document readers reorder it instead). Each segment's
    /// filter is handed to `segmentEnded` once it has finished.
    /// - Returns: the sink, and how many points (waypoints, route and track points) were read.
    /// - Throws: `GPXError` from reading; what the sink throws.
    public static func copy<Sink: ByteSink, Segment: GPXSegmentFilter>(
        _ reader: GPXStreamReader, to sink: Sink, accuracy: GPXAccuracyPolicy, leftOut: inout LeftOut,
        segment: () -> Segment, segmentEnded: (Segment) -> Void
    ) throws -> (Sink, points: Int) {
        var header = GPXHeader(), metadata = GPXMetadata(), documentExtensions: GPXExtensions?
        var writer: GPXStreamWriter<Sink>?
        /// The writer, started at the first element after the header and metadata.
        func started() throws -> GPXStreamWriter<Sink> {
            if let writer { return writer }
            return try GPXStreamWriter(sink: sink, header: header, metadata: metadata)
        }
        var part = DocumentPart.waypoints
        var points = 0
        var skippingRoute = false, routeBegun = false, trackBegun = false
        var trackInfo: GPXPathInfo?
        var filter: Segment?
        while let event = try reader.next() {
            switch event {
            case .header(let h):
                header = h
            case .metadata(let m):
                if writer == nil { metadata = m } else { leftOut.metadata = true }
            case .waypoint(let p):
                points += 1
                writer = try started()
                if part == .waypoints { try writer!.write(waypoint: p) } else { leftOut.waypoints += 1 }
            case .routeStart:
                writer = try started()
                skippingRoute = part == .tracks
                if !skippingRoute { part = .routes }
                routeBegun = false
            case .routePoint(let p):
                points += 1
                guard !skippingRoute else { continue }
                if !routeBegun { try writer!.beginRoute(reader.openRouteInfo); routeBegun = true }
                try writer!.write(routePoint: p)
            case .routeEnd(let info):
                if skippingRoute { leftOut.routes += 1; continue }
                if !routeBegun { try writer!.beginRoute(info) }
                try writer!.endRoute()
            case .trackStart:
                writer = try started()
                part = .tracks
                trackBegun = false
            case .segmentStart:
                if !trackBegun {
                    trackInfo = reader.openTrackInfo
                    try writer!.beginTrack(trackInfo!)
                    trackBegun = true
                }
                try writer!.beginSegment()
                filter = segment()
            case .trackPoint(let p):
                points += 1
                guard let fix = Location(gpxPoint: p, accuracy: accuracy) else { continue }
                try filter?.push(fix, point: p) { try writer!.write(trackPoint: $0) }
            case .segmentEnd(let extensions):
                if var finished = filter {
                    try finished.finish { try writer!.write(trackPoint: $0) }
                    segmentEnded(finished)
                }
                filter = nil
                try writer!.endSegment(extensions: extensions)
            case .trackEnd(let info):
                if !trackBegun {
                    try writer!.beginTrack(info)
                } else if info != trackInfo {
                    leftOut.trackFields += 1
                }
                try writer!.endTrack()
            case .extensions(let e):
                documentExtensions = e
            }
        }
        writer = try started()
        return (try writer!.finish(extensions: documentExtensions), points)
    }
}
