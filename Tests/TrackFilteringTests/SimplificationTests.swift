import Testing
import GeoCore
@testable import TrackFiltering

private func coordinates(_ xy: [(Double, Double)]) -> [Coordinate] {
    xy.map { testFrame.coordinate(east: $0.0, north: $0.1) }
}

@Test func douglasPeucker_handCheckedZigzag() {
    // a b c d e f g. From chord a–g, d is 10 m off: kept. From chord a–d (direction (30, 10)),
    // c is |20·10 + 0.3·30| / √1000 = 6.6 m off: kept; then b is 0.65 m from a–c: dropped.
    // From chord d–g, e is 200 / √1000 = 6.3 m off: kept; f is 0.2 m from e–g: dropped.
    let points = coordinates([(0, 0), (10, 0.5), (20, -0.3), (30, 10), (40, 0), (50, 0.2), (60, 0)])
    #expect(Simplification.keptIndices(points, tolerance: .meters(1), method: .douglasPeucker) == [0, 2, 3, 4, 6])
    #expect(Simplification.keptIndices(points, tolerance: .meters(6.5), method: .douglasPeucker) == [0, 2, 3, 6])
    #expect(Simplification.keptIndices(points, tolerance: .meters(11), method: .douglasPeucker) == [0, 6])
    #expect(Simplification.keptIndices(points, tolerance: .meters(0.1), method: .douglasPeucker) == Array(0...6))
}

@Test func visvalingamWhyatt_handCheckedAreas() {
    // Triangle areas (m²): b = 10·1/2·… computed by hand: (0,0),(10,1),(20,0) → 10; (10,1),(20,0),(30,8) → 45;
    // (20,0),(30,8),(40,0) → 80. With tolerance 5 m (25 m²) only b goes; after that c's triangle
    // (0,0),(20,0),(30,8) has area 80 ≥ 25, so it stays.
    let points = coordinates([(0, 0), (10, 1), (20, 0), (30, 8), (40, 0)])
    #expect(Simplification.keptIndices(points, tolerance: .meters(5), method: .visvalingamWhyatt) == [0, 2, 3, 4])
    #expect(Simplification.keptIndices(points, tolerance: .meters(9.5), method: .visvalingamWhyatt) == [0, 3, 4])
    #expect(Simplification.keptIndices(points, tolerance: .meters(100), method: .visvalingamWhyatt) == [0, 4])
}

@Test func simplification_keepsShortLines() {
    let two = coordinates([(0, 0), (5, 5)])
    for method in Simplification.Method.allCases {
        #expect(Simplification.keptIndices(two, tolerance: .meters(100), method: method) == [0, 1])
        #expect(Simplification.keptIndices([], tolerance: .meters(1), method: method) == [])
    }
}
