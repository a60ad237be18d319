import Foundation
import Testing
import GeoCore
import GeoTestSupport
import MapData
import OSMImport

/// A 4-node square (node ids base…base+3) of side `size` degrees at (lat, lon), in OSM fixed point.
private func addSquare(_ e: inout MapFeatureExtractor, base: Int64, lat: Double, lon: Double, size: Double) throws {
    let corners = [(0.0, 0.0), (0, size), (size, size), (size, 0)]
    for (i, c) in corners.enumerated() {
        try e.addNode(id: base + Int64(i), latitudeE7: Int32((lat + c.0) * 1e7), longitudeE7: Int32((lon + c.1) * 1e7), tags: [String: String]())
    }
}

@Test func multipolygon_outerFromTwoOpenWays_innerBecomesHole() throws {
    var e = MapFeatureExtractor()
    try addSquare(&e, base: 1, lat: 43.70, lon: 7.40, size: 0.01)
    try addSquare(&e, base: 11, lat: 43.703, lon: 7.403, size: 0.002)
    // The outer ring in two halves, the second one reversed: assembly must flip it.
    try e.addWay(id: 100, nodeRefs: [1, 2, 3], tags: [String: String]())
    try e.addWay(id: 101, nodeRefs: [1, 4, 3], tags: [String: String]())
    try e.addWay(id: 102, nodeRefs: [11, 12, 13, 14, 11], tags: [String: String]())
    e.addRelation(id: 7, members: [
        OSMMember(type: .way, ref: 100, role: "outer"),
        OSMMember(type: .way, ref: 101, role: "outer"),
        OSMMember(type: .way, ref: 102, role: "inner"),
    ], tags: ["type": "multipolygon", "natural": "water", "name": "Lac"])
    let set = try e.finish()
    let water = set.features.filter { $0.layer == .water }
    #expect(water.count == 1)
    guard case .polygons(let polygons)? = water.first?.geometry else { Issue.record("no polygon"); return }
    #expect(polygons.count == 1)
    #expect(polygons.first?.exterior.count == 5)
    #expect(polygons.first?.exterior.first == polygons.first?.exterior.last)
    #expect(polygons.first?.holes.count == 1)
    #expect(water.first?["name"] == .string("Lac"))
    #expect(water.first?.source == .relation)
    #expect(set.statistics.brokenRelations == 0)
}

@Test func multipolygon_withAMissingWayOrAnOpenRing_isSkippedAndCounted() throws {
    var e = MapFeatureExtractor()
    try addSquare(&e, base: 1, lat: 43.70, lon: 7.40, size: 0.01)
    try e.addWay(id: 100, nodeRefs: [1, 2, 3], tags: [String: String]())
    e.addRelation(id: 7, members: [OSMMember(type: .way, ref: 100, role: "outer")],
                  tags: ["type": "multipolygon", "landuse": "forest"])
    e.addRelation(id: 8, members: [OSMMember(type: .way, ref: 999, role: "outer")],
                  tags: ["type": "multipolygon", "landuse": "forest"])
    let set = try e.finish()
    #expect(set.features.isEmpty)
    #expect(set.statistics.brokenRelations == 2)
}

@Test func road_givesClassBrunnelOnewayAndAStreetName() throws {
    var e = MapFeatureExtractor()
    try addSquare(&e, base: 1, lat: 43.70, lon: 7.40, size: 0.01)
    try e.addNode(id: 20, latitudeE7: 437_000_000, longitudeE7: 74_000_000, tags: ["amenity": "cafe", "name": "Chez B"])
    try e.addNode(id: 21, latitudeE7: 437_000_000, longitudeE7: 74_000_000, tags: ["highway": "elevator"])
    try e.addWay(id: 5, nodeRefs: [1, 2, 3], tags: ["highway": "residential", "bridge": "yes", "oneway": "-1", "name": "Rue A", "name:ja": "A通り"])
    try e.addWay(id: 6, nodeRefs: [3, 4], tags: ["highway": "steps", "conveying": "yes"])
    let set = try e.finish()
    let road = set.features.first { $0.layer == .transportation }
    #expect(road?.featureClass == "minor")
    #expect(road?["brunnel"] == .string("bridge"))
    #expect(road?["oneway"] == .int(-1))
    let name = set.features.first { $0.layer == .transportationName }
    #expect(name?["name"] == .string("Rue A"))
    #expect(name?["name:ja"] == .string("A通り"))
    #expect(set.features.first { $0.layer == .pedestrian && $0.source == .way }?.featureClass == "escalator")
    #expect(set.features.first { $0.layer == .pedestrian && $0.source == .node }?.featureClass == "elevator")
    #expect(set.features.first { $0.layer == .poi }?.featureClass == "cafe")
}

/// OpenMapTiles' derived names (its `get_basic_names`), which OSM Bright and Positron label with:
/// a Latin name is `name:latin` as written; a name in another script is `name:nonlatin`, with
/// `name:latin` from `name:en` (or `int_name`) when there is one; a tag of the same key wins.
@Test func names_carryOpenMapTilesLatinAndNonLatinForms() throws {
    var e = MapFeatureExtractor()
    try addSquare(&e, base: 1, lat: 43.70, lon: 7.40, size: 0.01)
    try e.addNode(id: 20, latitudeE7: 437_000_000, longitudeE7: 74_000_000, tags: ["place": "city", "name": "Zürich-Œrlikon"])
    try e.addNode(id: 21, latitudeE7: 437_100_000, longitudeE7: 74_000_000, tags: ["place": "city", "name": "東京", "name:en": "Tokyo"])
    try e.addNode(id: 22, latitudeE7: 437_200_000, longitudeE7: 74_000_000, tags: ["place": "city", "name": "Αθήνα"])
    try e.addNode(id: 23, latitudeE7: 437_300_000, longitudeE7: 74_000_000, tags: ["place": "city", "name": "Wien", "name:latin": "Vindobona", "int_name": "Vienna"])
    let places = try e.finish().features.filter { $0.layer == .place }
    func place(_ name: String) -> MapFeature? { places.first { $0["name"] == .string(name) } }
    #expect(place("Zürich-Œrlikon")?["name:latin"] == .string("Zürich-Œrlikon"))
    #expect(place("Zürich-Œrlikon")?["name:nonlatin"] == nil)
    #expect(place("Zürich-Œrlikon")?["name_int"] == .string("Zürich-Œrlikon"))
    #expect(place("東京")?["name:latin"] == .string("Tokyo"))
    #expect(place("東京")?["name:nonlatin"] == .string("東京"))
    #expect(place("東京")?["name_en"] == .string("Tokyo"))
    #expect(place("Αθήνα")?["name:latin"] == nil, "no transliteration")
    #expect(place("Αθήνα")?["name:nonlatin"] == .string("Αθήνα"))
    #expect(place("Αθήνα")?["name_int"] == .string("Αθήνα"))
    #expect(place("Wien")?["name:latin"] == .string("Vindobona"))
    #expect(place("Wien")?["name_int"] == .string("Vienna"))
}

@Test(.onOwnThread) func monaco_extractsEveryLayerWithFewBrokenRelations() throws {
    guard let url = try Fixtures.url("osm/monaco.osm.pbf") else { return }
    let set = try MapDataExtraction.read(url: url)
    var counts: [MapLayer: Int] = [:]
    for f in set.features { counts[f.layer, default: 0] += 1 }
    for layer in MapLayer.allCases {
        #expect(counts[layer, default: 0] > 0, "layer \(layer.rawValue) is empty")
    }
    // A cut extract: a relation or two lose member ways at the edge, no more.
    #expect(set.statistics.brokenRelations <= 3)
    #expect(counts[.building, default: 0] > 10_000)
    // The bounding box of monaco.osm.pbf (its header): every feature point lies within it or
    // on ways that leave it by a few hundred metres.
    let box = try BoundingBox(south: 43.6, west: 7.3, north: 43.8, east: 7.6)
    for f in set.features.prefix(2000) {
        if let b = f.geometry.bounds {
            #expect(box.contains(MapPoint(x: b.minX, y: b.minY).coordinate))
        }
    }
}

@Test func nodesOutOfIDOrder_andARepeatedNode_resolveForWays() throws {
    var e = MapFeatureExtractor()
    try e.addNode(id: 5, latitudeE7: 437_000_000, longitudeE7: 74_000_000, tags: [String: String]())
    try e.addNode(id: 3, latitudeE7: 437_100_000, longitudeE7: 74_000_000, tags: [String: String]())
    try e.addNode(id: 9, latitudeE7: 437_100_000, longitudeE7: 74_100_000, tags: [String: String]())
    // A later copy of node 5 (merged files) moves it: the later position wins, as in osmium.
    try e.addNode(id: 5, latitudeE7: 437_050_000, longitudeE7: 74_050_000, tags: [String: String]())
    try e.addWay(id: 1, nodeRefs: [3, 5, 9], tags: ["highway": "primary"])
    let set = try e.finish()
    guard case .lines(let lines)? = set.features.first?.geometry else { Issue.record("no line"); return }
    #expect(lines.first?.count == 3)
    let middle = lines.first?[1].coordinate
    #expect(abs((middle?.latitude ?? 0) - 43.705) < 1e-9 && abs((middle?.longitude ?? 0) - 7.405) < 1e-9)
    #expect(set.statistics.waysWithMissingNodes == 0)
}
