public import ArgumentParser
import GeoBase
import GeoCore
import HTTPServing
import MapCamera
import Synchronization
import SystemIO
import TraceFiles

// The option sets several commands share, each declared once with its validation and its
// conversion to the library value it feeds.

/// `-o`: where a command's result goes (`geo gpx convert / clean / smooth / simplify`, `geo match`).
struct OutputOptions: ParsableArguments {
    @Option(name: .shortAndLong, help: "Output file (default: standard output), replaced atomically.")
    var output: String?

    /// Runs `body` with the output's sink (SystemIO's `StandardOutput.withOutput`: a regular
    /// file is replaced only once `body` succeeds).
    func write(_ body: (inout any ByteSink) throws -> Void) throws { try standardOutput.withOutput(output, body) }

    /// Writes `bytes` to the output.
    func write(_ bytes: [UInt8]) throws { try standardOutput.write(bytes, to: output) }
}

/// `--json` of the commands that print text by default (`geo gpx stats`, `geo magnetic`).
struct JSONOption: ParsableArguments {
    @Flag(help: "Print one JSON object instead of text.")
    var json = false
}

/// `--format` of the commands that print a path on the roads (`geo route`, `geo match`).
struct PathFormatOption: ParsableArguments {
    @Option(help: "Output format: json, geojson or gpx.")
    var format: PathFormat = .json
}

extension PathFormat: ExpressibleByArgument {}

/// The port a serving command listens on without `--port`.
protocol DefaultPort { static var port: Int { get } }
/// `geo map` and `geo serve`: 8080.
enum WebPort: DefaultPort { static let port = 8080 }
/// `geo serve-tracking`: 5055, the port OsmAnd and Traccar clients send to.
enum TrackingPort: DefaultPort { static let port = 5055 }

/// `--port` and `--host` of the commands that serve HTTP (`geo map`, `geo serve`,
/// `geo serve-tracking`), all on `LocalServer` and its Host policy.
struct ServerOptions<Default: DefaultPort>: ParsableArguments {
    @Option(help: "TCP port (\(LocalServer.Options.ports); 0 lets the system pick a free one).")
    var port: Int = Default.port

    @Option(name: .customLong("host"), help: ArgumentHelp("Address to listen on, repeatable (default 127.0.0.1 and ::1); 0.0.0.0 or :: serves every address, where IP-literal Host names are accepted too.", valueName: "ADDRESS"))
    var hosts: [String] = []

    func validate() throws {
        try LocalServer.Options.ports.check(port, option: "--port")
    }

    /// The addresses to bind (127.0.0.1 and ::1 without `--host`) and the other names and
    /// origins the Host policy accepts.
    func bind(allowedOrigins: [String] = [], hostNames: [String] = []) -> LocalServer.Options {
        LocalServer.Options(port: port, hosts: hosts.isEmpty ? ["127.0.0.1", "::1"] : hosts, allowedOrigins: allowedOrigins, hostNames: hostNames)
    }

    /// Runs `serve` with the callback a server calls once listening: `geo COMMAND: serving URL;
    /// Ctrl-C stops` on standard error and, with `printsURL`, the first URL as the first line of
    /// standard output (CONTRACT "geo serve").
    /// - Throws: `CommandLineFileError` (69, EX_UNAVAILABLE) naming `--port` when the server
    ///   cannot listen (a port taken, an address not on this machine); what `serve` throws.
    func run(_ command: String, printsURL: Bool, _ serve: (_ serving: @escaping @Sendable (String) -> Void) async throws -> Void) async throws {
        let first = Mutex(printsURL)
        do {
            try await serve { url in
                if first.withLock({ let was = $0; $0 = false; return was }) { try? FileDescriptor.standardOutput.writeAll(url + "\n") }
                CommandLineFiles.note(command, "serving \(url); Ctrl-C stops")
            }
        } catch let error as HTTPServingError where error.code == .cannotBind {
            throw CommandLineFileError("--port \(port): \(error.message)", status: 69, command: command)
        }
    }
}

/// How large a command's `--size` may be and what it is without one.
protocol ViewSizeLimits {
    /// `WIDTHxHEIGHT` without `--size`.
    static var size: String { get }
    /// The pixels a side may have.
    static var sides: ValidRange { get }
    /// What the help adds after the range (nothing unless given).
    static var note: String { get }
}
extension ViewSizeLimits { static var note: String { "" } }

/// `--size WIDTHxHEIGHT`, whole pixels, of the commands that draw or move a view (`geo snapshot`,
/// `geo map`, `geo map animate`).
struct ViewSizeOption<Limits: ViewSizeLimits>: ParsableArguments {
    @Option(help: ArgumentHelp("View size in pixels, WIDTHxHEIGHT, each side \(Limits.sides)\(Limits.note).", valueName: "WxH"))
    var size: String = Limits.size

    func validate() throws { _ = try pixels() }

    /// The sides in pixels (`ViewSize.pixels(parsing:named:sides:example:)`).
    /// - Throws: `ValidationError` naming `--size` for other text or a side out of range.
    func pixels() throws -> (width: Int, height: Int) {
        do { return try ViewSize.pixels(parsing: size, named: "--size", sides: Limits.sides, example: Limits.size) } catch { throw ValidationError(error.message) }
    }

    /// The size as the camera's view size.
    func viewSize() throws -> ViewSize {
        let (w, h) = try pixels()
        do { return try ViewSize(width: Double(w), height: Double(h)) } catch { throw ValidationError("--size: \(error.message)") }
    }
}

/// `--projection` of the commands that draw a camera's view: MapCamera's projections by name.
extension MapProjection: ExpressibleByArgument {}

/// `--animation` of `geo map animate`: MapCamera's animations by name.
extension MapAnimation: ExpressibleByArgument {}

extension Coordinate {
    /// A `LAT,LON` option's value; a bad one is a usage error naming `option`.
    static func option(_ text: String, _ option: String) throws -> Coordinate {
        do { return try Coordinate(parsing: text) } catch { throw ValidationError("\(option): \(error.message)") }
    }
}
