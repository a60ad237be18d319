import Foundation
import Testing
import GeoCore
import MapCamera

/// Rows of `Fixtures/maplibre.tsv`: MapLibre GL JS 5.3.0's own camera run in headless Chromium
/// (scripts/oracles/maplibre_fixture.py), by kind.
private func maplibreRows(_ kind: String) throws -> [[Double]] {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/maplibre.tsv")
    let lines: [[Substring]] = try String(contentsOf: url, encoding: .utf8).split(separator: "\n")
        .map { $0.split(separator: "\t") }.filter { $0.first.map(String.init) == kind }
    let rows: [[Double]] = try lines.map { fields in
        try fields.dropFirst().map { field -> Double in try #require(Double(String(field)), "not a number: \(field)") }
    }
    try #require(rows.count >= 4, "fixture has too few \(kind) rows")
    return rows
}

/// MapLibre's limits: any zoom, pitch up to 60° at every zoom (its default `maxPitch`).
private let maplibreLimits = try! CameraLimits(maximumZoomLevel: 24, maximumTiltProfile: .constant(60))

@Test func mercator_projectAndUnproject_matchMapLibre() throws {
    for r in try maplibreRows("project") {
        let s = try camera(r[0], r[1], zoom: r[2], orientation: r[3], tilt: r[4], limits: maplibreLimits)
        let p = try #require(s.point(for: try Coordinate(latitude: r[5], longitude: r[6])))
        // 1e-6 px: both are double-precision pinhole cameras; MapLibre goes through 4×4 matrices.
        #expect(abs(p.x - r[7]) < 1e-6 && abs(p.y - r[8]) < 1e-6, "camera \(r[0...4]): \(p) vs \(r[7]), \(r[8])")
    }
    for r in try maplibreRows("unproject") {
        let s = try camera(r[0], r[1], zoom: r[2], orientation: r[3], tilt: r[4], limits: maplibreLimits)
        let c = try #require(s.coordinate(at: ScreenPoint(x: r[5], y: r[6])))
        // 1e-10°, about 10 µm.
        #expect(abs(c.latitude - r[7]) < 1e-10 && abs((c.longitude - r[8]).remainder(dividingBy: 360)) < 1e-10,
                "camera \(r[0...4]) at \(r[5]), \(r[6]): \(c) vs \(r[7]), \(r[8])")
    }
}

@Test func globe_matchesMapLibreGlobeBelowZoom11() throws {
    for r in try maplibreRows("globe") {
        let s = try camera(r[0], r[1], zoom: r[2], orientation: r[3], tilt: r[4], projection: .globe, limits: maplibreLimits)
        let p = try #require(s.point(for: try Coordinate(latitude: r[5], longitude: r[6])), "hidden: \(r)")
        // 1e-6 px: the same sphere (radius worldSize / 2π cos φ₀) and the same camera.
        #expect(abs(p.x - r[7]) < 1e-6 && abs(p.y - r[8]) < 1e-6, "camera \(r[0...4]): \(p) vs \(r[7]), \(r[8])")
    }
}

@Test func bow_matchesMapLibreFlyToFrameByFrame() throws {
    let frames = try maplibreRows("flyto")
    for flight in try maplibreRows("flight") {
        let a = try camera(flight[1], flight[2], zoom: flight[3], orientation: flight[4], tilt: flight[5], limits: maplibreLimits)
        let b = try camera(flight[6], flight[7], zoom: flight[8], orientation: flight[9], tilt: flight[10], limits: maplibreLimits)
        let move = try CameraTransition(from: a, to: b, animation: .bow, duration: .seconds(3))
        let span = max(abs(flight[6] - flight[1]), abs((flight[7] - flight[2]).remainder(dividingBy: 360))) // degrees
        let centreTolerance = 1e-5 * span + 1e-9
        for f in frames where f[0] == flight[0] {
            let s = move.state(atElapsed: .nanoseconds(Int64((f[1] * 1e9).rounded())))
            // MapLibre's easing solves the Bézier's x(u) = t by Newton's method only to 1e-6
            // (@mapbox/unitbezier's epsilon), this one to double precision: the eased progress
            // differs by ~2e-6, which moves a frame by up to 1e-4 zoom levels, 1e-5 of the
            // flight's span of centre (the centre moves up to ~5 spans per unit of progress
            // near the peak) and 1e-4 × the turn of bearing and tilt.
            #expect(abs(s.zoomLevel - f[4]) < 1e-4, "flight \(flight[0]) t \(f[1]): zoom \(s.zoomLevel) vs \(f[4])")
            #expect(abs(s.geoCenter.latitude - f[2]) < centreTolerance && abs((s.geoCenter.longitude - f[3]).remainder(dividingBy: 360)) < centreTolerance,
                    "flight \(flight[0]) t \(f[1]): \(s.geoCenter) vs \(f[2]), \(f[3])")
            #expect(abs((s.orientation - f[5]).remainder(dividingBy: 360)) < 1e-4 * 90, "flight \(flight[0]) t \(f[1]): bearing \(s.orientation) vs \(f[5])")
            #expect(abs(s.clippedTilt - f[6]) < 1e-4 * 40, "flight \(flight[0]) t \(f[1]): tilt \(s.clippedTilt) vs \(f[6])")
        }
    }
}
