import Foundation
import GeoTestSupport
import SystemIO
import Testing

/// `geo serve` read by the PMTiles reference reader: every tile PyPI `pmtiles` (Protomaps'
/// Python implementation of the PMTiles v3 spec) finds in a Monaco archive `geo tiles build`
/// wrote is fetched from the server and equals the archive's stored bytes, and the TileJSON
/// carries the header's zooms (`scripts/oracles/serve_pmtiles_check.py`).
@Test(.onOwnThread, .timeLimit(.minutes(5)))
func serve_everyTileIsTheArchivesBytes_asPyPIPMTilesReadsThem() async throws {
    guard let osm = try Fixtures.url("osm/monaco.osm.pbf") else { return }
    guard let python = GeoProcess.which("python3"), (try await GeoProcess.run(python, ["-c", "import pmtiles"])).status == 0 else {
        if Fixtures.isCI { Issue.record("CI needs python3 with pmtiles (scripts/setup.sh)") }
        return
    }
    try await withTemporaryDirectory { dir in
        let archive = dir.appendingPathComponent("monaco.pmtiles").path
        let build = try await GeoProcess.geo(["tiles", "build", osm.path, "-o", archive, "--minzoom", "10", "--maxzoom", "14"])
        try #require(build.status == 0, "\(build.stderr)")
        let port = FreePort.take()
        let server = try ChildProcess.spawn(.init(executable: GeoProcess.geoExecutable.path,
                                                  arguments: ["serve", archive, "--quiet", "--port", String(port), "--host", "127.0.0.1"],
                                                  standardOutput: .nullDevice, standardError: .nullDevice))
        defer { _ = server.kill() }
        try #require(await GPSFake.waitUntilListening(port: port), "geo serve listens on \(port)")
        let script = Fixtures.packageRoot.appendingPathComponent("scripts/oracles/serve_pmtiles_check.py").path
        let check = try await GeoProcess.run(python, [script, archive, "http://127.0.0.1:\(port)"])
        #expect(check.status == 0, "\(check.stdout) \(check.stderr.suffix(1000))")
        let counts = check.stdout.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        // "pmtiles check: N tiles, N equal, 0 differ": Monaco at zooms 10…14 is over 30 tiles.
        #expect(counts.count == 3 && counts[0] > 30 && counts[0] == counts[1] && counts[2] == 0, "\(check.stdout)")
    }
}
