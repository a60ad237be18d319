import Foundation
import Testing
import GeoBase
import GeoCore
import MapCamera

/// Rows of `Fixtures/globe-nsper.tsv` (PROJ `+proj=nsper` and `+proj=tpers` via pyproj,
/// scripts/oracles/globe_fixture.py): kind, then numbers.
private func globeRows() throws -> [(kind: Substring, values: [Double])] {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/globe-nsper.tsv")
    let rows = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") }
        .map { line -> (kind: Substring, values: [Double]) in
            let fields = line.split(separator: "\t")
            return (fields[0], try fields.dropFirst().map { try #require(Double(String($0))) })
        }
    try #require(rows.filter { $0.kind == "nsper" }.count >= 400 && rows.filter { $0.kind == "tpers" }.count >= 200)
    return rows
}

@Test func globe_matchesPROJPerspectives_verticalAndTilted() throws {
    for (kind, r) in try globeRows() {
        let s = try camera(r[0], r[1], zoom: r[2], orientation: r[3], tilt: r[4],
                           view: try ViewSize(width: r[5], height: r[6]), projection: .globe)
        // The camera's altitude is PROJ's h: relative 1e-12.
        #expect(abs(s.cameraAltitude.meters - r[7]) <= 1e-12 * r[7], "\(kind) altitude at \(r[0]),\(r[1]) z\(r[2])")
        let c = try Coordinate(latitude: r[8], longitude: r[9])
        let p = try #require(s.point(for: c), "\(c) hidden from \(s.geoCenter)")
        // 1e-6 px: PROJ and this code differ only by rounding on values up to ~10⁴ px.
        #expect(abs(p.x - r[5] / 2 - r[10]) < 1e-6 && abs(p.y - r[6] / 2 - r[11]) < 1e-6,
                "\(kind) \(c) from \(s.geoCenter) z\(r[2]) t\(r[4]): \(p.x - r[5] / 2), \(p.y - r[6] / 2) vs \(r[10]), \(r[11])")
        let back = try #require(s.coordinate(at: p))
        #expect(abs(back.latitude - c.latitude) < 1e-9 && abs((back.longitude - c.longitude).remainder(dividingBy: 360)) < 1e-9,
                "round trip \(c) → \(back)") // degrees
    }
}

@Test func screenGeoRoundTrips_everyProjectionRotationAndTilt() throws {
    var rng = SplitMix64(seed: 17)
    func uniform(_ r: ClosedRange<Double>) -> Double { r.lowerBound + (r.upperBound - r.lowerBound) * Double(rng.next() >> 11) / Double(1 << 53) }
    var checked = 0
    for projection in MapProjection.allCases {
        for _ in 0..<150 {
            // Below zoom 3 a Mercator view can show several copies of the world, and a point
            // projects onto the copy nearest the centre, not necessarily the one it was seen on.
            let zoom = uniform(projection == .mercator ? 3...20 : 0...20)
            let s = try camera(uniform(-80...80), uniform(-180...180), zoom: zoom, orientation: uniform(0...360),
                               tilt: uniform(0...60), projection: projection)
            for _ in 0..<20 {
                let p = ScreenPoint(x: uniform(0...1280), y: uniform(0...720))
                guard let c = s.coordinate(at: p) else { continue } // sky or space
                let q = try #require(s.point(for: c), "\(c) seen at \(p) but not projected (\(projection), z\(zoom))")
                // 1e-5 px of a view seen from up to ~1e4 px away with the ground nearly edge-on.
                #expect(q.distance(to: p) < 1e-5, "\(projection) z\(zoom) t\(s.clippedTilt): \(p) → \(c) → \(q)")
                checked += 1
            }
        }
    }
    #expect(checked > 4000)
}

@Test func mercator_untilted_isTheWebMercatorPlaneAt512PixelsPerWorldAtZoomZero() throws {
    let s = try camera(0, 0, zoom: 0, view: try ViewSize(width: 512, height: 512))
    // The whole world is one 512-px square centred on the view.
    let ne = try #require(s.point(for: Coordinate(latitude: WebMercator.maxLatitude, longitude: 90)))
    #expect(abs(ne.x - 384) < 1e-9 && abs(ne.y - 0) < 1e-9) // px
    let z10 = try camera(52.52, 13.40, zoom: 10, orientation: 90)
    // Turned to face east: a point 0.01° north of the centre lies to the left.
    let north = try #require(z10.point(for: Coordinate(latitude: 52.53, longitude: 13.40)))
    let metresPerPixel = WebMercator.metersPerPixel(atLatitude: 52.525, zoom: 10, tileSize: 512)
    #expect(abs(north.y - 360) < 1e-6)
    #expect(abs((640 - north.x) - 1_111.95 / metresPerPixel) < 0.05) // px; 0.01° of latitude ≈ 1 111.95 m
}

@Test func hiddenPoints_farSideOfGlobe_skyAboveHorizon() throws {
    let globe = try camera(0, 0, zoom: 1, view: try ViewSize(width: 600, height: 600), projection: .globe)
    #expect(globe.point(for: try Coordinate(latitude: 0, longitude: 180)) == nil)
    #expect(globe.point(for: try Coordinate(latitude: 0, longitude: 30)) != nil)
    #expect(globe.coordinate(at: ScreenPoint(x: 2, y: 2)) == nil) // space in the corner
    #expect(globe.coordinate(at: ScreenPoint(x: .nan, y: 2)) == nil)
    let steep = try camera(0, 0, zoom: 18, tilt: 85, limits: try CameraLimits(maximumTiltProfile: .constant(85)))
    #expect(steep.coordinate(at: ScreenPoint(x: 640, y: 0)) == nil) // sky
    #expect(steep.coordinate(at: ScreenPoint(x: 640, y: 719)) != nil)
}

@Test func globe_blendsIntoMercatorBetweenZoom11And12_continuously() throws {
    let c = try Coordinate(latitude: 47.3, longitude: 8.6)
    func points(_ zoom: Double) throws -> (globe: ScreenPoint, mercator: ScreenPoint) {
        let g = try camera(47.2, 8.5, zoom: zoom, orientation: 20, tilt: 30, projection: .globe)
        let m = try camera(47.2, 8.5, zoom: zoom, orientation: 20, tilt: 30, projection: .mercator)
        return (try #require(g.point(for: c)), try #require(m.point(for: c)))
    }
    for zoom in [10.5, 11.5] { #expect(try points(zoom).globe.distance(to: try points(zoom).mercator) > 1e-3, "z\(zoom)") }
    for zoom in [12.0, 14.0] { #expect(try points(zoom).globe == (try points(zoom).mercator), "z\(zoom)") }
    // No jump where the blend starts or ends (the point is hundreds of pixels off centre).
    #expect(try points(12 - 1e-9).globe.distance(to: try points(12).globe) < 1e-5)
    #expect(try points(11 - 1e-9).globe.distance(to: try points(11).globe) < 1e-5)
}

@Test func visibleRegion_untiltedMercator_isTheViewsCorners() throws {
    let s = try camera(48.8566, 2.3522, zoom: 12)
    let box = s.visibleRegion
    let nw = try #require(s.coordinate(at: ScreenPoint(x: 0, y: 0)))
    let se = try #require(s.coordinate(at: ScreenPoint(x: 1280, y: 720)))
    #expect(abs(box.north - nw.latitude) < 1e-12 && abs(box.west - nw.longitude) < 1e-12)
    #expect(abs(box.south - se.latitude) < 1e-12 && abs(box.east - se.longitude) < 1e-12)
    // 1280 px at zoom 12 is 1280 / (512 · 2¹²) of the world: 0.2197…°.
    #expect(abs(box.longitudeSpan - 360 * 1280 / (512 * 4096)) < 1e-9)
}

@Test func visibleRegion_acrossTheAntimeridianAndOverAPole() throws {
    let fiji = try camera(-17, 179.99, zoom: 8).visibleRegion
    let east = try Coordinate(latitude: -17, longitude: -179.9)
    #expect(fiji.crossesAntimeridian && fiji.contains(east))
    let arctic = try camera(80, 0, zoom: 1, view: try ViewSize(width: 600, height: 600), projection: .globe).visibleRegion
    #expect(arctic.north == 90 && arctic.west == -180 && arctic.east == 180)
}

@Test func visibleRegion_wholeGlobe_reachesTheLimb() throws {
    let s = try camera(0, 0, zoom: 1, view: try ViewSize(width: 600, height: 600), projection: .globe)
    // Seen from h above the sphere, the limb lies acos(R / (R + h)) from the centre.
    let cap = acos(WebMercator.radius / (WebMercator.radius + s.cameraAltitude.meters)) * 180 / .pi
    let box = s.visibleRegion
    // 1e-3°: the limb found by bisection to 10⁻¹² of the view, where the sphere is edge-on.
    #expect(abs(box.east - cap) < 1e-3 && abs(box.west + cap) < 1e-3, "\(box) vs ±\(cap)")
    #expect(abs(box.north - cap) < 1e-3 && abs(box.south + cap) < 1e-3)
}

@Test func coveringTiles_untiltedMercatorView() throws {
    // Centred on the corner of four z12 tiles; 700 × 500 px at zoom 12.5 span under one tile
    // (495 × 354 z12 pixels), so the view shows exactly those four.
    let corner = WebMercator.coordinate(worldX: 2048.0 / 4096, worldY: 1360.0 / 4096)
    let s = try CameraState(geoCenter: corner, zoomLevel: 12.5, viewSize: try ViewSize(width: 700, height: 500), projection: .mercator)
    let tiles = try s.coveringTiles()
    #expect(Set(tiles.map(\.zoom)) == [12])
    #expect(Set(tiles.map(\.x)) == [2047, 2048] && Set(tiles.map(\.y)) == [1359, 1360])
    #expect(try s.coveringTiles(tileSize: 256).allSatisfy { $0.zoom == 13 })
    let steep = try camera(35, 139, zoom: 20, tilt: 85, limits: try CameraLimits(maximumTiltProfile: .constant(85)))
    let bounded = try steep.coveringTiles(maximumCount: 500)
    #expect(bounded.count <= 500 && !bounded.isEmpty)
    #expect(throws: MapCameraError.self) { try s.coveringTiles(tileSize: 300) }
}

/// The projector answers as `point(for:)` does, for Mercator tilted and turned and for the globe.
@Test func projector_matchesPointForCoordinate() throws {
    for projection in MapProjection.allCases {
        let state = try CameraState(geoCenter: Coordinate(latitude: 43.7384, longitude: 7.4246), zoomLevel: projection == .globe ? 3 : 15,
                                    orientation: 30, tilt: 45, viewSize: ViewSize(width: 1280, height: 720), projection: projection)
        let projector = CameraProjector(state)
        for i in 0..<50 {
            let c = Coordinate(uncheckedLatitude: 43.7384 + Double(i % 7 - 3) * 0.002, longitude: 7.4246 + Double(i / 7 - 3) * 0.003)
            let w = WebMercator.worldPoint(c)
            let a = state.point(for: c), b = projector.point(worldX: w.x, worldY: w.y)
            #expect((a == nil) == (b == nil))
            if let a, let b { #expect(abs(a.x - b.x) < 1e-6 && abs(a.y - b.y) < 1e-6) }
        }
    }
}

/// GroundRows (the compositor's per-row affine map) sees what `coordinate(at:)` sees (itself
/// checked against MapLibre GL JS in MapLibreOracleTests): over a sweep of flat cameras, every
/// 7th row at 5 points along it, to 1e-7 of a degree (about a centimetre), and no ground where
/// it sees none.
@Test func groundRows_matchCoordinateAt_alongEveryRow() throws {
    let limits = try CameraLimits(maximumTiltProfile: .constant(85))
    for (i, (zoom, orientation, tilt)) in [(15.0, 0.0, 0.0), (15.3, 30.0, 45.0), (3.2, 200.0, 60.0), (18.7, 359.0, 85.0), (12.0, 90.0, 20.0)].enumerated() {
        for projection in MapProjection.allCases {
            let s = try CameraState(geoCenter: Coordinate(latitude: 43.7 - Double(i) * 20, longitude: 7.4 + Double(i) * 40), zoomLevel: zoom,
                                    orientation: orientation, tilt: tilt, viewSize: ViewSize(width: 640, height: 360), limits: limits, projection: projection)
            guard let rows = GroundRows(s) else {
                #expect(projection == .globe && zoom < 12, "flat from zoom 12 on")
                continue
            }
            for y in stride(from: 0.5, to: 360, by: 7) {
                let r = rows.row(atY: y)
                for x in [0.0, 0.5, 200, 431.25, 640] {
                    let seen = s.coordinate(at: ScreenPoint(x: x, y: y))
                    guard let r else {
                        #expect(seen == nil, "row \(y) is above the horizon for GroundRows only")
                        continue
                    }
                    let wx = r.x + r.dx * x, wy = r.y + r.dy * x
                    guard (0...1).contains(wy) else { #expect(seen == nil); continue }
                    let c = WebMercator.coordinate(worldX: wx - wx.rounded(.down), worldY: wy)
                    let want = try #require(seen, "GroundRows sees ground at (\(x), \(y)) where coordinate(at:) does not")
                    var dLon = abs(c.longitude - want.longitude)
                    dLon = min(dLon, 360 - dLon)
                    #expect(abs(c.latitude - want.latitude) < 1e-7 && dLon < 1e-7, "z\(zoom) t\(tilt) (\(x), \(y)): \(c) vs \(want)")
                }
            }
        }
    }
}
