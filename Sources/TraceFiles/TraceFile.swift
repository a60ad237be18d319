import Foundation
public import GeoBase
import GeoCore
public import GPXCodec
public import MapMatching
import NMEACodec
import SystemIO

/// The domain of TraceFiles' one error type.
public enum TraceFileErrorDomain {}
/// The one error type of TraceFiles (STYLE.md §3.7): a growable code, a message, and where in
/// which file (`path:line`, `path:line:column`, or the path and a JSON path in the message).
public typealias TraceFileError = LocatedError<TraceFileErrorDomain>

extension ErrorCode where Domain == TraceFileError {
    /// The file cannot be opened or read.
    public static var unreadable: Self { Self("unreadable") }
    /// The file is not of its format (GPX that is not XML, GeoJSON that is not JSON).
    public static var malformed: Self { Self("malformed") }
    /// A value of the format that this reader refuses: a CSV row without a position, a time
    /// outside the years 0001 to 9999, a times array of the wrong length.
    public static var invalidValue: Self { Self("invalid value") }
}

/// A recorded track read as the fixes a matcher takes, in file order, from GPX, GeoJSON, CSV or
/// NMEA 0183 (`geo match`'s input).
///
/// - GPX: track points, then route points; a point whose `lat` or `lon` is missing, not a
///   number or out of range stays in the order as nil, with a warning.
/// - GeoJSON (RFC 7946): Points and LineStrings (multi and in collections), times from a
///   `coordTimes` or `times` property with one time per position (ISO 8601 or Unix seconds).
/// - CSV: a header naming `lat`/`latitude` and `lon`/`lng`/`longitude`, optionally `time`
///   (ISO 8601 or Unix seconds) and `accuracy` (68 % radius, metres).
/// - NMEA: the fixes the decoder assembles from any sentences.
public struct TraceFile: Sendable {
    /// The fixes in file order; nil for a GPX point that could not be read.
    public var entries: [TracePoint?]
    /// One line per nil entry, `line:column: why`.
    public var warnings: [String]

    /// Reads `path` (`-`: standard input) by its extension: `.gpx`, `.geojson` / `.json`,
    /// `.csv`, NMEA otherwise (standard input too).
    /// - Throws: `TraceFileError` with the file and the place of the first problem.
    public init(path: String) throws(TraceFileError) {
        warnings = []
        switch Self.fileExtension(of: path) {
        case "gpx": entries = try Self.gpx(path, warnings: &warnings)
        case "geojson", "json": entries = try Self.geoJSON(path)
        case "csv": entries = try Self.csv(path)
        default: entries = try Self.nmea(path)
        }
    }

    /// The lowercased extension of the last component of `path` ("" for none, a leading dot
    /// not counting: `.gpx` has none), as `URL.pathExtension` gives it, without building a
    /// Foundation `URL` (a type lookup over the whole binary's conformances in every process).
    package static func fileExtension(of path: String) -> String {
        let name = path.split(separator: "/", omittingEmptySubsequences: true).last ?? ""
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return name[name.index(after: dot)...].lowercased()
    }

    /// Runs `body` on a source reading `path` (`-`: standard input), then closes the file.
    private static func withSource<Result>(_ path: String, _ body: (FileSource) throws(TraceFileError) -> Result) throws(TraceFileError) -> Result {
        if path == "-" { return try body(FileSource(.standardInput)) }
        let descriptor: FileDescriptor
        do { descriptor = try FileDescriptor(opening: path) } catch { throw TraceFileError(.unreadable, error.description, at: path) }
        defer { try? descriptor.close() }
        return try body(FileSource(descriptor, path: path))
    }

    /// Hands each chunk of up to 64 KiB of `path` to `body`.
    private static func readChunks(_ path: String, _ body: (UnsafeRawBufferPointer) -> Void) throws(TraceFileError) {
        try withSource(path) { (source: FileSource) throws(TraceFileError) in
            var source = source
            do { try source.forEachChunk(body) } catch { throw TraceFileError(.unreadable, "\(error)", at: path) }
        }
    }

    /// The whole file's bytes.
    private static func contents(_ path: String) throws(TraceFileError) -> [UInt8] {
        var bytes: [UInt8] = []
        try readChunks(path) { bytes.append(contentsOf: $0) }
        return bytes
    }

    package static func gpx(_ path: String, warnings: inout [String]) throws(TraceFileError) -> [TracePoint?] {
        try withSource(path) { (source: FileSource) throws(TraceFileError) in try gpx(source, path: path, warnings: &warnings) }
    }

    private static func gpx(_ source: FileSource, path: String, warnings: inout [String]) throws(TraceFileError) -> [TracePoint?] {
        // Every warning kept: each dropped point needs its place.
        let reader = GPXStreamReader(source: source, options: GPXReadOptions(warningLimit: .max))
        var track: [TracePoint?] = [], route: [TracePoint?] = []
        var seen = 0, more = true
        do throws(GPXError) {
            while more {
                let event = try reader.next()
                more = event != nil
                // The warnings since the last event are about elements before this one.
                let all = reader.warnings
                for w in all[seen...] where w.code == .pointDropped {
                    let name = w.element.split(separator: ":").last ?? ""
                    guard name == "trkpt" || name == "rtept" else { continue }
                    if name == "trkpt" { track.append(nil) } else { route.append(nil) }
                    warnings.append("\(w.line):\(w.column): \(w.message)")
                }
                seen = all.count
                switch event {
                case .trackPoint(let p)?: track.append(fix(p))
                case .routePoint(let p)?: route.append(fix(p))
                default: break
                }
            }
        } catch {
            throw Self.failure(error, path)
        }
        return track + route
    }

    /// The GPX file at `path` (`-`: standard input) read whole: what draws its tracks and routes
    /// (`geo snapshot --track`).
    /// - Throws: `TraceFileError` at `path:line:column` of the first problem (`.unreadable` when
    ///   reading failed there, else `.malformed`), or `.unreadable` at `path` when it cannot be opened.
    public static func gpxDocument(_ path: String) throws(TraceFileError) -> GPXDocument {
        try withSource(path) { (source: FileSource) throws(TraceFileError) in
            do throws(GPXError) { return try GPXReader.read(source) } catch { throw failure(error, path) }
        }
    }

    /// A GPX reader's error as the file's, at its line and column.
    private static func failure(_ error: GPXError, _ path: String) -> TraceFileError {
        TraceFileError(error.code == .io ? .unreadable : .malformed, error.message, at: "\(path):\(error.line):\(error.column)")
    }

    /// A GPX point as a fix: through the one GPX bridge when it has a time, else its position
    /// with the bridge's accuracy from HDOP.
    private static func fix(_ p: GPXPoint) -> TracePoint {
        if let l = Location(gpxPoint: p) { return TracePoint(l) }
        return TracePoint(coordinate: p.coordinate, time: p.time,
                          horizontalAccuracy: GPXAccuracyPolicy.default.horizontalAccuracy(recorded: nil, hdop: p.hdop))
    }

    package static func geoJSON(_ path: String) throws(TraceFileError) -> [TracePoint] {
        let document: GeoJSON
        do { document = try GeoJSON(data: Data(try contents(path))) } catch let error as TraceFileError { throw error } catch {
            throw TraceFileError(.malformed, "\(error)", at: path)
        }
        var out: [TracePoint] = []
        func refuse(_ message: String, _ place: String) -> TraceFileError {
            TraceFileError(.invalidValue, "\(place) \(message); the file is refused", at: path)
        }
        func time(_ v: JSONValue, _ place: String) throws(TraceFileError) -> Date {
            var date: Date?
            if case .string(let s) = v { date = ISO8601Time.date(from: s) }
            if case .number(let x) = v, CivilCalendar.fourDigitYears.contains(x) { date = Date(timeIntervalSince1970: x) }
            guard let date, CivilCalendar.fourDigitYears.contains(date.timeIntervalSince1970) else {
                throw refuse("is not an ISO 8601 time or Unix seconds in the years 0001 to 9999", place)
            }
            return date
        }
        func times(_ value: JSONValue?, count: Int, _ place: String) throws(TraceFileError) -> [Date]? {
            guard let value else { return nil }
            guard case .array(let values) = value, values.count == count else {
                throw refuse("must be an array of \(count) times, one per position", place)
            }
            var out: [Date] = []
            for (k, v) in values.enumerated() { out.append(try time(v, "\(place)[\(k)]")) }
            return out
        }
        func add(_ geometry: GeoJSONGeometry?, _ properties: [String: JSONValue]?, _ place: String) throws(TraceFileError) {
            let key = properties?["coordTimes"] != nil ? "coordTimes" : "times"
            let given = properties?[key], timesPlace = "\(place).properties.\(key)"
            func line(_ ps: [GeoJSONPosition], _ times: [Date]?) {
                for (i, p) in ps.enumerated() { out.append(TracePoint(coordinate: p.coordinate, time: times?[i])) }
            }
            switch geometry {
            case .point(let p)?:
                out.append(TracePoint(coordinate: p.coordinate, time: try times(given, count: 1, timesPlace)?[0]))
            case .multiPoint(let ps)?, .lineString(let ps)?:
                line(ps, try times(given, count: ps.count, timesPlace))
            case .multiLineString(let lines)?:
                guard let given else { for l in lines { line(l, nil) }; return }
                guard case .array(let perLine) = given, perLine.count == lines.count else {
                    throw refuse("must be an array of \(lines.count) arrays of times, one per line", timesPlace)
                }
                for (k, l) in lines.enumerated() { line(l, try times(perLine[k], count: l.count, "\(timesPlace)[\(k)]")) }
            case .geometryCollection(let gs)?:
                for (k, g) in gs.enumerated() { try add(g, nil, "\(place).geometries[\(k)]") }
            default: break
            }
        }
        switch document {
        case .geometry(let g): try add(g, nil, "$")
        case .feature(let f): try add(f.geometry, f.properties, "$")
        case .featureCollection(let fs): for (i, f) in fs.enumerated() { try add(f.geometry, f.properties, "$.features[\(i)]") }
        }
        return out
    }

    package static func csv(_ path: String) throws(TraceFileError) -> [TracePoint] {
        var lines = String(decoding: try contents(path), as: UTF8.self).split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        while let last = lines.last, last.trimmingCharacters(in: .whitespaces).isEmpty { lines.removeLast() }
        guard let header = lines.first else { return [] }
        let names = header.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        func column(_ options: [String]) -> Int? { names.firstIndex(where: options.contains) }
        guard let lat = column(["lat", "latitude"]), let lon = column(["lon", "lng", "longitude"]) else {
            throw TraceFileError(.invalidValue, "the header names no lat/latitude and lon/lng/longitude columns", at: "\(path):1")
        }
        let time = column(["time", "timestamp"]), acc = column(["accuracy", "horizontalaccuracy", "horizontal_accuracy"])
        var out: [TracePoint] = []
        for (n, line) in lines.enumerated().dropFirst() where !line.trimmingCharacters(in: .whitespaces).isEmpty {
            let f = line.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard lat < f.count, lon < f.count, let y = Double(f[lat]), let x = Double(f[lon]),
                  let c = try? Coordinate(latitude: y, longitude: x)
            else { throw TraceFileError(.invalidValue, "expected a latitude and longitude in degrees", at: "\(path):\(n + 1)") }
            var t: Date?
            if let time, time < f.count, !f[time].isEmpty {
                if let seconds = Double(f[time]) { t = Date(timeIntervalSince1970: seconds) } else if let d = ISO8601Time.date(from: f[time]) {
                    t = d
                } else {
                    throw TraceFileError(.invalidValue, "time '\(f[time])' is neither ISO 8601 nor Unix seconds", at: "\(path):\(n + 1)")
                }
                guard let seconds = t?.timeIntervalSince1970, CivilCalendar.fourDigitYears.contains(seconds) else {
                    throw TraceFileError(.invalidValue, "time '\(f[time])' is outside the years 0001 to 9999", at: "\(path):\(n + 1)")
                }
            }
            let a = acc.flatMap { $0 < f.count ? Double(f[$0]) : nil }
            out.append(TracePoint(coordinate: c, time: t, horizontalAccuracy: a.map { .meters($0) }))
        }
        return out
    }

    package static func nmea(_ path: String) throws(TraceFileError) -> [TracePoint] {
        var decoder = NMEADecoder(options: NMEADecoder.Options(collectSatellites: false))
        var out: [TracePoint] = []
        try readChunks(path) { decoder.decode($0) { if let l = $0.location { out.append(TracePoint(l)) } } }
        decoder.finish { if let l = $0.location { out.append(TracePoint(l)) } }
        return out
    }
}
