import ArgumentParser
import Foundation
import GeoCore

/// `geo demo`: a short tour of what LocationKit can do on the embedded default data.
struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "A short tour of LocationKit on the embedded default data (no arguments needed)."
    )

    func run() async throws {
        print("LocationKit demo — embedded default data, no files needed\n")
        try geoCoreTour()
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
        print("GeoCore: WGS84 geodesics (Karney 2013, accurate to nanometres)")
        for (a, b) in [(0, 1), (3, 2), (4, 0)] {
            let r = Geodesic.wgs84.inverse(from: places[a].1, to: places[b].1)
            print("  \(places[a].0) → \(places[b].0): \(format(r.distance.kilometers, 3)) km, "
                + "initial bearing \(format(r.initialBearing.degrees, 2))°, final \(format(r.finalBearing.degrees, 2))°")
        }
        let monaco = places[4].1
        let east = monaco.coordinate(at: .kilometers(10), facing: .degrees(90))
        print("  10 km east of Monaco: \(format(east.latitude, 6)), \(format(east.longitude, 6))")
        let haversine = Spherical.distance(from: places[0].1, to: places[1].1)
        let geodesic = places[0].1.distance(to: places[1].1)
        print("  spherical fast path Paris → New York: \(format(haversine.kilometers, 3)) km "
            + "(\(format((haversine.meters / geodesic.meters - 1) * 100, 3)) % off the ellipsoid)")

        print("\nLocal frames and tiles")
        let plane = LocalTangentPlane(origin: monaco)
        let enu = plane.enu(of: east)
        print("  that point in Monaco's ENU frame: east \(format(enu.east, 2)) m, north \(format(enu.north, 2)) m, up \(format(enu.up, 2)) m")
        let tile = try Tile(containing: monaco, zoom: 15)
        print("  Monaco's z15 tile: \(tile) (quadkey \(tile.quadkey)), "
            + "\(format(WebMercator.metersPerPixel(atLatitude: monaco.latitude, zoom: 15), 3)) m per pixel")
        let west = monaco.coordinate(at: .kilometers(2), facing: .degrees(270))
        let foot = monaco.coordinate(at: .meters(300), facing: .degrees(0)).projected(onSegmentFrom: west, to: east)
        print("  300 m north of Monaco onto the segment 2 km west → 10 km east: \(format(foot.fraction * 100, 2)) % along, "
            + "\(format(foot.distance.meters, 2)) m away")

        print("\nGeoJSON (RFC 7946)")
        let feature = GeoJSONFeature(geometry: .lineString(places.map(\.1)),
                                     properties: ["name": .string("landmarks"),
                                                  "length_km": .number((polylineLength(places.map(\.1)).kilometers * 10).rounded() / 10)])
        print("  " + String(decoding: GeoJSON.feature(feature).encoded(), as: UTF8.self))
    }
}

/// A number with `places` decimals, for human-readable output.
func format(_ value: Double, _ places: Int) -> String { String(format: "%.\(places)f", value) }
