import Testing
import GeoCore
import GeoBase

@Test func boundingBox_coveringPicksTheNarrowerSideOfTheAntimeridian() throws {
    let points = [try Coordinate(latitude: -17, longitude: 178), try Coordinate(latitude: -18, longitude: -179.5),
                  try Coordinate(latitude: -16, longitude: 179.2)]
    let box = try #require(BoundingBox(covering: points))
    #expect(box.crossesAntimeridian)
    #expect(box.west == 178 && box.east == -179.5 && box.south == -18 && box.north == -16)
    #expect(abs(box.longitudeSpan - 2.5) < 1e-12) // degrees
    #expect(box.contains(try Coordinate(latitude: -17, longitude: 180)))
    #expect(!box.contains(try Coordinate(latitude: -17, longitude: 0)))
}

@Test func boundingBox_intersectsAcrossTheAntimeridian() throws {
    let a = try BoundingBox(south: 0, west: 170, north: 10, east: -170)
    let b = try BoundingBox(south: 5, west: -175, north: 20, east: -160)
    let c = try BoundingBox(south: 5, west: 0, north: 20, east: 10)
    #expect(a.intersects(b) && b.intersects(a))
    #expect(!a.intersects(c))
}

@Test func boundingBox_expandsTheShortWay() throws {
    let box = try BoundingBox(south: 0, west: 170, north: 1, east: 175)
    let grown = box.expanded(toInclude: try Coordinate(latitude: 2, longitude: -178))
    #expect(grown.east == -178 && grown.west == 170 && grown.north == 2)
}

@Test func boundingBox_rejectsInvertedLatitudes() {
    #expect(throws: GeoCoreError.self) { try BoundingBox(south: 10, west: 0, north: 5, east: 1) }
    #expect(throws: GeoCoreError.self) { try BoundingBox(south: 0, west: .nan, north: 5, east: 1) }
}
