import ArgumentParser
import Foundation
import GeoBase
import GeoCore
import OSMImport
import Positioning
import RoadNetwork
import Routing
import TrackFiltering

/// `geo demo`: a short tour of what LocationKit can do on the embedded default data.
struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "A short tour of LocationKit on the embedded default data (no arguments needed)."
    )

    @Option(help: "Where the sample city's snapshot goes (default: locationkit-demo-sample-city.png in the temporary folder).")
    var snapshot: String?

    func run() async throws {
        standardOutput.line("LocationKit demo — embedded default data, no files needed\n")
        try geoCoreTour()
        let city = try SampleCityRoute.make()
        roadsTour(city)
        let drive = try await positioningTour(city)
        let png = snapshot ?? FileManager.default.temporaryDirectory.appendingPathComponent("locationkit-demo-sample-city.png").path
        try mapsTour(city, matchedDrive: drive.updates.compactMap { $0.mapMatchedPosition?.coordinate }, snapshot: png)
        try monitoringTour(city, fixes: drive.updates.map(\.rawPosition))
    }

    /// The sample city through the real import path, and a route across it.
    private func roadsTour(_ city: SampleCityRoute) {
        standardOutput.line("\nRoads: the embedded sample city (fictional, around 48.0 N 11.0 E)")
        standardOutput.line("  generated, written as a real .osm.pbf (\(city.pbfBytes / 1024) KiB, in a temporary folder) and read back")
        standardOutput.line("  car graph extracted in \(format(city.extractSeconds * 1000, 1)) ms: \(city.graph.nodeCount) nodes, \(city.graph.edgeCount) directed edges")
        let r = city.route
        standardOutput.line("  route south-west → north-east: \(format(r.distance.kilometers, 2)) km, \(format(r.duration.seconds / 60, 1)) min, "
            + "\(r.edges.count) edges, \(r.geometry.count) shape points, found in \(format(city.routeSeconds * 1000, 2)) ms")
        let names = r.edges.map { city.graph.name(of: $0) }.filter { !$0.isEmpty }
            .reduce(into: [String]()) { if $0.last != $1 { $0.append($1) } }
        standardOutput.line("  via \(names.prefix(6).joined(separator: " → "))\(names.count > 6 ? " → …" : "")")
    }

    /// A simulated drive along the route through the PositioningManager, as fast as possible,
    /// map-matched live on the city's car graph (`SimulatedDrive`).
    private func positioningTour(_ city: SampleCityRoute) async throws -> SimulatedDrive {
        standardOutput.line("\nPositioning: a simulated drive along that route (13.9 m/s, 3 m noise, a fix every 2 s), "
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
                standardOutput.line("  update \(updates): raw \(format(l.coordinate.latitude, 6)), \(format(l.coordinate.longitude, 6)) "
                    + "±\(format(l.horizontalAccuracy?.meters ?? .nan, 1)) m, \(format(l.speed?.metersPerSecond ?? .nan, 1)) m/s, "
                    + "course \(format(l.course?.degrees ?? .nan, 0))°")
                let match = m.mapMatchedPosition.map { p in
                    "\(format(p.coordinate.latitude, 6)), \(format(p.coordinate.longitude, 6)) "
                        + "(\(format(l.coordinate.distance(to: p.coordinate).meters, 1)) m from the fix, confidence \(format(m.confidence, 2))"
                        + "\(m.isMatched ? ", current" : ""))"
                } ?? "none"
                standardOutput.line("      matched \(match)")
            case .paused: standardOutput.line("  paused: stationary")
            case .lost: standardOutput.line("  lost")
            }
        }
        let report = drive.filterReport
        standardOutput.line("  \(updates) updates delivered of \(report.received) fixes (automotiveNavigation preset: \(report.received - report.accepted) dropped, "
            + "warm-up and distance filter); average speed \(format(drive.averageSpeed?.metersPerSecond ?? .nan, 1)) m/s")
        if updates > 0 {
            let onRoute = drive.updatesMatchedOntoRoute(within: .meters(1))
            standardOutput.line("  map matching: \(onRoute) of \(updates) fixes (\(format(Double(onRoute) / Double(updates) * 100, 1)) %) "
                + "matched onto the driven route (within 1 m of it)")
        }
        if let first = drive.updates.first?.filteredPosition, let last = drive.updates.last?.filteredPosition {
            standardOutput.line("  first update \(format(first.coordinate.distance(to: city.route.geometry.first ?? SampleCity.center).meters, 0)) m along (after the 10 s warm-up), "
                + "last \(format(last.coordinate.distance(to: city.route.geometry.last ?? last.coordinate).meters, 1)) m from the end")
        }
        return drive
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
        standardOutput.line("GeoCore: WGS84 geodesics (Karney 2013, accurate to nanometres)")
        for (a, b) in [(0, 1), (3, 2), (4, 0)] {
            let r = Geodesic.wgs84.inverse(from: places[a].1, to: places[b].1)
            standardOutput.line("  \(places[a].0) → \(places[b].0): \(format(r.distance.kilometers, 3)) km, "
                + "initial bearing \(format(r.initialBearing.degrees, 2))°, final \(format(r.finalBearing.degrees, 2))°")
        }
        let monaco = places[4].1
        let east = monaco.coordinate(at: .kilometers(10), facing: .degrees(90))
        standardOutput.line("  10 km east of Monaco: \(format(east.latitude, 6)), \(format(east.longitude, 6))")
        let haversine = Spherical.distance(from: places[0].1, to: places[1].1)
        let geodesic = places[0].1.distance(to: places[1].1)
        standardOutput.line("  spherical fast path Paris → New York: \(format(haversine.kilometers, 3)) km "
            + "(\(format((haversine.meters / geodesic.meters - 1) * 100, 3)) % off the ellipsoid)")

        standardOutput.line("\nLocal frames and tiles")
        let plane = LocalTangentPlane(origin: monaco)
        let enu = plane.enu(of: east)
        standardOutput.line("  that point in Monaco's ENU frame: east \(format(enu.east, 2)) m, north \(format(enu.north, 2)) m, up \(format(enu.up, 2)) m")
        let tile = try Tile(containing: monaco, zoom: 15)
        standardOutput.line("  Monaco's z15 tile: \(tile) (quadkey \(tile.quadkey)), "
            + "\(format(WebMercator.metersPerPixel(atLatitude: monaco.latitude, zoom: 15), 3)) m per pixel")
        let west = monaco.coordinate(at: .kilometers(2), facing: .degrees(270))
        let foot = monaco.coordinate(at: .meters(300), facing: .degrees(0)).projected(onSegmentFrom: west, to: east)
        standardOutput.line("  300 m north of Monaco onto the segment 2 km west → 10 km east: \(format(foot.fraction * 100, 2)) % along, "
            + "\(format(foot.distance.meters, 2)) m away")

        standardOutput.line("\nGeoJSON (RFC 7946)")
        let feature = GeoJSONFeature(geometry: .lineString(places.map(\.1)),
                                     properties: ["name": .string("landmarks"),
                                                  "length_km": .number((polylineLength(places.map(\.1)).kilometers * 10).rounded() / 10)])
        standardOutput.line("  " + String(decoding: GeoJSON.feature(feature).encoded(), as: UTF8.self))
    }
}

/// A number with `places` decimals, for human-readable output (C's `%.*f`, ``FixedDecimal``).
func format(_ value: Double, _ places: Int) -> String { FixedDecimal.string(value, decimals: places) }
