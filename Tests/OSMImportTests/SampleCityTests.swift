import Foundation
import Testing
import GeoCore
import GeoTestSupport
import MapData
import RoadNetwork
import Routing
@testable import OSMImport

@Test func sampleCity_parsesBackFromPBFWithEveryFeature() throws {
    let city = SampleCity.generate(seed: 1)
    try withTemporaryDirectory { dir in
        let url = dir.appendingPathComponent("city.osm.pbf")
        try city.write(to: url)
        let back = try readAll(url)
        #expect(back.nodes == city.nodes)
        #expect(back.ways == city.ways)
        #expect(back.relations == city.relations)
        #expect(back.summary.header?.boundingBox == city.boundingBox)

        let ways = back.ways
        func has(_ key: String, _ value: String) -> Bool { ways.contains { $0.tags[key] == value } }
        for highway in ["primary", "secondary", "tertiary", "residential", "footway", "path", "steps"] {
            #expect(has("highway", highway), "highway=\(highway)")
        }
        #expect(has("oneway", "yes"))
        #expect(has("oneway", "-1"))
        #expect(has("waterway", "river"))
        #expect(has("natural", "water"))
        #expect(has("leisure", "park"))
        #expect(ways.filter { $0.tags["bridge"] == "yes" && $0.tags["layer"] == "1" }.count == 5, "3 grid bridges + 2 ring bridges")
        #expect(ways.filter { $0.tags["building"] != nil }.count > 300)
        #expect(ways.filter { $0.tags["highway"] != nil && $0.tags["name"] != nil }.count > 200, "named streets")
        #expect(ways.contains { $0.tags["maxspeed"] == "30" } && ways.contains { $0.tags["maxspeed"] == "50" })

        let roundabout = try #require(ways.first { $0.tags["junction"] == "roundabout" })
        #expect(roundabout.nodeRefs.first == roundabout.nodeRefs.last, "closed")
        // Counter-clockwise (right-hand traffic): positive signed area in a local east/north frame.
        let byID = Dictionary(uniqueKeysWithValues: back.nodes.map { ($0.id, $0) })
        let ring = roundabout.nodeRefs.compactMap { byID[$0] }
        var area = 0.0
        for (a, b) in zip(ring, ring.dropFirst()) {
            area += Double(a.longitudeE7) * Double(b.latitudeE7) - Double(b.longitudeE7) * Double(a.latitudeE7)
        }
        #expect(area > 0)

        for amenity in ["fuel", "cafe", "restaurant", "pharmacy"] {
            #expect(back.nodes.contains { $0.tags["amenity"] == amenity }, "amenity=\(amenity)")
        }
        #expect(back.nodes.contains { $0.tags["shop"] != nil })
        #expect(back.nodes.contains { $0.tags["barrier"] == "bollard" })

        // Every way's nodes exist.
        #expect(ways.allSatisfy { $0.nodeRefs.allSatisfy { byID[$0] != nil } })
    }
}

@Test func sampleCity_turnRestrictionsAreWellFormed() throws {
    let city = SampleCity.generate()
    let ways = Dictionary(uniqueKeysWithValues: city.ways.map { ($0.id, $0) })
    let restrictions = city.relations.filter { $0.tags["type"] == "restriction" }
    #expect(Set(restrictions.compactMap { $0.tags["restriction"] }) == ["no_left_turn", "only_straight_on"])
    #expect(restrictions.count == 4)
    for r in restrictions {
        let from = try #require(r.members.first { $0.role == "from" && $0.type == .way })
        let via = try #require(r.members.first { $0.role == "via" && $0.type == .node })
        let to = try #require(r.members.first { $0.role == "to" && $0.type == .way })
        let fromWay = try #require(ways[from.ref]), toWay = try #require(ways[to.ref])
        // From and to ways end (or start) at the via node, as routers expect.
        #expect([fromWay.nodeRefs.first, fromWay.nodeRefs.last].contains(via.ref))
        #expect([toWay.nodeRefs.first, toWay.nodeRefs.last].contains(via.ref))
        #expect(fromWay.tags["highway"] != nil && toWay.tags["highway"] != nil)
    }
}

@Test func sampleCity_isDeterministicPerSeed() throws {
    try withTemporaryDirectory { dir in
        let a = dir.appendingPathComponent("a.osm.pbf"), b = dir.appendingPathComponent("b.osm.pbf"), c = dir.appendingPathComponent("c.osm.pbf")
        try SampleCity.generate(seed: 42).write(to: a)
        try SampleCity.generate(seed: 42).write(to: b)
        try SampleCity.generate(seed: 43).write(to: c)
        #expect(try Data(contentsOf: a) == Data(contentsOf: b))
        #expect(try Data(contentsOf: a) != Data(contentsOf: c))
    }
}

@Test func sampleCity_liesAround48N11E() throws {
    let box = SampleCity.generate().boundingBox
    #expect(box.contains(SampleCity.center))
    #expect(box.north - box.south < 0.02, "about 1.8 km north–south, degrees")
    #expect(box.longitudeSpan < 0.04, "about 2.4 km east–west, degrees")
}

@Test func sampleCityFile_isAcceptedByOsmium() async throws {
    try await withTemporaryDirectory { dir in
        let url = dir.appendingPathComponent("city.osm.pbf")
        let city = SampleCity.generate()
        try city.write(to: url)
        guard let counts = try await osmiumCounts(url) else { return }
        #expect(counts.nodes == city.nodes.count)
        #expect(counts.ways == city.ways.count)
        #expect(counts.relations == city.relations.count)
    }
}

/// The city's features made in memory equal those of its `.osm.pbf` written and read back
/// through `MapDataExtraction` (the file's header box is the city's box), feature for feature.
@Test func sampleCity_mapFeaturesInMemory_equalTheFileReadBack() throws {
    let city = SampleCity.generate()
    let inMemory = try city.mapFeatures()
    try withTemporaryDirectory { dir in
        let url = dir.appendingPathComponent("city.osm.pbf")
        try city.write(to: url)
        let readBack = try MapDataExtraction.read(url: url).features
        #expect(inMemory.count == readBack.count)
        #expect(inMemory.count > 500) // 846 with the default seed
        #expect(inMemory == readBack)
    }
}

/// `SampleCityRoute`: the demo's city read back from a real file and routed across. The file
/// is the one `SampleCity.write` makes (same bytes, same graph), and the route runs between
/// the two corners it names, no shorter than the geodesic between its ends.
@Test func sampleCityRoute_readsTheWrittenFileAndRoutesCornerToCorner() throws {
    let city = try SampleCityRoute.make()
    try withTemporaryDirectory { dir in
        let url = dir.appendingPathComponent("city.osm.pbf")
        try SampleCity.generate().write(to: url)
        #expect(city.pbfBytes == (try Data(contentsOf: url)).count)
        let graph = try RoadGraphExtractor.extract(from: url, profile: .car).graph
        #expect(city.graph.nodeCount == graph.nodeCount && city.graph.edgeCount == graph.edgeCount)
    }
    let geometry = city.route.geometry
    let first = try #require(geometry.first), last = try #require(geometry.last)
    // The corners lie 1,100 m from the centre, the ring road 900 m: the route starts and ends
    // on roads within 250 m of them.
    #expect(first.distance(to: SampleCityRoute.from).meters < 250)
    #expect(last.distance(to: SampleCityRoute.to).meters < 250)
    #expect(city.route.distance.meters >= first.distance(to: last).meters - 0.001)
    #expect(city.extractSeconds >= 0 && city.routeSeconds >= 0)
}

/// `RoadGraphExtractor.Result.logLines`, `geo extract`'s log: the element counts read, the
/// builder's report, the graph's size; a node with a position out of range is said to be skipped.
@Test func extractionLogLines_sayWhatWasReadKeptAndBuilt() throws {
    try withTemporaryDirectory { dir in
        let url = dir.appendingPathComponent("two.osm")
        // Three nodes, one at latitude 91 (out of range), one way between the other two.
        try Data("""
            <osm version="0.6"><node id="1" lat="48.0" lon="11.0"/><node id="2" lat="48.001" lon="11.0"/>\
            <node id="3" lat="91" lon="11.0"/><way id="7"><nd ref="1"/><nd ref="2"/><tag k="highway" v="residential"/></way></osm>
            """.utf8).write(to: url)
        let result = try RoadGraphExtractor.extract(from: url, profile: .car)
        let lines = result.logLines(profile: .car, fileBytes: 1234)
        #expect(lines.count == 3)
        #expect(lines[0] == "read 2 nodes, 1 ways, 0 relations (skipped: 1 nodes with a position out of range)")
        #expect(lines[1] == result.report.description)
        #expect(lines[2].hasPrefix("graph (car): 2 nodes, ") && lines[2].hasSuffix(" turn rules, 1234 bytes"))
    }
}
