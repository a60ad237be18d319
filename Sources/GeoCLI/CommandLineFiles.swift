import ArgumentParser
import GeoBase
import GeoCore
import Foundation
import GPXCodec
import Monitoring
import Positioning
import RoadNetwork
import SystemIO
import Platform

/// A file named on the command line that is missing, a directory, or damaged: printed as its
/// one line on standard error (`geo: no such file: x.gpx`), never with usage text, and the
/// process exits with `status` (sysexits.h: 66 EX_NOINPUT, 65 EX_DATAERR).
struct CommandLineFileError: Error, CustomStringConvertible {
    var description: String
    var status: Int32

    /// The path does not exist or is a directory.
    static func noInput(_ what: String, _ path: String) -> Self { Self(description: "geo: \(what): \(path)", status: 66) }

    /// The file's content is truncated or malformed; `error` says where.
    static func damaged(_ command: String, _ path: String, _ error: any Error) -> Self {
        Self(description: "geo \(command): \(path): \(error)", status: 65)
    }

    /// A `--source` URI that does not give a position source, as one line: a malformed URI or
    /// value is a usage error (64), a file it names that is damaged 65, one that cannot be
    /// read 66; `error`'s message names the URI or file.
    static func source(_ command: String, _ error: PositioningError) -> Self {
        let status: Int32 = switch error.code {
        case .invalidConfiguration where error.underlying == nil: 64
        case .invalidConfiguration: 65
        case .io where error.underlying is GPXError: 65
        default: 66
        }
        return Self(description: "geo \(command): --source: \(error)", status: status)
    }
}

extension CommandLineFiles {
    /// The position source a `--source` URI names (`PositionSourceURI`), dated from now.
    /// - Throws: `CommandLineFileError.source` naming the command and the option.
    static func positionSource(_ uri: String, command: String, reconnect: ReconnectPolicy = ReconnectPolicy(),
                               onConnectionChange: @escaping @Sendable (ConnectionChange) -> Void = { _ in }) throws -> any PositionSource {
        do { return try PositionSourceURI.source(uri, startDate: Date(), reconnect: reconnect, onConnectionChange: onConnectionChange) } catch {
            throw CommandLineFileError.source(command, error)
        }
    }

    /// The regions (geofences) of the GeoJSON or Osmosis `.poly` file at `path` (`RegionsFile`).
    /// - Throws: `CommandLineFileError`: `checkInput`'s, or 65 naming the file when it cannot be
    ///   read as regions.
    static func regions(_ path: String, command: String) throws -> [(identifier: String, condition: MonitorCondition)] {
        try checkInput(path)
        do { return try RegionsFile.conditions(from: try FileDescriptor.readContents(of: path), name: path) } catch {
            throw CommandLineFileError.damaged(command, path, error)
        }
    }
}

/// The files `geo` commands name on the command line, opened through SystemIO: `-` is
/// standard input or output.
enum CommandLineFiles {
    /// Writes `geo COMMAND: LINE` on standard error: notes, progress and warnings, which never
    /// mix with the results on standard output.
    static func note(_ command: String, _ line: String) {
        try? FileDescriptor.standardError.writeAll("geo \(command): \(line)\n")
    }

    /// ``note(_:_:)`` for `command`, as a library's callback.
    static func note(_ command: String) -> @Sendable (String) -> Void { { note(command, $0) } }

    /// Checks that `path` (not `-`) exists and is not a directory, before a reader opens it.
    /// - Throws: `CommandLineFileError.noInput`: "no such file" or "a directory, not a file".
    static func checkInput(_ path: String) throws(CommandLineFileError) {
        guard path != "-" else { return }
        var info = stat()
        guard stat(path, &info) == 0 else {
            let e = errno
            throw .noInput(e == ENOENT || e == ENOTDIR ? "no such file" : String(cString: strerror(e)), path)
        }
        if info.st_mode & S_IFMT == S_IFDIR { throw .noInput("a directory, not a file", path) }
    }

    /// The bytes of the file at `path`, the first `limit` of them at most.
    /// - Throws: `CommandLineFileError.noInput` (66): missing, a directory, or unreadable
    ///   ("cannot read (…)").
    static func contents(_ path: String, limit: Int = .max) throws(CommandLineFileError) -> [UInt8] {
        try checkInput(path)
        do {
            let fd = try FileDescriptor(opening: path)
            defer { try? fd.close() }
            return try fd.readToEnd(limit: limit)
        } catch {
            throw .noInput("cannot read (\(error))", path)
        }
    }

    /// Reports on standard error where a recovering read stopped and what it kept:
    /// the error, then `geo osm: FILE: --recover kept N nodes, M ways, K relations before the damage; …`.
    static func reportDamage(_ damage: (any Error)?, command: String, file: String, kept: String) {
        guard let damage else { return }
        try? FileDescriptor.standardError.writeAll("geo \(command): \(file): \(damage)\ngeo \(command): \(file): --recover kept \(kept) before the damage; the rest of the file was not read\n")
    }

    /// A byte source reading `path` (`-`: standard input).
    /// - Throws: `CommandLineFileError` for a missing path or a directory, `ValidationError`
    ///   naming the path and errno when it cannot be opened.
    static func source(_ path: String) throws -> FileSource {
        if path == "-" { return FileSource(.standardInput) }
        try checkInput(path)
        do { return FileSource(try FileDescriptor(opening: path), path: path) } catch {
            throw ValidationError("\(error)")
        }
    }

    /// Runs `body` with a byte source reading `path` (`-`: standard input), then closes the file.
    /// - Throws: `ValidationError` when it cannot be opened, or what `body` throws.
    static func withSource<Result>(_ path: String, _ body: (inout FileSource) throws -> Result) throws -> Result {
        var source = try source(path)
        defer { if path != "-" { try? source.descriptor.close() } }
        return try body(&source)
    }

    /// The road graph in the file `path` (`RoadGraph(reading:)`).
    /// - Throws: `CommandLineFileError`: missing, a directory, or damaged (one line naming the
    ///   file and where, as `geo COMMAND: PATH: …`).
    static func graph(_ path: String, command: String) throws -> RoadGraph {
        do { return try withSource(path) { try RoadGraph(reading: &$0) } } catch let error as RoadNetworkError {
            throw CommandLineFileError.damaged(command, path, error)
        }
    }

    /// Reads `path` (`-`: standard input) in chunks of up to 64 KiB.
    /// - Throws: `ValidationError` when it cannot be opened, `SystemIOError` on a read error.
    static func readChunks(_ path: String, _ body: (UnsafeRawBufferPointer) -> Void) throws {
        try withSource(path) { source in try source.forEachChunk(body) }
    }
}
