import ArgumentParser
import GeoBase
import GPXCodec
import Positioning
import RoadNetwork
import SystemIO
import TraceFiles
import Platform

/// A file or value named on the command line that cannot be used: missing, a directory,
/// damaged, a port taken. Commands throw it (or let ``CommandLineFiles/reading(_:command:damage:_:)``
/// make it from a library's error) and leave it to `Geo.runAsMain`, which prints its one line on
/// standard error, never with usage text, naming the command that ran (``line(command:)``), and
/// exits with `status` (sysexits.h: 64 EX_USAGE, 65 EX_DATAERR, 66 EX_NOINPUT, 69
/// EX_UNAVAILABLE, 73 EX_CANTCREAT). Usage errors with usage text stay `ValidationError`s.
struct CommandLineFileError: Error, CustomStringConvertible {
    /// Who the line speaks for: `geo` itself (`geo: no such file: x.gpx`), or a command
    /// (`geo route: city.graph: …`) — the one that ran unless another is named.
    enum Teller { case tool, command(String?) }

    var teller: Teller
    /// The rest of the line: the file or option at fault, then what is wrong with it.
    var message: String
    var status: Int32

    /// The line on standard error when `command` ("tiles build") ran.
    func line(command: String?) -> String {
        switch teller {
        case .tool: "geo: \(message)"
        case .command(let named): "geo\((named ?? command).map { " " + $0 } ?? ""): \(message)"
        }
    }

    /// The line, for a failure told inside another (a note): named as ``line(command:)``
    /// names it when the failure names its command, else only `geo:`.
    var description: String { line(command: nil) }
}

extension CommandLineFileError {
    /// A failure of the command that ran, or of `command`, as `geo COMMAND: MESSAGE`.
    init(_ message: String, status: Int32, command: String? = nil) { self.init(teller: .command(command), message: message, status: status) }

    /// The path does not exist or is a directory (66).
    static func noInput(_ what: String, _ path: String) -> Self { Self(teller: .tool, message: "\(what): \(path)", status: 66) }

    /// The file's content is truncated or malformed; `error` says where (65).
    static func damaged(_ path: String, _ error: any Error, command: String? = nil) -> Self { Self("\(path): \(error)", status: 65, command: command) }

    /// Runs `body`, which reads the file or folder `path` (or bytes already read from it): an
    /// error it throws that `damage` accepts (any, by default) is `path`'s damage
    /// (``damaged(_:_:command:)``), any other passes through.
    static func damage<Result>(of path: String, command: String? = nil, damage: (any Error) -> Bool = { _ in true },
                               _ body: () throws -> Result) throws -> Result {
        do { return try body() } catch let error where damage(error) { throw damaged(path, error, command: command) }
    }

    /// A `--source` URI that does not give a position source, as one line: a malformed URI or
    /// value is a usage error (64), a file it names that is damaged 65, one that cannot be
    /// read 66; `error`'s message names the URI or file.
    static func source(_ error: PositioningError, command: String? = nil) -> Self {
        let status: Int32 = switch error.code {
        case .invalidConfiguration where error.underlying == nil: 64
        case .invalidConfiguration: 65
        case .io where error.underlying is GPXError: 65
        default: 66
        }
        return Self("--source: \(error)", status: status, command: command)
    }
}

extension CommandLineFiles {
    /// The position source a `--source` URI names (`PositionSourceURI`), dated from now.
    /// - Throws: `CommandLineFileError.source`, naming `command` when given.
    static func positionSource(_ uri: String, command: String? = nil, reconnect: ReconnectPolicy = ReconnectPolicy(),
                               onConnectionChange: @escaping @Sendable (ConnectionChange) -> Void = { _ in }) throws -> any PositionSource {
        do { return try PositionSourceURI.source(uri, startDate: Date(), reconnect: reconnect, onConnectionChange: onConnectionChange) } catch {
            throw CommandLineFileError.source(error, command: command)
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
    /// - Throws: `CommandLineFileError.noInput` with `FileSource.inputProblem(at:)`'s reason.
    static func checkInput(_ path: String) throws(CommandLineFileError) {
        if let problem = FileSource.inputProblem(at: path) { throw .noInput(problem, path) }
    }

    /// Runs `body`, a library's read of the file `path`, after ``checkInput(_:)``: an error
    /// `body` throws that `damage` accepts (any, by default) is the file's damage, any other
    /// passes through — one rule for every command that reads a named file.
    /// - Throws: `checkInput`'s; `CommandLineFileError.damaged` (65) naming `path`, and
    ///   `command` when the line names another than the one that ran.
    static func reading<Result>(_ path: String, command: String? = nil, damage: (any Error) -> Bool = { _ in true },
                                _ body: () throws -> Result) throws -> Result {
        try checkInput(path)
        return try CommandLineFileError.damage(of: path, command: command, damage: damage, body)
    }

    /// Runs `read`, a reader of the recorded track `path`, after ``checkInput(_:)``: its error is
    /// a file that cannot be read (66) or is not of its format (65), naming where.
    static func trace<Result>(_ path: String, _ read: (String) throws(TraceFileError) -> Result) throws -> Result {
        try checkInput(path)
        do { return try read(path) } catch { throw CommandLineFileError("\(error.location): \(error.message)", status: error.code == .unreadable ? 66 : 65) }
    }

    /// Runs `body` with a byte source reading `path` (`-`: standard input), then closes the file.
    /// - Throws: `CommandLineFileError` for a missing path or a directory, `ValidationError`
    ///   naming the path and errno when it cannot be opened, or what `body` throws.
    static func withSource<Result>(_ path: String, _ body: (inout FileSource) throws -> Result) throws -> Result {
        try checkInput(path)
        var source: FileSource
        do { source = try FileSource(input: path) } catch { throw ValidationError("\(error)") }
        defer { source.closeInput() }
        return try body(&source)
    }

    /// The road graph in the file `path` (`RoadGraph(reading:)`).
    /// - Throws: `CommandLineFileError`: missing, a directory, or damaged (one line naming the
    ///   file and where, as `geo COMMAND: PATH: …`).
    static func graph(_ path: String) throws -> RoadGraph {
        try reading(path, damage: { $0 is RoadNetworkError }) { try withSource(path) { try RoadGraph(reading: &$0) } }
    }
}
