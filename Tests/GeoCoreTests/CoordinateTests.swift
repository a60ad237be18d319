import Testing
import GeoCore
import GeoBase

@Test func coordinate_normalisesLongitude() throws {
    let c = try Coordinate(latitude: 10, longitude: 190)
    #expect(abs(c.longitude - -170) < 1e-12) // degrees
    #expect(try Coordinate(latitude: 0, longitude: 180).longitude == -180)
    #expect(try Coordinate(latitude: 0, longitude: -540).longitude == -180)
}

@Test func coordinate_rejectsBadValues() {
    #expect(throws: GeoCoreError.self) { try Coordinate(latitude: .nan, longitude: 0) }
    #expect(throws: GeoCoreError.self) { try Coordinate(latitude: 90.000001, longitude: 0) }
    #expect(throws: GeoCoreError.self) { try Coordinate(latitude: 0, longitude: .infinity) }
}
