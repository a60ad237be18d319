import Foundation
import GeoTestSupport
import Testing

@Test func extractAndRoute_onTheSampleCity() async throws {
    try await withTemporaryDirectory { dir in
        let pbf = dir.appendingPathComponent("city.osm.pbf").path, graph = dir.appendingPathComponent("city.graph").path
        #expect(try await GeoProcess.geo(["sample-city", "-o", pbf]).status == 0)
        let extract = try await GeoProcess.geo(["extract", pbf, "-o", graph, "--profile", "car"])
        #expect(extract.status == 0, "\(extract.stderr)")
        #expect(extract.stderr.contains("graph (car)"))

        let json = try await GeoProcess.geo(["route", "--graph", graph, "--from", "47.997,10.996", "--to", "48.003,11.004"])
        #expect(json.status == 0, "\(json.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let distance = try #require(object["distance_m"] as? Double)
        let duration = try #require(object["duration_s"] as? Double)
        // The straight line is about 890 m; a street grid route is longer but not absurdly so.
        #expect(distance > 850 && distance < 3000, "distance \(distance) m")
        #expect(duration > distance / 30 && duration < distance / 1, "duration \(duration) s for \(distance) m")
        let geometry = try #require(object["geometry"] as? [String: Any])
        #expect((geometry["coordinates"] as? [[Double]])?.count ?? 0 >= 2)

        let geojson = try await GeoProcess.geo(["route", "--graph", graph, "--from", "47.997,10.996", "--to", "48.003,11.004", "--format", "geojson"])
        #expect(geojson.stdout.contains("\"type\":\"Feature\""))
        let gpx = try await GeoProcess.geo(["route", "--graph", graph, "--from", "47.997,10.996", "--to", "48.003,11.004", "--format", "gpx"])
        #expect(gpx.stdout.contains("<rtept lat="))

        let foot = dir.appendingPathComponent("city-foot.graph").path
        #expect(try await GeoProcess.geo(["extract", pbf, "-o", foot, "--profile", "foot"]).status == 0)
    }
}

@Test func routeBatch_writesNanForNoRouteAndFailsOnBadLines() async throws {
    try await withTemporaryDirectory { dir in
        let pbf = dir.appendingPathComponent("city.osm.pbf").path, graph = dir.appendingPathComponent("city.graph").path
        #expect(try await GeoProcess.geo(["sample-city", "-o", pbf]).status == 0)
        #expect(try await GeoProcess.geo(["extract", pbf, "-o", graph]).status == 0)
        let ok = try await GeoProcess.geo(["route", "--graph", graph, "--batch"],
                                    stdin: "47.997 10.996 48.003 11.004\n# comment\n10 10 10.1 10.1\n")
        #expect(ok.status == 0, "\(ok.stderr)")
        let lines = ok.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.last == "nan nan")
        let first = lines.first?.split(separator: " ").compactMap { Double($0) } ?? []
        #expect(first.count == 2 && first[0] > 850)
        // A bad line among good ones: reported with its number, the good ones still answered.
        let bad = try await GeoProcess.geo(["route", "--graph", graph, "--batch"],
                                           stdin: "47.997 10.996 48.003 11.004\nfoo bar\n91 0 0 0\n47.997 10.996 48.003 11.004\n")
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("line 2:") && bad.stderr.contains("line 3:") && bad.stderr.contains("2 of 4 lines"), "\(bad.stderr)")
        #expect(bad.stdout.split(separator: "\n") == [lines[0], lines[0]], "\(bad.stdout)")
    }
}

@Test func route_rejectsAFileThatIsNotAGraph() async throws {
    try await withTemporaryDirectory { dir in
        let path = dir.appendingPathComponent("not-a.graph").path
        try Data("not a graph at all".utf8).write(to: URL(fileURLWithPath: path))
        let result = try await GeoProcess.geo(["route", "--graph", path, "--from", "48,11", "--to", "48.01,11"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("bad magic"))
    }
}

@Test func route_refusesAVersion1GraphAndANegativeComponentSize() async throws {
    try await withTemporaryDirectory { dir in
        let pbf = dir.appendingPathComponent("city.osm.pbf").path, graph = dir.appendingPathComponent("city.graph").path
        #expect(try await GeoProcess.geo(["sample-city", "-o", pbf]).status == 0)
        #expect(try await GeoProcess.geo(["extract", pbf, "-o", graph]).status == 0)
        let args = ["route", "--graph", graph, "--from", "47.997,10.996", "--to", "48.003,11.004"]
        let negative = try await GeoProcess.geo(args + ["--small-component-size", "-1"])
        #expect(negative.status != 0 && negative.stderr.contains("--small-component-size"), "\(negative.stderr)")
        // Version 1 files predate start-point flags (ferries would be start points): re-extract.
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: graph)))
        bytes[4] = 1
        try Data(bytes).write(to: URL(fileURLWithPath: graph))
        let old = try await GeoProcess.geo(args)
        #expect(old.status != 0 && old.stderr.contains("extract the graph again"), "\(old.stderr)")
    }
}

@Test func extract_readsGzippedOSMXML() async throws {
    guard let url = try Fixtures.url("osm/monaco-gh.osm.gz") else { return }
    try await withTemporaryDirectory { dir in
        let graph = dir.appendingPathComponent("monaco.graph").path
        let extract = try await GeoProcess.geo(["extract", url.path, "-o", graph, "--profile", "foot"])
        #expect(extract.status == 0, "\(extract.stderr)")
        #expect(extract.stderr.contains("graph (foot)"))
        let route = try await GeoProcess.geo(["route", "--graph", graph, "--from", "43.7384,7.4246", "--to", "43.7311,7.4197"])
        #expect(route.status == 0, "\(route.stderr)")
        #expect(route.stdout.contains("\"distance_m\""))
    }
}
