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
            return try GPXReader.read(try CommandLineFiles.source(path))
        } catch let error as GPXError {
            throw TrackCommandError("\(path):\(error.line):\(error.column): \(error.message)")
        }
    }

    /// Writes a GPX document to a file, or to standard output for nil or `-`.
    static func write(_ document: GPXDocument, to path: String?) throws {
        var sink = try CommandLineFiles.sink(path)
        defer { CommandLineFiles.close(sink) }
        sink = try GPXWriter.write(document, to: sink)
    }

    /// The timed points of a segment as fixes. GPX stores no accuracy: a point's `hdop` times
    /// `uere` metres stands in for it (1-sigma user equivalent range error; Langley, "Dilution of
    /// precision", GPS World 1999), else the accuracy stays missing. Points without a time are
    /// skipped (filters need time).
    static func locations(_ segment: GPXTrackSegment, uere: Double) -> [(Location, GPXPoint)] {
        segment.points.compactMap { p in
            guard let time = p.time else { return nil }
            let location = Location(coordinate: p.coordinate, timestamp: time, altitude: p.elevation,
                                    horizontalAccuracy: p.hdop.map { Distance(meters: $0 * uere) },
                                    speed: p.speed, course: p.course,
                                    satelliteCount: p.satellites)
            return (location, p)
        }
    }

    /// A GPX point for a filtered fix: position, time, elevation, speed and course from the fix,
    /// the rest from the original point when there is one.
    static func point(_ location: Location, original: GPXPoint?) -> GPXPoint {
        var p = original ?? GPXPoint(coordinate: location.coordinate)
        p.coordinate = location.coordinate
        p.time = location.timestamp
        p.elevation = location.altitude ?? p.elevation
        p.speed = location.speed
        p.course = location.course
        return p
    }

    /// Applies `transform` to every track segment of the document, keeping everything else.
    static func mapSegments(_ document: GPXDocument, _ transform: ([(Location, GPXPoint)]) throws -> [GPXPoint],
                            uere: Double) rethrows -> GPXDocument {
        var out = document
        for t in out.tracks.indices {
            for s in out.tracks[t].segments.indices {
                let fixes = locations(out.tracks[t].segments[s], uere: uere)
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
