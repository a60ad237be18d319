import Foundation
import GeoCore
import OSMImport
import RoadNetwork
import Routing

/// The embedded default data: the generated sample city, written as a real `.osm.pbf`, read
/// back through the import path, and a car route across it.
struct SampleCityRoute {
    /// Where the city was written.
    let pbf: URL
    let graph: RoadGraph
    let route: Route
    /// How long writing, extracting and routing took, for the demo's narration.
    let extractSeconds: Double, routeSeconds: Double

    /// From the south-west corner of town to the north-east one.
    static let from = SampleCity.center.coordinate(at: .meters(1100), facing: .degrees(225))
    static let to = SampleCity.center.coordinate(at: .meters(1100), facing: .degrees(45))

    /// Builds it in a temporary folder.
    /// - Throws: what writing, reading or routing throws (none expected on generated data).
    static func make() throws -> SampleCityRoute {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("locationkit-sample-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let pbf = dir.appendingPathComponent("city.osm.pbf")
        try SampleCity.generate().write(to: pbf)
        let clock = ContinuousClock()
        let t0 = clock.now
        let extracted = try RoadGraphExtractor.extract(from: pbf, profile: .car)
        let t1 = clock.now
        let route = try Router(graph: extracted.graph).route(from: from, to: to)
        let t2 = clock.now
        return SampleCityRoute(pbf: pbf, graph: extracted.graph, route: route,
                               extractSeconds: (t1 - t0).seconds, routeSeconds: (t2 - t1).seconds)
    }
}
