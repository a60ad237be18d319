import Platform
import Foundation
package import GeoCore
package import RoadNetwork
package import Routing

/// The embedded default data of `geo demo`, `geo map` and `geo simulate`: the sample city
/// written as a real `.osm.pbf`, read back through the import path (`RoadGraphExtractor`), and
/// a car route across it.
package struct SampleCityRoute: Sendable {
    /// The size of the `.osm.pbf` file the city was written to and read back from, in bytes.
    package let pbfBytes: Int
    /// The city's car graph.
    package let graph: RoadGraph
    /// The fastest car route from `from` to `to`.
    package let route: Route
    /// How long extracting and routing took, seconds, for the demo's narration.
    package let extractSeconds: Double, routeSeconds: Double

    /// From the south-west corner of town to the north-east one: 1,100 m from the centre each.
    package static let from = SampleCity.center.coordinate(at: .meters(1100), facing: .degrees(225))
    package static let to = SampleCity.center.coordinate(at: .meters(1100), facing: .degrees(45))

    /// Builds it in a temporary folder that is removed before returning.
    /// - Throws: what writing, reading or routing throws (none expected on generated data).
    package static func make() throws -> SampleCityRoute {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("locationkit-sample-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let pbf = dir.appendingPathComponent("city.osm.pbf")
        try SampleCity.generate().write(to: pbf)
        let bytes = (try? FileManager.default.attributesOfItem(atPath: pbf.path)[.size] as? Int) ?? 0
        let clock = ContinuousClock()
        let t0 = clock.now
        let extracted = try RoadGraphExtractor.extract(from: pbf, profile: .car)
        let t1 = clock.now
        let route = try Router(graph: extracted.graph).route(from: from, to: to)
        let t2 = clock.now
        return SampleCityRoute(pbfBytes: bytes, graph: extracted.graph, route: route,
                               extractSeconds: (t1 - t0).seconds, routeSeconds: (t2 - t1).seconds)
    }
}
