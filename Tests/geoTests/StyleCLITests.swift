import Foundation
import GeoTestSupport
import Testing

/// `geo style validate` and `geo snapshot --style` (CONTRACT "geo snapshot --style").
@Test func styleValidate_reportsEachProblemWithItsPath() async throws {
    try await withTemporaryDirectory { dir in
        let good = dir.appendingPathComponent("good.json")
        try #"{"version": 8, "sources": {}, "layers": [{"id": "bg", "type": "background", "paint": {"background-color": "red"}}]}"#.write(to: good, atomically: true, encoding: .utf8)
        let ok = try await GeoProcess.geo(["style", "validate", good.path])
        #expect(ok.status == 0 && ok.stdout.isEmpty, "\(ok.stdout) \(ok.stderr)")
        let bad = dir.appendingPathComponent("bad.json")
        try #"{"version": 8, "sources": {}, "layers": [{"id": "bg", "type": "background", "paint": {"background-opacity": "high"}}, {"id": "x", "type": "blob"}]}"#
            .write(to: bad, atomically: true, encoding: .utf8)
        let r = try await GeoProcess.geo(["style", "validate", bad.path])
        #expect(r.status == 1)
        #expect(r.stdout.contains("layers[0].paint.background-opacity: number expected, string found (default used)"), "\(r.stdout)")
        #expect(r.stdout.contains("layers[1].type: expected one of ["), "\(r.stdout)")
        let notJSON = dir.appendingPathComponent("not.json")
        try "{\"version\": 8,".write(to: notJSON, atomically: true, encoding: .utf8)
        let broken = try await GeoProcess.geo(["style", "validate", notJSON.path])
        #expect(broken.status == 65 && broken.stderr.contains("not JSON"), "\(broken.stderr)")
        let v7 = dir.appendingPathComponent("v7.json")
        try #"{"version": 7, "sources": {}, "layers": []}"#.write(to: v7, atomically: true, encoding: .utf8)
        let old = try await GeoProcess.geo(["style", "validate", v7.path])
        #expect(old.status == 65 && old.stderr.contains("version: expected one of [8], 7 found"), "\(old.stderr)")
    }
}

@Test func snapshotStyle_drawsAGeoJSONFileUnderBaseAtThePixelRatio() async throws {
    try await withTemporaryDirectory { dir in
        let style = dir.appendingPathComponent("style.json")
        try """
            {"version": 8, "center": [0, 0], "zoom": 2,
             "sources": {"p": {"type": "geojson", "data": "local://data/p.geojson"}},
             "layers": [{"id": "bg", "type": "background", "paint": {"background-color": "white"}},
                        {"id": "c", "type": "circle", "source": "p", "paint": {"circle-radius": 6, "circle-color": "blue"}}]}
            """.write(to: style, atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("data"), withIntermediateDirectories: true)
        try #"{"type": "Point", "coordinates": [0, 0]}"#.write(to: dir.appendingPathComponent("data/p.geojson"), atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("out.png")
        let r = try await GeoProcess.geo(["snapshot", "--style", style.path, "--base", dir.path, "--size", "40x30", "--pixel-ratio", "2", "-o", out.path])
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        let bytes = [UInt8](try Data(contentsOf: out))
        // IHDR: 80 × 60 device pixels.
        func be32(_ i: Int) -> Int { Int(bytes[i]) << 24 | Int(bytes[i + 1]) << 16 | Int(bytes[i + 2]) << 8 | Int(bytes[i + 3]) }
        #expect(bytes.count > 24 && be32(16) == 80 && be32(20) == 60)
        // Without --base the local:// URL cannot resolve: a warning, and the image still drawn.
        let noBase = try await GeoProcess.geo(["snapshot", "--style", style.path, "--size", "40x30", "-o", out.path])
        #expect(noBase.status == 0 && noBase.stderr.contains("local:// URLs need --base"), "\(noBase.stderr)")
        let missing = try await GeoProcess.geo(["snapshot", "--style", dir.appendingPathComponent("none.json").path, "-o", out.path])
        #expect(missing.status == 66 && missing.stderr.contains("no such file"), "\(missing.stderr)")
    }
}

/// `--style default` and `--style default-night`: the built-in styles over the sample city
/// (no files), labels in glyphs made from the local fonts: no warning (every tile and glyph
/// range resolved), two different pictures; `--data` with an archive draws the same view.
@Test func snapshotStyle_default_drawsTheSampleCityByDayAndNight() async throws {
    try await withTemporaryDirectory { dir in
        let day = dir.appendingPathComponent("day.png"), night = dir.appendingPathComponent("night.png")
        let d = try await GeoProcess.geo(["snapshot", "--style", "default", "--show-poi", "all", "--size", "200x150", "-o", day.path])
        #expect(d.status == 0 && d.stderr.isEmpty, "\(d.stderr)")
        let n = try await GeoProcess.geo(["snapshot", "--style", "default-night", "--show-poi", "all", "--size", "200x150", "-o", night.path])
        #expect(n.status == 0 && n.stderr.isEmpty, "\(n.stderr)")
        let dayBytes = try Data(contentsOf: day), nightBytes = try Data(contentsOf: night)
        #expect(dayBytes.count > 1000 && nightBytes.count > 1000 && dayBytes != nightBytes)
        let hidden = try await GeoProcess.geo(["snapshot", "--style", "default", "--hide", "nowhere", "-o", day.path])
        #expect(hidden.status != 0 && hidden.stderr.contains("'nowhere' is invalid for '--hide"), "\(hidden.stderr)")
        // `geo style default` prints the same style: valid, 41 layers, the night one another.
        let printed = try await GeoProcess.geo(["style", "default"]), printedNight = try await GeoProcess.geo(["style", "default", "--night"])
        #expect(printed.status == 0 && printedNight.status == 0 && printed.stdout != printedNight.stdout)
        let file = dir.appendingPathComponent("default.json")
        try printed.stdout.write(to: file, atomically: true, encoding: .utf8)
        let valid = try await GeoProcess.geo(["style", "validate", file.path])
        #expect(valid.status == 0 && valid.stdout.isEmpty, "\(valid.stdout)")
        let layers = try JSONSerialization.jsonObject(with: Data(printed.stdout.utf8)) as? [String: Any]
        #expect((layers?["layers"] as? [Any])?.count == 41)
        let marker = try await GeoProcess.geo(["snapshot", "--style", "default", "--marker", "48,11", "-o", day.path])
        #expect(marker.status != 0 && marker.stderr.contains("not drawn with --style"), "\(marker.stderr)")
    }
}
