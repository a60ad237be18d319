import Foundation
import GeoBase
import GeoCore
import GPXCodec
import Testing
@testable import TrackingServer

/// `TrackOutput.iso8601`: stored fix times (milliseconds since 1970) as the API prints them,
/// against times worked out by hand (2026-01-01T00:00:00Z is 1,767,225,600 s; 2025-07-02 is
/// 1,751,414,400 s), before 1970 and at every millisecond digit.
@Test func iso8601_printsMillisecondsInUTC() {
    #expect(TrackOutput.iso8601(0) == "1970-01-01T00:00:00.000Z")
    #expect(TrackOutput.iso8601(1_767_225_600_123) == "2026-01-01T00:00:00.123Z")
    #expect(TrackOutput.iso8601(1_751_414_400_999) == "2025-07-02T00:00:00.999Z")
    #expect(TrackOutput.iso8601(1_751_414_399_001) == "2025-07-01T23:59:59.001Z")
    #expect(TrackOutput.iso8601(-1) == "1969-12-31T23:59:59.999Z")
    #expect(TrackOutput.iso8601(-86_400_000) == "1969-12-31T00:00:00.000Z")
}

/// `TrackOutput.geoJSON` against GeoCore's `GeoJSON` model encoded by Foundation's `JSONEncoder`
/// with sorted keys (what the read API and /live printed before): the same bytes, for fixes with
/// and without each measurement, names that need escaping, and numbers of every magnitude.
@Test func geoJSON_theBytesTheGeoJSONModelEncodes() throws {
    var random = SplitMix64(seed: 35)
    let fixes = (0..<200).map { k -> StoredFix in
        func maybe(_ scale: Double) -> Double? { k % 3 == 0 ? nil : random.uniform(-1, 1) * scale }
        return StoredFix(device: k % 2 == 0 ? "phone \"\(k)\"\n" : "tracker-\(k)", fixTime: 1_767_225_600_000 + Int64(k) * 1_001,
                         payloadHash: Int64(k), latitude: k == 4 ? 1e-7 : random.uniform(-90, 90), longitude: k == 4 ? -0.5 : random.uniform(-180, 180),
                         altitude: maybe(9000), accuracy: maybe(50).map(abs), speed: k == 7 ? 0 : maybe(40).map(abs),
                         course: maybe(180).map { $0 + 180 }, receivedAt: 0, source: k % 5 == 0 ? "teltonika" : "osmand")
    }
    let features = fixes.map { f -> GeoJSONFeature in
        var properties: [String: JSONValue] = ["time": .string(TrackOutput.iso8601(f.fixTime)), "device": .string(f.device), "source": .string(f.source)]
        if let v = f.altitude { properties["altitude"] = .number(v) }
        if let v = f.accuracy { properties["accuracy"] = .number(v) }
        if let v = f.speed { properties["speed"] = .number(v) }
        if let v = f.course { properties["course"] = .number(v) }
        return GeoJSONFeature(geometry: .point(GeoJSONPosition(Coordinate(uncheckedLatitude: f.latitude, longitude: f.longitude))), properties: properties)
    }
    let expected = String(decoding: GeoJSON.featureCollection(features).encoded(), as: UTF8.self)
    let written = String(decoding: TrackOutput.geoJSON(fixes), as: UTF8.self)
    let firstDifference = zip(written.utf8, expected.utf8).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(written.utf8.count, expected.utf8.count)
    #expect(written == expected, "from byte \(firstDifference): \(String(decoding: Array(written.utf8).dropFirst(firstDifference).prefix(60), as: UTF8.self)) vs \(String(decoding: Array(expected.utf8).dropFirst(firstDifference).prefix(60), as: UTF8.self))")
    #expect(String(decoding: TrackOutput.geoJSON([]), as: UTF8.self) == String(decoding: GeoJSON.featureCollection([]).encoded(), as: UTF8.self))
}

/// The read API's pieces of a track, GeoJSON (`TrackOutput.geoJSON`) and GPX (GPXCodec's
/// `GPXWriter` of the track's document): each at least the asked size (and less than it plus
/// four fixes' text, fixes coming three to a time), together the bytes of the whole, across
/// pages (empty ones too) and changes of device and source; a piece ends inside a page, never
/// between two fixes of one time, so what it leaves of the page begins at a new time.
@Test(arguments: ["geojson", "gpx"]) func track_inPieces_joinsToTheWhole(format: String) throws {
    let fixes = (0..<300).map { (k: Int) -> StoredFix in
        let device = k < 150 || format == "gpx" ? "car" : "van \"2\"", source = k % 7 == 0 ? "overland" : "osmand"
        let accuracy: Double? = k % 2 == 0 ? 5 : nil
        return StoredFix(device: device, fixTime: 1_767_225_600_000 + Int64(k / 3) * 1000, payloadHash: Int64(k),
                         latitude: 48 + Double(k) / 10_000, longitude: 2.5, altitude: k % 3 == 0 ? 35.5 : nil, accuracy: accuracy,
                         speed: k % 5 == 0 ? 1.25 : nil, receivedAt: 0, source: source)
    }
    func whole(_ fixes: [StoredFix]) -> [UInt8] {
        guard format == "gpx" else { return TrackOutput.geoJSON(fixes) }
        let points = fixes.map { f -> GPXPoint in
            var p = GPXPoint(coordinate: Coordinate(uncheckedLatitude: f.latitude, longitude: f.longitude),
                             elevation: f.altitude.map(Distance.meters), time: Date(timeIntervalSince1970: Double(f.fixTime) / 1000))
            p.speed = f.speed.map(Speed.metersPerSecond)
            return p
        }
        return GPXWriter.bytes(GPXDocument(tracks: [GPXTrack(info: GPXPathInfo(name: "car"), segments: [GPXTrackSegment(points: points)])]))
    }
    func pieces(of pages: [ArraySlice<StoredFix>]) throws -> [[UInt8]] {
        var pieces: [[UInt8]] = []
        var writer: any TrackOutput.Pieces = format == "gpx"
            ? TrackOutput.GPXPieces(device: "car", pieceBytes: 2000) : TrackOutput.GeoJSONPieces(pieceBytes: 2000)
        for var page in pages {
            while let piece = writer.piece(from: &page) {
                pieces.append(piece)
                let next = try #require(page.first)
                #expect(next.fixTime != fixes[Int(next.payloadHash) - 1].fixTime)
            }
        }
        return pieces + [writer.last()]
    }
    for pages in [[fixes[...]], [fixes[..<1], fixes[1..<1], fixes[1..<157], fixes[157...]]] {
        let written = try pieces(of: pages)
        #expect(written.count > 10)
        #expect(written.dropLast().allSatisfy { $0.count >= 2000 && $0.count < 2000 + 4 * 300 }, "\(written.map(\.count))")
        #expect(Array(written.joined()) == whole(fixes))
    }
    let empty = try pieces(of: [])
    #expect(empty == [whole([])])
}
