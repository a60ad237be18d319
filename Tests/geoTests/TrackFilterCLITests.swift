import Foundation
import Testing
import GeoTestSupport

private func trackPointCount(_ url: URL) throws -> Int {
    try String(contentsOf: url, encoding: .utf8).components(separatedBy: "<trkpt").count - 1
}

@Test func gpxClean_realDriveWithReport() async throws {
    guard let input = try Fixtures.url("gpx/gpxpy/around-visnjan-with-car.gpx") else { return }
    try await withTemporaryDirectory { dir in
        let output = dir.appendingPathComponent("clean.gpx")
        let result = try await GeoProcess.geo(["gpx", "clean", input.path, "-o", output.path, "--preset", "automotiveNavigation", "--report"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("received 104"))
        let kept = try trackPointCount(output)
        #expect(kept > 50 && kept < 104, "kept \(kept) of 104")
        #expect(result.stderr.contains("warm-up"))
    }
}

@Test func gpxClean_unknownPresetFails() async throws {
    guard let input = try Fixtures.url("gpx/gpxpy/around-visnjan-with-car.gpx") else { return }
    let result = try await GeoProcess.geo(["gpx", "clean", input.path, "-o", "-", "--preset", "rocket"])
    #expect(result.status != 0)
    #expect(result.stderr.contains("automotiveNavigation"))
}

@Test func gpxSmooth_appliesTheCleanRulesUnlessTold() async throws {
    guard let input = try Fixtures.url("gpx/gpxpy/cerknicko-jezero.gpx") else { return }
    try await withTemporaryDirectory { dir in
        let output = dir.appendingPathComponent("smooth.gpx"), all = dir.appendingPathComponent("all.gpx")
        let result = try await GeoProcess.geo(["gpx", "smooth", input.path, "-o", output.path, "--preset", "fitness", "--report"])
        #expect(result.status == 0, "\(result.stderr)")
        // The fitness rules drop the warm-up and jitter inside the accuracy radius, as clean does.
        #expect(result.stderr.contains("warm-up"), "\(result.stderr)")
        let noRules = try await GeoProcess.geo(["gpx", "smooth", input.path, "-o", all.path, "--no-rules", "--report"])
        #expect(noRules.status == 0, "\(noRules.stderr)")
        #expect(!noRules.stderr.contains("warm-up"), "\(noRules.stderr)")
        let before = try trackPointCount(input), ruled = try trackPointCount(output), after = try trackPointCount(all)
        // Without rules only gated outliers and points without time go.
        #expect(after <= before && after > before * 9 / 10, "\(after) of \(before)")
        #expect(ruled < after, "with rules \(ruled), without \(after)")
    }
}

@Test func gpxSmooth_dropsJumpsBetweenSparseFixes() async throws {
    // A walk north-east at 1.2 m/s, one point every 10 s with HDOP 1.6 (8 m at the default
    // 5 m UERE), and three 100 m jumps east that claim the same HDOP.
    try await withTemporaryDirectory { dir in
        let input = dir.appendingPathComponent("hike.gpx"), output = dir.appendingPathComponent("smooth.gpx")
        var gpx = "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" creator=\"test\"><trk><trkseg>\n"
        let metresPerDegree = 111_195.0
        for k in 0..<90 {
            let along = 1.2 * 10 * Double(k) / 2.0.squareRoot() + 3 * sin(Double(k) * 1.7)
            let jump = [20, 45, 70].contains(k) ? 100.0 : 0
            let lat = 46.05 + along / metresPerDegree
            let lon = 14.5 + (along + jump) / (metresPerDegree * cos(46.05 * .pi / 180))
            let time = Date(timeIntervalSince1970: 1_700_000_000 + Double(k) * 10).ISO8601Format()
            gpx += "<trkpt lat=\"\(lat)\" lon=\"\(lon)\"><time>\(time)</time><hdop>1.6</hdop></trkpt>\n"
        }
        gpx += "</trkseg></trk></gpx>\n"
        try Data(gpx.utf8).write(to: input)
        let result = try await GeoProcess.geo(["gpx", "smooth", input.path, "-o", output.path, "--preset", "fitness", "--report"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("kalman-outlier"), "\(result.stderr)")
        // Every smoothed point lies within 20 m of the walk's line (the jumps are 70 m off it).
        let text = try String(contentsOf: output, encoding: .utf8)
        var points = 0
        for chunk in text.components(separatedBy: "<trkpt").dropFirst() {
            func attribute(_ name: String) -> Double? {
                guard let r = chunk.range(of: name + "=\"") else { return nil }
                return Double(chunk[r.upperBound...].prefix { $0 != "\"" })
            }
            let lat = try #require(attribute("lat")), lon = try #require(attribute("lon"))
            let north = (lat - 46.05) * metresPerDegree, east = (lon - 14.5) * metresPerDegree * cos(46.05 * .pi / 180)
            let offLine = abs(east - north) / 2.0.squareRoot()
            #expect(offLine < 20, "a point \(offLine) m off the walk")
            points += 1
        }
        #expect(points > 80, "kept \(points) of 90")
    }
}

@Test func gpxSimplify_toleranceInMetres() async throws {
    guard let input = try Fixtures.url("gpx/gpxpy/korita-zbevnica.gpx") else { return }
    try await withTemporaryDirectory { dir in
        let loose = dir.appendingPathComponent("loose.gpx"), tight = dir.appendingPathComponent("tight.gpx")
        #expect(try await GeoProcess.geo(["gpx", "simplify", input.path, "-o", loose.path, "--tolerance", "25"]).status == 0)
        #expect(try await GeoProcess.geo(["gpx", "simplify", input.path, "-o", tight.path, "--tolerance", "2",
                                    "--method", "visvalingamWhyatt"]).status == 0)
        let all = try trackPointCount(input), l = try trackPointCount(loose), t = try trackPointCount(tight)
        #expect(l < t && t <= all, "25 m: \(l), VW 2 m: \(t), input: \(all)")
        #expect(try await GeoProcess.geo(["gpx", "simplify", input.path, "-o", loose.path, "--tolerance", "-1"]).status != 0)
    }
}

@Test func gpxClean_badInputNamesTheLine() async throws {
    try await withTemporaryDirectory { dir in
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
}

@Test func evalFilters_printsTheWholeTable() async throws {
    guard try Fixtures.url("gpx/gpxpy/korita-zbevnica.gpx") != nil else { return }
    let result = try await GeoProcess.geo(["eval", "filters", "--data", Fixtures.dataRoot.path])
    #expect(result.status == 0, "\(result.stderr)")
    for row in ["| walk-korita | raw |", "| drive-leipzig | rules + RTS |", "HCKalmanFilter-style", "Goals",
                "| walk-korita | 10 | rules + RTS |", "| walk-cerknica | 30 | raw |"] {
        #expect(result.stdout.contains(row), "missing \(row)")
    }
}
