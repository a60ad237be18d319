import GeoBase
public import ArgumentParser
import GeoCore
import MapMatching
import RoadNetwork
import SystemIO
import TraceFiles

/// `geo match`: map-matches a recorded track on a graph file written by `geo extract`
/// (OSRM's `/match` service, in process), or replays it through the online matcher.
struct MatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "match",
        abstract: "Match a recorded track (GPX, GeoJSON, CSV or NMEA) to the roads of a graph.",
        discussion: """
            json: OSRM /match's shape: 'matchings' (confidence, distance m, duration s, geometry, \
            and 'nodes', the OSM node ids along the path) and 'tracepoints' (null when unmatched, \
            else location [lon, lat], distance m from the fix, matchings_index, and 'nodes', the \
            two OSM node ids of the segment it lies on). geojson: a LineString feature per \
            matching. gpx: a track with a segment per matching. --online prints one JSON line per \
            fix with what the live matcher published at that fix: matched {latitude, longitude} \
            or null, nodes, confidence, offRoadProbability, revised. Both have one entry per \
            fix of the track, in its order: a GPX point whose lat or lon is missing, not a \
            number or out of range is not matched, gets a null tracepoint (online: matched, \
            nodes, confidence and offRoadProbability null) and a warning with its line on \
            standard error. \
            CSV needs a header naming lat/latitude and lon/lng/longitude columns, optionally \
            time (ISO 8601 or Unix seconds) and accuracy (68 % radius, m). GeoJSON: LineStrings \
            and Points, times from a 'coordTimes' or 'times' property when present (one time \
            per position, in the years 0001 to 9999, else the file is refused). Fixes without \
            times are matched by distance alone; fixes with times going backwards start a new \
            matching.
            """
    )

    @Option(help: "A graph file written by 'geo extract' (--profile car for car, foot for pedestrian).")
    var graph: String

    @Argument(help: "The track: .gpx, .geojson/.json, .csv, or NMEA (.nmea, .log, anything else).")
    var track: String

    @Option(help: "car (car graph) or pedestrian (foot graph).")
    var mode = MapMatchMode.car

    @OptionGroup var format: PathFormatOption

    @Flag(help: "Print what the online matcher publishes, one JSON line per fix.")
    var online = false

    @OptionGroup var output: OutputOptions

    @Flag(help: "Report on standard error how long the matching alone took (no graph load, parsing or output).")
    var timing = false

    @Option(parsing: .unconditional, help: ArgumentHelp("68 % accuracy assumed for fixes that report none, metres (default: the mode's).", valueName: "m"))
    var accuracy: Double?

    func validate() throws {
        try MatchingParameters.defaultAccuracies.check(accuracy, option: "--accuracy")
    }

    func run() throws {
        var timings = MatchTimings()
        let roads = try CommandLineFiles.graph(graph)
        guard MapMatchMode(servedBy: roads) == mode else {
            throw ValidationError("\(graph): a \(roads.profileName) graph; --mode \(mode.rawValue) needs one extracted with --profile \(mode.profileName)")
        }
        timings.lap("graph load")
        var parameters = MatchingParameters(for: mode)
        if let accuracy { parameters.defaultAccuracy = .meters(accuracy) }
        let matcher = try MapMatcher(graph: roads, mode: mode, parameters: parameters)
        timings.lap("index")
        let file = try CommandLineFiles.trace(track, TraceFile.init(path:))
        for warning in file.warnings { CommandLineFiles.note("match", "\(track):\(warning): its tracepoint is null") }
        let fixes = file.entries.compactMap(\.self)
        guard !fixes.isEmpty else { throw CommandLineFileError("\(track): no track points with a position", status: 65) }
        timings.lap("track read")
        try output.write { sink in try MatchOutput.write(file.entries, matcher: matcher, online: online, format: format.format, timings: &timings, to: &sink) }
        timings.lap("output")
        if timing, !online { CommandLineFiles.note("match", timings.report(fixes: fixes.count)) }
    }
}

extension MapMatchMode: ExpressibleByArgument {}
