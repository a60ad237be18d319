import Foundation
import Testing
import GeoCore
import GeoBase

/// RFC 7946 Appendix A examples round-trip unchanged.
@Test(arguments: [
    #"{"coordinates":[100,0],"type":"Point"}"#,
    #"{"coordinates":[[100,0],[101,1]],"type":"LineString"}"#,
    #"{"coordinates":[[[100,0],[101,0],[101,1],[100,1],[100,0]],[[100.8,0.8],[100.8,0.2],[100.2,0.2],[100.2,0.8],[100.8,0.8]]],"type":"Polygon"}"#,
    #"{"coordinates":[[100,0,12.5],[101,1]],"type":"MultiPoint"}"#,
    #"{"geometries":[{"coordinates":[100,0],"type":"Point"},{"coordinates":[[101,0],[102,1]],"type":"LineString"}],"type":"GeometryCollection"}"#,
    #"{"features":[{"geometry":{"coordinates":[102,0.5],"type":"Point"},"id":7,"properties":{"n":null,"name":"x","tags":[true,1.5]},"type":"Feature"}],"type":"FeatureCollection"}"#,
])
func geoJSON_roundTrips(text: String) throws {
    let object = try GeoJSON(data: Data(text.utf8))
    let again = try GeoJSON(data: object.encoded())
    #expect(again == object)
}

@Test func geoJSON_readsPositionsLongitudeFirst() throws {
    let object = try GeoJSON(data: Data(#"{"type":"Point","coordinates":[7.42,43.73,55]}"#.utf8))
    guard case .geometry(.point(let p)) = object else { Issue.record("not a point: \(object)"); return }
    #expect(p.coordinate.latitude == 43.73 && p.coordinate.longitude == 7.42 && p.altitude == 55)
}

@Test(arguments: [
    (#"{"type":"Point","coordinates":[0,91]}"#, "latitude"),
    (#"{"type":"LineString","coordinates":[[0,1]]}"#, "two or more"),
    (#"{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,1]]]}"#, "closed"),
    (#"{"type":"Circle","coordinates":[0,0]}"#, "Circle"),
    (#"{"type":"Feature","geometry":{"type":"Point"}}"#, "coordinates"),
    (#"{"type":"Point","coordinates":[0,"#, "line 1, column 34 (byte offset 33): the text ends inside a JSON value"),
])
func geoJSON_rejectsInvalidWithAReason(text: String, reason: String) {
    do {
        _ = try GeoJSON(data: Data(text.utf8))
        Issue.record("accepted invalid GeoJSON \(text)")
    } catch {
        #expect(error.code == .invalidGeoJSON)
        #expect(error.message.contains(reason), "message '\(error.message)' does not mention \(reason)")
    }
}

/// Text that is not JSON: the error gives line, column (bytes, 1-based) and byte offset of
/// the first byte the JSON grammar (RFC 8259) cannot accept.
@Test(arguments: [
    ("{\"type\": \"LineString\",\n \"coordinates\": [[1,2], [3,4]\n", 3, 1, 53, "the text ends inside a JSON value"),
    ("{\"type\": \"Point\",\n \"coordinates\": [1,2]} x\n", 2, 24, 41, "text after the JSON value"),
    ("{\"type\": \"Point\",\n\t\"coordinates\": [1, tru]}", 2, 21, 38, "expected 'true'"),
    ("{\"type\": \"Point\" \"coordinates\": [1,2]}", 1, 18, 17, "expected ',' or '}'"),
    ("{\"type\": \"Point\",\n \"coordinates\": [01,2]}", 2, 18, 35, "a number with a leading zero"),
    ("{\"type\": \"Po\u{1}int\"}", 1, 13, 12, "a control character in a string"),
])
func geoJSON_syntaxError_givesLineColumnAndOffset(text: String, line: Int, column: Int, offset: Int, reason: String) {
    #expect {
        _ = try GeoJSON(data: Data(text.utf8))
    } throws: { error in
        guard let error = error as? GeoCoreError else { return false }
        return error.code == .invalidGeoJSON && error.message == "line \(line), column \(column) (byte offset \(offset)): \(reason)"
    }
}

/// A longitude keeps its written value beside the normalised coordinate: 180 and 190 are not
/// −180 and −170 for a map drawing the line (MapLibre's `lng / 360 + 0.5`), and they are written
/// back as read.
@Test func geoJSON_keepsTheLongitudeAsWritten() throws {
    let text = #"{"coordinates":[[-180,0],[180,0],[190,10]],"type":"LineString"}"#
    guard case .geometry(.lineString(let positions)) = try GeoJSON(data: Data(text.utf8)) else { Issue.record("not a LineString"); return }
    #expect(positions.map(\.longitude) == [-180, 180, 190])
    #expect(positions.map(\.coordinate.longitude) == [-180, -180, -170])
    #expect(String(decoding: try JSONEncoder().encode(GeoJSONGeometry.lineString(positions)), as: UTF8.self).contains("[180,0]"))
}
