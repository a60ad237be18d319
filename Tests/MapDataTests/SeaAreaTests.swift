import Foundation
import Testing
import GeoCore
import GeoTestSupport
import MapData
import OSMImport

/// Whether the `ocean` features cover a coordinate (even–odd test on exteriors and holes).
private func isSea(_ features: [MapFeature], latitude: Double, longitude: Double) throws -> Bool {
    let p = MapPoint(try Coordinate(latitude: latitude, longitude: longitude))
    func inside(_ ring: [MapPoint]) -> Bool {
        var inside = false
        var j = ring.count - 1
        for i in ring.indices {
            let a = ring[i], b = ring[j]
            if (a.y > p.y) != (b.y > p.y), p.x < (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x { inside.toggle() }
            j = i
        }
        return inside
    }
    for f in features where f.layer == .water && f.featureClass == "ocean" {
        guard case .polygons(let polygons) = f.geometry else { continue }
        for polygon in polygons where inside(polygon.exterior) && !polygon.holes.contains(where: inside) { return true }
    }
    return false
}

/// A hand-made coast in the box 43.0…43.1 N, 7.0…7.1 E: a coastline across it at 43.05 N,
/// drawn west to east in two ways (land on the left, so north is land and south is sea), its
/// ends a few tens of metres inside the box as a cut extract leaves them, and an island at
/// 43.02…43.03 N drawn counter-clockwise.
private func coast(splitAt middle: [Int64] = [3, 3], eastWayReversed: Bool = false, island: Bool = true) throws -> MapFeatureExtractor {
    var e = MapFeatureExtractor()
    let none = [String: String]()
    func node(_ id: Int64, _ lat: Double, _ lon: Double) throws {
        try e.addNode(id: id, latitudeE7: Int32((lat * 1e7).rounded()), longitudeE7: Int32((lon * 1e7).rounded()), tags: none)
    }
    try node(1, 43.050, 7.0004); try node(2, 43.052, 7.03); try node(3, 43.049, 7.05); try node(4, 43.0495, 7.0501)
    try node(5, 43.051, 7.07); try node(6, 43.050, 7.0997)
    try node(11, 43.02, 7.04); try node(12, 43.02, 7.06); try node(13, 43.03, 7.06); try node(14, 43.03, 7.04)
    let coastline = ["natural": "coastline"]
    try e.addWay(id: 100, nodeRefs: [1, 2, middle[0]], tags: coastline)
    let east: [Int64] = [middle[1], 5, 6]
    try e.addWay(id: 101, nodeRefs: eastWayReversed ? east.reversed() : east, tags: coastline)
    if island { try e.addWay(id: 102, nodeRefs: [11, 12, 13, 14, 11], tags: coastline) }
    return e
}

private func fixtureBounds() throws -> BoundingBox { try BoundingBox(south: 43.0, west: 7.0, north: 43.1, east: 7.1) }

@Test func coastline_closesAlongTheBox_waterOnTheRight_islandIsAHole() throws {
    var e = try coast()
    let set = try e.finish(bounds: try fixtureBounds())
    #expect(set.statistics.coastlineWays == 3)
    #expect(set.statistics.brokenCoastlines == 0)
    let ocean = set.features.filter { $0.featureClass == "ocean" }
    #expect(ocean.count == 1)
    #expect(ocean.first?.layer == .water)
    #expect(ocean.first?.minZoom == 0)
    #expect(try isSea(set.features, latitude: 43.01, longitude: 7.02), "south of the coast is sea")
    #expect(try isSea(set.features, latitude: 43.045, longitude: 7.09), "just south of the coast at its east end")
    #expect(try !isSea(set.features, latitude: 43.08, longitude: 7.05), "north of the coast is land")
    #expect(try !isSea(set.features, latitude: 43.025, longitude: 7.05), "the island is land")
    #expect(try !isSea(set.features, latitude: 42.99, longitude: 7.05), "no sea outside the box")
}

@Test func coastline_withAGap_orAWayDrawnBackwards_givesNoSeaAndIsCounted() throws {
    // The west way ends at node 3, the east way starts at node 4, 10 m away: a gap.
    var gap = try coast(splitAt: [3, 4])
    let gapped = try gap.finish(bounds: try fixtureBounds())
    #expect(gapped.statistics.brokenCoastlines == 2)
    #expect(!gapped.features.contains { $0.featureClass == "ocean" })
    var backwards = try coast(eastWayReversed: true)
    let reversed = try backwards.finish(bounds: try fixtureBounds())
    #expect(reversed.statistics.brokenCoastlines > 0)
    #expect(!reversed.features.contains { $0.featureClass == "ocean" })
}

@Test func coastline_onlyAnIsland_makesTheBoxSeaAroundIt() throws {
    var e = MapFeatureExtractor()
    let none = [String: String]()
    for (id, lat, lon) in [(Int64(11), 43.02, 7.04), (12, 43.02, 7.06), (13, 43.03, 7.06), (14, 43.03, 7.04)] {
        try e.addNode(id: id, latitudeE7: Int32((lat * 1e7).rounded()), longitudeE7: Int32((lon * 1e7).rounded()), tags: none)
    }
    try e.addWay(id: 102, nodeRefs: [11, 12, 13, 14, 11], tags: ["natural": "coastline"])
    let set = try e.finish(bounds: try fixtureBounds())
    #expect(set.statistics.brokenCoastlines == 0)
    #expect(try isSea(set.features, latitude: 43.08, longitude: 7.09))
    #expect(try !isSea(set.features, latitude: 43.025, longitude: 7.05))
}

@Test func coastline_withoutBounds_usesTheNodesBox_andNoCoastlineMeansNoSea() throws {
    var e = try coast(island: false)
    var none = MapFeatureExtractor()
    try none.addNode(id: 1, latitudeE7: 430_500_000, longitudeE7: 70_500_000, tags: ["amenity": "cafe"])
    #expect(try !none.finish(bounds: try fixtureBounds()).features.contains { $0.featureClass == "ocean" })
    // Without bounds, the nodes' box (whose west and east edges the coast's ends lie on).
    let set = try e.finish()
    #expect(set.statistics.brokenCoastlines == 0)
    #expect(try isSea(set.features, latitude: 43.0495, longitude: 7.02))
}

@Test(.onOwnThread) func monaco_harbourIsSea_casinoSquareIsNot() throws {
    guard let url = try Fixtures.url("osm/monaco.osm.pbf") else { return }
    let set = try MapDataExtraction.read(url: url)
    #expect(set.statistics.coastlineWays == 28)
    #expect(set.statistics.brokenCoastlines == 0)
    // Port Hercule (the harbour basin) and the open sea off Fontvieille: sea.
    #expect(try isSea(set.features, latitude: 43.7347, longitude: 7.4268))
    #expect(try isSea(set.features, latitude: 43.7200, longitude: 7.4200))
    // Place du Casino, the Rock's palace square, and the Jardin Exotique: land.
    #expect(try !isSea(set.features, latitude: 43.7393, longitude: 7.4277))
    #expect(try !isSea(set.features, latitude: 43.7314, longitude: 7.4199))
    #expect(try !isSea(set.features, latitude: 43.7311, longitude: 7.4127))
}
