import Foundation
import GeoBase
import GeoCore
import GeoTestSupport
import MapView
import SystemIO
import Testing

@Test func worldBase_folderIsWorldUnderTheDataFolder() {
    #expect(WorldBase.folder(environment: ["LOCATIONKIT_DATA": "/srv/data"]) == "/srv/data/world")
    #expect(WorldBase.folder(environment: [:]) == "../shared/data/world")
}

@Test func worldBase_readsNaturalEarthFromItsFolder() throws {
    guard let folder = try Fixtures.url("world") else { return }
    let base = try WorldBase(folder: folder.path, read: { try FileDescriptor.readContentsIfPresent(of: $0) })
    // ne_110m_countries.geojson: 177 countries, 287 polygons counting each part of a
    // MultiPolygon (Python's json module over the same file); ne_cities.geojson: 243 places.
    #expect(base.countries.count == 287)
    #expect(base.cities.count == 243)
    // Paris, 48.8566° N 2.3522° E (IGN), within 0.01° in Natural Earth's point.
    let paris = try #require(base.cities.first { $0.name == "Paris" })
    #expect(abs(paris.coordinate.latitude - 48.8566) < 0.01 && abs(paris.coordinate.longitude - 2.3522) < 0.01)
}

@Test func worldBase_missingFilesGiveLessNotAFailure() throws {
    try withTemporaryDirectory { dir in
        let empty = try WorldBase(folder: dir.path, read: { try FileDescriptor.readContentsIfPresent(of: $0) })
        #expect(empty.countries.isEmpty && empty.cities.isEmpty, "no countries file: the plain globe")
        guard let countries = try Fixtures.url("world/ne_110m_countries.geojson") else { return }
        try FileManager.default.copyItem(at: countries, to: dir.appendingPathComponent(WorldBase.countriesFile))
        let noCities = try WorldBase(folder: dir.path, read: { try FileDescriptor.readContentsIfPresent(of: $0) })
        #expect(noCities.countries.count == 287 && noCities.cities.isEmpty)
    }
}

@Test func worldBase_aDamagedFileIsAnErrorWithItsPlace() throws {
    try withTemporaryDirectory { dir in
        try Data("{\"type\":\"FeatureCollection\",\"features\":[\n".utf8).write(to: dir.appendingPathComponent(WorldBase.countriesFile))
        let error = #expect(throws: GeoCoreError.self) { try WorldBase(folder: dir.path, read: { try FileDescriptor.readContentsIfPresent(of: $0) }) }
        #expect(error?.code == .invalidGeoJSON)
        #expect("\(String(describing: error))".contains("line 2, column 1"), "\(String(describing: error))")
    }
}
