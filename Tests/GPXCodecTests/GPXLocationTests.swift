import Foundation
import GeoBase
import GeoCore
import Testing
import GPXCodec

private let t0 = Date(timeIntervalSince1970: 1_790_000_000.25)

@Test func gpxLocation_roundTripsEveryField() throws {
    let fix = Location(coordinate: Coordinate(uncheckedLatitude: 48.137_154_3, longitude: 11.575_490_9), timestamp: t0,
                       altitude: .meters(519.37), ellipsoidalAltitude: .meters(566.91),
                       horizontalAccuracy: .meters(3.2), verticalAccuracy: .meters(6.4),
                       speed: .metersPerSecond(13.89), speedAccuracy: .metersPerSecond(0.25),
                       course: .degrees(87.5), courseAccuracy: .degrees(1.5), climb: .metersPerSecond(-0.125),
                       fixMode: .threeDimensional, fixQuality: .differential, satelliteCount: 9)
    let point = GPXPoint(location: fix)
    #expect(point.fix == .threeDimensional && point.satellites == 9)
    #expect(point.extensions?.xml.contains("<lk:cacc>1.5</lk:cacc><lk:climb>-0.125</lk:climb>") == true)
    #expect(Location(gpxPoint: point) == fix)
    // Through the writer and reader too.
    var document = GPXDocument(header: GPXHeader(creator: "test", namespaces: [
        GPXNamespace(prefix: GPXPoint.locationExtensionPrefix, uri: GPXPoint.locationExtensionNamespace)]))
    document.tracks = [GPXTrack(segments: [GPXTrackSegment(points: [point])])]
    let back = try GPXReader.read(bytes: GPXWriter.write(document, to: MemorySink()).bytes)
    let read = try #require(back.tracks.first?.segments.first?.points.first)
    #expect(Location(gpxPoint: read) == fix)
}

@Test func gpxLocation_pointWithoutTimeIsNoFix() {
    #expect(Location(gpxPoint: GPXPoint(coordinate: Coordinate(uncheckedLatitude: 1, longitude: 2))) == nil)
}

/// The one accuracy policy: recorded, else HDOP × UERE, else assumed, else none.
@Test func gpxAccuracyPolicy_takesRecordedThenHDOPThenAssumed() {
    var plain = GPXPoint(coordinate: Coordinate(uncheckedLatitude: 1, longitude: 2), time: t0)
    let policy = GPXAccuracyPolicy(uere: .meters(4), assumed: .meters(10))
    #expect(Location(gpxPoint: plain, accuracy: policy)?.horizontalAccuracy == .meters(10))
    #expect(Location(gpxPoint: plain)?.horizontalAccuracy == nil) // the default assumes nothing
    plain.hdop = 1.5
    #expect(Location(gpxPoint: plain, accuracy: policy)?.horizontalAccuracy == .meters(6))
    #expect(Location(gpxPoint: plain)?.horizontalAccuracy == .meters(7.5)) // default UERE 5 m
    #expect(Location(gpxPoint: plain, accuracy: GPXAccuracyPolicy(uere: nil, assumed: .meters(10)))?.horizontalAccuracy == .meters(10))
    plain.extensions = GPXExtensions(xml: "<lk:acc>2.5</lk:acc>")
    #expect(Location(gpxPoint: plain, accuracy: policy)?.horizontalAccuracy == .meters(2.5))
}

/// GPX 1.0's own speed and course are read; the extension's values win where both exist.
@Test func gpxLocation_extensionOverridesGPX10Fields() {
    var p = GPXPoint(coordinate: Coordinate(uncheckedLatitude: 1, longitude: 2), time: t0)
    p.speed = .metersPerSecond(3)
    p.course = .degrees(40)
    #expect(Location(gpxPoint: p)?.speed == .metersPerSecond(3) && Location(gpxPoint: p)?.course == .degrees(40))
    p.extensions = GPXExtensions(xml: "<x:speed>4</x:speed>")
    #expect(Location(gpxPoint: p, extensionPrefix: "x")?.speed == .metersPerSecond(4))
    #expect(Location(gpxPoint: p)?.speed == .metersPerSecond(3)) // another prefix is not ours
}

@Test func gpxPoint_updateFromAFixKeepsTheRest() {
    var p = GPXPoint(coordinate: Coordinate(uncheckedLatitude: 1, longitude: 2), elevation: .meters(100), time: t0)
    p.name = "start"
    p.hdop = 2
    p.extensions = GPXExtensions(xml: "<hr>120</hr>")
    let fix = Location(coordinate: Coordinate(uncheckedLatitude: 1.5, longitude: 2.5), timestamp: t0 + 1,
                       speed: .metersPerSecond(2), course: .degrees(90))
    p.update(from: fix)
    #expect(p.coordinate == fix.coordinate && p.time == t0 + 1 && p.speed == .metersPerSecond(2) && p.course == .degrees(90))
    #expect(p.elevation == .meters(100)) // the fix has none
    #expect(p.name == "start" && p.hdop == 2 && p.extensions == GPXExtensions(xml: "<hr>120</hr>"))
}

@Test func gpxDocument_geoJSONHasAFeaturePerWaypointRouteAndTrack() throws {
    var document = GPXDocument()
    var w = GPXPoint(coordinate: Coordinate(uncheckedLatitude: 46.5, longitude: 14.25), elevation: .meters(.nan), time: t0)
    w.name = "hut"
    document.waypoints = [w]
    document.routes = [GPXRoute(info: GPXPathInfo(name: "plan"), points: [
        GPXPoint(coordinate: Coordinate(uncheckedLatitude: 1, longitude: 2)), GPXPoint(coordinate: Coordinate(uncheckedLatitude: 3, longitude: 4))])]
    document.tracks = [GPXTrack(segments: [
        GPXTrackSegment(points: [GPXPoint(coordinate: Coordinate(uncheckedLatitude: 5, longitude: 6), elevation: .meters(700), time: t0),
                                 GPXPoint(coordinate: Coordinate(uncheckedLatitude: 5.5, longitude: 6.5), time: t0 + 60)]),
        GPXTrackSegment()])]
    guard case .featureCollection(let features) = document.geoJSON else { Issue.record("not a FeatureCollection"); return }
    #expect(features.count == 3)
    // A NaN elevation is left out, so the document stays valid JSON.
    #expect(features[0].geometry == .point(GeoJSONPosition(w.coordinate)))
    #expect(features[0].properties == ["kind": .string("waypoint"), "name": .string("hut"), "time": .string(ISO8601Time.string(from: t0))])
    #expect(features[1].properties == ["kind": .string("route"), "name": .string("plan")])
    #expect(features[2].geometry == .multiLineString([[GeoJSONPosition(Coordinate(uncheckedLatitude: 5, longitude: 6), altitude: 700),
                                                       GeoJSONPosition(Coordinate(uncheckedLatitude: 5.5, longitude: 6.5))], []]))
    #expect(features[2].properties?["end"] == .string(ISO8601Time.string(from: t0 + 60)))
    let text = String(decoding: document.geoJSON.encoded(), as: UTF8.self)
    #expect(text.contains("{\"coordinates\":[[[6,5,700],[6.5,5.5]],[]],\"type\":\"MultiLineString\"}"), "\(text)")
}
