import GeoCore
import GPXCodec
import OSMImport
import Routing
import Testing
import TraceFiles

/// `geo route --format gpx`'s document, read back by GPXCodec's reader: one route and nothing
/// else, every printed point in order (to 1e-7°, the graph's precision), the distance and
/// duration in its description, the creator as given; and the route's length along those
/// points (WGS84 geodesics) is its distance within 1 m.
@Test func routeGPX_readsBackAsOneRouteOfItsPoints_withItsSummary() throws {
    let route = try SampleCityRoute.make().route
    let text = try route.gpx(creator: "route & test")
    let document = try GPXReader.read(bytes: Array(text.utf8))
    #expect(text.contains("creator=\"route &amp; test\""))
    #expect(document.routes.count == 1 && document.tracks.isEmpty && document.waypoints.isEmpty)
    let gpxRoute = try #require(document.routes.first)
    #expect(gpxRoute.info.description == route.summary)
    let points = gpxRoute.points.map(\.coordinate)
    #expect(points.count == route.geometry.count && points.count > 1)
    for (read, original) in zip(points, route.geometry) {
        #expect(abs(read.latitude - original.latitude) <= 0.5e-7 + 1e-12 && abs(read.longitude - original.longitude) <= 0.5e-7 + 1e-12)
    }
    #expect(abs(polylineLength(points).meters - route.distance.meters) < 1) // m
}
