import Foundation
import GeoTestSupport
import SystemIO
import Testing

/// Absurd numbers on the command line: each is a usage error (exit 64, EX_USAGE) whose message
/// names the option or URI key and its range, never a signal (issue 13 §2).
struct AbsurdOptionCLITests {
    /// (arguments, what standard error must name). `FILE` is replaced by a small route or track.
    static let cases: [([String], String)] = [
        (["simulate", "--speed", "1e20"], "--speed"),
        (["simulate", "--speed", "0"], "--speed"),
        (["simulate", "--speed", "-5"], "--speed"),
        (["simulate", "--speed", "nan"], "--speed"),
        (["simulate", "--interval", "1e20"], "--interval"),
        (["simulate", "--interval", "0"], "--interval"),
        (["simulate", "--noise", "-1"], "--noise"),
        (["simulate", "--noise", "1e300"], "--noise"),
        (["simulate", "--count", "-1"], "--count"),
        (["simulate", "--count", "0"], "--count"),
        (["simulate", "--nmea-tcp", "70000"], "--nmea-tcp"),
        (["track", "--for", "1e20"], "--for"),
        (["track", "--for", "-1"], "--for"),
        (["track", "--count", "0"], "--count"),
        (["track", "--source", "route:FILE.geojson?interval=1e20"], "interval"),
        (["track", "--source", "route:FILE.geojson?speed=1e20"], "speed"),
        (["track", "--source", "gpx:FILE.gpx?speed=1e-308"], "speed"),
        (["track", "--source", "gpx:FILE.gpx?accuracy=-3"], "accuracy"),
        (["track", "--source", "nmea:///dev/ttyUSB0?baud=1e20"], "baud"),
        (["route", "--graph", "FILE.graph", "--from", "91,0", "--to", "0,0"], "--from"),
        (["route", "--graph", "FILE.graph", "--small-component-size", "-1", "--from", "0,0", "--to", "0,0"], "--small-component-size"),
        (["gpx", "clean", "FILE.gpx", "--uere", "0"], "--uere"),
        (["gpx", "clean", "FILE.gpx", "--assumed-accuracy", "-10"], "--assumed-accuracy"),
        (["gpx", "smooth", "FILE.gpx", "--acceleration", "1e300"], "--acceleration"),
        (["gpx", "simplify", "FILE.gpx", "--tolerance", "-1"], "--tolerance"),
        (["eval", "filters", "--seeds", "0"], "--seeds"),
        (["eval", "filters", "--seed", "18446744073709551615", "--seeds", "2"], "--seed"),
        (["loadgen", "--url", "http://127.0.0.1:9/", "--devices", "0"], "--devices must be 1…100000"),
        (["loadgen", "--url", "http://127.0.0.1:9/", "--duration", "nan"], "--duration must be > 0 and ≤ 86400 s"),
        (["loadgen", "--url", "http://127.0.0.1:9/", "--overland-batch", "10001"], "--overland-batch"),
        (["serve-tracking", "--live-interval", "1001"], "--live-interval must be 0…1000 ms"),
        (["serve-tracking", "--live-match", "car"], "--live-match needs --roads"),
    ]

    @Test(arguments: cases)
    func absurdOption_isAUsageErrorNamingIt(arguments: [String], named: String) async throws {
        try await withTemporaryDirectory { dir in
            let file = dir.appendingPathComponent("FILE").path
            try Data(#"{"type":"LineString","coordinates":[[13.4,52.5],[13.41,52.51]]}"#.utf8).write(to: URL(fileURLWithPath: file + ".geojson"))
            try Data("""
                <gpx version="1.1" creator="t"><trk><trkseg>
                <trkpt lat="52.5" lon="13.4"><time>2020-01-01T00:00:00Z</time></trkpt>
                <trkpt lat="52.5" lon="13.401"><time>2020-01-01T00:00:10Z</time></trkpt>
                </trkseg></trk></gpx>
                """.utf8).write(to: URL(fileURLWithPath: file + ".gpx"))
            let result = try await GeoProcess.geo(arguments.map { $0.replacingOccurrences(of: "FILE", with: file) })
            #expect(result.exit == .exited(64), "\(arguments): \(result.exit), \(result.stderr)")
            #expect(result.stderr.contains(named), "\(arguments): stderr does not name \(named): \(result.stderr)")
        }
    }

    @Test func negativeCoordinateAfterASpace_isAValue() async throws {
        // --to -10,-50 as a user types it: the coordinate is parsed, and what fails is the
        // missing graph file, not a "missing value for --to".
        let result = try await GeoProcess.geo(["route", "--graph", "/nonexistent.graph", "--from", "-33.9,18.4", "--to", "-10,-50"])
        #expect(!result.stderr.contains("Missing value"), "\(result.stderr)")
        #expect(result.stderr.contains("nonexistent.graph"), "\(result.stderr)")
    }

    @Test func simulateCount_emitsExactlyThatManyFixes() async throws {
        for count in [1, 3] {
            let result = try await GeoProcess.geo(["simulate", "--fast", "--count", "\(count)"])
            #expect(result.status == 0, "\(result.stderr)")
            let fixes = result.stdout.split(whereSeparator: \.isNewline).filter { $0.hasPrefix("$GPRMC") }.count
            #expect(fixes == count, "--count \(count) printed \(fixes) RMC sentences")
        }
    }

    @Test func help_documentsTheRanges() async throws {
        let simulate = try await GeoProcess.geo(["simulate", "--help"])
        #expect(simulate.stdout.contains("> 0 and ≤ 10000 m/s"), "\(simulate.stdout)")
        #expect(simulate.stdout.contains("0.001…86400 s"), "\(simulate.stdout)")
        let track = try await GeoProcess.geo(["track", "--help"])
        #expect(track.stdout.contains("> 0 and ≤ 1000000000 s"), "\(track.stdout)")
    }
}
