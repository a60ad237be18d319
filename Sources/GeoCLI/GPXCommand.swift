public import ArgumentParser
import GeoBase
import GPXCodec
import SystemIO
import TrackFiltering

/// `geo gpx`: GPX tools. To add a subcommand, put it in its own file and list it here.
struct GPXCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gpx",
        abstract: "Read, summarise and convert GPX tracks.",
        subcommands: [
            GPXStatsCommand.self,
            GPXConvertCommand.self,
            GPXClean.self,
            GPXSmooth.self,
            GPXSimplify.self,
        ]
    )
}

/// Options every `geo gpx` subcommand that reads one file shares.
struct GPXInputOptions: ParsableArguments {
    @Argument(help: "The GPX file ('-' for standard input).")
    var file: String

    @Flag(help: "Use everything complete before damage in a cut-off or broken file (a crashed logger's) and say how much was recovered, instead of failing.")
    var recover = false

    /// The reader options `--recover` selects.
    var readOptions: GPXReadOptions { GPXReadOptions(recovering: recover) }

    /// Runs `body` with a streaming reader over the file, then reports what reading left out
    /// or stopped at (`GPXReadReport`); with `json`, warnings are left to the JSON output.
    /// - Parameters:
    ///   - pointFields: what the reader builds of each point (`.measurements` for a command
    ///     that reads no text).
    ///   - body: reads the events; returns its result and how many points it read.
    /// - Throws: `ExitCode` 65 (74 for an I/O error) after reporting a read error; what `body`
    ///   throws otherwise (a write error of a command that streams its output).
    func stream<Result>(json: Bool, pointFields: GPXPointFields = .all,
                        _ body: (GPXStreamReader) throws -> (Result, points: Int)) throws -> (Result, GPXReadReport) {
        var options = readOptions
        options.pointFields = pointFields
        return try reading { source in try GPXReadReport.streamed(source, file: file, options: options, warnings: !json, note: CommandLineFiles.note("gpx"), body) }
    }

    /// Reads the whole document, then reports what reading left out or stopped at.
    /// - Throws: `ExitCode` 65 (74 for an I/O error) after reporting a read error.
    func readDocument() throws -> GPXDocument {
        try reading { source in try GPXReadReport.read(source, file: file, options: readOptions, note: CommandLineFiles.note("gpx")) }
    }

    /// Runs `body` over the open file, which reports a `GPXError` it throws.
    /// - Throws: `ExitCode` for a read error: 65 (sysexits.h EX_DATAERR) for damaged or foreign
    ///   content, like the other commands' data errors; 74 (EX_IOERR) when reading itself failed.
    ///   `ValidationError` when the file cannot be opened.
    private func reading<Result>(_ body: (FileSource) throws -> Result) throws -> Result {
        do {
            return try CommandLineFiles.withSource(file) { source in try body(source) }
        } catch let error as GPXError {
            throw ExitCode(error.code == .io ? 74 : 65)
        }
    }
}

/// `geo gpx stats FILE [--json]`: counts, lengths, times, climbs, speed and bounds, read in
/// one streaming pass with constant memory.
struct GPXStatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Counts, geodesic lengths, duration, moving time, elevation gain and loss, maximum speed and bounds of a GPX file's tracks.",
        discussion: """
            Definitions follow gpxpy (counts, duration, elevation smoothing) with WGS84 geodesic \
            lengths; moving time and maximum speed use 2D speeds (moving above 1 km/h). \
            Only track points count toward lengths and times; routes and waypoints are counted.
            """
    )

    @OptionGroup var input: GPXInputOptions
    @OptionGroup var output: JSONOption

    func run() throws {
        // Statistics read no names, links or extensions: the reader skips building them.
        let (s, report) = try input.stream(json: output.json, pointFields: .measurements) { reader throws(GPXError) in
            let read = try GPXStatistics.read(reader)
            return (read.statistics, read.points)
        }
        standardOutput.line(output.json ? s.json(report: report) : s.summary)
    }
}

/// `geo gpx convert IN --to gpx|geojson|csv [-o OUT]`.
struct GPXConvertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Convert a GPX file to GPX 1.1, GeoJSON or CSV.",
        discussion: """
            gpx: GPX 1.1 with everything kept (extensions verbatim); GPX 1.0 course and speed \
            have no place in 1.1 and are dropped. \
            geojson: a FeatureCollection (RFC 7946) with a Point per waypoint, a LineString per \
            route and a MultiLineString per track (one line per segment); positions are \
            [lon, lat] or [lon, lat, ele]. \
            csv: one row per point: kind,track,segment,index,latitude,longitude,elevation_m,time,name.
            """
    )

    @OptionGroup var input: GPXInputOptions

    @Option(help: "Output format: gpx, geojson or csv.")
    var to: GPXOutputFormat

    @OptionGroup var output: OutputOptions

    func run() throws {
        let document = try input.readDocument()
        try output.write { sink in try to.write(document, creator: "LocationKit geo", to: &sink) }
    }
}

extension GPXOutputFormat: ExpressibleByArgument {}

/// GPX files copied through a segment filter for the track commands.
enum GPXTrackFiles {
    /// Runs a streaming copy of `input` to `output` (standard output for nil or `-`), with
    /// the read diagnostics every `geo gpx` command prints and what the copy left out; with
    /// `printsReport` (`--report`), then what became of the fixes of all segments.
    static func copy<Segment: GPXSegmentFilter>(_ input: GPXInputOptions, to output: OutputOptions, accuracy: GPXAccuracyPolicy, printsReport: Bool,
                                                segment: () -> Segment, report: (Segment) -> FilterReport) throws {
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
        if printsReport { try? FileDescriptor.standardError.writeAll(total.description + "\n") }
    }
}
