import Foundation
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

    /// Applies `transform` to every track segment of the document, keeping everything else.
    static func mapSegments(_ document: GPXDocument, _ transform: ([(Location, GPXPoint)]) throws -> [GPXPoint],
                            accuracy: GPXAccuracyPolicy) rethrows -> GPXDocument {
        var out = document
        for t in out.tracks.indices {
            for s in out.tracks[t].segments.indices {
                let fixes = locations(out.tracks[t].segments[s], accuracy: accuracy)
                out.tracks[t].segments[s].points = try transform(fixes)
            }
        }
        return out
    }
}

/// A failure of a track command, printed as the message.
struct TrackCommandError: Error, CustomStringConvertible {
    var description: String
    init(_ message: String) { description = message }
}
