import Foundation
import GeoTestSupport
import Testing

// `geo match` and `geo track --match` end to end through the built `geo`: the sample city,
// its car graph from `geo extract`, and a noisy drive from `geo simulate` across it.

/// Writes the sample city's car graph and a simulated drive (NMEA, 5 m noise, one fix a
/// second) into `dir`; returns their paths.
private func cityAndDrive(in dir: URL) async throws -> (graph: String, drive: String) {
    let pbf = dir.appendingPathComponent("city.osm.pbf").path, graph = dir.appendingPathComponent("city.graph").path
    let drive = dir.appendingPathComponent("drive.nmea")
    #expect(try await GeoProcess.geo(["sample-city", "-o", pbf]).status == 0)
    let extract = try await GeoProcess.geo(["extract", pbf, "-o", graph, "--profile", "car"])
    #expect(extract.status == 0, "\(extract.stderr)")
    let simulated = try await GeoProcess.geo(["simulate", "--fast", "--noise", "5", "--count", "120"])
    #expect(simulated.status == 0, "\(simulated.stderr)")
    try Data(simulated.stdout.utf8).write(to: drive)
    return (graph, drive.path)
}

private func json(_ text: String) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
}

@Test func match_json_hasTheContractKeys_andOnlinePrintsOneLinePerFix() async throws {
    try await withTemporaryDirectory { dir in
        let (graph, drive) = try await cityAndDrive(in: dir)
        let result = try await GeoProcess.geo(["match", "--graph", graph, drive])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try json(result.stdout)
        #expect(object["code"] as? String == "Ok")
        let matchings = try #require(object["matchings"] as? [[String: Any]])
        #expect(matchings.count == 1, "one drive without gaps is one matching")
        for m in matchings {
            #expect(Set(m.keys).isSuperset(of: ["confidence", "distance", "duration", "geometry", "nodes"]))
            let confidence = try #require(m["confidence"] as? Double)
            #expect(confidence >= 0 && confidence <= 1)
            // 120 fixes at 13.9 m/s: about 1.67 km driven; the matched path within 15 % of it.
            let distance = try #require(m["distance"] as? Double)
            #expect(abs(distance - 119 * 13.9) < 0.15 * 119 * 13.9, "matched \(distance) m")
            let nodes = try #require(m["nodes"] as? [Int64])
            #expect(nodes.count >= 2 && zip(nodes, nodes.dropFirst()).allSatisfy { $0 != $1 })
            let geometry = try #require(m["geometry"] as? [String: Any])
            #expect(geometry["type"] as? String == "LineString")
        }
        let tracepoints = try #require(object["tracepoints"] as? [Any])
        #expect(tracepoints.count == 120)
        let matched = tracepoints.compactMap { $0 as? [String: Any] }
        #expect(matched.count == 120, "every fix of a 5 m-noise drive on the road is matched")
        for p in matched {
            #expect(Set(p.keys) == ["location", "distance", "matchings_index", "nodes"])
            #expect((p["location"] as? [Double])?.count == 2)
            #expect((p["nodes"] as? [Int64])?.count == 2)
            #expect((p["matchings_index"] as? Int) == 0)
            // 5 m per axis: a fix is rarely more than 25 m from its road.
            #expect((p["distance"] as? Double ?? .infinity) < 25)
        }

        let online = try await GeoProcess.geo(["match", "--graph", graph, drive, "--online"])
        #expect(online.status == 0, "\(online.stderr)")
        let lines = online.stdout.split(separator: "\n")
        #expect(lines.count == 120)
        for line in lines {
            let o = try json(String(line))
            #expect(Set(o.keys) == ["matched", "nodes", "confidence", "offRoadProbability", "revised"])
            let confidence = try #require(o["confidence"] as? Double)
            #expect(confidence >= 0 && confidence <= 1)
        }
        let live = lines.filter { $0.hasPrefix("{\"matched\":{") }.count
        #expect(live >= 114, "\(live) of 120 fixes matched live")
    }
}

@Test func match_badInput_exitsWithAMessageNamingTheFile() async throws {
    try await withTemporaryDirectory { dir in
        let (graph, drive) = try await cityAndDrive(in: dir)
        let empty = dir.appendingPathComponent("empty.gpx").path
        try Data().write(to: URL(fileURLWithPath: empty))
        let emptyRun = try await GeoProcess.geo(["match", "--graph", graph, empty])
        #expect(emptyRun.status != 0 && emptyRun.stdout.isEmpty)
        #expect(emptyRun.stderr.contains("empty.gpx"), "\(emptyRun.stderr)")

        let noPoints = dir.appendingPathComponent("none.csv").path
        try Data("lat,lon\n".utf8).write(to: URL(fileURLWithPath: noPoints))
        let noPointsRun = try await GeoProcess.geo(["match", "--graph", graph, noPoints])
        #expect(noPointsRun.status != 0 && noPointsRun.stdout.isEmpty)
        #expect(noPointsRun.stderr.contains("none.csv") && noPointsRun.stderr.contains("no track points"), "\(noPointsRun.stderr)")

        let missingTrack = try await GeoProcess.geo(["match", "--graph", graph, dir.appendingPathComponent("nope.nmea").path])
        #expect(missingTrack.status != 0 && missingTrack.stdout.isEmpty)
        #expect(missingTrack.stderr.contains("nope.nmea") && missingTrack.stderr.contains("no such file"), "\(missingTrack.stderr)")

        let unreadable = dir.appendingPathComponent("locked.nmea")
        try Data("x".utf8).write(to: unreadable)
        try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: unreadable.path)
        if !FileManager.default.isReadableFile(atPath: unreadable.path) { // root reads anything
            let run = try await GeoProcess.geo(["match", "--graph", graph, unreadable.path])
            #expect(run.status != 0 && run.stdout.isEmpty)
            #expect(run.stderr.contains("locked.nmea"), "\(run.stderr)")
        }

        let missingGraph = try await GeoProcess.geo(["match", "--graph", dir.appendingPathComponent("no.graph").path, drive])
        #expect(missingGraph.status != 0 && missingGraph.stdout.isEmpty)
        #expect(missingGraph.stderr.contains("no.graph") && missingGraph.stderr.contains("no such file"), "\(missingGraph.stderr)")

        // A version-2 graph file (no OSM node ids) is refused with the way out.
        var bytes = try Data(contentsOf: URL(fileURLWithPath: graph))
        bytes[4] = 2
        let old = dir.appendingPathComponent("old.graph").path
        try bytes.write(to: URL(fileURLWithPath: old))
        let oldRun = try await GeoProcess.geo(["match", "--graph", old, drive])
        #expect(oldRun.status != 0 && oldRun.stdout.isEmpty)
        #expect(oldRun.stderr.contains("old.graph") && oldRun.stderr.contains("version 2")
                && oldRun.stderr.contains("geo extract"), "\(oldRun.stderr)")

        // A car graph in pedestrian mode is refused, naming its profile.
        let wrongMode = try await GeoProcess.geo(["match", "--graph", graph, "--mode", "pedestrian", drive])
        #expect(wrongMode.status != 0 && wrongMode.stderr.contains("a car graph"), "\(wrongMode.stderr)")
    }
}

@Test func track_match_printsRawAndMatchedPerUpdate() async throws {
    try await withTemporaryDirectory { dir in
        let (graph, drive) = try await cityAndDrive(in: dir)
        let result = try await GeoProcess.geo(["track", "--source", "nmea:\(drive)?speed=max", "--preset", "raw", "--match", graph])
        #expect(result.status == 0, "\(result.stderr)")
        let updates = try result.stdout.split(separator: "\n").map { try json(String($0)) }.filter { $0["event"] as? String == "update" }
        #expect(updates.count == 120)
        var current = 0
        for u in updates {
            let lat = try #require(u["lat"] as? Double), lon = try #require(u["lon"] as? Double)
            guard let m = u["matched"] as? [String: Any] else { continue }
            #expect(Set(m.keys) == ["lat", "lon", "confidence", "current"])
            let mlat = try #require(m["lat"] as? Double), mlon = try #require(m["lon"] as? Double)
            // The match is a different point from the fix, within 25 m of it (5 m noise per axis).
            let metres = hypot((mlat - lat) * 111_195, (mlon - lon) * 111_195 * cos(lat * .pi / 180))
            #expect(metres > 0 && metres < 25, "match \(metres) m from the fix")
            if m["current"] as? Bool == true { current += 1 }
        }
        #expect(current >= 108, "\(current) of 120 updates had the match as current position")

        let missing = try await GeoProcess.geo(["track", "--source", "nmea:\(drive)?speed=max", "--match", dir.appendingPathComponent("no.graph").path])
        #expect(missing.status != 0 && missing.stderr.contains("no.graph"), "\(missing.stderr)")
    }
}

@Test func demo_showsRawAndMatched_andMatchesTheDriveOntoItsRoute() async throws {
    let result = try await withTemporaryDirectory { dir in
        try await GeoProcess.geo(["demo", "--snapshot", dir.appendingPathComponent("demo.png").path])
    }
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("update 1: raw ") && result.stdout.contains("      matched "))
    // "map matching: 97 of 98 fixes (99.0 %) matched onto the driven route (within 1 m of it)"
    let line = try #require(result.stdout.split(separator: "\n").first { $0.contains("map matching: ") })
    let numbers = line.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
    let (onRoute, fixes) = (numbers[0], numbers[1])
    #expect(fixes >= 90 && Double(onRoute) / Double(fixes) >= 0.95, "\(line)")
}
