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

    /// A time in milliseconds since 1970 as ISO 8601 UTC with milliseconds
    /// (`2026-01-01T00:00:00.123Z`), through GeoBase's one writer, `ISO8601Time`.
    static func iso8601(_ milliseconds: Int64) -> String {
        ISO8601Time.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000), fractionDigits: 3)
    }
}
