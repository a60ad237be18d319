import Compass
import Foundation
import GeoBase
import GeoCore
import MapCamera
import MapData
package import MapRenderer
import MapView
import Monitoring
import OSMImport
import Positioning
import RoadNetwork
import Routing
import SystemIO
import TrackFiltering

/// `geo demo`'s tour of LocationKit on the embedded default data: geodesy on five landmarks,
/// the sample city through the real import path and a route across it, a simulated drive
/// map-matched live, the city as vector tiles and a snapshot, a geofence decided from the
/// drive's fixes, the World Magnetic Model at the city, and the drive sent to the tracking
/// server on loopback (`TrackingTour.swift`). Every step is the same library call a `geo`
/// command makes (`geo distance`, `geo route`, `geo simulate`, `geo tiles build`,
/// `geo snapshot`, `geo map animate`, `geo monitor`, `geo magnetic`, `geo serve-tracking`).
package struct DemoTour {
    /// Where the narration goes, one line (without its newline) at a time.
    let line: (String) -> Void

    /// Runs the tour, narrating it line by line and writing the sample city's snapshot (an
    /// 800×600 PNG) to `snapshot`, replaced atomically.
    /// - Parameters:
    ///   - text: the label fonts, asked for when the map is drawn (nil: no labels).
    ///   - line: receives each line of the narration, without its newline.
    /// - Throws: what the steps' libraries throw (the sample city's import, the simulation, the
    ///   snapshot's write, `text`'s error); the lines before the failure have been narrated.
    package static func run(snapshot: String, text: () throws -> TextRenderer?, line: @escaping (String) -> Void) async throws {
        let tour = DemoTour(line: line)
        line("LocationKit demo — embedded default data, no files needed\n")
        try tour.geoCoreTour()
        let city = try SampleCityRoute.make()
        tour.roadsTour(city)
        let drive = try await tour.positioningTour(city)
        try tour.mapsTour(city, matchedDrive: drive.updates.compactMap { $0.mapMatchedPosition?.coordinate }, text: text, snapshot: snapshot)
        let fence = try Self.fence(on: city)
        try tour.monitoringTour(city, fixes: drive.updates.map(\.rawPosition), fence: fence)
        try await tour.trackingTour(city, fixes: drive.updates.map(\.rawPosition), fence: fence)
    }

    /// The tour's geofence: 250 m around the middle of the route.
    static func fence(on city: SampleCityRoute) throws -> CircularGeographicCondition {
        let geometry = city.route.geometry
        return try CircularGeographicCondition(center: geometry.dropFirst(geometry.count / 2).first ?? SampleCity.center, radius: .meters(250))
    }

    /// Geodesy on a handful of embedded landmarks.
    private func geoCoreTour() throws {
        let places = try [
            ("Paris", Coordinate(latitude: 48.8566, longitude: 2.3522)),
            ("New York", Coordinate(latitude: 40.7128, longitude: -74.0060)),
            ("Wellington", Coordinate(latitude: -41.2866, longitude: 174.7756)),
            ("Madrid", Coordinate(latitude: 40.4168, longitude: -3.7038)),
            ("Monaco", Coordinate(latitude: 43.7384, longitude: 7.4246)),
        ]
        line("GeoCore: WGS84 geodesics (Karney 2013, accurate to nanometres)")
        for (a, b) in [(0, 1), (3, 2), (4, 0)] {
            let r = Geodesic.wgs84.inverse(from: places[a].1, to: places[b].1)
            line("  \(places[a].0) → \(places[b].0): \(format(r.distance.kilometers, 3)) km, "
                + "initial bearing \(format(r.initialBearing.degrees, 2))°, final \(format(r.finalBearing.degrees, 2))°")
        }
        let monaco = places[4].1
        let east = monaco.coordinate(at: .kilometers(10), facing: .degrees(90))
        line("  10 km east of Monaco: \(format(east.latitude, 6)), \(format(east.longitude, 6))")
        let haversine = Spherical.distance(from: places[0].1, to: places[1].1)
        let geodesic = places[0].1.distance(to: places[1].1)
        line("  spherical fast path Paris → New York: \(format(haversine.kilometers, 3)) km "
            + "(\(format((haversine.meters / geodesic.meters - 1) * 100, 3)) % off the ellipsoid)")

        line("\nLocal frames and tiles")
        let plane = LocalTangentPlane(origin: monaco)
        let enu = plane.enu(of: east)
        line("  that point in Monaco's ENU frame: east \(format(enu.east, 2)) m, north \(format(enu.north, 2)) m, up \(format(enu.up, 2)) m")
        let tile = try Tile(containing: monaco, zoom: 15)
        line("  Monaco's z15 tile: \(tile) (quadkey \(tile.quadkey)), "
            + "\(format(WebMercator.metersPerPixel(atLatitude: monaco.latitude, zoom: 15), 3)) m per pixel")
        let west = monaco.coordinate(at: .kilometers(2), facing: .degrees(270))
        let foot = monaco.coordinate(at: .meters(300), facing: .degrees(0)).projected(onSegmentFrom: west, to: east)
        line("  300 m north of Monaco onto the segment 2 km west → 10 km east: \(format(foot.fraction * 100, 2)) % along, "
            + "\(format(foot.distance.meters, 2)) m away")

        line("\nGeoJSON (RFC 7946)")
        let feature = GeoJSONFeature(geometry: .lineString(places.map(\.1)),
                                     properties: ["name": .string("landmarks"),
                                                  "length_km": .number((polylineLength(places.map(\.1)).kilometers * 10).rounded() / 10)])
        line("  " + String(decoding: GeoJSON.feature(feature).encoded(), as: UTF8.self))
    }

    /// The sample city through the real import path, and a route across it.
    private func roadsTour(_ city: SampleCityRoute) {
        line("\nRoads: the embedded sample city (fictional, around 48.0 N 11.0 E)")
        line("  generated, written as a real .osm.pbf (\(city.pbfBytes / 1024) KiB, in a temporary folder) and read back")
        line("  car graph extracted in \(format(city.extractSeconds * 1000, 1)) ms: \(city.graph.nodeCount) nodes, \(city.graph.edgeCount) directed edges")
        let r = city.route
        line("  route south-west → north-east: \(format(r.distance.kilometers, 2)) km, \(format(r.duration.seconds / 60, 1)) min, "
            + "\(r.edges.count) edges, \(r.geometry.count) shape points, found in \(format(city.routeSeconds * 1000, 2)) ms")
        let names = r.edges.map { city.graph.name(of: $0) }.filter { !$0.isEmpty }
            .reduce(into: [String]()) { if $0.last != $1 { $0.append($1) } }
        line("  via \(names.prefix(6).joined(separator: " → "))\(names.count > 6 ? " → …" : "")")
    }

    /// A simulated drive along the route through the PositioningManager, as fast as possible,
    /// map-matched live on the city's car graph (`SimulatedDrive`).
    private func positioningTour(_ city: SampleCityRoute) async throws -> SimulatedDrive {
        line("\nPositioning: a simulated drive along that route (13.9 m/s, 3 m noise, a fix every 2 s), "
            + "map-matched live on the car graph")
        let start = Date(timeIntervalSince1970: 1_767_225_600) // 2026-01-01T00:00:00Z: a fixed, repeatable start
        let source = try RouteSimulationSource(polyline: city.route.geometry, movementSpeed: .metersPerSecond(13.9),
                                               updateInterval: .seconds(2), noise: .init(sigma: .meters(3), seed: 7),
                                               pacing: .asFastAsPossible, startDate: start)
        let drive = try await SimulatedDrive.run(source, matchingOn: city.graph)
        var updates = 0, shown = 0
        for step in drive.steps {
            switch step {
            case .update(let m):
                updates += 1
                guard shown < 4 || updates % 25 == 0 else { continue }
                shown += 1
                let l = m.filteredPosition
                line("  update \(updates): raw \(format(l.coordinate.latitude, 6)), \(format(l.coordinate.longitude, 6)) "
                    + "±\(format(l.horizontalAccuracy?.meters ?? .nan, 1)) m, \(format(l.speed?.metersPerSecond ?? .nan, 1)) m/s, "
                    + "course \(format(l.course?.degrees ?? .nan, 0))°")
                let match = m.mapMatchedPosition.map { p in
                    "\(format(p.coordinate.latitude, 6)), \(format(p.coordinate.longitude, 6)) "
                        + "(\(format(l.coordinate.distance(to: p.coordinate).meters, 1)) m from the fix, confidence \(format(m.confidence, 2))"
                        + "\(m.isMatched ? ", current" : ""))"
                } ?? "none"
                line("      matched \(match)")
            case .paused: line("  paused: stationary")
            case .lost: line("  lost")
            }
        }
        let report = drive.filterReport
        line("  \(updates) updates delivered of \(report.received) fixes (automotiveNavigation preset: \(report.received - report.accepted) dropped, "
            + "warm-up and distance filter); average speed \(format(drive.averageSpeed?.metersPerSecond ?? .nan, 1)) m/s")
        if updates > 0 {
            let onRoute = drive.updatesMatchedOntoRoute(within: .meters(1))
            line("  map matching: \(onRoute) of \(updates) fixes (\(format(Double(onRoute) / Double(updates) * 100, 1)) %) "
                + "matched onto the driven route (within 1 m of it)")
        }
        if let first = drive.updates.first?.filteredPosition, let last = drive.updates.last?.filteredPosition {
            line("  first update \(format(first.coordinate.distance(to: city.route.geometry.first ?? SampleCity.center).meters, 0)) m along (after the 10 s warm-up), "
                + "last \(format(last.coordinate.distance(to: city.route.geometry.last ?? last.coordinate).meters, 1)) m from the end")
        }
        return drive
    }

    /// The sample city as map features, cut into vector tiles, and drawn with the route and the
    /// matched drive into the PNG file `path`; a camera flight Tokyo → Osaka.
    private func mapsTour(_ city: SampleCityRoute, matchedDrive: [Coordinate], text: () throws -> TextRenderer?, snapshot path: String) throws {
        line("\nMaps: the sample city as map data, vector tiles and a snapshot")
        let features = try SampleCity.generate().mapFeatures()
        let tiler = try MapTiler(features: features, options: TilingOptions(minZoom: 0, maxZoom: 14))
        var tiles = 0, bytes = 0
        for z in 0...14 {
            let cut = try tiler.tiles(atZoom: z)
            tiles += cut.reduce(0) { $0 + $1.runLength }
            bytes += cut.reduce(0) { $0 + $1.data.count }
        }
        line("  \(features.count) map features (OpenMapTiles layers); z0–14: \(tiles) MVT tiles, \(bytes / 1024) KiB")

        let camera = try CameraState(geoCenter: SampleCity.center, zoomLevel: 13.7, orientation: 0, tilt: 0,
                                     viewSize: ViewSize(width: 800, height: 600), projection: .mercator)
        let view = try MapView<ContinuousClock.Instant>(camera: camera, features: MapFeatureIndex(features))
        if let labels = try text() { view.text = labels }
        _ = view.add(.polyline(MapPolyline(city.route.geometry, width: 8, color: Color(hex: 0x1E64F0, alpha: 120))))
        if matchedDrive.count > 1 { _ = view.add(.polyline(MapPolyline(matchedDrive, width: 3, color: Color(hex: 0xD02020)))) }
        if let start = city.route.geometry.first { _ = view.add(.marker(MapMarker(start))) }
        let png = try PNG.encode(view.snapshot())
        try AtomicFileReplacement.write(png, to: path)
        line("  snapshot 800×600 at zoom 14.7 with the route (blue) and the matched drive (red): \(path)")

        let tokyo = try CameraState(geoCenter: Coordinate(latitude: 35.6812, longitude: 139.7671), zoomLevel: 15,
                                    viewSize: ViewSize(width: 1280, height: 720), projection: .mercator)
        let osaka = try Coordinate(latitude: 34.7025, longitude: 135.4959)
        let flight = try CameraTransition(from: tokyo, to: tokyo.setting(CameraOptions(geoCenter: osaka)), animation: .bow)
        let lowest = stride(from: 0.0, through: 1.0, by: 0.01).map { flight.state(atProgress: $0).zoomLevel }.min() ?? 15
        line("  camera, bow (van Wijk & Nuij, ρ 1.42) Tokyo → Osaka at zoom 15: \(format(flight.duration / .seconds(1), 2)) s, "
            + "climbing to zoom \(format(lowest, 2)) on the way")
    }

    /// A geofence on the route decided from the drive's fixes with their accuracy, and the
    /// magnetic declination at the city.
    private func monitoringTour(_ city: SampleCityRoute, fixes: [Location], fence: CircularGeographicCondition) throws {
        line("\nMonitoring: a 250 m geofence on the route, decided with each fix's accuracy")
        guard let firstFix = fixes.first else { return }
        var fences = FenceEngine()
        try fences.add(.circle(fence), identifier: "fence", at: firstFix.timestamp)
        for fix in fixes {
            for event in fences.process(fix) {
                let seconds = event.date.timeIntervalSince(firstFix.timestamp)
                line("  \(format(seconds, 0)) s: \(event.identifier) \(event.state == .satisfied ? "inside" : "outside")"
                    + (event.probability.map { " (P(inside) \(format($0, 3)))" } ?? ""))
            }
        }
        let field = try MagneticModel.wmm2025.field(at: SampleCity.center, date: firstFix.timestamp)
        line("  World Magnetic Model 2025 at the city on \(firstFix.timestamp.formatted(.iso8601.year().month().day())): "
            + "declination \(format(field.declination.degrees, 2))°, inclination \(format(field.inclination.degrees, 2))°, "
            + "\(format(field.totalIntensity, 0)) nT")
    }

    /// A number with `places` decimals (C's `%.*f`, ``FixedDecimal``).
    func format(_ value: Double, _ places: Int) -> String { FixedDecimal.string(value, decimals: places) }
}
