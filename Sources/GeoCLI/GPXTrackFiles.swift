import Foundation
import GeoBase
import GeoCore
import GPXCodec
import TrackFiltering
import SystemIO

/// Reading and writing GPX files as tracks of `Location`s for the track commands.
enum GPXTrackFiles {
    /// Reads a GPX file whole (the evaluation's truth tracks).
    /// - Throws: `TrackCommandError` with the file, line and column of the first problem.
    static func read(_ path: String) throws -> GPXDocument {
        do {
            return try CommandLineFiles.withSource(path) { try GPXReader.read($0) }
        } catch let error as GPXError {
            throw TrackCommandError("\(path):\(error.line):\(error.column): \(error.message)")
        }
    }

    /// Writes a GPX document to a file, or to standard output for nil or `-`.
    static func write(_ document: GPXDocument, to path: String?) throws {
        try CommandLineFiles.withOutput(path) { sink in sink = try GPXWriter.write(document, to: sink) }
    }

    /// The timed points of a segment as fixes, by GPXCodec's bridge with its accuracy policy
    /// (`GPXAccuracyPolicy`: recorded, else HDOP × UERE, else assumed). Points without a time
    /// are skipped (filters need time).
    static func locations(_ segment: GPXTrackSegment, accuracy: GPXAccuracyPolicy) -> [(Location, GPXPoint)] {
        segment.points.compactMap { p in Location(gpxPoint: p, accuracy: accuracy).map { ($0, p) } }
    }

    /// A GPX point for a filtered fix: position, time, elevation, speed and course from the fix,
    /// the rest from the original point when there is one (`GPXPoint.update(from:)`).
    static func point(_ location: Location, original: GPXPoint?) -> GPXPoint {
        var p = original ?? GPXPoint(coordinate: location.coordinate)
        p.update(from: location)
        return p
    }
}

/// A track segment's filter in a streaming copy (`GPXTrackFiles.copy`): it takes the
/// segment's timed points one at a time and hands on, in order, the points it keeps.
protocol GPXSegmentStream {
    mutating func push(_ fix: Location, point: GPXPoint, _ emit: (GPXPoint) throws -> Void) throws
    /// The segment ended: hands on what still waits and returns what became of its fixes.
    mutating func finish(_ emit: (GPXPoint) throws -> Void) throws -> FilterReport
}

extension GPXTrackFiles {
    /// What a streaming copy could not put where GPX's schema order wants it, having written
    /// what follows it already: counted and reported, not silently lost.
    struct LeftOut {
        /// Waypoints after the first route or track, routes after the first track.
        var waypoints = 0, routes = 0
        /// GPX 1.0 document fields (name, time…) after the first waypoint, route or track.
        var metadata = false
        /// Tracks with fields (name, links…) after their first segment.
        var trackFields = 0

        /// One line per kind, for standard error.
        func lines(file: String) -> String {
            var out = ""
            if waypoints > 0 { out += "geo gpx: \(file): \(waypoints) waypoints after the first route or track left out (GPX puts waypoints first)\n" }
            if routes > 0 { out += "geo gpx: \(file): \(routes) routes after the first track left out (GPX puts routes before tracks)\n" }
            if metadata { out += "geo gpx: \(file): document fields after the first waypoint, route or track left out\n" }
            if trackFields > 0 { out += "geo gpx: \(file): fields of \(trackFields) tracks written after their first segment left out\n" }
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
    /// counted in `leftOut` (the whole-document readers reorder it instead). The segments'
    /// reports are added to `report`.
    /// - Returns: the sink, and how many points (waypoints, route and track points) were read.
    /// - Throws: `GPXError` from reading; what the sink throws.
    static func copy<Sink: ByteSink, Segment: GPXSegmentStream>(
        _ reader: GPXStreamReader, to sink: Sink, accuracy: GPXAccuracyPolicy, leftOut: inout LeftOut,
        report: inout FilterReport, segment: () -> Segment
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
                if let r = try filter?.finish({ try writer!.write(trackPoint: $0) }) { report.merge(r) }
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

    /// Runs a streaming copy of `input` to `output` (standard output for nil or `-`), with
    /// the read diagnostics every `geo gpx` command prints and what the copy left out.
    /// - Returns: what became of the fixes of all segments.
    static func copy<Segment: GPXSegmentStream>(_ input: GPXInputOptions, to output: String?,
                                                accuracy: GPXAccuracyPolicy, segment: () -> Segment) throws -> FilterReport {
        var leftOut = LeftOut()
        var report = FilterReport()
        _ = try input.stream(json: false) { reader in
            var points = 0
            try CommandLineFiles.withOutput(output) { sink in
                (sink, points) = try copy(reader, to: sink, accuracy: accuracy, leftOut: &leftOut, report: &report, segment: segment)
            }
            return ((), points)
        }
        let lines = leftOut.lines(file: input.file)
        if !lines.isEmpty { try? FileDescriptor.standardError.writeAll(lines) }
        return report
    }
}

/// A failure of a track command, printed as the message.
struct TrackCommandError: Error, CustomStringConvertible {
    var description: String
    init(_ message: String) { description = message }
}
