import Foundation
import GeoCore
import GeoTestSupport
import OSMImport
import RoadNetwork
import Routing
import Testing

/// Extracts a shared-data OSM file for the car profile, or nil to skip outside CI.
private func carRouter(_ file: String) throws -> (Router, RoadGraphExtractor.Result)? {
    guard let url = try Fixtures.url(file) else { return nil }
    let result = try RoadGraphExtractor.extract(from: url, profile: .car)
    return (Router(graph: result.graph), result)
}

@Test func monaco_routesMatchOSRM() throws {
    guard let (router, extract) = try carRouter("osm/monaco.osm.pbf") else { return }
    #expect(extract.report.waysRoutable > 1000)
    #expect(extract.graph.restrictionCount > 0)
    // Expected values: osrm-routed v26.10.0, car.lua, on the same file.
    let route = try router.route(from: Coordinate(latitude: 43.7384, longitude: 7.4246),
                                 to: Coordinate(latitude: 43.7311, longitude: 7.4197))
    #expect(abs(route.distance.meters - 2399.6) / 2399.6 < 0.01, "distance \(route.distance)")        // within 1 %
    #expect(abs(route.duration.seconds - 212.1) / 212.1 < 0.05, "duration \(route.duration.seconds) s")  // within 5 %
    // Casino square to Fontvieille and back: both exist, and each is longer than the straight line.
    let casino = try Coordinate(latitude: 43.7396, longitude: 7.4277)
    let fontvieille = try Coordinate(latitude: 43.7277, longitude: 7.4150)
    let there = try router.route(from: casino, to: fontvieille)
    let back = try router.route(from: fontvieille, to: casino)
    let straight = LocalFrame(origin: Coordinate(uncheckedLatitude: 43.73, longitude: 7.42)).planarDistance(casino, fontvieille)
    for r in [there, back] {
        #expect(r.distance.meters > straight && r.distance.meters < 4 * straight, "\(r.distance) vs straight \(straight) m")
    }
}

@Test(.onOwnThread) func monaco_graphFileRoundTripRoutesIdentically() throws {
    guard let (router, extract) = try carRouter("osm/monaco.osm.pbf") else { return }
    let reloaded = Router(graph: try RoadGraph(serialized: extract.graph.serialized()))
    let a = try Coordinate(latitude: 43.7460, longitude: 7.4350), b = try Coordinate(latitude: 43.7312, longitude: 7.4200)
    let r1 = try router.route(from: a, to: b), r2 = try reloaded.route(from: a, to: b)
    #expect(r1.edges == r2.edges)
    #expect(abs(r1.distance.meters - r2.distance.meters) < 1e-9)   // metres
}

@Test func andorra_routesAcrossTheValleys() throws {
    guard let (router, extract) = try carRouter("osm/andorra.osm.pbf") else { return }
    #expect(extract.report.missingNodeReferences == 0)
    // Andorra la Vella to Pas de la Casa, over the Envalira pass: osrm-routed v26.10 (car.lua)
    // gives 32 769.7 m and 2 136.3 s on this extract.
    let osrmDistance = 32_769.7, osrmDuration = 2_136.3
    let vella = try Coordinate(latitude: 42.5063, longitude: 1.5218)
    let pas = try Coordinate(latitude: 42.5425, longitude: 1.7336)
    let route = try router.route(from: vella, to: pas)
    #expect(abs(route.distance.meters - osrmDistance) / osrmDistance < 0.01, "distance \(route.distance)")
    #expect(abs(route.duration.seconds - osrmDuration) / osrmDuration < 0.05, "duration \(route.duration.seconds) s")
}

@Test func monaco_harbourStartsOnTheQuayNotOnTheFerry() throws {
    guard let (router, _) = try carRouter("osm/monaco.osm.pbf") else { return }
    // A point in Port Hercule, beside the Bateau Bus ferry line: OSRM (osrm-routed v26.10.0,
    // car.lua) starts on the quai de l'Hirondelle at 43.735835, 7.427034 and gives 2 412.9 m
    // and 314.5 s to the Place du Casino. Snapped onto the ferry, the route was 1 977.8 m, 343.7 s.
    let harbour = try Coordinate(latitude: 43.73540, longitude: 7.42586)
    let casino = try Coordinate(latitude: 43.7396, longitude: 7.4277)
    let route = try router.route(from: harbour, to: casino)
    let quay = try Coordinate(latitude: 43.735835, longitude: 7.427034)
    #expect(LocalFrame(origin: quay).planarDistance(route.start.coordinate, quay) < 2, "start \(route.start.coordinate)")  // metres
    #expect(abs(route.distance.meters - 2412.9) / 2412.9 < 0.01, "distance \(route.distance)")        // within 1 %
    #expect(abs(route.duration.seconds - 314.5) / 314.5 < 0.05, "duration \(route.duration.seconds) s")  // within 5 %
}
