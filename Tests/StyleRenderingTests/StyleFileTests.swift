import Foundation
import GeoCore
import MapStyle
import StyleRendering
import Testing

@Test func styleResourcePaths_relativeURLsResolveAgainstTheStyleFilesFolder() throws {
    #expect(try StyleResourcePaths(base: nil, stylePath: "tests/circle/style.json").path(for: "data/a.geojson") == "tests/circle/data/a.geojson")
    #expect(try StyleResourcePaths(base: nil, stylePath: "style.json").path(for: "a.geojson") == "./a.geojson", "a bare name: the working folder")
    #expect(try StyleResourcePaths(base: nil, stylePath: "/style.json").path(for: "a.geojson") == "a.geojson", "the root: an empty folder")
    #expect(try StyleResourcePaths(base: "/b", stylePath: "s/style.json").path(for: "local://tiles/0-0-0.mvt") == "/b/tiles/0-0-0.mvt")
}

@Test func styleResourcePaths_loadReadsTheResolvedFileUpTo256MiB() throws {
    let paths = StyleResourcePaths(base: "/b", stylePath: "s/style.json")
    var asked: [(String, Int)] = []
    let bytes = try paths.load("local://data/x.geojson") { path, limit in
        asked.append((path, limit))
        return [1, 2, 3]
    }
    #expect(bytes == [1, 2, 3])
    #expect(asked.map(\.0) == ["/b/data/x.geojson"] && asked.map(\.1) == [268_435_456])
    var read = false
    #expect(throws: StyleRenderError.self, "a network URL is not read") {
        try paths.load("https://example.com/x.geojson") { _, _ in read = true; return [] }
    }
    #expect(!read)
}

@Test func styleCamera_givenValuesReplaceTheStylesAndNilKeepsThem() throws {
    let style = try StyleDocument(data: Data(#"{"version":8,"sources":{},"layers":[],"center":[7.4,43.7],"zoom":12,"bearing":30,"pitch":20}"#.utf8))
    let kept = StyleCamera(style: style, width: 100, height: 50, pixelRatio: 2, center: nil, zoom: nil, bearing: nil, pitch: nil)
    #expect(kept == StyleCamera(longitude: 7.4, latitude: 43.7, zoom: 12, bearing: 30, pitch: 20, width: 100, height: 50, pixelRatio: 2))
    let given = StyleCamera(style: style, width: 100, height: 50, pixelRatio: 2,
                            center: try Coordinate(latitude: 1, longitude: 2), zoom: 3, bearing: 0, pitch: 5)
    #expect(given == StyleCamera(longitude: 2, latitude: 1, zoom: 3, bearing: 0, pitch: 5, width: 100, height: 50, pixelRatio: 2))
}
