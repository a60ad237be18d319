import Foundation
import GeoCore
import MapCamera
import MapData
import MapRenderer
import MapView
import OSMImport
import Routing
import Monitoring
import Compass
import SystemIO

/// `geo demo`'s maps and monitoring parts: the same library calls as `geo tiles build`,
/// `geo snapshot`, `geo map animate`, `geo monitor` and `geo magnetic`, on the sample city and
/// the drive the positioning part simulated.
extension Demo {
    /// The sample city as map features, cut into vector tiles, and drawn with the route and the
    /// matched drive into the PNG file `snapshot`.
    func mapsTour(_ city: SampleCityRoute, matchedDrive: [Coordinate], snapshot path: String) throws {
        standardOutput.line("\nMaps: the sample city as map data, vector tiles and a snapshot")
        let features = try SampleCity.generate().mapFeatures()
        let tiler = try MapTiler(features: features, options: TilingOptions(minZoom: 0, maxZoom: 14))
        var tiles = 0, bytes = 0
        for z in 0...14 {
            let cut = try tiler.tiles(atZoom: z)
            tiles += cut.reduce(0) { $0 + $1.runLength }
            bytes += cut.reduce(0) { $0 + $1.data.count }
        }
        standardOutput.line("  \(features.count) map features (OpenMapTiles layers); z0–14: \(tiles) MVT tiles, \(bytes / 1024) KiB")

        let camera = try CameraState(geoCenter: SampleCity.center, zoomLevel: 13.7, orientation: 0, tilt: 0,
                                     viewSize: ViewSize(width: 800, height: 600), projection: .mercator)
        let view = try MapView<ContinuousClock.Instant>(camera: camera, features: MapFeatureIndex(features))
        #if os(Linux)
        view.text = try MapFiles.text()
        #endif
        _ = view.add(.polyline(MapPolyline(city.route.geometry, width: 8, color: Color(hex: 0x1E64F0, alpha: 120))))
        if matchedDrive.count > 1 { _ = view.add(.polyline(MapPolyline(matchedDrive, width: 3, color: Color(hex: 0xD02020)))) }
        if let start = city.route.geometry.first { _ = view.add(.marker(MapMarker(start))) }
        let png = try PNG.encode(view.snapshot())
        try AtomicFileReplacement.write(png, to: path)
        standardOutput.line("  snapshot 800×600 at zoom 14.7 with the route (blue) and the matched drive (red): \(path)")

        let tokyo = try CameraState(geoCenter: Coordinate(latitude: 35.6812, longitude: 139.7671), zoomLevel: 15,
                                    viewSize: ViewSize(width: 1280, height: 720), projection: .mercator)
        let osaka = try Coordinate(latitude: 34.7025, longitude: 135.4959)
        let flight = try CameraTransition(from: tokyo, to: tokyo.setting(CameraOptions(geoCenter: osaka)), animation: .bow)
        let lowest = stride(from: 0.0, through: 1.0, by: 0.01).map { flight.state(atProgress: $0).zoomLevel }.min() ?? 15
        standardOutput.line("  camera, bow (van Wijk & Nuij, ρ 1.42) Tokyo → Osaka at zoom 15: \(format(flight.duration / .seconds(1), 2)) s, "
            + "climbing to zoom \(format(lowest, 2)) on the way")
    }

    /// A geofence on the route decided from the drive's fixes with their accuracy, and the
    /// magnetic declination at the city.
    func monitoringTour(_ city: SampleCityRoute, fixes: [Location]) throws {
        standardOutput.line("\nMonitoring: a 250 m geofence on the route, decided with each fix's accuracy")
        let geometry = city.route.geometry
        guard let fenceCentre = geometry.dropFirst(geometry.count / 2).first, let firstFix = fixes.first else { return }
        var fences = FenceEngine()
        try fences.add(.circle(CircularGeographicCondition(center: fenceCentre, radius: .meters(250))),
                       identifier: "fence", at: firstFix.timestamp)
        for fix in fixes {
            for event in fences.process(fix) {
                let seconds = event.date.timeIntervalSince(firstFix.timestamp)
                standardOutput.line("  \(format(seconds, 0)) s: \(event.identifier) \(event.state == .satisfied ? "inside" : "outside")"
                    + (event.probability.map { " (P(inside) \(format($0, 3)))" } ?? ""))
            }
        }
        let field = try MagneticModel.wmm2025.field(at: SampleCity.center, date: firstFix.timestamp)
        standardOutput.line("  World Magnetic Model 2025 at the city on \(firstFix.timestamp.formatted(.iso8601.year().month().day())): "
            + "declination \(format(field.declination.degrees, 2))°, inclination \(format(field.inclination.degrees, 2))°, "
            + "\(format(field.totalIntensity, 0)) nT")
    }
}
