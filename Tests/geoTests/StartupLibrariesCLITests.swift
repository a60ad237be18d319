import Foundation
import GeoTestSupport
import Testing

#if os(Linux)
/// The libraries the dynamic loader reports loading while `geo arguments` runs, by file name:
/// glibc's `LD_DEBUG=files` prints `file=NAME [0];  needed by …` for each library linked and
/// `… dynamically loaded by …` for each one opened later.
private func loadedLibraries(_ arguments: [String]) async throws -> [String] {
    var environment = ProcessInfo.processInfo.environment
    environment["LD_DEBUG"] = "files"
    let result = try await GeoProcess.geo(arguments, environment: environment)
    #expect(result.status == 0, "geo \(arguments.joined(separator: " ")): \(result.stderr.suffix(500))")
    return result.stderr.split(separator: "\n").compactMap { line in
        guard let start = line.range(of: "file=") else { return nil }
        return String(line[start.upperBound...].prefix { $0 != " " })
    }
}

/// HarfBuzz, FreeType and libdbus are opened by the code that needs them, not linked (on Linux,
/// where `geo` uses them; glibc's loader reports what it loads): a
/// command that neither draws text nor scans for beacons does not pay their start-up (with the
/// libraries they need, about 1.3 ms of CPU each for the font pair and for libdbus, measured on
/// `geo osm info --help`); one that draws text opens HarfBuzz and FreeType when it does.
@Test func startUp_loadsNeitherFontNorBusLibraries_untilTextIsDrawn() async throws {
    let optional = ["libharfbuzz", "libfreetype", "libdbus"]
    let info = try await loadedLibraries(["osm", "info", "--help"])
    #expect(info.contains { $0.hasPrefix("libc.so") }, "LD_DEBUG lists what is loaded: \(info)")
    #expect(info.allSatisfy { name in !optional.contains { name.hasPrefix($0) } }, "\(info)")
    try await withTemporaryDirectory { dir in
        let snapshot = try await loadedLibraries(["snapshot", "--output", dir.appendingPathComponent("city.png").path])
        #expect(snapshot.contains("libharfbuzz.so.0") && snapshot.contains("libfreetype.so.6"), "\(snapshot)")
        #expect(!snapshot.contains { $0.hasPrefix("libdbus") }, "\(snapshot)")
    }
}
#endif
