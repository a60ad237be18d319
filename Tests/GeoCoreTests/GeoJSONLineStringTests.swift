import Foundation
import GeoCore
import Testing

/// `firstLineString` finds a route however the document holds it, and nothing where none is.
@Test func firstLineString_geometryFeatureOrCollection() throws {
    let line = #"{"type":"LineString","coordinates":[[11.0,48.0],[11.001,48.002,520]]}"#
    let point = #"{"type":"Point","coordinates":[7.42,43.73]}"#
    let expected = [try Coordinate(latitude: 48, longitude: 11), try Coordinate(latitude: 48.002, longitude: 11.001)]
    let texts = [line, #"{"type":"Feature","properties":{},"geometry":\#(line)}"#,
                 #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":null,"geometry":\#(point)},"#
                    + #"{"type":"Feature","properties":null,"geometry":\#(line)}]}"#]
    for text in texts {
        #expect(try GeoJSON(data: Data(text.utf8)).firstLineString == expected, "\(text)")
    }
    #expect(try GeoJSON(data: Data(point.utf8)).firstLineString == nil)
    #expect(try GeoJSON(data: Data(#"{"type":"FeatureCollection","features":[]}"#.utf8)).firstLineString == nil)
}
