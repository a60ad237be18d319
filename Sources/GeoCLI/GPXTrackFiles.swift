import Foundation
import GeoBase
import GeoCore
import GPXCodec
import TrackFiltering
import SystemIO

/// Reading and writing GPX files as tracks of `Location`s for the track commands.
enum GPXTrackFiles {
    /// Reads a GPX file whole (`geo snapshot --track`).
    /// - Throws: `TrackCommandError` with the file, line and column of the first problem.
    static func read(_ path: String) throws -> GPXDocument {
        do {
            return try CommandLineFiles.withSource(path) { try GPXReader.read($0) }
        } catch let error as GPXError {
            throw TrackCommandError("\(path):\(error.line):\(error.column): \(error.message)")
        }
    }
}

extension GPXTrackFiles {
    /// Runs a streaming copy of `input` to `output` (standard output for nil or `-`), with
    /// the read diagnostics every `geo gpx` command prints and what the copy left out.
    /// - Returns: what became of the fixes of all segments.
    static func copy<Segment: GPXSegmentFilter>(_ input: GPXInputOptions, to output: OutputOptions, accuracy: GPXAccuracyPolicy,
                                                segment: () -> Segment, report: (Segment) -> FilterReport) throws -> FilterReport {
        var leftOut = GPXFilteredCopy.LeftOut()
        var total = FilterReport()
        _ = try input.stream(json: false) { reader in
            var points = 0
            try output.write { sink in
                (sink, points) = try GPXFilteredCopy.copy(reader, to: sink, accuracy: accuracy, leftOut: &leftOut,
                                                          segment: segment) { total.merge(report($0)) }
            }
            return ((), points)
        }
        for message in leftOut.messages { try? FileDescriptor.standardError.writeAll("geo gpx: \(input.file): \(message)\n") }
        return total
    }
}

/// A failure of a track command, printed as the message.
struct TrackCommandError: Error, CustomStringConvertible {
    var description: String
    init(_ message: String) { description = message }
}
