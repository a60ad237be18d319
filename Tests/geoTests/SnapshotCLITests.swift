import Foundation
import GeoTestSupport
import Testing

/// Width and height from a PNG's IHDR, or nil when the bytes do not start like a PNG.
private func pngSize(_ bytes: Data) -> (Int, Int)? {
    let b = [UInt8](bytes.prefix(24))
    guard b.count == 24, b[0..<8].elementsEqual([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), b[12..<16].elementsEqual(Array("IHDR".utf8)) else { return nil }
    func be32(_ i: Int) -> Int { Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3]) }
    return (be32(16), be32(20))
}

@Test func snapshot_monaco_isAValidPNGOfTheSize() async throws {
    guard let monaco = try Fixtures.url("osm/monaco.osm.pbf") else { return }
    try await withTemporaryDirectory { dir in
        let out = dir.appendingPathComponent("monaco.png")
        let r = try await GeoProcess.geo(["snapshot", "--data", monaco.path, "--center", "43.7384,7.4246", "--zoom", "16",
                                          "--size", "800x600", "--language", "ja", "--show-poi", "cafe,restaurant", "-o", out.path])
        #expect(r.status == 0, "\(r.stderr)")
        let bytes = try Data(contentsOf: out)
        #expect(pngSize(bytes).map { $0 == (800, 600) } == true)
        if let pngcheck = GeoProcess.which("pngcheck") {
            let check = try await GeoProcess.run(pngcheck, [out.path])
            #expect(check.status == 0, "\(check.stdout)")
        } else if Fixtures.isCI {
            Issue.record("pngcheck is missing (scripts/setup.sh installs it)")
        }
        #expect(r.stdout.isEmpty, "the image goes to the file, nothing to standard output")
    }
}

@Test func snapshot_sampleCity_withTrackAndMarkers_toStandardOutput() async throws {
    try await withTemporaryDirectory { dir in
        let gpx = dir.appendingPathComponent("t.gpx")
        try """
        <?xml version="1.0"?><gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
        <trkpt lat="47.998" lon="10.997"/><trkpt lat="48.000" lon="11.000"/><trkpt lat="48.002" lon="11.001"/>
        </trkseg></trk></gpx>
        """.write(to: gpx, atomically: true, encoding: .utf8)
        let r = try await GeoProcess.geo(["snapshot", "--size", "300x200", "--zoom", "15.5", "--orientation", "-30",
                                          "--track", gpx.path, "--marker", "48.001,11.0", "--hide", "buildings", "-o", "-"])
        #expect(r.status == 0, "\(r.stderr)")
        // The PNG went to standard output (read back as text here, so only its signature's ASCII part is checked).
        #expect(r.stdout.contains("PNG") && r.stdout.contains("IHDR") && r.stdout.contains("IEND"))
        // A southern, western centre after a space parses as a value (CONTRACT.md).
        let south = try await GeoProcess.geo(["snapshot", "--center", "-33.9,-18.4", "--size", "64x64", "-o", dir.appendingPathComponent("s.png").path])
        #expect(south.status == 0, "\(south.stderr)")
        #expect(pngSize(try Data(contentsOf: dir.appendingPathComponent("s.png"))).map { $0 == (64, 64) } == true)
    }
}

@Test func snapshot_fromPMTilesAndMBTiles() async throws {
    try await withTemporaryDirectory { dir in
        let pbf = dir.appendingPathComponent("city.osm.pbf").path
        #expect(try await GeoProcess.geo(["sample-city", "-o", pbf]).status == 0)
        for archive in ["city.pmtiles", "city.mbtiles"] {
            let path = dir.appendingPathComponent(archive).path
            let built = try await GeoProcess.geo(["tiles", "build", pbf, "-o", path, "--maxzoom", "14"])
            #expect(built.status == 0, "\(built.stderr)")
            let out = dir.appendingPathComponent(archive + ".png")
            let r = try await GeoProcess.geo(["snapshot", "--data", path, "--center", "48.0,11.0", "--zoom", "16", "--size", "200x150", "-o", out.path])
            #expect(r.status == 0, "\(r.stderr)")
            // Features came out of the tiles (the count is on standard error).
            #expect(!r.stderr.contains(" 0 features"), "\(r.stderr)")
            #expect(pngSize(try Data(contentsOf: out)).map { $0 == (200, 150) } == true)
        }
        // A truncated archive is the file's error, not a crash.
        let cut = dir.appendingPathComponent("cut.pmtiles")
        try Data(try Data(contentsOf: dir.appendingPathComponent("city.pmtiles")).prefix(100)).write(to: cut)
        let bad = try await GeoProcess.geo(["snapshot", "--data", cut.path, "-o", dir.appendingPathComponent("x.png").path])
        #expect(bad.status == 65 && bad.stderr.contains(cut.path), "\(bad.stderr)")
    }
}

@Test func snapshot_badInput_isOneClearError() async throws {
    try await withTemporaryDirectory { dir in
        let out = dir.appendingPathComponent("x.png").path
        let size = try await GeoProcess.geo(["snapshot", "--size", "0x10", "-o", out])
        #expect(size.status != 0 && size.stderr.contains("--size width must be"), "\(size.stderr)")
        let shape = try await GeoProcess.geo(["snapshot", "--size", "big", "-o", out])
        #expect(shape.status != 0 && shape.stderr.contains("WIDTHxHEIGHT"), "\(shape.stderr)")
        let zoom = try await GeoProcess.geo(["snapshot", "--zoom", "40", "-o", out])
        #expect(zoom.status != 0 && zoom.stderr.contains("--zoom must be"), "\(zoom.stderr)")
        let hide = try await GeoProcess.geo(["snapshot", "--hide", "clouds", "-o", out])
        #expect(hide.status != 0 && hide.stderr.contains("'clouds' is invalid for '--hide"), "\(hide.stderr)")
        let missing = try await GeoProcess.geo(["snapshot", "--data", dir.appendingPathComponent("none.osm.pbf").path, "-o", out])
        #expect(missing.status == 66 && missing.stderr.contains("no such file"), "\(missing.stderr)")
        let damaged = dir.appendingPathComponent("bad.osm.pbf")
        try Data([0, 0, 0, 9, 1, 2, 3]).write(to: damaged)
        let bad = try await GeoProcess.geo(["snapshot", "--data", damaged.path, "-o", out])
        #expect(bad.status == 65 && bad.stderr.contains(damaged.path), "\(bad.stderr)")
        // A missing font: which file, where, and the packages that have it.
        let fonts = try await GeoProcess.geo(["snapshot", "--size", "32x32", "-o", out], environment: ["LOCATIONKIT_FONTS": dir.path])
        #expect(fonts.status == 66 && fonts.stderr.contains("font NotoSans-Regular.ttf not found") && fonts.stderr.contains("fonts-noto-core"), "\(fonts.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out), "no partial image is left")
    }
}
