import Foundation
import GeoCore
import GeoTestSupport
import Testing
@testable import Monitoring

private func c(_ lat: Double, _ lon: Double) -> Coordinate { Coordinate(uncheckedLatitude: lat, longitude: lon) }
private let square = [c(0, 0), c(0, 0.01), c(0.01, 0.01), c(0.01, 0), c(0, 0)]

@Test func polygon_eitherWinding_withAHole() throws {
    let hole = [c(0.004, 0.004), c(0.006, 0.004), c(0.006, 0.006), c(0.004, 0.006), c(0.004, 0.004)]
    for shell in [square, square.reversed()] {
        let region = try PolygonRegion(polygons: [[shell, hole]])
        #expect(region.contains(c(0.002, 0.002)))
        #expect(!region.contains(c(0.005, 0.005)))   // in the hole
        #expect(!region.contains(c(0.02, 0.005)))
        // The hole's edge is 0.001° of latitude ≈ 110.6 m from its centre (±1 m).
        #expect(abs(region.signedDistance(to: c(0.005, 0.005)).meters + 110.6) < 1)
    }
}

@Test func polygon_badRings_areTypedErrors() {
    func code(_ polygons: [[[Coordinate]]]) -> MonitoringError.Code? {
        do { _ = try PolygonRegion(polygons: polygons); return nil } catch { return error.code }
    }
    #expect(code([[Array(square.dropLast())]]) == .invalidPolygon)                       // open
    #expect(code([[[c(0, 0), c(0, 1), c(0, 0)]]]) == .invalidPolygon)                    // too short
    #expect(code([[[c(0, 0), c(0, 1), c(0, 2), c(0, 0)]]]) == .invalidPolygon)           // zero area
    #expect(code([[[c(0, 0), c(2, 2), c(0, 2), c(1, 0), c(0, 0)]]]) == .invalidPolygon)  // a bow tie
    #expect(throws: MonitoringError(.invalidPolygon, "polygon 0, ring 0, edge 0 crosses polygon 0, ring 0, edge 2: self-intersecting")) {
        try PolygonRegion(polygons: [[[c(0, 0), c(2, 2), c(0, 2), c(1, 0), c(0, 0)]]])
    }
    let outside = [c(0.02, 0.02), c(0.03, 0.02), c(0.03, 0.03), c(0.02, 0.02)]
    #expect(code([[square, outside]]) == .invalidPolygon)                                  // a hole outside its shell
    let crossing = [c(0.005, 0.005), c(0.005, 0.02), c(0.006, 0.02), c(0.005, 0.005)]
    #expect(code([[square, crossing]]) == .invalidPolygon)                                 // a hole across the shell
    #expect(code([]) == .invalidPolygon)
}

@Test func poly_readsMonaco() throws {
    guard let url = try Fixtures.url("osm/monaco.poly") else { return }
    let text = try String(contentsOf: url, encoding: .utf8)
    let region = try PolygonRegion(osmosisPoly: text, file: "monaco.poly")
    #expect(region.contains(c(43.7394, 7.4276)))    // Monte-Carlo Casino
    #expect(!region.contains(c(43.7031, 7.2661)))   // Nice
    let regions = try RegionsFile.conditions(from: Array(text.utf8), name: url.lastPathComponent)
    #expect(regions.count == 1)
    #expect(regions.first?.identifier == "none") // the file's first line names it
}

@Test func poly_holesAndErrorsWithLines() throws {
    let text = """
        park
        1
           0.0 0.0
           0.01 0.0
           0.01 0.01
           0.0 0.01
        END
        !pond
           0.004 0.004
           0.006 0.004
           0.006 0.006
        END
        END
        """
    let region = try PolygonRegion(osmosisPoly: text, file: "park.poly")
    #expect(region.polygons.first?.count == 2)
    #expect(region.contains(c(0.002, 0.002)))
    #expect(!region.contains(c(0.0045, 0.0055)))
    do {
        _ = try PolygonRegion(osmosisPoly: "x\n1\n 0 0\n 1 nonsense\nEND\nEND\n", file: "bad.poly")
        Issue.record("accepted a bad line")
    } catch {
        #expect(error.code == .invalidRegionsFile)
        #expect(error.location == "bad.poly:4")
    }
    #expect(throws: MonitoringError.self) { try PolygonRegion(osmosisPoly: "x\n1\n 0 0\n 1 0\n 1 1\n", file: "cut.poly") }
}

@Test func circle_rejectsZeroNegativeAndNaNRadii() throws {
    for radius in [0.0, -5, .nan, .infinity] {
        #expect(throws: MonitoringError.self) { try CircularGeographicCondition(center: c(1, 1), radius: .meters(radius)) }
    }
    #expect(try CircularGeographicCondition(center: c(1, 1), radius: .meters(0.5)).radius.meters == 0.5)
}

@Test func beaconIdentity_wildcards() throws {
    let uuid = try #require(UUID(uuidString: "F7826DA6-4FA2-4E98-8024-BC5B71E0893E"))
    let other = try #require(UUID(uuidString: "F7826DA6-4FA2-4E98-8024-BC5B71E0893F"))
    let any = try BeaconIdentityCondition(uuid: uuid)
    let major = try BeaconIdentityCondition(uuid: uuid, major: 3)
    let exact = try BeaconIdentityCondition(uuid: uuid, major: 3, minor: 9)
    #expect(any.matches(uuid: uuid, major: 1, minor: 2) && !any.matches(uuid: other, major: 1, minor: 2))
    #expect(major.matches(uuid: uuid, major: 3, minor: 2) && !major.matches(uuid: uuid, major: 4, minor: 2))
    #expect(exact.matches(uuid: uuid, major: 3, minor: 9) && !exact.matches(uuid: uuid, major: 3, minor: 8))
    #expect(throws: MonitoringError.self) { try BeaconIdentityCondition(uuid: uuid, minor: 9) }
}

@Test func conditions_roundTripThroughJSON() throws {
    let uuid = try #require(UUID(uuidString: "F7826DA6-4FA2-4E98-8024-BC5B71E0893E"))
    let conditions: [MonitorCondition] = [
        .circle(try CircularGeographicCondition(center: c(43.7, 7.4), radius: .meters(250))),
        .polygon(try PolygonRegion(polygons: [[square]])),
        .beacon(try BeaconIdentityCondition(uuid: uuid, major: 1)),
    ]
    for condition in conditions {
        let data = try JSONEncoder().encode(condition)
        #expect(try JSONDecoder().decode(MonitorCondition.self, from: data) == condition)
    }
    // A stored circle with a negative radius does not come back.
    let bad = Data(#"{"type":"circle","latitude":1,"longitude":2,"radius":-3}"#.utf8)
    #expect(throws: DecodingError.self) { try JSONDecoder().decode(MonitorCondition.self, from: bad) }
}

@Test func geoJSONRegions_identifiersAndErrors() throws {
    let doc = """
        {"type":"FeatureCollection","features":[
         {"type":"Feature","id":7,"properties":{"identifier":"home"},"geometry":{"type":"Point","coordinates":[2.35,48.85]}},
         {"type":"Feature","id":"office","properties":{"radius":80},"geometry":{"type":"Point","coordinates":[2.36,48.86]}},
         {"type":"Feature","properties":{"name":"park"},"geometry":{"type":"Polygon","coordinates":[[[0,0],[0.01,0],[0.01,0.01],[0,0.01],[0,0]]]}}
        ]}
        """
    do {
        _ = try RegionsFile.conditions(from: Array(doc.utf8), name: "r.geojson")
        Issue.record("a Point without a radius was accepted")
    } catch {
        #expect(error.location == "r.geojson: $.features[0]")
    }
    let fixed = doc.replacingOccurrences(of: #""identifier":"home""#, with: #""identifier":"home","radius":120"#)
    let regions = try RegionsFile.conditions(from: Array(fixed.utf8), name: "r.geojson")
    #expect(regions.map(\.identifier) == ["home", "office", "park"])
    let bowTie = #"{"type":"Polygon","coordinates":[[[0,0],[2,2],[2,0],[0,1],[0,0]]]}"#
    #expect(throws: MonitoringError.self) { try RegionsFile.conditions(from: Array(bowTie.utf8), name: "b.geojson") }
}
