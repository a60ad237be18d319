import ArgumentParser
import Positioning
import SystemIO

/// `geo track`: runs a position source through the PositioningManager and prints one JSON
/// object per event.
struct TrackCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "track",
        abstract: "Print live positions from a source, one JSON object per event.",
        discussion: """
            Sources: gpsd://127.0.0.1:2947, nmea:///dev/ttyUSB0?baud=9600, nmea+tcp://HOST:PORT, \
            nmea:FILE (nmea:- for standard input), gpx:FILE?speed=10 (speed=max: as fast as \
            possible; accuracy=M for points without one, default 10), route:LINE.geojson?speed=13.9&interval=1&noise=3, device: (gpsd if it \
            answers, else $LOCATIONKIT_NMEA_DEVICE).
            Ranges: route speed \(PositionSourceURI.Limits.movementSpeed), interval \(PositionSourceURI.Limits.updateInterval), \
            noise \(PositionSourceURI.Limits.noise); gpx/nmea speed \(PositionSourceURI.Limits.speedFactor); \
            gpx accuracy \(PositionSourceURI.Limits.assumedAccuracy); baud \(PositionSourceURI.Limits.baud).
            Events: {"event":"update","time":…,"lat":…,"lon":…,"accuracy":…,"speed":…,"course":…,"stationary":false}, \
            {"event":"update",…,"stationary":true} when updates pause, {"event":"lost","time":…} (the \
            last fix's time, null before the first), \
            {"event":"error","code":…,"message":…}. Accuracy is the 68 % radius in metres. Numbers have \
            one precision per field, raw or filtered: lat/lon 9 decimals, accuracy 3 (m), speed 3 (m/s), \
            course 4 (degrees).
            --match GRAPH (a car or foot graph from 'geo extract') matches each fix live to its roads \
            (car graph: car mode, foot graph: pedestrian): every update gets "matched": \
            {"lat":…,"lon":…,"confidence":…,"current":…} or null when no road fits (and on the stationary \
            update); lat/lon stay the fix, "current" says whether the manager's current position is \
            the match (confidence ≥ 0.5).
            Fixes the preset's filter drops are not printed: standard error says so in one line the \
            first time a reason drops a run of fixes, and sums the drops up by reason at the end.
            """
    )

    @Option(help: "The position source URI.")
    var source: String = "device:"

    @Option(help: "Live-update preset: \(LiveConfiguration.presets.map(\.name).joined(separator: ", ")); 'raw' turns filtering and pauses off.")
    var preset: String = "default"

    @Option(parsing: .unconditional,
            help: "Stop after this many update objects (\(OptionRanges.count)): moving updates and the stationary one that announces a pause (lost and error events do not count).")
    var count: Int?

    @Option(name: .customLong("for"), parsing: .unconditional, help: "Stop after this many seconds (\(OptionRanges.trackDuration)).")
    var duration: Double?

    @Option(help: "Match each fix live to the roads of this graph file ('geo extract', car or foot profile).")
    var match: String?

    @Flag(help: "Also report visits as Core Location does: a {\"event\":\"visit\",…} line at the arrival with \"departureDate\": null while the stay goes on, then one with both dates at the departure (Monitoring's VisitDetector on every fix the source delivered: 75 m, 5 minutes).")
    var visits = false

    @Option(help: "Log what the source delivers as GPX into this directory (a session that a rerun rejoins).")
    var log: String?

    @Option(parsing: .unconditional,
            help: "Network sources (gpsd://, nmea+tcp://): failed connections in a row to retry, waiting 0.25 s doubling to 8 s between them, before giving up (\(ReconnectPolicy.retryCounts)).")
    var retry: Int = 10

    @Option(parsing: .unconditional, help: "Network sources: seconds one connection attempt may take (\(ReconnectPolicy.connectTimeouts)).")
    var timeout: Double = 5

    func validate() throws {
        if preset != "raw", LiveConfiguration.preset(named: preset) == nil {
            throw ValidationError("unknown preset '\(preset)'")
        }
        try OptionRanges.count.check(count, option: "--count")
        try OptionRanges.trackDuration.check(duration, option: "--for")
        try ReconnectPolicy.retryCounts.check(retry, option: "--retry")
        try ReconnectPolicy.connectTimeouts.check(timeout, option: "--timeout")
    }

    func run() async throws {
        let reconnect = ReconnectPolicy(maximumRetries: retry, connectTimeout: .seconds(timeout))
        let positionSource = try CommandLineFiles.positionSource(source, reconnect: reconnect) { change in
            // The retry limit is --retry's: named after it.
            var line = change.description(under: reconnect)
            if case .failing = change, reconnect.maximumRetries != nil { line += " (--retry)" }
            Self.warn(line)
        }
        let graph = match.map { path in { try CommandLineFiles.graph(path) } }
        let run = LiveTrack(preset: preset, count: count, duration: duration, matchGraph: graph, visits: visits, logDirectory: log)
        let out = standardOutput
        let failed: Bool
        do { failed = try await run.run(positionSource, line: out.line, flush: out.flush, note: Self.warn) } catch let error as LiveTrack.UnmatchableGraph {
            throw ValidationError("\(match ?? ""): a \(error.profileName) graph; --match needs one extracted with --profile car or foot")
        }
        if failed { throw ExitCode.failure }
    }

    private static let warn = CommandLineFiles.note("track")
}
