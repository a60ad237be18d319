import Foundation
import GeoCore
import GPXCodec
import GeoBase

/// Stored fixes as the read API's formats.
enum TrackOutput {
    /// A GeoJSON FeatureCollection (RFC 7946) of Point features, one a fix, in fix-time order,
    /// with `time` (ISO 8601 UTC, milliseconds) and the measurements present (metres, m/s,
    /// degrees) as properties.
    static func geoJSON(_ fixes: [StoredFix]) -> [UInt8] {
        let features = fixes.map { f -> GeoJSONFeature in
            var properties: [String: JSONValue] = ["time": .string(iso8601(f.fixTime)), "device": .string(f.device), "source": .string(f.source)]
            if let v = f.altitude { properties["altitude"] = .number(v) }
            if let v = f.accuracy { properties["accuracy"] = .number(v) }
            if let v = f.speed { properties["speed"] = .number(v) }
            if let v = f.course { properties["course"] = .number(v) }
            return GeoJSONFeature(geometry: .point(GeoJSONPosition(Coordinate(uncheckedLatitude: f.latitude, longitude: f.longitude))),
                                  properties: properties)
        }
        return Array(GeoJSON.featureCollection(features).encoded())
    }

    /// GPX 1.1 with one track of one segment, named after the device.
    static func gpx(_ fixes: [StoredFix], device: String) -> [UInt8] {
        let points = fixes.map { f -> GPXPoint in
            var p = GPXPoint(coordinate: Coordinate(uncheckedLatitude: f.latitude, longitude: f.longitude),
                             elevation: f.altitude.map(Distance.meters), time: Date(timeIntervalSince1970: Double(f.fixTime) / 1000))
            p.speed = f.speed.map(Speed.metersPerSecond)
            p.course = f.course.map(Bearing.degrees)
            return p
        }
        var info = GPXPathInfo()
        info.name = device
        return GPXWriter.bytes(GPXDocument(tracks: [GPXTrack(info: info, segments: [GPXTrackSegment(points: points)])]))
    }

    static func iso8601(_ milliseconds: Int64) -> String {
        let seconds = Int(milliseconds.quotientAndRemainder(dividingBy: 1000).quotient - (milliseconds % 1000 < 0 ? 1 : 0))
        let ms = Int(milliseconds - Int64(seconds) * 1000)
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let s = seconds - days * 86_400
        let (y, m, d) = CivilCalendar.date(fromDays: days)
        func pad(_ v: Int, _ n: Int) -> String { String(repeating: "0", count: max(0, n - String(v).count)) + String(v) }
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(s / 3600, 2)):\(pad(s / 60 % 60, 2)):\(pad(s % 60, 2)).\(pad(ms, 3))Z"
    }
}
