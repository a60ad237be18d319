import Foundation
import GeoCore
import GPXCodec
import GeoTestSupport
import MapMatching
import OSMImport
import RoadNetwork
import Routing
import Testing
import TraceFiles

/// A route in each format: one line of JSON (OSRM-like object) or GeoJSON (a Feature), each
/// ending in a newline, or the GPX document `Route.gpx(creator:)` writes; the three agree on
/// the distance (m, to 0.001).
@Test func pathFormat_route_eachFormatOfTheSameRoute() throws {
    let route = try SampleCityRoute.make().route
    let json = try PathFormat.json.text(of: route, creator: "t")
    let geojson = try PathFormat.geojson.text(of: route, creator: "t")
    for text in [json, geojson] { #expect(text.hasSuffix("}\n") && text.filter { $0 == "\n" }.count == 1) }
    let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    let distance = try #require(object["distance_m"] as? Double)
    #expect(abs(distance - route.distance.meters) <= 0.0005)
    let feature = try #require(try JSONSerialization.jsonObject(with: Data(geojson.utf8)) as? [String: Any])
    #expect(feature["type"] as? String == "Feature")
    #expect((feature["properties"] as? [String: Any])?["distance_m"] as? Double == distance)
    let gpx = try PathFormat.gpx.text(of: route, creator: "t")
    #expect(gpx == (try route.gpx(creator: "t")))
    #expect(try GPXReader.read(bytes: Array(gpx.utf8)).routes.count == 1)
}

/// A match in each format ends in one newline; the JSON is OSRM's `/match` shape with one
/// tracepoint per entry (null for the unread one), the GeoJSON and GPX hold the matched line.
@Test func pathFormat_match_eachFormatEndsInANewline() throws {
    let trace = try StraightStreetTrace()
    let entries = trace.entries
    let result = trace.matcher.match(entries.compactMap(\.self))
    let json = PathFormat.json.bytes(of: result, entries: entries)
    #expect(json.last == UInt8(ascii: "\n") && json.filter { $0 == UInt8(ascii: "\n") }.count == 1)
    let object = try #require(try JSONSerialization.jsonObject(with: Data(json)) as? [String: Any])
    #expect(object["code"] as? String == "Ok")
    let tracepoints = try #require(object["tracepoints"] as? [Any])
    #expect(tracepoints.count == entries.count && tracepoints[3] is NSNull)
    let geojson = PathFormat.geojson.bytes(of: result, entries: entries)
    #expect(geojson.last == UInt8(ascii: "\n") && String(decoding: geojson, as: UTF8.self).contains("LineString"))
    let gpx = String(decoding: PathFormat.gpx.bytes(of: result, entries: entries), as: UTF8.self)
    #expect(gpx.hasSuffix("</trk>\n</gpx>\n"))
    #expect(try GPXReader.read(bytes: Array(gpx.utf8)).tracks.isEmpty == false)
}
