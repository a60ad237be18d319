import Foundation
import Testing
import GeoTestSupport

/// A fresh temporary folder for one test's output files.
private func temporaryFolder() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("geo-filters-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

private func trackPointCount(_ url: URL) throws -> Int {
    try String(contentsOf: url, encoding: .utf8).components(separatedBy: "<trkpt").count - 1
}

@Test func gpxClean_realDriveWithReport() async throws {
    guard let input = try Fixtures.url("gpx/gpxpy/around-visnjan-with-car.gpx") else { return }
    let dir = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: dir) }
    let output = dir.appendingPathComponent("clean.gpx")
    let result = try await GeoProcess.geo(["gpx", "clean", input.path, "-o", output.path, "--preset", "automotiveNavigation", "--report"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.contains("received 104"))
    let kept = try trackPointCount(output)
    #expect(kept > 50 && kept < 104, "kept \(kept) of 104")
    #expect(result.stderr.contains("warm-up"))
}

@Test func gpxClean_unknownPresetFails() async throws {
    guard let input = try Fixtures.url("gpx/gpxpy/around-visnjan-with-car.gpx") else { return }
    let result = try await GeoProcess.geo(["gpx", "clean", input.path, "-o", "-", "--preset", "rocket"])
    #expect(result.status != 0)
    #expect(result.stderr.contains("automotiveNavigation"))
}

@Test func gpxSmooth_keepsEveryUsableFix() async throws {
    guard let input = try Fixtures.url("gpx/gpxpy/cerknicko-jezero.gpx") else { return }
    let dir = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: dir) }
    let output = dir.appendingPathComponent("smooth.gpx")
    let result = try await GeoProcess.geo(["gpx", "smooth", input.path, "-o", output.path, "--report"])
    #expect(result.status == 0, "\(result.stderr)")
    let before = try trackPointCount(input), after = try trackPointCount(output)
    // Only gated outliers and points without time go.
    #expect(after <= before && after > before * 9 / 10, "\(after) of \(before)")
}

@Test func gpxSimplify_toleranceInMetres() async throws {
    guard let input = try Fixtures.url("gpx/gpxpy/korita-zbevnica.gpx") else { return }
    let dir = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: dir) }
    let loose = dir.appendingPathComponent("loose.gpx"), tight = dir.appendingPathComponent("tight.gpx")
    #expect(try await GeoProcess.geo(["gpx", "simplify", input.path, "-o", loose.path, "--tolerance", "25"]).status == 0)
    #expect(try await GeoProcess.geo(["gpx", "simplify", input.path, "-o", tight.path, "--tolerance", "2",
                                "--method", "visvalingamWhyatt"]).status == 0)
    let all = try trackPointCount(input), l = try trackPointCount(loose), t = try trackPointCount(tight)
    #expect(l < t && t <= all, "25 m: \(l), VW 2 m: \(t), input: \(all)")
    #expect(try await GeoProcess.geo(["gpx", "simplify", input.path, "-o", loose.path, "--tolerance", "-1"]).status != 0)
}

@Test func gpxClean_badInputNamesTheLine() async throws {
    let dir = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: dir) }
    let input = dir.appendingPathComponent("bad.gpx")
    try Data("<?xml version=\"1.0\"?>\n<gpx version=\"1.1\">\n<trk><trkseg><trkpt lat=\"abc\" lon=\"1\"/></trkseg></trk></gpx>".utf8).write(to: input)
    let result = try await GeoProcess.geo(["gpx", "clean", input.path, "-o", "-"])
    // A bad latitude drops its point with a warning at file:line:column, not the file.
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.contains("bad.gpx:3:14: warning: <trkpt> lat='abc'"), "\(result.stderr)")
    // Broken structure is still an error with its place.
    try Data("<?xml version=\"1.0\"?>\n<gpx version=\"1.1\">\n<trk><trkseg></trk>".utf8).write(to: input)
    let broken = try await GeoProcess.geo(["gpx", "clean", input.path, "-o", "-"])
    #expect(broken.status != 0)
    #expect(broken.stderr.contains("bad.gpx:3:14: malformed XML"), "\(broken.stderr)")
}

@Test func evalFilters_printsTheWholeTable() async throws {
    guard try Fixtures.url("gpx/gpxpy/korita-zbevnica.gpx") != nil else { return }
    let result = try await GeoProcess.geo(["eval", "filters", "--data", Fixtures.dataRoot.path])
    #expect(result.status == 0, "\(result.stderr)")
    for row in ["| walk-korita | raw |", "| drive-leipzig | rules + RTS |", "HCKalmanFilter-style", "Goals"] {
        #expect(result.stdout.contains(row), "missing \(row)")
    }
}
